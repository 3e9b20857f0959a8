// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel's bit worker costs for a process whose words cannot be
 * written: N enablers on N pages, registered while writable, then made
 * read-only. A change of the event hands every one of them to the
 * process's worker, which gives each up after a bounded number of
 * fault-ins. The bound per enabler must keep the whole pass linear in
 * the number of enablers: doubling N may double the worker's run time,
 * not square it (a process may own 65,536 enablers, and the worker runs
 * on a kernel thread whose CPU time nobody is charged for).
 *
 * The run time is measured from the workqueue_execute_start/end events
 * of the worker function, recorded in a trace instance of the test's
 * own. Four times the enablers must cost less than eight times the time.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>

#include "user_events_selftests.h"

#define EVENT		"__cost_event"
#define EVENT_CMD	EVENT " u32 a"
#define INSTANCE	TRACEFS_DIR "/instances/__cost"
#define WQ_EVENTS	INSTANCE "/events/workqueue"
#define WORKER_FUNC	"user_event_mm_work"
#define SMALL		128
#define LARGE		512
#define DONE_MS		300000

FIXTURE(cost) {
	bool umount;
};

static void cost_cleanup(void)
{
	ue_write_str(WQ_EVENTS "/workqueue_execute_start/enable", "0", 0);
	ue_write_str(WQ_EVENTS "/workqueue_execute_end/enable", "0", 0);
	rmdir(INSTANCE);
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
}

FIXTURE_SETUP(cost) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	cost_cleanup();
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT_CMD));
}

FIXTURE_TEARDOWN(cost) {
	cost_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* A process with @n enablers on @n read-only pages; waits for SIGKILL */
static pid_t unwritable_process(int n, int *ready)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map;
	pid_t pid;
	int fd, i;

	pid = fork();
	if (pid)
		return pid;

	map = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(DATA_FILE, O_RDWR);
	if (map == MAP_FAILED || fd < 0)
		_exit(1);
	for (i = 0; i < n; i++) {
		map[i * page] = 0;
		if (ue_reg_fd(fd, EVENT_CMD, map + i * page, 0, sizeof(int),
			      0, NULL))
			_exit(2);
	}
	if (mprotect(map, n * page, PROT_READ))
		_exit(3);
	__atomic_store_n(ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pause();
}

/* Seconds of the time stamp of a trace line that ends at @at */
static double line_ts(const char *line, const char *at)
{
	const char *p = at;

	/* "... 123.456789: workqueue_execute_start: ..." */
	while (p > line && p[-1] != ' ')
		p--;

	return atof(p);
}

/*
 * The run time of the worker in ms from the instance's trace, once a
 * run ended; -1 while none has ended, -2 on error.
 */
static double worker_ms(void)
{
	char *text = ue_read_file(INSTANCE "/trace"), *line, *next, *at;
	double start = -1, total = -1;

	if (!text)
		return -2;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strstr(line, WORKER_FUNC))
			continue;
		at = strstr(line, ": workqueue_execute_start");
		if (at) {
			start = line_ts(line, at);
			continue;
		}
		at = strstr(line, ": workqueue_execute_end");
		if (at && start >= 0) {
			total = (total < 0 ? 0 : total) +
				(line_ts(line, at) - start) * 1000;
			start = -1;
		}
	}
	free(text);

	return total;
}

/* The worker's run time after one enable, for a process of @n enablers */
static double measure(struct __test_metadata *_metadata, int n)
{
	int *ready = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long end;
	double ms;
	pid_t pid;

	if (ready == MAP_FAILED)
		return -2;
	*ready = 0;
	pid = unwritable_process(n, ready);
	if (pid < 0)
		return -2;
	end = ue_now_ms() + DONE_MS;
	while (!__atomic_load_n(ready, __ATOMIC_SEQ_CST) &&
	       ue_now_ms() < end)
		ue_sleep_ms(20);

	mkdir(INSTANCE, 0755);
	ue_write_str(INSTANCE "/buffer_size_kb", "4096", 0);
	ue_write_str(INSTANCE "/trace", "", O_TRUNC);
	ue_write_str(WQ_EVENTS "/workqueue_execute_start/enable", "1", 0);
	ue_write_str(WQ_EVENTS "/workqueue_execute_end/enable", "1", 0);

	ue_enable(EVENT, 1);
	/* Done when a run ended and no other ran in the next second */
	ms = -1;
	while (ue_now_ms() < end) {
		double prev = ms;

		ue_sleep_ms(1000);
		ms = worker_ms();
		if (ms >= 0 && ms == prev)
			break;
	}

	/* Gone before the next change hands the words to the worker again */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ue_enable(EVENT, 0);
	ue_write_str(WQ_EVENTS "/workqueue_execute_start/enable", "0", 0);
	ue_write_str(WQ_EVENTS "/workqueue_execute_end/enable", "0", 0);
	rmdir(INSTANCE);
	munmap(ready, sizeof(int));

	return ms;
}

TEST_F_TIMEOUT(cost, give_up_is_linear, 900)
{
	double small, large;

	if (!ue_exists(TRACEFS_DIR "/events/workqueue/workqueue_execute_end"))
		SKIP(return, "no workqueue events to time the worker with");

	small = measure(_metadata, SMALL);
	ASSERT_LE(0, small);
	large = measure(_metadata, LARGE);
	ASSERT_LE(0, large);

	ksft_print_msg("worker ran %.1f ms for %d unwritable enablers, %.1f ms for %d (x%.1f)\n",
		       small, SMALL, large, LARGE, large / (small ? small : 1));
	fflush(stdout);
	EXPECT_GT(8 * small, large) {
		TH_LOG("%d times the enablers took %.1f times the time",
		       LARGE / SMALL, large / small);
	}
}

TEST_HARNESS_MAIN
