// SPDX-License-Identifier: GPL-2.0
/*
 * How many enablers one process may have.
 *
 * kernel.user_events_max_enablers (default 65536) bounds the enablers of
 * one process, whichever thread registers them: beyond it DIAG_IOCSREG
 * fails with ENOSPC and leaves nothing (no enabler, no event, no write
 * index); unregistering one makes room again; lowering the limit keeps
 * what exists; a fork child inherits all of its parent's, up to the
 * limit, and is then at the limit itself; another process has its own
 * count. enabler_fork_test forks a process with 60,000 enablers.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>

#include "user_events_selftests.h"

#define LIMIT_FILE	"/proc/sys/kernel/user_events_max_enablers"
#define LIMIT_DEFAULT	65536

#define EV_LIM		"__el_limit"
#define EV_LIM_CMD	EV_LIM " u32 a"
#define EV_LIM2		"__el_limit2"
#define EV_LIM2_CMD	EV_LIM2 " u64 b"

#define SMALL		64

static int el_read_limit(void)
{
	char *text = ue_read_file(LIMIT_FILE);
	int limit = text ? atoi(text) : -1;

	free(text);

	return limit;
}

static int el_write_limit(int limit)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d\n", limit);

	return ue_write_str(LIMIT_FILE, buf, 0);
}

/* Register enablers [from, to) of @cmd: bit i % 32 of words[i / 32] */
static int el_reg_range(int fd, const char *cmd, int *words, int from, int to)
{
	int i;

	for (i = from; i < to; i++) {
		if (ue_reg_fd(fd, cmd, &words[i / 32], i % 32, 4, 0, NULL))
			return i;
	}

	return to;
}

/* Unregister enablers [from, to): how many were there */
static int el_unreg_range(int fd, int *words, int from, int to)
{
	int i, found = 0;

	for (i = from; i < to; i++)
		found += ue_unreg_fd(fd, &words[i / 32], i % 32) == 0;

	return found;
}

/* Every word of [0, n) is @want */
static bool el_words_are(const int *words, int n, int want)
{
	int i;

	for (i = 0; i < n; i++) {
		if (ue_load(&words[i]) != want)
			return false;
	}

	return true;
}

