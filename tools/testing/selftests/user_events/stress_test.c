// SPDX-License-Identifier: GPL-2.0
/*
 * user_events stress test: threads and processes register, unregister,
 * write, close, fork, execve and exit while other threads toggle ftrace
 * and open and close perf events on the same events. Each loop is also
 * bounded by MAX_LOOPS. Afterwards every event created here must be gone
 * again (no directory, no user_events_status line, the Active count back
 * to its start); the harness checks the kernel log and kmemleak.
 *
 *   UE_STRESS_SECONDS=N  run time (default STRESS_SECONDS)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "user_events_selftests.h"

#define STRESS_SECONDS	60
#define NR_EVENTS	4
#define NR_PROCS	2
#define NR_REG_THREADS	2
#define MAX_LOOPS	1000000
#define MAX_EXECS	12
#define CHILD_ARG	"--user-events-stress-child"
#define EVENT_FMT	"__stress%d"
#define EVENT_ARGS	" u32 v"

/* What is counted, in a page shared with the worker processes */
enum { REGS, WRITES, FORKS, EXECS, PERF_OPENS, TOGGLES, NR_COUNTS };

static atomic_long *counts;

static const char * const count_names[NR_COUNTS] = {
	"registrations", "writes", "forks", "execs", "perf opens",
	"ftrace toggles",
};

/* Minimum of each per 10 s of run time */
static const long min_per_10s[NR_COUNTS] = { 40, 20, 5, 1, 10, 40 };

static void count(int what)
{
	/* The re-executed child has no counters */
	if (counts)
		atomic_fetch_add(&counts[what], 1);
}

static long counted(int what)
{
	return atomic_load(&counts[what]);
}

static atomic_int stop;
static atomic_long errors;
static long deadline;

/* Enable words: one page per registering context */
static int words[NR_REG_THREADS + 1][64];

static void event_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, EVENT_FMT, i);
}

static void event_cmd(char *buf, size_t len, int i)
{
	snprintf(buf, len, EVENT_FMT EVENT_ARGS, i);
}

static bool done(void)
{
	return atomic_load(&stop) || ue_now_ms() > deadline;
}

static void bad(const char *what, int err)
{
	atomic_fetch_add(&errors, 1);
	fprintf(stderr, "# %d: %s: %s\n", getpid(), what, strerror(err));
}

/* Register, write once, maybe unregister; returns the write index */
static int reg_write(int fd, int ev, int *word, int bit, bool unreg)
{
	char cmd[64];
	int idx = -1;
	int payload[2];
	ssize_t ret;

	event_cmd(cmd, sizeof(cmd), ev);
	if (ue_reg_fd(fd, cmd, word, bit, 4, 0, &idx)) {
		bad("register", errno);
		return -1;
	}

	count(REGS);
	payload[0] = idx;
	payload[1] = bit;
	ret = write(fd, payload, sizeof(payload));
	/* EBADF: nothing attached at that moment */
	if (ret != sizeof(payload) && !(ret == -1 && errno == EBADF))
		bad("write", errno);
	if (ret == sizeof(payload))
		count(WRITES);

	if (unreg && ue_unreg_fd(fd, word, bit))
		bad("unregister", errno);

	return idx;
}

static void *reg_thread(void *arg)
{
	int *w = words[(long)arg];
	unsigned int seed = (long)arg * 7919 + 1;
	int fd = -1, loops;

	for (loops = 0; loops < MAX_LOOPS && !done(); loops++) {
		int slot = rand_r(&seed) % 64;

		if (fd < 0)
			fd = open(DATA_FILE, O_RDWR);
		if (fd < 0) {
			bad("open", errno);
			break;
		}
		reg_write(fd, rand_r(&seed) % NR_EVENTS, &w[slot],
			  rand_r(&seed) % 32, true);
		if (rand_r(&seed) % 8 == 0) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);

	return NULL;
}

static void *ftrace_thread(void *arg)
{
	unsigned int seed = 17;
	char name[32];
	int loops;

	for (loops = 0; loops < MAX_LOOPS && !done(); loops++) {
		event_name(name, sizeof(name), rand_r(&seed) % NR_EVENTS);
		/* The event may not exist at this moment */
		if (!ue_enable(name, rand_r(&seed) % 2))
			count(TOGGLES);
	}

	return NULL;
}

