// SPDX-License-Identifier: GPL-2.0
/*
 * user_events ABI tests: enable bits and their lifetime across fork,
 * clone, threads, unregister, flags and 32-bit values on 64-bit kernels.
 *
 * Each helper opens user_events_data for one ioctl and closes it again,
 * so only the enablers keep the event alive.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "user_events_selftests.h"

#define EVENT		"__abi_event"
#define EVENT_CMD	EVENT " u32 count"
#define ENABLE_FILE	EVENTS_DIR "/" EVENT "/enable"

/* Bit updates that need the fault worker (copy-on-write after fork) */
#define WAIT_MS		UE_FAULT_MS

FIXTURE(user) {
	int check;
	int other;
	bool umount;
};

static void abi_cleanup(void)
{
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
}

FIXTURE_SETUP(user) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	/* A failed earlier run may have left a persistent event behind. */
	abi_cleanup();
}

FIXTURE_TEARDOWN(user) {
	abi_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(user, bit_follows_ftrace_enable) {
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4, 0));
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
}

TEST_F(user, registration_writes_current_state) {
	/* A new enabler of an already enabled event starts set... */
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);

	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->other, 5, 4, 0));
	ASSERT_EQ(1 << 5, self->other);

	/* ...and one of an idle event starts cleared. */
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_unreg(&self->other, 5));
	self->check = 1 << 3;
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 3, 4, 0));
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(0, ue_unreg(&self->check, 0));
	ASSERT_EQ(0, ue_unreg(&self->check, 3));
}

TEST_F(user, unregister_clears_and_stops_updates) {
	/* A second enabler keeps the event alive throughout. */
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->other, 0, 4, 0));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);

	/* Cleared although the event is still enabled. */
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
	ASSERT_EQ(0, self->check);

	/* No longer updated. */
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, self->check);
	ASSERT_EQ(1, self->other);

	/* Gone for good: a second unregister finds nothing. */
	ASSERT_EQ(-1, ue_unreg(&self->check, 0));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(0, ue_unreg(&self->other, 0));
}

TEST_F(user, bit_sizes_4) {
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4, 0));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 31, 4, 0));
	ASSERT_EQ(-1, ue_reg(EVENT_CMD, &self->check, 32, 4, 0));
	ASSERT_EQ(EINVAL, errno);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ((int)(1U << 31 | 1U), self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(0, ue_unreg(&self->check, 0));
	ASSERT_EQ(0, ue_unreg(&self->check, 31));
}

/* An 8-byte enable word, 8-byte aligned: i386 aligns a __u64 to 4 only */
static __u64 *word64(void)
{
	static __u64 words[2];

	return (__u64 *)(((uintptr_t)words + 7) & ~(uintptr_t)7);
}

TEST_F(user, bit_sizes_8) {
	__u64 *word = word64();

	*word = 0;
	if (!ue_kernel_is_64bit()) {
		/* A 32-bit kernel sets and clears bits of a 32-bit long */
		ASSERT_EQ(-1, ue_reg(EVENT_CMD, word, 0, 8, 0));
		ASSERT_EQ(EINVAL, errno);
		return;
	}

	ASSERT_EQ(0, ue_reg(EVENT_CMD, word, 0, 8, 0));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, word, 63, 8, 0));
	ASSERT_EQ(-1, ue_reg(EVENT_CMD, word, 64, 8, 0));
	ASSERT_EQ(EINVAL, errno);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1ULL << 63 | 1ULL, *word);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0ULL, *word);

	ASSERT_EQ(0, ue_unreg(word, 0));
	ASSERT_EQ(0, ue_unreg(word, 63));
}

