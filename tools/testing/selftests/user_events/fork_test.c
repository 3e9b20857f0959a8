// SPDX-License-Identifier: GPL-2.0
/*
 * user_events across fork and execve, with races:
 *
 * - a parent with NR_ENABLERS enablers forks while a thread of it flips
 *   the event's ftrace enable at varied delays: each child's bits end up
 *   equal to the event state, like the parent's; also with the parent's
 *   enable page dropped (MADV_DONTNEED) just before, so that a fault is
 *   pending in the parent during the fork;
 * - a process forks on one thread while another registers and
 *   unregisters: no child sees anything but its own copies, and once
 *   they are gone nothing of them holds the event;
 * - a child and a grandchild unregister the copies they got out of
 *   order: the bits left follow the event, and once the processes are
 *   gone nothing of the copies holds the event;
 * - execve drops the process' enablers: the event reference goes at
 *   once, the new image's memory at the old address is never written.
 *
 * After fork returns the child's bits equal the event state, except when
 * a tracer change raced the fork or a page needed a fault: after the fork
 * both processes' enable pages are copy-on-write, so a tracer change
 * after it is written by the kernel's fault worker. That is asynchronous
 * by design and waited for, bounded by UE_FAULT_MS; the longest wait is
 * reported.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "user_events_selftests.h"

#define EVENT		"__fork_event"
#define EVENT_CMD	EVENT " u32 a"
#define EVENT_P		"__fork_event_p"
#define EVENT_N		"__fork_event_n"
#define NR_WORDS	96
#define NR_ENABLERS	(NR_WORDS * 32)
#define NR_FORKS	50
#define EXEC_ARG	"--user-events-exec-child"

/*
 * The bound of the races' convergence: UE_FAULT_MS, longer on a slow
 * guest (ue_timeout_factor()); the worker writes a round's NR_ENABLERS
 * bits one by one, which an emulated debug guest takes seconds for.
 */
static long fault_ms = UE_FAULT_MS;
/*
 * Where the exec test maps its word, in both images: an address free in
 * every layout (legacy or top-down mmap, PIE or not) of the 64-bit and
 * 32-bit architectures, above the randomized heap of a static program
 * (at most 1 GiB past it, arm64) and below the legacy mmap base (1 GiB on
 * i386); valid with any virtual address size.
 */
#if __SIZEOF_LONG__ == 8
#define EXEC_ADDR	0x100000000UL
#else
#define EXEC_ADDR	0x30000000UL
#endif

FIXTURE(fork) {
	long page;
	int *words;
	int data_fd;
	int enable_fd;
	bool umount;
};

static void fork_cleanup(void)
{
	ue_enable(EVENT, 0);
	ue_enable(EVENT_P, 0);
	ue_cleanup_event(EVENT);
	ue_cleanup_event(EVENT_P);
	ue_cleanup_event(EVENT_N);
}

FIXTURE_SETUP(fork) {
	self->words = MAP_FAILED;
	self->data_fd = -1;
	self->enable_fd = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	fork_cleanup();
	self->page = sysconf(_SC_PAGESIZE);
	self->words = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)self->words);
	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(fork) {
	if (self->enable_fd >= 0)
		close(self->enable_fd);
	/* The enablers go with this process; the fd with the close */
	if (self->data_fd >= 0)
		close(self->data_fd);
	/* A case that failed half way leaves no tracer on the events */
	ue_enable(EVENT, 0);
	ue_enable(EVENT_P, 0);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Bits of @words that differ from @state (every bit is an enabler) */
static int mismatches(int *words, int state)
{
	int i, bad = 0;

	for (i = 0; i < NR_WORDS; i++)
		bad += __builtin_popcount(ue_load(&words[i]) ^ (state ? -1 : 0));

	return bad;
}

/* Wait for @words to equal @state; ms waited, or -1 if they did not */
static long converge(int *words, int state)
{
	long start = ue_now_ms();

	for (;;) {
		if (!mismatches(words, state))
			return ue_now_ms() - start;
		if (ue_now_ms() - start > fault_ms)
			return -1;
		ue_sleep_ms(1);
	}
}

/* The thread that flips the event's enable file once per round */
struct toggler {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int enable_fd;
	int delay_us;
	int state;		/* what to write next */
	bool go, done, quit;
	int err;
};

static void *toggler_main(void *arg)
{
	struct toggler *t = arg;
	struct timespec ts;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		while (!t->go && !t->quit)
			pthread_cond_wait(&t->cond, &t->lock);
		if (t->quit)
			break;
		t->go = false;
		pthread_mutex_unlock(&t->lock);

		ts.tv_sec = 0;
		ts.tv_nsec = t->delay_us * 1000L;
		nanosleep(&ts, NULL);
		if (pwrite(t->enable_fd, t->state ? "1" : "0", 1, 0) != 1)
			t->err = errno;

		pthread_mutex_lock(&t->lock);
		t->done = true;
		pthread_cond_broadcast(&t->cond);
	}
	pthread_mutex_unlock(&t->lock);

	return NULL;
}