static int event_id(const char *name)
{
	char path[256], buf[32] = "";
	int fd, len;

	ue_event_file(path, sizeof(path), name, "id");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);

	return len > 0 ? atoi(buf) : -1;
}

static void *perf_thread(void *arg)
{
	unsigned int seed = 23;
	char name[32];
	int loops, id, fd;

	for (loops = 0; loops < MAX_LOOPS && !done(); loops++) {
		event_name(name, sizeof(name), rand_r(&seed) % NR_EVENTS);
		id = event_id(name);
		if (id < 0) {
			ue_sleep_ms(1);
			continue;
		}
		fd = ue_perf_open(id);
		/* Deleted in between: the id is gone or reused */
		if (fd < 0)
			continue;
		count(PERF_OPENS);
		ue_sleep_ms(rand_r(&seed) % 3);
		close(fd);
	}

	return NULL;
}

static void exec_child(const char *self, int how)
{
	char *const self_argv[] = { (char *)self, CHILD_ARG, NULL };
	char *const true_argv[] = { "/bin/true", NULL };

	count(EXECS);
	if (how)
		execv(self, self_argv);
	else
		execv("/bin/true", true_argv);
	_exit(0);
}

/* A single-threaded process: fork, exec and exit with registrations */
static void proc_worker(int id, const char *self)
{
	unsigned int seed = 1000 + id;
	int w[64] = {0};
	int execs = 0, loops, fd = -1, status;

	for (loops = 0; loops < MAX_LOOPS && !done(); loops++) {
		int slot = rand_r(&seed) % 64;
		int bit = rand_r(&seed) % 32;
		pid_t pid;

		if (fd < 0)
			fd = open(DATA_FILE, O_RDWR);
		if (fd < 0) {
			bad("open", errno);
			break;
		}
		/* Keep it registered: the children inherit it */
		ue_unreg_fd(fd, &w[slot], bit);
		reg_write(fd, rand_r(&seed) % NR_EVENTS, &w[slot], bit, false);

		pid = fork();
		if (pid == 0) {
			int r = rand_r(&seed) % 8;

			/* The inherited enabler may be unregistered or not */
			if (r & 1)
				ue_unreg_fd(fd, &w[slot], bit);
			ue_unreg_fd(fd, &w[(slot + 1) % 64], (bit + 1) % 32);
			reg_write(fd, rand_r(&seed) % NR_EVENTS,
				  &w[(slot + 1) % 64], (bit + 1) % 32, false);
			if (r < 2 && execs < MAX_EXECS)
				exec_child(self, r);
			_exit(atomic_load(&errors) ? 1 : 0);
		}
		if (pid < 0) {
			bad("fork", errno);
			break;
		}
		count(FORKS);
		if ((rand_r(&seed) % 8) < 2)
			execs++;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad("child", ECHILD);

		if (rand_r(&seed) % 4 == 0) {
			close(fd);
			fd = -1;
		}
	}
	_exit(atomic_load(&errors) ? 1 : 0);
}

/* The re-executed self: register and exit without cleaning up */
static int stress_exec_child(void)
{
	static int word;
	int fd = open(DATA_FILE, O_RDWR);

	if (fd < 0)
		return 1;
	reg_write(fd, getpid() % NR_EVENTS, &word, 0, false);

	return 0;
}

FIXTURE(stress) {
	bool umount;
	int start_active;
};

static void stress_cleanup(void)
{
	char name[32];
	int i;

	for (i = 0; i < NR_EVENTS; i++) {
		event_name(name, sizeof(name), i);
		ue_enable(name, 0);
	}
}

FIXTURE_SETUP(stress) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	stress_cleanup();
	self->start_active = ue_active_count();
}