TEST_F(user, bit_sizes_invalid) {
	static const int sizes[] = { 0, 1, 2, 3, 5, 6, 7, 9, 16, 128 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		int ret = ue_reg(EVENT_CMD, word64(), 0, sizes[i], 0);
		int err = errno;

		EXPECT_EQ(-1, ret) {
			TH_LOG("enable_size %d: %d", sizes[i], ret);
		}
		EXPECT_EQ(EINVAL, err) {
			TH_LOG("enable_size %d: %s", sizes[i], strerror(err));
		}
	}

	/* Nothing was registered, so no event was created or kept. */
	ASSERT_FALSE(ue_event_exists(EVENT));
}

TEST_F(user, enable_word_32_on_64) {
	/* Four ints in an 8-aligned block; the enabler sits at +4. */
	static __aligned_u64 block[2];
	int *words = (int *)block;
	int *mid = &words[1];

	words[0] = 0x5a5a5a5a;
	words[1] = 0;
	words[2] = 0x3c3c3c3c;
	words[3] = 0;
	ASSERT_EQ(4, (int)((uintptr_t)mid % 8));

	ASSERT_EQ(0, ue_reg(EVENT_CMD, mid, 0, 4, 0));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, mid, 31, 4, 0));

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ((int)(1U << 31 | 1U), words[1]);
	ASSERT_EQ(0x5a5a5a5a, words[0]);
	ASSERT_EQ(0x3c3c3c3c, words[2]);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, words[1]);
	ASSERT_EQ(0x5a5a5a5a, words[0]);
	ASSERT_EQ(0x3c3c3c3c, words[2]);

	/* Unregister clears the same word, not its neighbour. */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_unreg(mid, 31));
	ASSERT_EQ(1, words[1]);
	ASSERT_EQ(0x5a5a5a5a, words[0]);
	ASSERT_EQ(0x3c3c3c3c, words[2]);
	ASSERT_EQ(0, ue_unreg(mid, 0));
	ASSERT_EQ(0, words[1]);
	ASSERT_EQ(0x5a5a5a5a, words[0]);
}

TEST_F(user, fork_child_copy_updated) {
	int ready[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4, 0));
	ASSERT_EQ(0, pipe(ready));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		/* Make the page the child's own copy (COW break). */
		self->check = 0;
		UE_CHILD_CHECK(write(ready[1], "r", 1) == 1);
		UE_CHILD_CHECK(ue_wait_int(&self->check, 1, WAIT_MS));
		_exit(0);
	}

	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	/* The parent's page may be write-protected by the fork. */
	ASSERT_TRUE(ue_wait_int(&self->check, 1, WAIT_MS));
	ASSERT_CHILD_OK(pid);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
	close(ready[0]);
	close(ready[1]);
}

TEST_F(user, fork_child_unregister_keeps_parent) {
	pid_t pid;

	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		/* The inherited registration is the child's own copy. */
		UE_CHILD_EQ(0, ue_unreg(&self->check, 0));
		UE_CHILD_EQ(0, self->check);
		_exit(0);
	}
	ASSERT_CHILD_OK(pid);

	ASSERT_EQ(1, self->check);
	/* The fork left the page write-protected: the fault worker writes */
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_TRUE(ue_wait_int(&self->check, 0, WAIT_MS));
	/* Faulted in now: written at once */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);

	ASSERT_EQ(0, ue_unreg(&self->check, 0));
	ASSERT_EQ(0, self->check);
}

TEST_F(user, fork_child_exit_keeps_parent) {
	pid_t pid;

	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4, 0));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_CHILD_OK(pid);

	/* The fork left the page write-protected: the fault worker writes */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(&self->check, 1, WAIT_MS));
	/* Faulted in now: written at once */
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
}

/* An anonymous page of its own, with @advice applied, for an enable word */
static int *advised_page(int advice)
{
	long page = sysconf(_SC_PAGESIZE);
	void *map;

	map = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	if (madvise(map, page, advice)) {
		munmap(map, page);
		return NULL;
	}
	return map;
}

/*
 * A word in memory the child does not inherit (MADV_DONTFORK) gives the
 * child no enabler: its unregister of the address finds nothing, while
 * the parent's enabler is untouched and still updated at once.
 */