/* What each child found, in memory shared with the parent */
struct round {
	long child_ms;		/* waited for convergence, -1: never */
	int child_bad;
};

/* In the child: wait for the final state, then for the bits to match */
static void child_check(int rfd, int *words, struct round *r)
{
	char state;

	if (read(rfd, &state, 1) != 1)
		_exit(2);
	r->child_ms = converge(words, state);
	r->child_bad = mismatches(words, state);
	_exit(r->child_bad ? 1 : 0);
}

static void fork_race(struct __test_metadata *_metadata,
		      struct _test_data_fork *self, bool zap)
{
	struct toggler t = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	long parent_max = 0, child_max = 0, waited = 0, t0 = ue_now_ms(), t1;
	struct round *rounds;
	int i, state = 0, p[2];
	char path[256];
	pid_t pid;

	for (i = 0; i < NR_ENABLERS; i++)
		ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD,
				       &self->words[i / 32], i % 32, 4, 0,
				       NULL));
	ASSERT_EQ(0, mismatches(self->words, 0));
	t1 = ue_now_ms();

	rounds = mmap(NULL, NR_FORKS * sizeof(*rounds),
		      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)rounds);
	self->enable_fd = open(ue_event_file(path, sizeof(path), EVENT,
					     "enable"), O_WRONLY);
	ASSERT_NE(-1, self->enable_fd);
	t.enable_fd = self->enable_fd;
	ASSERT_EQ(0, pthread_create(&t.thread, NULL, toggler_main, &t));

	for (i = 0; i < NR_FORKS; i++) {
		long ms;

		ASSERT_EQ(0, pipe(p));
		if (zap)
			ASSERT_EQ(0, madvise(self->words, self->page,
					     MADV_DONTNEED));

		/* 0 to 20 ms: before, during and after the fork */
		pthread_mutex_lock(&t.lock);
		t.delay_us = (i * 7919) % 21 * 1000;
		t.state = !state;
		t.done = false;
		t.go = true;
		pthread_cond_broadcast(&t.cond);
		pthread_mutex_unlock(&t.lock);

		pid = fork();
		ASSERT_NE(-1, pid);
		if (pid == 0) {
			close(p[1]);
			child_check(p[0], self->words, &rounds[i]);
		}
		close(p[0]);

		pthread_mutex_lock(&t.lock);
		while (!t.done)
			pthread_cond_wait(&t.cond, &t.lock);
		pthread_mutex_unlock(&t.lock);
		ASSERT_EQ(0, t.err);
		state = !state;

		/* The toggle is done: the child may check */
		ASSERT_EQ(1, write(p[1], state ? "\1" : "\0", 1));
		close(p[1]);
		ms = converge(self->words, state);
		ASSERT_LE(0, ms) {
			TH_LOG("round %d: %d of the parent's bits are not %d after %ld ms",
			       i, mismatches(self->words, state), state,
			       fault_ms);
		}
		if (ms > parent_max)
			parent_max = ms;

		ASSERT_EQ(0, ue_wait_child(pid)) {
			TH_LOG("round %d (toggle after %d us): %d child bits not %d after %ld ms",
			       i, t.delay_us, rounds[i].child_bad, state,
			       fault_ms);
		}
		if (rounds[i].child_ms > child_max)
			child_max = rounds[i].child_ms;
		waited += rounds[i].child_ms > 0;
	}
	TH_LOG("%d forks with %d enablers, longest convergence:",
	       NR_FORKS, NR_ENABLERS);
	TH_LOG("%ld ms in a child (%ld children waited), %ld ms in the parent",
	       child_max, waited, parent_max);
	TH_LOG("registrations %ld ms, rounds %ld ms", t1 - t0,
	       ue_now_ms() - t1);

	pthread_mutex_lock(&t.lock);
	t.quit = true;
	pthread_cond_broadcast(&t.cond);
	pthread_mutex_unlock(&t.lock);
	pthread_join(t.thread, NULL);
	munmap(rounds, NR_FORKS * sizeof(*rounds));
}

