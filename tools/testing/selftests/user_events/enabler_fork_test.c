// SPDX-License-Identifier: GPL-2.0
/*
 * fork() of a process with 60,000 enablers either fails with ENOMEM or
 * gives a child that has every one of them. Every one: each of the
 * child's 60,000 bits is set when the event is enabled and clear when it
 * is disabled, which only its own enabler does. The child then
 * unregisters a sample of the addresses it inherited (every
 * SAMPLE_STRIDE-th; all of them would take minutes on the debug kernel),
 * the parent a sample of its own, and once both are gone the event, a
 * persistent one, has no reference left: it deletes at once. Timings are
 * printed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>

#include "user_events_selftests.h"

#define LIMIT_FILE	"/proc/sys/kernel/user_events_max_enablers"
#define EV_BIG		"__ef_big"

#define BIG		60000
#define BIG_WORDS	(BIG / 32)
#define SAMPLE_STRIDE	59	/* prime: every bit number and many words */
#define NR_THREADS	2	/* the registrations, on a file each */

/* ksft_print_msg(), flushed: the harness ends each test with _exit() */
#define EF_NOTE(...) do {						\
	ksft_print_msg(__VA_ARGS__);					\
	fflush(stdout);							\
} while (0)

/* What the parent and the child report to the test */
struct ef_report {
	long reg_ms, fork_ms, unreg_ms;
	int unreg_count;
	int fork_errno;
	char error[128];
};

struct ef_thread {
	int fd;
	int *words;
	int from, to;
	int done;
	int err;
};

static int ef_read_int(const char *path)
{
	char *text = ue_read_file(path);
	int value = text ? atoi(text) : -1;

	free(text);

	return value;
}

static void *ef_register(void *arg)
{
	struct ef_thread *t = arg;
	int i;

	for (i = t->from; i < t->to; i++) {
		if (ue_reg_fd(t->fd, EV_BIG, &t->words[i / 32], i % 32, 4, 0,
			      NULL)) {
			t->err = errno;
			break;
		}
	}
	t->done = i - t->from;

	return NULL;
}

/* Every word is @want */
static bool ef_words_are(const int *words, int want)
{
	int i;

	for (i = 0; i < BIG_WORDS; i++) {
		if (ue_load(&words[i]) != want)
			return false;
	}

	return true;
}

/*
 * Write each word once, atomically: after a fork the pages are
 * copy-on-write, and the kernel writes a bit at once only to a page that
 * is present and writable.
 */
static void ef_unshare(int *words)
{
	int i;

	for (i = 0; i < BIG_WORDS; i++)
		ue_touch_word(&words[i]);
}

/* Unregister enablers @first, @first + @stride, ...: how many were there */
static int ef_unreg_sample(int fd, int *words, int first, int stride)
{
	int i, found = 0;

	for (i = first; i < BIG; i += stride)
		found += ue_unreg_fd(fd, &words[i / 32], i % 32) == 0;

	return found;
}

static int ef_sample_size(int first, int stride)
{
	return (BIG - first + stride - 1) / stride;
}

static int ef_fail(struct ef_report *r, const char *what)
{
	snprintf(r->error, sizeof(r->error), "%s", what);

	return 1;
}

/* Wait for a byte on @in, after sending one on @out */
static bool ef_sync(int out, int in)
{
	char c = 's';

	return write(out, &c, 1) == 1 && read(in, &c, 1) == 1;
}

/* The child: checks its bits at each step the test toggles */
static int ef_child(int fd, int *words, int cmd, int ack, struct ef_report *r)
{
	int want = ef_sample_size(0, SAMPLE_STRIDE);
	long start;

	ef_unshare(words);
	if (!ef_sync(ack, cmd))
		return ef_fail(r, "pipe");
	if (!ef_words_are(words, -1))
		return ef_fail(r, "not every bit of the child followed the enable");
	if (!ef_sync(ack, cmd))
		return ef_fail(r, "pipe");
	if (!ef_words_are(words, 0))
		return ef_fail(r, "not every bit of the child followed the disable");

	start = ue_now_ms();
	r->unreg_count = ef_unreg_sample(fd, words, 0, SAMPLE_STRIDE);
	r->unreg_ms = ue_now_ms() - start;
	if (r->unreg_count != want)
		return ef_fail(r, "the child could not unregister an inherited enabler");
	if (ue_unreg_fd(fd, &words[0], 0) == 0 || errno != ENOENT)
		return ef_fail(r, "an unregistered enabler is still there");

	return 0;
}