TEST_F(user, fork_dontfork_word_not_copied) {
	int *word = advised_page(MADV_DONTFORK);
	pid_t pid;

	ASSERT_NE(0, (uintptr_t)word);
	ASSERT_EQ(0, ue_reg(EVENT_CMD, word, 0, 4, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, *word);

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		UE_CHILD_EQ(-1, ue_unreg(word, 0));
		UE_CHILD_EQ(ENOENT, errno);
		_exit(0);
	}
	ASSERT_CHILD_OK(pid);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_unreg(word, 0));
	munmap(word, sysconf(_SC_PAGESIZE));
}

/*
 * A word in memory the child gets zeroed (MADV_WIPEONFORK) is written
 * again for the child: its enabler is copied and the child's bit comes
 * back to the event's state. That write is the child's fault worker's
 * (the zeroed page needs a fault), asynchronous by design: bounded by
 * WAIT_MS. The parent's word is not touched by the fork.
 */
TEST_F(user, fork_wipeonfork_word_rewritten) {
	int *word = advised_page(MADV_WIPEONFORK);
	pid_t pid;

	ASSERT_NE(0, (uintptr_t)word);
	ASSERT_EQ(0, ue_reg(EVENT_CMD, word, 3, 4, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 3, *word);

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		UE_CHILD_CHECK(ue_wait_int(word, 1 << 3, WAIT_MS));
		/* The copy is the child's own: unregister clears its bit */
		UE_CHILD_EQ(0, ue_unreg(word, 3));
		UE_CHILD_EQ(0, *word);
		_exit(0);
	}
	ASSERT_CHILD_OK(pid);
	ASSERT_EQ(1 << 3, *word);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_unreg(word, 3));
	munmap(word, sysconf(_SC_PAGESIZE));
}

static int clone_reg(void *arg)
{
	UE_CHILD_EQ(0, ue_reg(EVENT_CMD, arg, 0, 4, 0));
	return 0;
}

static int clone_unreg(void *arg)
{
	UE_CHILD_EQ(0, ue_unreg(arg, 0));
	return 0;
}

static pid_t clone_vm(int (*fn)(void *), void *arg, void **stack)
{
	const size_t size = 256 * 1024;

	*stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (*stack == MAP_FAILED)
		return -1;

	return clone(fn, (char *)*stack + size, CLONE_VM | SIGCHLD, arg);
}

/*
 * Enablers belong to the memory, not to the task: what a CLONE_VM child
 * registered keeps being updated after that child exited.
 */
TEST_F(user, clone_vm_registration_outlives_child) {
	void *stack;
	pid_t pid;

	pid = clone_vm(clone_reg, &self->check, &stack);
	ASSERT_NE(-1, pid);
	ASSERT_CHILD_OK(pid);
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);

	/* The registration is this process' own to remove */
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
	ASSERT_EQ(-1, ue_unreg(&self->check, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(user, clone_vm_shares_registrations) {
	void *stack;
	pid_t pid;

	/* A second enabler keeps the event alive throughout. */
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->other, 0, 4, 0));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);

	/* Same mm: the child's unregister removes the parent's enabler. */
	pid = clone_vm(clone_unreg, &self->check, &stack);
	ASSERT_NE(-1, pid);
	ASSERT_CHILD_OK(pid);
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, self->check);
	ASSERT_EQ(1, self->other);
	ASSERT_EQ(-1, ue_unreg(&self->check, 0));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(0, ue_unreg(&self->other, 0));
}

/*
 * Run as "abi_test --exit", this program ends before its tests start:
 * the target of the exec below.
 */
static void __attribute__((constructor)) exec_target(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--exit"))
		_exit(0);
}

/*
 * A vfork child runs in its parent's memory: what it registers there
 * before it execs is the parent's, and its exec, which gives the child a
 * memory of its own, must not take the parent's enablers along.
 */