TEST_F_TIMEOUT(fork, child_bits_follow_toggle_during_fork, 300) {
	fork_race(_metadata, self, false);
}

TEST_F_TIMEOUT(fork, child_bits_follow_toggle_with_fault_pending, 300) {
	fork_race(_metadata, self, true);
}

/* Forks on one thread while another registers and unregisters */
#define NR_SLOTS	64
#define NR_D13_FORKS	100

struct churner {
	int fd;
	int *words;
	bool stop;		/* atomic: set by the forking thread */
	long rounds;
	int err;
};

static void *churn_main(void *arg)
{
	struct churner *c = arg;
	int slot;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		slot = c->rounds++ % NR_SLOTS;
		if (ue_reg_fd(c->fd, EVENT_P " u32 a", &c->words[slot], 0, 4,
			      0, NULL) ||
		    ue_unreg_fd(c->fd, &c->words[slot], 0)) {
			c->err = errno;
			break;
		}
	}

	return NULL;
}

/*
 * The child owns copies of what was registered at the fork: each of its
 * unregisters finds one (0, and the bit is clear) or nothing (ENOENT).
 */
static int d13_child(int fd, int *words)
{
	int slot;

	for (slot = 0; slot < NR_SLOTS; slot++) {
		if (ue_unreg_fd(fd, &words[slot], 0) == 0)
			UE_CHILD_EQ(0, ue_load(&words[slot]) & 1);
		else
			UE_CHILD_EQ(ENOENT, errno);
	}

	return 0;
}

TEST_F_TIMEOUT(fork, fork_while_unregistering, 300) {
	struct churner c = { .fd = self->data_fd, .words = self->words };
	pthread_t thread;
	int i, ret, failed = 0;
	char why[512];
	pid_t pid;

	/* Persistent and traced: every registration writes its bit */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_P " u32 a",
			       &self->words[NR_SLOTS], 0, 4,
			       USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, ue_enable(EVENT_P, 1));
	ASSERT_EQ(0, pthread_create(&thread, NULL, churn_main, &c));

	for (i = 0; i < NR_D13_FORKS; i++) {
		pid = fork();
		ASSERT_NE(-1, pid);
		if (pid == 0)
			_exit(d13_child(self->data_fd, self->words));
		ret = ue_child_result(pid, why, sizeof(why));
		if (ret)
			TH_LOG("fork %d: %s", i, why);
		failed += ret != 0;
	}
	__atomic_store_n(&c.stop, true, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	TH_LOG("%d forks against %ld register/unregister rounds", i, c.rounds);
	ASSERT_EQ(0, c.err);
	ASSERT_EQ(0, failed);
	ASSERT_LT(NR_D13_FORKS, c.rounds);

	/* Nothing of the children holds the event any more */
	ASSERT_EQ(0, ue_enable(EVENT_P, 0));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->words[NR_SLOTS], 0));
	close(self->data_fd);
	self->data_fd = -1;
	ASSERT_EQ(0, ue_del(EVENT_P)) {
		TH_LOG("DIAG_IOCSDEL: %s", strerror(errno));
	}
}

/*
 * A fork's copies, unregistered out of order. Enablers NR_COPIED, more
 * than any batch an implementation would copy at once. The child forks a
 * first grandchild, which finds its copies of copies. The child then
 * finds that a copy holds an address and bit, unregisters all of the
 * first COPIED_HEAD copies and every third of the rest, registers a bit
 * of its own, then forks a grandchild that unregisters all the copies it
 * got; the exits free the rest. After each
 * step every bit still registered follows the event at once (each
 * process wrote its pages first, so that none is copy-on-write), no other
 * bit does, and in the end nothing of the copies holds the event.
 */
#define NR_COPIED	160
#define COPIED_HEAD	70
#define COPIED_WORDS	(NR_COPIED / 32)