/* The parent: registers, forks, relays the test's steps to the child */
static int ef_parent(int *words, int cmd, int ack, struct ef_report *r)
{
	struct ef_thread t[NR_THREADS];
	pthread_t threads[NR_THREADS];
	int ccmd[2], cack[2], i, status;
	long start;
	pid_t pid;
	char c;

	start = ue_now_ms();
	for (i = 0; i < NR_THREADS; i++) {
		t[i].fd = open(DATA_FILE, O_RDWR);
		t[i].words = words;
		/* whole words each, so that no two threads share a bit */
		t[i].from = BIG_WORDS * i / NR_THREADS * 32;
		t[i].to = BIG_WORDS * (i + 1) / NR_THREADS * 32;
		t[i].err = 0;
		if (t[i].fd < 0)
			return ef_fail(r, "open");
	}
	/* The main thread registers the first part itself */
	for (i = 1; i < NR_THREADS; i++) {
		if (pthread_create(&threads[i], NULL, ef_register, &t[i]))
			return ef_fail(r, "pthread_create");
	}
	ef_register(&t[0]);
	for (i = 0; i < NR_THREADS; i++) {
		if (i && pthread_join(threads[i], NULL))
			return ef_fail(r, "pthread_join");
		if (t[i].done != t[i].to - t[i].from) {
			snprintf(r->error, sizeof(r->error),
				 "registration %d failed: %s",
				 t[i].from + t[i].done, strerror(t[i].err));
			return 1;
		}
	}
	r->reg_ms = ue_now_ms() - start;
	if (pipe(ccmd) || pipe(cack))
		return ef_fail(r, "pipe");

	start = ue_now_ms();
	pid = fork();
	if (pid < 0) {
		r->fork_errno = errno;
		if (errno != ENOMEM)
			return ef_fail(r, "fork failed, and not with ENOMEM");
		/* A clean failure leaves the parent as it was */
		if (ef_unreg_sample(t[0].fd, words, 0, SAMPLE_STRIDE) !=
		    ef_sample_size(0, SAMPLE_STRIDE))
			return ef_fail(r, "the failed fork took enablers");
		return 0;
	}
	if (pid == 0)
		_exit(ef_child(t[0].fd, words, ccmd[0], cack[1], r));
	r->fork_ms = ue_now_ms() - start;
	ef_unshare(words);

	/* Both ready, then the test enables, both look; then disables */
	if (read(cack[0], &c, 1) != 1 || !ef_sync(ack, cmd))
		return ef_fail(r, "pipe");
	if (!ef_words_are(words, -1))
		return ef_fail(r, "not every bit of the parent followed the enable");
	if (!ef_sync(ccmd[1], cack[0]) || !ef_sync(ack, cmd))
		return ef_fail(r, "pipe");
	if (!ef_words_are(words, 0))
		return ef_fail(r, "not every bit of the parent followed the disable");
	if (write(ccmd[1], "s", 1) != 1)
		return ef_fail(r, "pipe");
	status = ue_wait_child(pid);
	if (status)
		return status == 1 ? 1 : ef_fail(r, "the child crashed");

	/* The child's unregistering took nothing of the parent's */
	if (ef_unreg_sample(t[0].fd, words, 1, SAMPLE_STRIDE) !=
	    ef_sample_size(1, SAMPLE_STRIDE))
		return ef_fail(r, "the parent lost enablers");

	return 0;
}

FIXTURE(big) {
	int saved;		/* the limit to restore, or -1 */
	bool umount;
};

FIXTURE_SETUP(big) {
	self->saved = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_enable(EV_BIG, 0);
	ue_del(EV_BIG);
	if (ue_exists(LIMIT_FILE) && ef_read_int(LIMIT_FILE) < BIG) {
		self->saved = ef_read_int(LIMIT_FILE);
		ASSERT_EQ(0, ue_write_str(LIMIT_FILE, "65536", 0));
	}
}

FIXTURE_TEARDOWN(big) {
	char buf[32];

	if (self->saved >= 0) {
		snprintf(buf, sizeof(buf), "%d", self->saved);
		ue_write_str(LIMIT_FILE, buf, 0);
	}
	ue_enable(EV_BIG, 0);
	ue_del(EV_BIG);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F_TIMEOUT(big, fork_with_60000_enablers, 530) {
	struct ef_report *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int *words = mmap(NULL, BIG_WORDS * sizeof(int),
			  PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	int cmd[2], ack[2], status, start_active;
	pid_t pid;
	char c;

	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)r);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)words);
	start_active = ue_active_count();
	ASSERT_LE(0, start_active);
	/* Persistent: it stays when unreferenced, for the delete below */
	ASSERT_EQ(0, ue_write_str(DYN_FILE, "u:" EV_BIG, O_APPEND));
	ASSERT_EQ(0, pipe(cmd));
	ASSERT_EQ(0, pipe(ack));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		_exit(ef_parent(words, cmd[0], ack[1], r));
	}
	close(cmd[0]);
	close(ack[1]);

	/* No page is copy-on-write now: both processes' bits change at once */
	if (read(ack[0], &c, 1) == 1) {
		ASSERT_EQ(0, ue_enable(EV_BIG, 1));
		ASSERT_EQ(1, write(cmd[1], "e", 1));
		if (read(ack[0], &c, 1) == 1) {
			ASSERT_EQ(0, ue_enable(EV_BIG, 0));
			ASSERT_EQ(1, write(cmd[1], "d", 1));
		}
	}
	status = ue_wait_child(pid);
	ASSERT_EQ(0, status) TH_LOG("%s", r->error[0] ? r->error : "crashed");
	if (r->fork_errno) {
		EF_NOTE("fork of a process with %d enablers failed cleanly with ENOMEM\n",
			BIG);
	} else {
		EF_NOTE("%d enablers: registered in %ld ms (%d threads), fork %ld ms\n",
			BIG, r->reg_ms, NR_THREADS, r->fork_ms);
		EF_NOTE("every bit of the child followed enable and disable\n");
		EF_NOTE("the child unregistered %d inherited ones in %ld ms\n",
			r->unreg_count, r->unreg_ms);
	}
	/* Both gone with every reference: the event deletes at once */
	ASSERT_EQ(0, ue_del(EV_BIG)) TH_LOG("DIAG_IOCSDEL: %s", strerror(errno));
	ASSERT_EQ(start_active, ue_active_count());
}

TEST_HARNESS_MAIN