TEST_F(user, vfork_exec_keeps_parent_registrations) {
	char *const argv[] = { "abi_test", "--exit", NULL };
	char *const envp[] = { NULL };
	struct user_reg reg = {0};
	int fd;
	pid_t pid;

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	reg.size = sizeof(reg);
	reg.name_args = (__u64)(unsigned long)EVENT_CMD;
	reg.enable_size = 4;
	reg.enable_addr = (__u64)(unsigned long)&self->check;

	pid = vfork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		UE_CHILD_EQ(0, ioctl(fd, DIAG_IOCSREG, &reg));
		execve("/proc/self/exe", argv, envp);
		UE_CHILD_FAIL("execve(/proc/self/exe)");
	}
	ASSERT_CHILD_OK(pid);
	close(fd);
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
}

/* A thread that runs a step whenever the main thread asks for one. */
struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int (*step)(struct worker *w);
	int *word;
	int result;
	bool busy, quit;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->busy && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->quit)
			break;
		w->result = w->step(w);
		w->busy = false;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);

	return NULL;
}

static int worker_start(struct worker *w, int *word)
{
	memset(w, 0, sizeof(*w));
	w->word = word;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);

	return pthread_create(&w->thread, NULL, worker_main, w);
}

static int worker_run(struct worker *w, int (*step)(struct worker *w))
{
	pthread_mutex_lock(&w->lock);
	w->step = step;
	w->busy = true;
	pthread_cond_broadcast(&w->cond);
	while (w->busy)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);

	return w->result;
}

static void worker_stop(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
}

/* Registering bit 0 again from the thread must be a duplicate. */
static int step_reg_dup(struct worker *w)
{
	return ue_reg(EVENT_CMD, w->word, 0, 4, 0) == -1 &&
	       errno == EADDRINUSE ? 0 : 1;
}

static int step_reg_bit1(struct worker *w)
{
	return ue_reg(EVENT_CMD, w->word, 1, 4, 0);
}

static int step_unreg_bit0(struct worker *w)
{
	return ue_unreg(w->word, 0);
}

/*
 * Enablers belong to the process: a thread sees the registrations of
 * the others, whether it was created before or after them.
 */
static void thread_shares(struct __test_metadata *_metadata, int *check,
			  bool thread_first)
{
	struct worker w;

	if (thread_first)
		ASSERT_EQ(0, worker_start(&w, check));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, check, 0, 4, 0));
	if (!thread_first)
		ASSERT_EQ(0, worker_start(&w, check));

	ASSERT_EQ(0, worker_run(&w, step_reg_dup));
	ASSERT_EQ(0, worker_run(&w, step_reg_bit1));

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(3, *check);

	/* The main thread's enabler is removable from the other thread. */
	ASSERT_EQ(0, worker_run(&w, step_unreg_bit0));
	ASSERT_EQ(2, *check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *check);

	worker_stop(&w);
	ASSERT_EQ(0, ue_unreg(check, 1));
}

TEST_F(user, thread_created_before_shares) {
	thread_shares(_metadata, &self->check, true);
}

TEST_F(user, thread_created_after_shares) {
	thread_shares(_metadata, &self->check, false);
}

static void *thread_reg(void *arg)
{
	return (void *)(long)ue_reg(EVENT_CMD, arg, 0, 4, 0);
}

TEST_F(user, registration_survives_thread_exit) {
	pthread_t thread;
	void *ret;

	ASSERT_EQ(0, pthread_create(&thread, NULL, thread_reg, &self->check));
	ASSERT_EQ(0, pthread_join(thread, &ret));
	ASSERT_EQ(0, (long)ret);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
}

/*
 * Bits whose pages need a fault before the kernel can write them, so
 * that only the process's fault worker can: one page dropped
 * (MADV_DONTNEED) and read back, which maps the shared zero page
 * read-only, the other write-protected by a fork (copy-on-write). The
 * worker writes them for as long as the process lives, whichever of its
 * tasks have gone: they are the process's bits, not a task's.
 */