static bool copy_dropped(int i)
{
	return i < COPIED_HEAD || i % 3 == 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

/*
 * Make the page of @words private and writable again after a fork: the
 * kernel writes a bit at once only to a page that is.
 */
static int copies_unshare(int *words)
{
	return madvise(words, getpagesize(), MADV_POPULATE_WRITE);
}

/* Bits that are not @state for a kept enabler or not 0 for a dropped one */
static int copies_wrong(int *words, int state, bool dropped_too)
{
	int i, bit, want, bad = 0;

	for (i = 0; i < NR_COPIED; i++) {
		bit = (ue_load(&words[i / 32]) >> (i % 32)) & 1;
		want = dropped_too || !copy_dropped(i) ? state : 0;
		bad += bit != want;
	}

	return bad;
}

/*
 * The parent's bits after the fork: its pages were copy-on-write while
 * the child toggled the event, which leaves the writes to the parent's
 * fault worker. Wait for them, bounded by fault_ms.
 */
static bool copies_converge(int *words, int state)
{
	long start = ue_now_ms();

	while (copies_wrong(words, state, true)) {
		if (ue_now_ms() - start > fault_ms)
			return false;
		ue_sleep_ms(1);
	}

	return true;
}

/* The grandchild: its copies are the child's kept ones; it drops them */
static int copies_grandchild(int fd, int *words)
{
	int i, ret;

	UE_CHILD_EQ(0, copies_unshare(words));
	UE_CHILD_EQ(0, copies_wrong(words, 1, false));
	for (i = 0; i < NR_COPIED; i++) {
		ret = ue_unreg_fd(fd, &words[i / 32], i % 32);
		UE_CHILD_CHECK(copy_dropped(i) ? ret == -1 && errno == ENOENT :
						 !ret);
	}
	UE_CHILD_EQ(0, copies_wrong(words, 0, true));

	return 0;
}

/* Copies of copies, before the child looked one up: they are found */
static int copies_early_grandchild(int fd, int *words)
{
	UE_CHILD_EQ(0, copies_unshare(words));
	UE_CHILD_EQ(-1, ue_reg_fd(fd, EVENT_CMD, &words[2], 3, 4, 0, NULL));
	UE_CHILD_EQ(EADDRINUSE, errno);
	UE_CHILD_EQ(0, ue_unreg_fd(fd, &words[4], 31));

	return 0;
}

/* The bit of the child's own registration, beside the copies */
static int own_bit(int *words)
{
	return ue_load(&words[COPIED_WORDS]) & 1;
}

/*
 * Runs @fn in a child of its own: its exit status (a failed check of
 * the grandchild is its own report), or -1 if it could not fork
 */
static int copies_in_child(int (*fn)(int, int *), int fd, int *words)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(fd, words));

	return ue_wait_child(pid);
}

static int copies_child(int fd, int *words)
{
	int i;

	/* A fork before the child looked anything up */
	UE_CHILD_EQ(0, copies_in_child(copies_early_grandchild, fd, words));

	UE_CHILD_EQ(0, copies_unshare(words));

	/*
	 * Its first lookup: a copy holds the address and bit, which is
	 * checked before the command (invalid here) is read
	 */
	UE_CHILD_EQ(-1, ue_reg_fd(fd, EVENT ":x u32 a", &words[0], 1, 4, 0,
				  NULL));
	UE_CHILD_EQ(EADDRINUSE, errno);

	for (i = 0; i < NR_COPIED; i++) {
		if (copy_dropped(i))
			UE_CHILD_EQ(0, ue_unreg_fd(fd, &words[i / 32], i % 32));
	}
	UE_CHILD_EQ(0, ue_reg_fd(fd, EVENT_CMD, &words[COPIED_WORDS], 0, 4, 0,
				 NULL));
	UE_CHILD_EQ(0, ue_enable(EVENT, 1));
	UE_CHILD_EQ(0, copies_wrong(words, 1, false));
	UE_CHILD_CHECK(own_bit(words));

	UE_CHILD_EQ(0, copies_in_child(copies_grandchild, fd, words));

	/* The grandchild's unregisters took nothing of this process */
	UE_CHILD_EQ(0, copies_unshare(words));
	UE_CHILD_EQ(0, ue_enable(EVENT, 0));
	UE_CHILD_EQ(0, copies_wrong(words, 0, false));
	UE_CHILD_CHECK(!own_bit(words));
	UE_CHILD_EQ(0, ue_enable(EVENT, 1));
	UE_CHILD_EQ(0, copies_wrong(words, 1, false));
	UE_CHILD_CHECK(own_bit(words));

	return 0;
}