FIXTURE_TEARDOWN(stress) {
	stress_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F_TIMEOUT(stress, concurrent_lifetimes, 200)
{
	pthread_t reg[NR_REG_THREADS], ftrace, perf;
	pid_t procs[NR_PROCS];
	int seconds = STRESS_SECONDS, i, status, active;
	const char *env = getenv("UE_STRESS_SECONDS");
	char self_path[256];
	ssize_t n;
	long start;

	if (env && *env)
		seconds = atoi(env);
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	ASSERT_LT(0, n);
	self_path[n] = '\0';
	TH_LOG("UE_STRESS_SECONDS=%d, start Active: %d", seconds,
	       self->start_active);

	counts = mmap(NULL, NR_COUNTS * sizeof(*counts),
		      PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)counts);

	start = ue_now_ms();
	deadline = start + seconds * 1000L;

	/* Processes first: they fork, so they must be single-threaded */
	for (i = 0; i < NR_PROCS; i++) {
		procs[i] = fork();
		ASSERT_NE(-1, procs[i]);
		if (procs[i] == 0)
			proc_worker(i, self_path);
	}
	for (i = 0; i < NR_REG_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&reg[i], NULL, reg_thread,
					    (void *)(long)i));
	ASSERT_EQ(0, pthread_create(&ftrace, NULL, ftrace_thread, NULL));
	ASSERT_EQ(0, pthread_create(&perf, NULL, perf_thread, NULL));

	for (i = 0; i < NR_REG_THREADS; i++)
		pthread_join(reg[i], NULL);
	pthread_join(ftrace, NULL);
	pthread_join(perf, NULL);
	for (i = 0; i < NR_PROCS; i++) {
		ASSERT_EQ(procs[i], waitpid(procs[i], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad("process worker", ECHILD);
	}
	TH_LOG("ran %ld ms: %ld registrations, %ld writes, %ld forks, %ld execs",
	       ue_now_ms() - start, counted(REGS),
	       counted(WRITES), counted(FORKS),
	       counted(EXECS));
	TH_LOG("%ld perf opens, %ld ftrace toggles, %ld errors",
	       counted(PERF_OPENS),
	       counted(TOGGLES), atomic_load(&errors));
	EXPECT_EQ(0, atomic_load(&errors));

	/*
	 * Every kind of operation really ran, and often: an idle worker
	 * would make the run prove nothing. The minimums are about a tenth
	 * of what the debug guest does on two shared host cores.
	 */
	for (i = 0; i < NR_COUNTS; i++) {
		long want = min_per_10s[i] * seconds / 10;

		if (i == PERF_OPENS && !ue_have_perf()) {
			TH_LOG("no perf opens expected: %s", UE_NO_PERF);
			continue;
		}
		if (want < 1)
			want = 1;
		EXPECT_LE(want, counted(i)) {
			TH_LOG("%s: %ld, expected at least %ld",
			       count_names[i], counted(i), want);
		}
	}

	/* Nothing is left enabled, registered or referenced */
	stress_cleanup();
	if (!ue_wait_active(self->start_active, 10000)) {
		char *text = ue_read_file(STATUS_FILE);

		active = ue_active_count();
		TH_LOG("Active %d, expected %d:\n%s", active,
		       self->start_active, text ? text : "");
		free(text);
		ASSERT_EQ(self->start_active, active);
	}
	TH_LOG("Active back to %d after %ld ms", self->start_active,
	       ue_now_ms() - deadline);

	/* None of the (non-persistent) events is left anywhere */
	status = 0;
	for (i = 0; i < NR_EVENTS; i++) {
		char name[32], path[256], *text;

		event_name(name, sizeof(name), i);
		if (ue_exists(ue_event_file(path, sizeof(path), name, ""))) {
			TH_LOG("%s still has a directory", name);
			status++;
		}
		text = ue_read_file(STATUS_FILE);
		if (!text || strstr(text, name)) {
			TH_LOG("%s still in user_events_status", name);
			status++;
		}
		free(text);
		text = ue_read_file(DYN_FILE);
		if (!text || strstr(text, name)) {
			TH_LOG("%s still in dynamic_events", name);
			status++;
		}
		free(text);
	}
	ASSERT_EQ(0, status);
}

static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], CHILD_ARG))
		return stress_exec_child();

	return test_harness_run(argc, argv);
}