#define DROPPED_BIT	3
#define COW_BIT		7

struct fault_pages {
	long size;
	char *map;
	int *dropped;	/* first word of the first page */
	int *cow;	/* first word of the second page */
};

static int fault_pages_map(struct fault_pages *f)
{
	f->size = sysconf(_SC_PAGESIZE);
	f->map = mmap(NULL, 2 * f->size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->map == MAP_FAILED)
		return -1;

	f->dropped = (int *)f->map;
	f->cow = (int *)(f->map + f->size);
	/* Present and writable: the registrations write them at once */
	*f->dropped = 0;
	*f->cow = 0;

	return 0;
}

/* A fork write-protects every private page of the parent */
static int fork_and_reap(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(0);

	return ue_wait_child(pid);
}

/*
 * Enable the event, then disable it, each time after making both pages
 * need a fault: each bit must follow within the fault worker's bound.
 */
static void fault_bits_follow(struct __test_metadata *_metadata,
			      struct fault_pages *f, const char *when)
{
	ASSERT_EQ(0, madvise(f->dropped, f->size, MADV_DONTNEED));
	ASSERT_EQ(0, ue_load(f->dropped));
	ASSERT_EQ(0, fork_and_reap());

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(f->dropped, 1 << DROPPED_BIT, WAIT_MS)) {
		TH_LOG("%s: the dropped page's bit not set within %d ms",
		       when, WAIT_MS);
	}
	ASSERT_TRUE(ue_wait_int(f->cow, 1 << COW_BIT, WAIT_MS)) {
		TH_LOG("%s: the copy-on-write page's bit not set within %d ms",
		       when, WAIT_MS);
	}

	/* Both pages copy-on-write again, with the bits set in them */
	ASSERT_EQ(0, fork_and_reap());
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_TRUE(ue_wait_int(f->dropped, 0, WAIT_MS)) {
		TH_LOG("%s: the dropped page's bit not cleared within %d ms",
		       when, WAIT_MS);
	}
	ASSERT_TRUE(ue_wait_int(f->cow, 0, WAIT_MS)) {
		TH_LOG("%s: the copy-on-write page's bit not cleared within %d ms",
		       when, WAIT_MS);
	}
}

static int step_reg_dropped(struct worker *w)
{
	return ue_reg(EVENT_CMD, w->word, DROPPED_BIT, 4, 0);
}

static int step_nothing(struct worker *w)
{
	return 0;
}

/* Three tasks, then two, then one: the bits follow all along */
TEST_F(user, fault_bits_follow_as_threads_exit) {
	struct fault_pages f;
	struct worker first, second;

	ASSERT_EQ(0, fault_pages_map(&f));
	ASSERT_EQ(0, worker_start(&first, f.dropped));
	ASSERT_EQ(0, worker_start(&second, f.dropped));
	/* The task that leaves first registers one of the bits */
	ASSERT_EQ(0, worker_run(&second, step_reg_dropped));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, f.cow, COW_BIT, 4, 0));
	fault_bits_follow(_metadata, &f, "three tasks");

	worker_stop(&second);
	fault_bits_follow(_metadata, &f, "a thread of three exited");

	worker_stop(&first);
	fault_bits_follow(_metadata, &f, "a thread of two exited");

	ASSERT_EQ(0, ue_unreg(f.dropped, DROPPED_BIT));
	ASSERT_EQ(0, ue_unreg(f.cow, COW_BIT));
	munmap(f.map, 2 * f.size);
}

/*
 * A vfork child shares its parent's memory until its exec: the exec
 * takes one user away from the parent's memory, not the last.
 */
static pid_t vfork_exec(void)
{
	char *const argv[] = { "abi_test", "--exit", NULL };
	char *const envp[] = { NULL };
	pid_t pid;

	pid = vfork();
	if (pid == 0) {
		execve("/proc/self/exe", argv, envp);
		UE_CHILD_FAIL("execve(/proc/self/exe)");
	}

	return pid;
}