TEST_F(fork, copies_unregistered_out_of_order) {
	int i;
	pid_t pid;

	for (i = 0; i < NR_COPIED; i++)
		ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD,
				       &self->words[i / 32], i % 32, 4, 0,
				       NULL));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0)
		_exit(copies_child(self->data_fd, self->words));
	ASSERT_CHILD_OK(pid);

	/* The child left the event enabled; the parent kept all its bits */
	ASSERT_EQ(0, copies_unshare(self->words));
	ASSERT_TRUE(copies_converge(self->words, 1));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_TRUE(copies_converge(self->words, 0));
	for (i = 0; i < NR_COPIED; i++)
		ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->words[i / 32],
					 i % 32));
	close(self->data_fd);
	self->data_fd = -1;

	/* No copy, dropped or exited, still holds the event */
	ASSERT_TRUE(ue_del_unreferenced(EVENT)) {
		TH_LOG("DIAG_IOCSDEL: %s", strerror(errno));
	}
}

/*
 * execve: the exec'd image maps a word at the address the old image
 * registered, then reports it on request. The old image's enablers are
 * gone: their event reference at once, and nothing writes the word.
 */
static int exec_child(int argc, char **argv)
{
	int ready = atoi(argv[2]), cmd = atoi(argv[3]);
	int *word;
	char c;

	word = mmap((void *)EXEC_ADDR, getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (word != (void *)EXEC_ADDR)
		return 1;
	/* Present and writable: a write by the kernel would land at once */
	*word = 0;
	if (write(ready, "r", 1) != 1)
		return 2;
	while (read(cmd, &c, 1) == 1) {
		int value = ue_load(word);

		if (write(ready, &value, sizeof(value)) != sizeof(value))
			return 3;
	}

	return 0;
}

/* Fork, register at EXEC_ADDR with @flags, exec exec_child() */
static pid_t exec_start(const char *cmd, int bit, int flags, int ready[2],
			int go[2], const char *cmd2, int bit2)
{
	char self_path[256], rfd[16], cfd[16];
	ssize_t n;
	pid_t pid;
	int *word;

	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n <= 0 || pipe(ready) || pipe(go))
		return -1;
	self_path[n] = '\0';

	pid = fork();
	if (pid)
		return pid;

	word = mmap((void *)EXEC_ADDR, getpagesize(), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (word != (void *)EXEC_ADDR)
		_exit(10);
	if (ue_reg(cmd, word, bit, 4, flags))
		_exit(11);
	if (cmd2 && ue_reg(cmd2, word, bit2, 4, 0))
		_exit(12);
	close(ready[0]);
	close(go[1]);
	snprintf(rfd, sizeof(rfd), "%d", ready[1]);
	snprintf(cfd, sizeof(cfd), "%d", go[0]);
	execl(self_path, self_path, EXEC_ARG, rfd, cfd, NULL);
	_exit(13);
}

TEST_F(fork, exec_drops_enablers_at_once) {
	int ready[2], go[2], value = -1, own = 0;
	char c;
	pid_t pid;

	/* EVENT stays alive through the parent's own enabler */
	ASSERT_EQ(0, ue_reg(EVENT_CMD, &own, 0, 4, 0));

	pid = exec_start(EVENT_P " u32 a", 0, USER_EVENT_REG_PERSIST, ready,
			 go, EVENT_CMD, 1);
	ASSERT_LT(0, pid);
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ(1, read(ready[0], &c, 1)) {
		TH_LOG("exec'd child did not start: exit %d",
		       ue_wait_child(pid));
	}

	/* The old image's enabler held the persistent event: no more */
	ASSERT_EQ(0, ue_del(EVENT_P)) {
		TH_LOG("DIAG_IOCSDEL right after the exec: %s",
		       strerror(errno));
	}

	/* Enabling writes the parent's bit, not the new image's word */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, own);
	ASSERT_EQ(1, write(go[1], "c", 1));
	ASSERT_EQ(sizeof(value), read(ready[0], &value, sizeof(value)));
	ASSERT_EQ(0, value);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, own);

	close(go[1]);
	ASSERT_EQ(0, ue_wait_child(pid));
	close(ready[0]);
	ASSERT_EQ(0, ue_unreg(&own, 0));
}