static int *el_words(int n)
{
	int *words = mmap(NULL, n * sizeof(int), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return words == MAP_FAILED ? NULL : words;
}

FIXTURE(limit) {
	int saved;		/* the limit to restore, or -1 */
	int *words;
	int fd;
	bool umount;
};

FIXTURE_SETUP(limit) {
	self->saved = -1;
	self->fd = -1;
	self->words = NULL;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_del(EV_LIM);
	ue_del(EV_LIM2);
	self->words = el_words(SMALL / 32 + 4);
	ASSERT_NE(0, (uintptr_t)self->words);
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(limit) {
	if (self->fd >= 0)
		close(self->fd);
	if (self->saved >= 0)
		el_write_limit(self->saved);
	ue_del(EV_LIM);
	ue_del(EV_LIM2);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * Save the limit in @saved and set it to @limit. On a kernel without the
 * limit, mark the test skipped, saying why, and return false.
 */
static bool el_need_limit(struct __test_metadata *_metadata, int *saved,
			  int limit)
{
	if (!ue_exists(LIMIT_FILE))
		SKIP(return false, "no " LIMIT_FILE " in this kernel");
	*saved = el_read_limit();
	ASSERT_LT(0, *saved);
	ASSERT_EQ(0, el_write_limit(limit));
	ASSERT_EQ(limit, el_read_limit());

	return true;
}

TEST_F(limit, default_limit) {
	if (!ue_exists(LIMIT_FILE))
		SKIP(return, "no " LIMIT_FILE " in this kernel");
	ASSERT_EQ(LIMIT_DEFAULT, el_read_limit());
}

TEST_F(limit, enospc_beyond_the_limit) {
	int index = -1, active;

	if (!el_need_limit(_metadata, &self->saved, SMALL))
		return;
	ASSERT_EQ(SMALL, el_reg_range(self->fd, EV_LIM_CMD, self->words, 0,
				      SMALL));
	active = ue_active_count();

	/* One more of the same event: ENOSPC, nothing left */
	ASSERT_EQ(-1, ue_reg_fd(self->fd, EV_LIM_CMD, &self->words[SMALL / 32],
				SMALL % 32, 4, 0, NULL));
	ASSERT_EQ(ENOSPC, errno);
	ASSERT_EQ(-1, ue_unreg_fd(self->fd, &self->words[SMALL / 32],
				  SMALL % 32));
	ASSERT_EQ(ENOENT, errno);

	/* A new event: ENOSPC, no event, no write index */
	ASSERT_EQ(-1, ue_reg_fd(self->fd, EV_LIM2_CMD,
				&self->words[SMALL / 32 + 2], 0, 4, 0, NULL));
	ASSERT_EQ(ENOSPC, errno);
	ASSERT_EQ(active, ue_active_count());
	index = 1;
	ASSERT_EQ(-1, write(self->fd, &index, sizeof(index)));
	ASSERT_EQ(ENOENT, errno);

	/* Room again after one unregister */
	ASSERT_EQ(0, ue_unreg_fd(self->fd, &self->words[0], 0));
	ASSERT_EQ(0, ue_reg_fd(self->fd, EV_LIM2_CMD,
			       &self->words[SMALL / 32 + 2], 0, 4, 0, &index));
	ASSERT_EQ(1, index);
	ASSERT_EQ(-1, ue_reg_fd(self->fd, EV_LIM_CMD, &self->words[0], 0, 4, 0,
				NULL));
	ASSERT_EQ(ENOSPC, errno);

	ASSERT_EQ(SMALL - 1, el_unreg_range(self->fd, self->words, 1, SMALL));
	ASSERT_EQ(0, ue_unreg_fd(self->fd, &self->words[SMALL / 32 + 2], 0));
}

TEST_F(limit, lowering_keeps_existing_enablers) {
	if (!el_need_limit(_metadata, &self->saved, SMALL))
		return;
	ASSERT_EQ(SMALL, el_reg_range(self->fd, EV_LIM_CMD, self->words, 0,
				      SMALL));
	ASSERT_EQ(0, el_write_limit(SMALL / 2));
	ASSERT_EQ(-1, ue_reg_fd(self->fd, EV_LIM_CMD, &self->words[SMALL / 32],
				0, 4, 0, NULL));
	ASSERT_EQ(ENOSPC, errno);
	/* Still all there, and still followed */
	ASSERT_EQ(0, ue_enable(EV_LIM, 1));
	ASSERT_TRUE(el_words_are(self->words, SMALL / 32, -1));
	ASSERT_EQ(0, ue_enable(EV_LIM, 0));
	ASSERT_TRUE(el_words_are(self->words, SMALL / 32, 0));
	ASSERT_EQ(SMALL, el_unreg_range(self->fd, self->words, 0, SMALL));
}

struct el_thread {
	int fd;
	int *words;
	int from, to;
	int got;
	int err;
};

static void *el_thread_reg(void *arg)
{
	struct el_thread *t = arg;

	t->got = el_reg_range(t->fd, EV_LIM_CMD, t->words, t->from, t->to);
	t->err = t->got < t->to ? errno : 0;

	return NULL;
}

TEST_F(limit, threads_share_the_count) {
	struct el_thread t = { self->fd, self->words, SMALL / 2, SMALL, 0, 0 };
	pthread_t thread;

	if (!el_need_limit(_metadata, &self->saved, SMALL))
		return;
	ASSERT_EQ(SMALL / 2, el_reg_range(self->fd, EV_LIM_CMD, self->words, 0,
					  SMALL / 2));
	ASSERT_EQ(0, pthread_create(&thread, NULL, el_thread_reg, &t));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(SMALL, t.got);
	/* The process is full, from any thread */
	t.from = SMALL;
	t.to = SMALL + 1;
	ASSERT_EQ(0, pthread_create(&thread, NULL, el_thread_reg, &t));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(SMALL, t.got);
	ASSERT_EQ(ENOSPC, t.err);
	ASSERT_EQ(SMALL, el_unreg_range(self->fd, self->words, 0, SMALL));
}

TEST_F(limit, fork_child_inherits_up_to_the_limit) {
	pid_t pid;

	if (!el_need_limit(_metadata, &self->saved, SMALL))
		return;
	ASSERT_EQ(SMALL, el_reg_range(self->fd, EV_LIM_CMD, self->words, 0,
				      SMALL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int *fresh = el_words(SMALL / 32);

		/* At the limit with the inherited ones */
		UE_CHILD_EQ(-1, ue_reg_fd(self->fd, EV_LIM_CMD, fresh, 0, 4, 0,
					  NULL));
		UE_CHILD_EQ(ENOSPC, errno);
		UE_CHILD_EQ(SMALL, el_unreg_range(self->fd, self->words, 0,
						  SMALL));
		/* Its own count went down, not its parent's */
		UE_CHILD_EQ(SMALL, el_reg_range(self->fd, EV_LIM_CMD, fresh, 0,
						SMALL));
		UE_CHILD_EQ(SMALL, el_unreg_range(self->fd, fresh, 0, SMALL));
		_exit(0);
	}
	ASSERT_CHILD_OK(pid);
	ASSERT_EQ(-1, ue_reg_fd(self->fd, EV_LIM_CMD, &self->words[SMALL / 32],
				0, 4, 0, NULL));
	ASSERT_EQ(ENOSPC, errno);
	ASSERT_EQ(SMALL, el_unreg_range(self->fd, self->words, 0, SMALL));
}

TEST_F(limit, other_process_has_its_own_count) {
	pid_t pid;

	if (!el_need_limit(_metadata, &self->saved, SMALL))
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int *mine = el_words(SMALL / 32);

		/* Starts with none: the parent's below are not its */
		UE_CHILD_EQ(SMALL, el_reg_range(self->fd, EV_LIM_CMD, mine, 0,
						SMALL));
		UE_CHILD_EQ(-1, ue_reg_fd(self->fd, EV_LIM_CMD, self->words, 0,
					  4, 0, NULL));
		UE_CHILD_EQ(ENOSPC, errno);
		_exit(0);
	}
	ASSERT_EQ(SMALL, el_reg_range(self->fd, EV_LIM_CMD, self->words, 0,
				      SMALL));
	ASSERT_CHILD_OK(pid);
	ASSERT_EQ(SMALL, el_unreg_range(self->fd, self->words, 0, SMALL));
}

TEST_HARNESS_MAIN