TEST_F(user, fault_bits_follow_after_vfork_child_execs) {
	struct fault_pages f;
	struct worker w;
	pid_t pid;

	ASSERT_EQ(0, fault_pages_map(&f));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, f.dropped, DROPPED_BIT, 4, 0));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, f.cow, COW_BIT, 4, 0));

	pid = vfork_exec();
	ASSERT_LT(0, pid);
	ASSERT_CHILD_OK(pid);
	fault_bits_follow(_metadata, &f, "one task, its vfork child exec'd");

	/* The same with a second thread in the parent */
	ASSERT_EQ(0, worker_start(&w, NULL));
	ASSERT_EQ(0, worker_run(&w, step_nothing));
	pid = vfork_exec();
	ASSERT_LT(0, pid);
	ASSERT_CHILD_OK(pid);
	fault_bits_follow(_metadata, &f, "two tasks, a vfork child exec'd");
	worker_stop(&w);

	ASSERT_EQ(0, ue_unreg(f.dropped, DROPPED_BIT));
	ASSERT_EQ(0, ue_unreg(f.cow, COW_BIT));
	munmap(f.map, 2 * f.size);
}

TEST_F(user, flag_persist_survives_last_user) {
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &self->check, 0, 4,
			    USER_EVENT_REG_PERSIST));
	ASSERT_EQ(0, ue_unreg(&self->check, 0));

	/*
	 * No fd, no enabler: the event is still there, not merely waiting
	 * for its auto-delete (an unreferenced non-persistent event would
	 * not stop a registration of the name with other fields).
	 */
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(-1, ue_reg(EVENT " u64 other", &self->other, 0, 4, 0));
	ASSERT_EQ(EADDRINUSE, errno);

	/* Until it is deleted, which works at once. */
	ASSERT_EQ(0, ue_del(EVENT));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

TEST_F(user, flag_invalid_rejected) {
	static const int flags[] = { USER_EVENT_REG_MAX, 8, 0x8000,
				     USER_EVENT_REG_MAX | 1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		int ret = ue_reg(EVENT_CMD, &self->check, 0, 4, flags[i]);
		int err = errno;

		EXPECT_EQ(-1, ret) {
			TH_LOG("flags 0x%x: %d", flags[i], ret);
		}
		EXPECT_EQ(EINVAL, err) {
			TH_LOG("flags 0x%x: %s", flags[i], strerror(err));
		}
		/* Not even transiently created. */
		EXPECT_FALSE(ue_exists(ENABLE_FILE));
	}
}

/*
 * Directory of the multi-format event whose format names @field: false
 * unless exactly one has it, so that a format registered again and given
 * a second event instead of the first one's is caught.
 */
static bool multi_dir_of(const char *field, char *dir, size_t len)
{
	unsigned int found = 0;
	glob_t g;
	size_t i;

	if (glob(MULTI_DIR "/" EVENT ".*", 0, NULL, &g) != 0)
		return false;

	for (i = 0; i < g.gl_pathc; i++) {
		char path[512];
		char *format;

		snprintf(path, sizeof(path), "%s/format", g.gl_pathv[i]);
		format = ue_read_file(path);
		if (format && strstr(format, field)) {
			snprintf(dir, len, "%s", g.gl_pathv[i]);
			found++;
		}
		free(format);
	}
	globfree(&g);

	return found == 1;
}

/* The multi-format directory name is EVENT.<lowercase hex id>. */
static bool multi_name_ok(const char *dir)
{
	const char *id = strrchr(dir, '/');

	if (!id || strncmp(id + 1, EVENT ".", strlen(EVENT ".")))
		return false;
	id += 1 + strlen(EVENT ".");

	return *id && strspn(id, "0123456789abcdef") == strlen(id);
}