/* The last reference of a non-persistent event went with the exec */
TEST_F(fork, exec_drops_last_reference) {
	char dir[256];
	int ready[2], go[2];
	pid_t pid;
	char c;

	snprintf(dir, sizeof(dir), EVENTS_DIR "/" EVENT_N);
	pid = exec_start(EVENT_N " u32 a", 0, 0, ready, go, NULL, 0);
	ASSERT_LT(0, pid);
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ(1, read(ready[0], &c, 1));

	/* Unreferenced now: deleted right away (or auto-deleted already) */
	ASSERT_TRUE(ue_del_unreferenced(EVENT_N)) {
		TH_LOG("DIAG_IOCSDEL right after the exec: %s",
		       strerror(errno));
	}
	ASSERT_FALSE(ue_exists(dir));

	close(go[1]);
	ASSERT_EQ(0, ue_wait_child(pid));
	close(ready[0]);
}

/*
 * Fork at mapping boundaries. The child inherits no memory of a
 * MADV_DONTFORK mapping, so no enabler of a word there, and gets the
 * memory of a MADV_WIPEONFORK mapping zeroed, so its bit written again.
 * The word sits right at the border with the mapping of other enablers:
 * at the first byte of the advised mapping when it directly follows
 * theirs, at its last int when it directly precedes it. Their words are
 * at both ends of their own page and registered before and after the
 * border word, so that the border word is copied between them whatever
 * order the kernel copies a process's enablers in.
 */
#define EDGE_PLAIN_LAST_BIT	0
#define EDGE_BIT		1
#define EDGE_PLAIN_FIRST_BIT	2

FIXTURE(edge) {
	long page;
	char *map;
	int *plain_first;	/* first int of the plain page */
	int *plain_last;	/* last int of the plain page */
	int *edge;		/* the word of the advised page at the border */
	bool umount;
};

FIXTURE_VARIANT(edge) {
	int advice;
	bool advised_first;	/* the advised page before the plain one */
};

FIXTURE_VARIANT_ADD(edge, dontfork_after) {
	.advice = MADV_DONTFORK,
};

FIXTURE_VARIANT_ADD(edge, wipeonfork_after) {
	.advice = MADV_WIPEONFORK,
};

FIXTURE_VARIANT_ADD(edge, dontfork_before) {
	.advice = MADV_DONTFORK, .advised_first = true,
};

FIXTURE_VARIANT_ADD(edge, wipeonfork_before) {
	.advice = MADV_WIPEONFORK, .advised_first = true,
};

FIXTURE_SETUP(edge) {
	char *plain, *advised;

	self->map = MAP_FAILED;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	fork_cleanup();
	self->page = sysconf(_SC_PAGESIZE);
	self->map = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)self->map);
	plain = self->map + (variant->advised_first ? self->page : 0);
	advised = self->map + (variant->advised_first ? 0 : self->page);
	/* Other flags: the advice splits the mapping in two */
	ASSERT_EQ(0, madvise(advised, self->page, variant->advice));

	self->plain_first = (int *)plain;
	self->plain_last = (int *)(plain + self->page) - 1;
	self->edge = variant->advised_first ?
		     (int *)(advised + self->page) - 1 : (int *)advised;
	*self->plain_first = 0;
	*self->plain_last = 0;
	*self->edge = 0;
}

FIXTURE_TEARDOWN(edge) {
	ue_enable(EVENT, 0);
	if (self->map != MAP_FAILED)
		munmap(self->map, 2 * self->page);
	fork_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* What the child checks, one exit code per step */
enum edge_step {
	EDGE_OK,
	EDGE_COPY_OF_DONTFORK = 10,
	EDGE_MAP,
	EDGE_REGISTER_AGAIN,
	EDGE_REGISTER_BIT,
	EDGE_UNREG_OWN,
	EDGE_WIPED_NOT_WRITTEN,
	EDGE_UNREG_WIPED,
	EDGE_PLAIN_BITS,
	EDGE_UNREG_PLAIN,
};

static const char *edge_step_name(int step)
{
	static const char * const names[] = {
		"the DONTFORK word has no enabler in the child",
		"map the child's own page at the DONTFORK address",
		"the child registers the address anew",
		"the child's new registration sets its bit",
		"the child unregisters its new enabler",
		"the WIPEONFORK word is written again in the child",
		"the child unregisters its copy of the WIPEONFORK word",
		"the plain words keep their bits in the child",
		"the child unregisters its copies of the plain words",
	};

	if (step >= EDGE_COPY_OF_DONTFORK && step <= EDGE_UNREG_PLAIN)
		return names[step - EDGE_COPY_OF_DONTFORK];

	return "?";
}

static int edge_child(int *edge, int *plain_first, int *plain_last,
		      long page, int advice)
{
	int *word;

	if (advice == MADV_DONTFORK) {
		if (ue_unreg(edge, EDGE_BIT) != -1 || errno != ENOENT)
			return EDGE_COPY_OF_DONTFORK;
		/* Memory of its own there: a new address for the child */
		word = mmap((char *)edge - ((uintptr_t)edge &
						   (page - 1)),
			    page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    -1, 0);
		if (word == MAP_FAILED)
			return EDGE_MAP;
		if (ue_reg(EVENT_CMD, edge, EDGE_BIT, 4, 0))
			return EDGE_REGISTER_AGAIN;
		if (ue_load(edge) != 1 << EDGE_BIT)
			return EDGE_REGISTER_BIT;
		if (ue_unreg(edge, EDGE_BIT) || ue_load(edge))
			return EDGE_UNREG_OWN;
	} else {
		/* Zeroed by the fork; the child's fault worker writes it */
		if (!ue_wait_int(edge, 1 << EDGE_BIT, UE_FAULT_MS))
			return EDGE_WIPED_NOT_WRITTEN;
		if (ue_unreg(edge, EDGE_BIT) || ue_load(edge))
			return EDGE_UNREG_WIPED;
	}

	if (ue_load(plain_first) != 1 << EDGE_PLAIN_FIRST_BIT ||
	    ue_load(plain_last) != 1 << EDGE_PLAIN_LAST_BIT)
		return EDGE_PLAIN_BITS;
	if (ue_unreg(plain_first, EDGE_PLAIN_FIRST_BIT) ||
	    ue_unreg(plain_last, EDGE_PLAIN_LAST_BIT))
		return EDGE_UNREG_PLAIN;

	return EDGE_OK;
}

TEST_F(edge, child_enablers_at_mapping_border) {
	int status;
	pid_t pid;

	ASSERT_EQ(0, ue_reg(EVENT_CMD, self->plain_last, EDGE_PLAIN_LAST_BIT,
			    4, 0));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, self->edge, EDGE_BIT, 4, 0));
	ASSERT_EQ(0, ue_reg(EVENT_CMD, self->plain_first,
			    EDGE_PLAIN_FIRST_BIT, 4, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << EDGE_BIT, ue_load(self->edge));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0)
		_exit(edge_child(self->edge, self->plain_first,
				 self->plain_last, self->page,
				 variant->advice));
	status = ue_wait_child(pid);
	ASSERT_EQ(EDGE_OK, status) {
		TH_LOG("child: %s failed (exit %d)", edge_step_name(status),
		       status);
	}

	/* The parent's enablers are as before; its pages copy-on-write */
	ASSERT_EQ(1 << EDGE_BIT, ue_load(self->edge));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_TRUE(ue_wait_int(self->edge, 0, UE_FAULT_MS));
	ASSERT_TRUE(ue_wait_int(self->plain_first, 0, UE_FAULT_MS));
	ASSERT_TRUE(ue_wait_int(self->plain_last, 0, UE_FAULT_MS));
	ASSERT_EQ(0, ue_unreg(self->plain_last, EDGE_PLAIN_LAST_BIT));
	ASSERT_EQ(0, ue_unreg(self->edge, EDGE_BIT));
	ASSERT_EQ(0, ue_unreg(self->plain_first, EDGE_PLAIN_FIRST_BIT));
}

static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], EXEC_ARG))
		return exec_child(argc, argv);

	/* Slow guests: the cases' timeouts and fault_ms grow alike */
	ue_scale_case_timeouts();
	fault_ms = (long)UE_FAULT_MS * ue_timeout_factor() / 3;
	return test_harness_run(argc, argv);
}