TEST_F(user, flag_multi_format) {
	char first[256], second[256], second_again[256];

	ASSERT_EQ(0, ue_reg(EVENT " u32 multi_first", &self->check, 0, 4,
			    USER_EVENT_REG_MULTI_FORMAT));
	ASSERT_EQ(0, ue_reg(EVENT " u64 multi_second", &self->check, 1, 4,
			    USER_EVENT_REG_MULTI_FORMAT));
	ASSERT_EQ(0, ue_reg(EVENT " u64 multi_second", &self->check, 2, 4,
			    USER_EVENT_REG_MULTI_FORMAT));

	ASSERT_TRUE(multi_dir_of("multi_first", first, sizeof(first)));
	ASSERT_TRUE(multi_dir_of("multi_second", second, sizeof(second)));
	ASSERT_STRNE(first, second);
	ASSERT_TRUE(multi_name_ok(first));
	ASSERT_TRUE(multi_name_ok(second));

	/* Not a single-format event. */
	ASSERT_FALSE(ue_exists(ENABLE_FILE));

	/* The last enabler of the first format goes: so does its event. */
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
	ASSERT_TRUE(ue_wait_auto_delete(first));
	ASSERT_TRUE(ue_exists(second));

	/*
	 * The second format is shared by two enablers: one going leaves it
	 * referenced, so registering it again reuses it (an unreferenced
	 * event waiting for its auto-delete would get a new id).
	 */
	ASSERT_EQ(0, ue_unreg(&self->check, 1));
	ASSERT_TRUE(ue_exists(second));
	ASSERT_EQ(0, ue_reg(EVENT " u64 multi_second", &self->check, 3, 4,
			    USER_EVENT_REG_MULTI_FORMAT));
	ASSERT_TRUE(multi_dir_of("multi_second", second_again,
				 sizeof(second_again)));
	ASSERT_STREQ(second, second_again);

	ASSERT_EQ(0, ue_unreg(&self->check, 2));
	ASSERT_EQ(0, ue_unreg(&self->check, 3));
	ASSERT_TRUE(ue_wait_auto_delete(second));
}

TEST_F(user, flag_persist_multi_format_persists) {
	char first[256], second[256], again[256];

	ASSERT_EQ(0, ue_reg(EVENT " u32 multi_first", &self->check, 0, 4,
			    USER_EVENT_REG_MULTI_FORMAT |
			    USER_EVENT_REG_PERSIST));
	ASSERT_EQ(0, ue_reg(EVENT " u64 multi_second", &self->check, 1, 4,
			    USER_EVENT_REG_MULTI_FORMAT |
			    USER_EVENT_REG_PERSIST));
	ASSERT_EQ(0, ue_unreg(&self->check, 0));
	ASSERT_EQ(0, ue_unreg(&self->check, 1));

	ASSERT_TRUE(multi_dir_of("multi_first", first, sizeof(first)));
	ASSERT_TRUE(multi_dir_of("multi_second", second, sizeof(second)));

	/*
	 * Unreferenced and still the same events: a registration of the
	 * same format reuses the id (an event waiting for its auto-delete
	 * would be replaced by one with a new id).
	 */
	ASSERT_EQ(0, ue_reg(EVENT " u32 multi_first", &self->check, 2, 4,
			    USER_EVENT_REG_MULTI_FORMAT));
	ASSERT_TRUE(multi_dir_of("multi_first", again, sizeof(again)));
	ASSERT_STREQ(first, again);
	ASSERT_EQ(0, ue_unreg(&self->check, 2));

	/* DIAG_IOCSDEL removes every format of the name, at once. */
	ASSERT_EQ(0, ue_del(EVENT));
	ASSERT_FALSE(ue_exists(first));
	ASSERT_FALSE(ue_exists(second));
	ASSERT_EQ(-1, ue_del(EVENT));
	ASSERT_EQ(ENOENT, errno);
}

TEST_HARNESS_MAIN
