// SPDX-License-Identifier: GPL-2.0
/*
 * user_events benchmarks, run as root inside the guest by "make bench".
 *
 *   ue_bench [-c S] [-d DIR] [-r REPS] [-t MS] SECTION...
 *
 * SECTION: write disabled fanout reg tput fork reap (or "all"); prof
 * (section 8, with -d DIR); prof_ue and prof_raw only loop on 32 B
 * writes for 2 s each, to profile the write path with perf in "make
 * shell".  -c S: the longest time a row of section 9 may take.
 * Every result is one line on stdout:
 *
 *   row KEY UNIT V1 V2 ... VREPS
 *
 * one value per repetition, or "skip KEY SECONDS" for a row not measured
 * because it would take that long; harness/bench/report.py turns them
 * into the table, the JSON and the chart.  Lines starting with '#' are
 * notes.
 * Any unexpected error ends the section with "error SECTION: why" on
 * stdout and exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define DATA_FILE TRACEFS "/user_events_data"
#define STATUS_FILE TRACEFS "/user_events_status"
#define MAX_PAYLOAD 2048
#define MAX_REPS 32

static int reps = 5;		/* repetitions per row */
static int slice_ms = 200;	/* length of one timed repetition */
static const char *section = "?";

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("error %s: ", section);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (errno)
		printf(" (%s)", strerror(errno));
	printf("\n");
	fflush(stdout);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void row(const char *key, const char *unit, const double *v, int n)
{
	int i;

	printf("row %s %s", key, unit);
	for (i = 0; i < n; i++)
		printf(" %.6g", v[i]);
	printf("\n");
	fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n values; sorts them */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("write '%s' to %s", s, path);
	close(fd);
}

static int read_int(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
		die("read %s", path);
	close(fd);
	return atoi(buf);
}

static int open_data(void)
{
	int fd = open(DATA_FILE, O_RDWR);

	if (fd < 0)
		die("open " DATA_FILE);
	return fd;
}

/* DIAG_IOCSREG of @cmd with bit @bit of the 32-bit word at @word */
static int reg_event(int fd, const char *cmd, uint32_t *word, int bit,
		     uint32_t *index)
{
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = bit,
		.enable_size = 4,
		.enable_addr = (uintptr_t)word,
		.name_args = (uintptr_t)cmd,
	};

	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0)
		return -errno;
	if (index)
		*index = reg.write_index;
	return 0;
}

static void unreg_event(int fd, uint32_t *word, int bit)
{
	struct user_unreg unreg = {
		.size = sizeof(unreg),
		.disable_bit = bit,
		.disable_addr = (uintptr_t)word,
	};

	if (ioctl(fd, DIAG_IOCSUNREG, &unreg) < 0)
		die("DIAG_IOCSUNREG");
}

static void event_path(char *buf, size_t len, const char *name,
		       const char *file)
{
	snprintf(buf, len, TRACEFS "/events/user_events/%s/%s", name, file);
}

static void ftrace_enable(const char *name, bool on)
{
	char path[256];

	event_path(path, sizeof(path), name, "enable");
	write_str(path, on ? "1" : "0");
}

/* "Active: N" of user_events_status: the number of user events */
/* The count of @label ("Active: ", "Kept: ") in user_events_status */
static int status_count(const char *label)
{
	static char buf[1 << 20];
	ssize_t n, len = 0;
	char *p;
	int fd;

	fd = open(STATUS_FILE, O_RDONLY);
	if (fd < 0)
		die("open " STATUS_FILE);
	/* Only the tail matters; keep the last chunk */
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += n;
		if (len > (ssize_t)sizeof(buf) / 2) {
			memmove(buf, buf + len - 4096, 4096);
			len = 4096;
		}
	}
	close(fd);
	buf[len] = '\0';
	p = strstr(buf, label);
	return p ? atoi(p + strlen(label)) : -1;
}

static int active_events(void)
{
	return status_count("Active: ");
}

/* Deleted events kept for their records: they count towards the limit */
static int kept_events(void)
{
	return status_count("Kept: ");
}

/* Waits until at most @n user events exist (auto-delete is deferred) */
static void wait_events(int n)
{
	int i;

	for (i = 0; i < 600; i++) {
		if (active_events() <= n)
			return;
		usleep(100000);
	}
	die("user events not deleted after 60 s (want <= %d, have %d)", n,
	    active_events());
}

/* Slab: line of /proc/meminfo, in bytes */
static long slab_bytes(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("open /proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(%d)", cpu);
}

static void wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		exit(1);	/* the child printed its error */
}

/* ------------------------------------------------------------------ */
/* 1. Enabled write cost: user event (ftrace, perf) vs trace_marker_raw */
/* ------------------------------------------------------------------ */

static unsigned char payload[4 + MAX_PAYLOAD];

/* Runs @op for slice_ms; returns ns per call */
#define TIMED_LOOP(op)							\
({									\
	uint64_t _t0 = now_ns(), _end = _t0 + slice_ms * 1000000ull, _t;\
	unsigned long _n = 0;						\
	int _k;								\
	do {								\
		for (_k = 0; _k < 64; _k++)				\
			op;						\
		_n += 64;						\
		_t = now_ns();						\
	} while (_t < _end);						\
	(double)(_t - _t0) / _n;					\
})

struct perf_ring {
	int fd;
	struct perf_event_mmap_page *page;
	size_t len;
};

/*
 * perf attached to the event: one sampling event per process (pid 0,
 * any CPU) with every record written to a 64-page ring buffer, which
 * the loop drains by moving data_tail up to data_head after each write,
 * so that no record is lost.
 */
static void perf_attach(struct perf_ring *pr, int id)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.wakeup_events = 1 << 30,
	};

	pr->fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (pr->fd < 0)
		die("perf_event_open(tracepoint %d)", id);
	pr->len = 65 * 4096;
	pr->page = mmap(NULL, pr->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			pr->fd, 0);
	if (pr->page == MAP_FAILED)
		die("mmap perf ring");
}

static void perf_detach(struct perf_ring *pr)
{
	munmap(pr->page, pr->len);
	close(pr->fd);
}

static inline void perf_drain(struct perf_ring *pr)
{
	uint64_t head = __atomic_load_n(&pr->page->data_head,
					 __ATOMIC_ACQUIRE);

	__atomic_store_n(&pr->page->data_tail, head, __ATOMIC_RELEASE);
}

static void ue_write(int fd, struct iovec *iov, size_t want)
{
	if (writev(fd, iov, 2) != (ssize_t)want)
		die("writev of %zu bytes to the user event", want);
}

/* trace_marker_raw keeps at most TRACE_BUF_SIZE (1 KiB) of a write */
/* The same record with write(): the index in front of the payload */
static void ue_write1(int fd, size_t want)
{
	if (write(fd, payload, want) != (ssize_t)want)
		die("write of %zu bytes to the user event", want);
}

static void raw_write(int fd, size_t want)
{
	ssize_t n = write(fd, payload, want);

	if (n != (ssize_t)want && !(want > 1024 && n == 1024))
		die("write of %zu bytes to trace_marker_raw gave %zd", want, n);
}

/* The VFS floor: the same calls on /dev/null, which does nothing */
static void null_writev(int fd, struct iovec *iov, size_t want)
{
	if (writev(fd, iov, 2) != (ssize_t)want)
		die("writev to /dev/null");
}

static void null_write(int fd, size_t want)
{
	if (write(fd, payload, want) != (ssize_t)want)
		die("write to /dev/null");
}

static void bench_write(void)
{
	static const int sizes[] = { 4, 32, 256, 2048 };
	double ue[MAX_REPS], raw[MAX_REPS], perf[MAX_REPS], ue1[MAX_REPS];
	double nullv[MAX_REPS], null1[MAX_REPS];
	uint32_t enabled = 0, index;
	struct perf_ring pr;
	struct iovec iov[2];
	char key[64];
	int fd, rawfd, nullfd, id, s, r;

	pin_cpu(0);
	fd = open_data();
	if (reg_event(fd, "ue_bench_w u32 v", &enabled, 0, &index))
		die("register ue_bench_w");
	rawfd = open(TRACEFS "/trace_marker_raw", O_WRONLY);
	if (rawfd < 0)
		die("open trace_marker_raw");
	nullfd = open("/dev/null", O_WRONLY);
	if (nullfd < 0)
		die("open /dev/null");
	memset(payload, 0x5a, sizeof(payload));
	memset(payload, 0, 4);		/* trace_marker_raw id 0 */
	iov[0].iov_base = &index;
	iov[0].iov_len = sizeof(index);
	iov[1].iov_base = payload + 4;

	write_str(TRACEFS "/trace", "");
	ftrace_enable("ue_bench_w", true);
	if (!(enabled & 1))
		die("enable bit not set by ftrace");
	for (s = 0; s < 4; s++) {
		iov[1].iov_len = sizes[s];
		/* Alternate, so that noise hits both sides alike */
		for (r = 0; r < reps; r++) {
			ue[r] = TIMED_LOOP(ue_write(fd, iov, 4 + sizes[s]));
			memcpy(payload, &index, 4);
			ue1[r] = TIMED_LOOP(ue_write1(fd, 4 + sizes[s]));
			memset(payload, 0, 4);	/* trace_marker_raw id 0 */
			raw[r] = TIMED_LOOP(raw_write(rawfd, 4 + sizes[s]));
		}
		snprintf(key, sizeof(key), "write_ftrace_%d", sizes[s]);
		row(key, "ns", ue, reps);
		snprintf(key, sizeof(key), "write1_ftrace_%d", sizes[s]);
		row(key, "ns", ue1, reps);
		snprintf(key, sizeof(key), "write_raw_%d", sizes[s]);
		row(key, "ns", raw, reps);
	}
	iov[1].iov_len = 32;
	for (r = 0; r < reps; r++) {
		nullv[r] = TIMED_LOOP(null_writev(nullfd, iov, 36));
		null1[r] = TIMED_LOOP(null_write(nullfd, 36));
	}
	row("write_nullv_32", "ns", nullv, reps);
	row("write_null1_32", "ns", null1, reps);
	ftrace_enable("ue_bench_w", false);
	write_str(TRACEFS "/trace", "");
	if (enabled & 1)
		die("enable bit still set after ftrace detached");

	{
		char path[256];

		event_path(path, sizeof(path), "ue_bench_w", "id");
		id = read_int(path);
	}
	perf_attach(&pr, id);
	if (!(enabled & 1))
		die("enable bit not set by perf");
	for (s = 0; s < 4; s++) {
		iov[1].iov_len = sizes[s];
		for (r = 0; r < reps; r++)
			perf[r] = TIMED_LOOP((ue_write(fd, iov, 4 + sizes[s]),
					      perf_drain(&pr)));
		snprintf(key, sizeof(key), "write_perf_%d", sizes[s]);
		row(key, "ns", perf, reps);
	}
	if (pr.page->data_head == 0)
		die("perf recorded nothing");
	perf_detach(&pr);
	close(nullfd);
	close(rawfd);
	close(fd);
}

/* For profiling (not in "all"): 32 B writes for 10 slices, ftrace on */
static void prof_write(bool raw)
{
	uint32_t enabled = 0, index;
	struct iovec iov[2];
	int fd, rawfd;

	pin_cpu(0);
	fd = open_data();
	if (reg_event(fd, "ue_bench_w u32 v", &enabled, 0, &index))
		die("register ue_bench_w");
	rawfd = open(TRACEFS "/trace_marker_raw", O_WRONLY);
	if (rawfd < 0)
		die("open trace_marker_raw");
	iov[0].iov_base = &index;
	iov[0].iov_len = sizeof(index);
	iov[1].iov_base = payload + 4;
	iov[1].iov_len = 32;
	memset(payload, 0, sizeof(payload));
	ftrace_enable("ue_bench_w", true);
	printf("# %s: %.1f ns\n", raw ? "raw" : "ue", raw ?
	       TIMED_LOOP(raw_write(rawfd, 36)) :
	       TIMED_LOOP(ue_write(fd, iov, 36)));
	ftrace_enable("ue_bench_w", false);
}

static void prof_ue(void)
{
	slice_ms *= 10;
	prof_write(false);
}

static void prof_raw(void)
{
	slice_ms *= 10;
	prof_write(true);
}

/* ------------------------------------------------------------------ */
/* 2. Disabled path: check the bit and skip, vs an empty loop           */
/* ------------------------------------------------------------------ */

static int dis_fd;
static struct iovec dis_iov[2];

static __attribute__((noinline)) void dis_emit(void)
{
	if (writev(dis_fd, dis_iov, 2) < 0)
		die("writev");
}

/* The "+r" keeps the counter alive: the compiler cannot drop the loop */
static __attribute__((noinline)) void loop_empty(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		asm volatile("" : "+r"(i));
}

static __attribute__((noinline)) void loop_check(unsigned long n,
						 const uint32_t *word)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		/* What a tracepoint macro does: one relaxed load and a test */
		if (__builtin_expect(__atomic_load_n(word, __ATOMIC_RELAXED) &
				     1, 0))
			dis_emit();
		asm volatile("" : "+r"(i));
	}
}

static void bench_disabled(void)
{
	double chk[MAX_REPS], emp[MAX_REPS];
	const unsigned long n = 20000000;
	uint32_t enabled = 0, index;
	uint64_t t0;
	int r;

	pin_cpu(0);
	dis_fd = open_data();
	if (reg_event(dis_fd, "ue_bench_d u32 v", &enabled, 0, &index))
		die("register ue_bench_d");
	dis_iov[0].iov_base = &index;
	dis_iov[0].iov_len = sizeof(index);
	dis_iov[1].iov_base = payload;
	dis_iov[1].iov_len = 4;
	for (r = 0; r < reps; r++) {
		t0 = now_ns();
		loop_check(n, &enabled);
		chk[r] = (double)(now_ns() - t0) / n;
		t0 = now_ns();
		loop_empty(n);
		emp[r] = (double)(now_ns() - t0) / n;
	}
	row("disabled_check", "ns", chk, reps);
	row("disabled_empty", "ns", emp, reps);
	close(dis_fd);
}

/* ------------------------------------------------------------------ */
/* 3. Fan-out: enable with N processes registered                      */
/* ------------------------------------------------------------------ */

/* A process that registers its own bit, reports ready, waits for EOF */
static void fanout_child(int ready, int go, int i)
{
	static uint32_t word;
	char c = 'r';
	int fd = open_data();

	if (reg_event(fd, "ue_bench_f u32 v", &word, i % 32, NULL))
		die("child %d: register ue_bench_f", i);
	if (write(ready, &c, 1) != 1)
		die("child %d: ready", i);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

/* Processes of the crowd, and the enablers of another event each has */
#define CROWD_PROCS	10
#define CROWD_ENABLERS	1000

/* The bit of the event measured beside the crowd, on the parent's stack */
static uint32_t *crowd_word;

/*
 * A crowd process: drops the copy of crowd_word that fork gave it,
 * registers CROWD_ENABLERS bits of ue_bench_o, waits for EOF
 */
static void crowd_child(int ready, int go, int i)
{
	static uint32_t words[CROWD_ENABLERS];
	char c = 'r';
	int fd = open_data(), j;

	unreg_event(fd, crowd_word, 0);
	for (j = 0; j < CROWD_ENABLERS; j++)
		if (reg_event(fd, "ue_bench_o u32 v", &words[j], 0, NULL))
			die("crowd %d: register ue_bench_o %d", i, j);
	if (write(ready, &c, 1) != 1)
		die("crowd %d: ready", i);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

/*
 * Fork @n processes that run @child(ready, go, i), their pids into
 * @pids, and wait until each has reported ready: the pipe end whose
 * closing lets them exit. @name is what the messages call them.
 */
static int gang_start(pid_t *pids, int n, const char *name,
		      void (*child)(int ready, int go, int i))
{
	int ready[2], go[2], got = 0, i;
	char buf[256];

	if (pipe(ready) || pipe(go))
		die("pipe");
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork %s %d", name, i);
		if (!pids[i]) {
			close(ready[0]);
			close(go[1]);
			child(ready[1], go[0], i);
		}
	}
	close(ready[1]);
	close(go[0]);
	while (got < n) {
		ssize_t k = read(ready[0], buf, sizeof(buf));

		if (k <= 0)
			die("%s not ready (%d of %d)", name, got, n);
		got += k;
	}
	close(ready[0]);

	return go[1];
}

/* Let the @n processes of gang_start() go, and reap them */
static void gang_stop(const pid_t *pids, int n, int go)
{
	int i;

	close(go);
	for (i = 0; i < n; i++)
		wait_child(pids[i]);
}

/*
 * Time @reps enables of enable file @efd, each in µs into @on, and the
 * disables after them into @off unless it is NULL
 */
static void time_toggles(int efd, double *on, double *off)
{
	uint64_t t0;
	int r;

	for (r = 0; r < reps; r++) {
		t0 = now_ns();
		if (write(efd, "1", 1) != 1)
			die("enable");
		on[r] = (now_ns() - t0) / 1000.0;
		t0 = now_ns();
		if (write(efd, "0", 1) != 1)
			die("disable");
		if (off)
			off[r] = (now_ns() - t0) / 1000.0;
		/*
		 * Re-adding a probe within a grace period of removing the
		 * last one waits for RCU in the tracepoint core: a cost of
		 * quick toggling, not of the fan-out.
		 */
		usleep(100000);
	}
}

/*
 * Enabling an event registered by one process, alone and beside a crowd
 * of processes with many enablers of another event: a status change
 * costs what the changed event's enablers cost.
 */
static void bench_fanout_crowd(void)
{
	double alone[MAX_REPS], crowd[MAX_REPS];
	pid_t pids[CROWD_PROCS];
	uint32_t word = 0;
	char path[256];
	int efd, fd, go;

	crowd_word = &word;
	fd = open_data();
	if (reg_event(fd, "ue_bench_c u32 v", &word, 0, NULL))
		die("register ue_bench_c");
	event_path(path, sizeof(path), "ue_bench_c", "enable");
	efd = open(path, O_WRONLY);
	if (efd < 0)
		die("open %s", path);

	time_toggles(efd, alone, NULL);
	go = gang_start(pids, CROWD_PROCS, "crowd", crowd_child);
	time_toggles(efd, crowd, NULL);
	row("fanout_alone", "us", alone, reps);
	row("fanout_crowd", "us", crowd, reps);

	gang_stop(pids, CROWD_PROCS, go);
	close(efd);
	unreg_event(fd, &word, 0);
	close(fd);
}

static void bench_fanout(void)
{
	static const int counts[] = { 1, 10, 100, 1000 };
	double on[MAX_REPS], off[MAX_REPS];
	pid_t *pids = calloc(1000, sizeof(*pids));
	char path[256], key[64];
	uint32_t keep_word = 0;
	int efd, kfd, c, go;

	/*
	 * The first enabled event of the system also starts the recording of
	 * comm names (probes on sched_switch, code patching): keep another
	 * event enabled, so that each enable times the fan-out itself.
	 */
	kfd = open_data();
	if (reg_event(kfd, "ue_bench_keep u32 v", &keep_word, 0, NULL))
		die("register ue_bench_keep");
	ftrace_enable("ue_bench_keep", true);

	for (c = 0; c < 4; c++) {
		int n = counts[c];

		go = gang_start(pids, n, "children", fanout_child);
		event_path(path, sizeof(path), "ue_bench_f", "enable");
		efd = open(path, O_WRONLY);
		if (efd < 0)
			die("open %s", path);
		time_toggles(efd, on, off);
		close(efd);
		snprintf(key, sizeof(key), "fanout_enable_%d", n);
		row(key, "us", on, reps);
		snprintf(key, sizeof(key), "fanout_disable_%d", n);
		row(key, "us", off, reps);
		gang_stop(pids, n, go);
	}
	bench_fanout_crowd();
	ftrace_enable("ue_bench_keep", false);
	unreg_event(kfd, &keep_word, 0);
	close(kfd);
	free(pids);
}

/* ------------------------------------------------------------------ */
/* 4. Registration scaling, and 7. slab bytes per event and enabler     */
/* ------------------------------------------------------------------ */

#define REG_N 10000
#define REG_WIN 21	/* registrations around the one of interest */

/* Median of the REG_WIN times centred on registration @nth (1-based) */
static double window_median(const double *t, int nth)
{
	double w[REG_WIN];
	int first = nth - 1 - REG_WIN / 2, i;

	if (first + REG_WIN > REG_N)
		first = REG_N - REG_WIN;
	for (i = 0; i < REG_WIN; i++)
		w[i] = t[first + i];
	return median(w, REG_WIN);
}

/*
 * In a child process, so that its exit cleans up: REG_N registrations on
 * one fd, each timed, either of REG_N distinct events or of one event at
 * REG_N addresses.  Writes "t100 t10000 slab_delta" to @out.
 */
static void reg_child(int out, int rep, bool distinct)
{
	static uint32_t words[REG_N / 32 + 1];
	static double t[REG_N];
	char cmd[64], res[128];
	long slab0, slab1;
	uint64_t t0;
	int fd, i, ret;

	fd = open_data();
	slab0 = slab_bytes();
	for (i = 0; i < REG_N; i++) {
		if (distinct)
			snprintf(cmd, sizeof(cmd), "ue_br%d_%d u32 v", rep, i);
		else
			snprintf(cmd, sizeof(cmd), "ue_bs%d u32 v", rep);
		t0 = now_ns();
		ret = reg_event(fd, cmd, &words[i / 32], i % 32, NULL);
		t[i] = (now_ns() - t0) / 1000.0;
		if (ret) {
			errno = -ret;
			die("registration %d (%s)", i + 1, cmd);
		}
	}
	/* Let deferred frees of the registration path settle */
	usleep(300000);
	slab1 = slab_bytes();
	snprintf(res, sizeof(res), "%.6g %.6g %ld\n", window_median(t, 100),
		 window_median(t, REG_N), slab1 - slab0);
	if (write(out, res, strlen(res)) != (ssize_t)strlen(res))
		die("pipe");
	_exit(0);
}

static void bench_reg(void)
{
	double t100[2][MAX_REPS], t10k[2][MAX_REPS], mem[2][MAX_REPS];
	double ratio[2][MAX_REPS];
	int base = active_events(), d, r;

	for (r = 0; r < reps; r++) {
		for (d = 0; d < 2; d++) {
			char buf[128] = "";
			int p[2];
			long delta;
			pid_t pid;

			wait_events(base);
			usleep(200000);
			if (pipe(p))
				die("pipe");
			pid = fork();
			if (pid < 0)
				die("fork");
			if (!pid) {
				close(p[0]);
				reg_child(p[1], r, d == 0);
			}
			close(p[1]);
			if (read(p[0], buf, sizeof(buf) - 1) <= 0 ||
			    sscanf(buf, "%lf %lf %ld", &t100[d][r], &t10k[d][r],
				   &delta) != 3) {
				wait_child(pid);
				die("no result from the registration child");
			}
			close(p[0]);
			wait_child(pid);
			mem[d][r] = (double)delta / REG_N;
			ratio[d][r] = t10k[d][r] / t100[d][r];
		}
	}
	row("reg_distinct_100", "us", t100[0], reps);
	row("reg_distinct_10000", "us", t10k[0], reps);
	row("reg_distinct_ratio", "x", ratio[0], reps);
	row("reg_sameevent_100", "us", t100[1], reps);
	row("reg_sameevent_10000", "us", t10k[1], reps);
	row("reg_sameevent_ratio", "x", ratio[1], reps);
	/* An event registration also creates one enabler and one fd slot */
	for (r = 0; r < reps; r++)
		mem[0][r] -= mem[1][r];
	row("slab_per_event", "B", mem[0], reps);
	row("slab_per_enabler", "B", mem[1], reps);
	wait_events(base);
}

/* ------------------------------------------------------------------ */
/* 5. Write throughput with 1 and 2 writer CPUs                        */
/* ------------------------------------------------------------------ */

struct writer {
	pthread_t thread;
	int cpu;
	bool control;	/* getppid() instead of writev(): the host's scaling */
	unsigned long count;
	uint32_t word;
};

static volatile int tput_state;	/* 0 wait, 1 run, 2 stop */
static pthread_barrier_t tput_barrier;

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct iovec iov[2];
	uint32_t index, v = 1;
	unsigned long n = 0;
	int fd;

	pin_cpu(w->cpu);
	/* Its own fd: a shared file's refcount would bounce between CPUs */
	fd = open_data();
	if (reg_event(fd, "ue_bench_t u32 v", &w->word, 0, &index))
		die("register ue_bench_t");
	iov[0].iov_base = &index;
	iov[0].iov_len = sizeof(index);
	iov[1].iov_base = &v;
	iov[1].iov_len = sizeof(v);
	pthread_barrier_wait(&tput_barrier);
	while (tput_state == 0)
		;
	while (tput_state == 1) {
		if (w->control)
			syscall(SYS_getppid);
		else if (writev(fd, iov, 2) != 8)
			die("writev");
		n++;
	}
	w->count = n;
	unreg_event(fd, &w->word, 0);
	close(fd);
	return NULL;
}

static double tput_run(int nthreads, bool control)
{
	struct writer w[2] = {};
	unsigned long total = 0;
	uint64_t t0, t1;
	int i;

	w[0].control = w[1].control = control;
	tput_state = 0;
	pthread_barrier_init(&tput_barrier, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		w[i].cpu = i;
		if (pthread_create(&w[i].thread, NULL, writer_main, &w[i]))
			die("pthread_create");
	}
	pthread_barrier_wait(&tput_barrier);
	t0 = now_ns();
	tput_state = 1;
	usleep(slice_ms * 2500);
	tput_state = 2;
	t1 = now_ns();
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].count;
	}
	pthread_barrier_destroy(&tput_barrier);
	return total * 1e9 / (t1 - t0);
}

static void bench_tput(void)
{
	double one[MAX_REPS], two[MAX_REPS], ratio[MAX_REPS];
	double cone[MAX_REPS], ctwo[MAX_REPS], cratio[MAX_REPS];
	uint32_t word;
	int fd, r;

	/* Keeps the event alive between the runs */
	fd = open_data();
	if (reg_event(fd, "ue_bench_t u32 v", &word, 0, NULL))
		die("register ue_bench_t");
	write_str(TRACEFS "/trace", "");
	ftrace_enable("ue_bench_t", true);
	for (r = 0; r < reps; r++) {
		one[r] = tput_run(1, false);
		two[r] = tput_run(2, false);
		ratio[r] = two[r] / one[r];
		cone[r] = tput_run(1, true);
		ctwo[r] = tput_run(2, true);
		cratio[r] = ctwo[r] / cone[r];
	}
	ftrace_enable("ue_bench_t", false);
	write_str(TRACEFS "/trace", "");
	row("tput_1cpu", "ev/s", one, reps);
	row("tput_2cpu", "ev/s", two, reps);
	row("tput_ratio", "x", ratio, reps);
	row("tput_ctl_1cpu", "ev/s", cone, reps);
	row("tput_ctl_2cpu", "ev/s", ctwo, reps);
	row("tput_ctl_ratio", "x", cratio, reps);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* 6. fork cost with 0 and 1000 enablers                               */
/* ------------------------------------------------------------------ */

#define FORKS 100

/*
 * In a child: register @n enablers, then for each byte read from @cmd
 * time FORKS forks and write their median to @out.
 */
static void fork_child(int cmd, int out, int n)
{
	static uint32_t words[1000 / 32 + 1];
	int fd = open_data(), i, len;
	double t[FORKS];
	char res[64], c;
	uint64_t t0;
	pid_t pid;

	pin_cpu(0);
	for (i = 0; i < n; i++)
		if (reg_event(fd, "ue_bench_k u32 v", &words[i / 32], i % 32,
			      NULL))
			die("register enabler %d", i);
	while (read(cmd, &c, 1) == 1) {
		for (i = 0; i < FORKS; i++) {
			t0 = now_ns();
			pid = fork();
			if (!pid)
				_exit(0);
			t[i] = (now_ns() - t0) / 1000.0;
			if (pid < 0)
				die("fork");
			waitpid(pid, NULL, 0);
		}
		len = snprintf(res, sizeof(res), "%.6g\n", median(t, FORKS));
		if (write(out, res, len) != len)
			die("pipe");
	}
	_exit(0);
}

/*
 * Two processes, with 0 and with 1000 enablers, take turns rep by rep:
 * load from elsewhere on the host hits both alike.
 */
static void bench_fork(void)
{
	static const int counts[] = { 0, 1000 };
	double v[2][MAX_REPS], ratio[MAX_REPS];
	int cmd[2][2], out[2][2], c, r;
	char buf[64], key[64];
	pid_t pid[2];
	ssize_t k;

	for (c = 0; c < 2; c++) {
		if (pipe(cmd[c]) || pipe(out[c]))
			die("pipe");
		pid[c] = fork();
		if (pid[c] < 0)
			die("fork");
		if (!pid[c]) {
			close(cmd[c][1]);
			close(out[c][0]);
			/* Or the first child would never see EOF */
			if (c) {
				close(cmd[0][1]);
				close(out[0][0]);
			}
			fork_child(cmd[c][0], out[c][1], counts[c]);
		}
		close(cmd[c][0]);
		close(out[c][1]);
	}
	for (r = 0; r < reps; r++) {
		for (c = 0; c < 2; c++) {
			if (write(cmd[c][1], "f", 1) != 1)
				die("pipe");
			k = read(out[c][0], buf, sizeof(buf) - 1);
			if (k <= 0) {
				wait_child(pid[c]);
				die("no result from the fork child");
			}
			buf[k] = '\0';
			v[c][r] = strtod(buf, NULL);
		}
		ratio[r] = v[1][r] / v[0][r];
	}
	for (c = 0; c < 2; c++) {
		close(cmd[c][1]);
		close(out[c][0]);
	}
	for (c = 0; c < 2; c++) {
		wait_child(pid[c]);
		snprintf(key, sizeof(key), "fork_%d", counts[c]);
		row(key, "us", v[c], reps);
	}
	row("fork_ratio", "x", ratio, reps);
}

/* ------------------------------------------------------------------ */
/* 8. Where the instructions and the bytes go: function_graph profiles */
/* ------------------------------------------------------------------ */

/*
 * Meant for the instruction-counted guest, where function_graph's
 * durations count instructions.  Each profile runs its operation PROF_N
 * times untraced and timed (row prof_NAME_u0), then PROF_N times with
 * function_graph on the functions listed in DIR/filter-LIST.txt (-d DIR,
 * written by the host from the kernel objects), timed (prof_NAME_u1) and
 * with a trace_marker line "ue_bench it K" before each; the trace goes
 * to $UE_RESULTS/prof-NAME.txt.  harness/bench/graphprof.py turns the
 * trace and the two rows into instructions per function: the hooks of
 * the traced functions cost the same every time, which the difference
 * of the two rows and the calibration profile ("cal") measure.  Memory
 * profiles also record the kmem allocation and free events: which
 * function allocated what, and what is still allocated at the end.
 */
#define PROF_N 31

static const char *prof_dir;	/* -d: the host's filter lists */
static int prof_fd;		/* user_events_data of the profile */
static int prof_fd2;		/* a second file: raw marker or /dev/null */
static uint32_t prof_words[(PROF_N * 4 + 200) / 32 + 1];
static uint32_t prof_index;
static int prof_seq;		/* event names differ from profile to profile */
static int prof_bits[PROF_N * 2 + 100];	/* registered bits of prof_words */
static int prof_nbits;
static struct iovec prof_iov[2];

static int tracefs_try(const char *file, const char *s, int flags)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -errno;
	close(fd);
	return ret;
}

static void tracefs_set(const char *file, const char *s)
{
	int ret = tracefs_try(file, s, O_TRUNC);

	if (ret) {
		errno = -ret;
		die("write '%s' to %s", s, file);
	}
}

struct func_index {
	char *name;
	int index;	/* line of available_filter_functions, from 1 */
};

static int cmp_func(const void *a, const void *b)
{
	return strcmp(((const struct func_index *)a)->name,
		      ((const struct func_index *)b)->name);
}

/*
 * Sets set_ftrace_filter to the functions of DIR/filter-LIST.txt that are
 * traceable.  By index (line of available_filter_functions), not by name:
 * ftrace matches a name against the symbol of every traceable function,
 * which takes seconds per name in the instruction-counted guest.
 */
static int prof_filter(const char *list)
{
	static struct func_index *funcs;
	static int nfuncs;
	char path[512], name[256], *line = NULL, *buf;
	struct func_index key, *f;
	size_t cap = 0, len = 0;
	int n = 0, fd;
	ssize_t k;
	FILE *in;

	if (!funcs) {
		in = fopen(TRACEFS "/available_filter_functions", "r");
		if (!in)
			die("open available_filter_functions");
		while (getline(&line, &cap, in) > 0) {
			funcs = realloc(funcs, (nfuncs + 1) * sizeof(*funcs));
			if (!funcs)
				die("out of memory");
			line[strcspn(line, " \n")] = '\0';
			funcs[nfuncs].name = strdup(line);
			funcs[nfuncs].index = nfuncs + 1;
			nfuncs++;
		}
		fclose(in);
		free(line);
		qsort(funcs, nfuncs, sizeof(*funcs), cmp_func);
	}

	snprintf(path, sizeof(path), "%s/filter-%s.txt", prof_dir, list);
	in = fopen(path, "r");
	if (!in)
		die("open %s", path);
	buf = malloc(16 * nfuncs + 1);
	if (!buf)
		die("out of memory");
	while (fscanf(in, "%255s", name) == 1) {
		key.name = name;
		f = bsearch(&key, funcs, nfuncs, sizeof(*funcs), cmp_func);
		if (!f)
			continue;
		/* Static functions of different files may share a name */
		while (f > funcs && !strcmp(f[-1].name, name))
			f--;
		for (; f < funcs + nfuncs && !strcmp(f->name, name); f++) {
			len += sprintf(buf + len, "%d ", f->index);
			n++;
		}
	}
	fclose(in);
	if (!n)
		die("no traceable function in %s", path);
	fd = open(TRACEFS "/set_ftrace_filter", O_WRONLY | O_TRUNC);
	if (fd < 0)
		die("open set_ftrace_filter");
	/* Each write takes one index */
	for (line = buf; len; line += k, len -= k) {
		k = write(fd, line, len);
		if (k <= 0)
			die("write set_ftrace_filter");
	}
	close(fd);
	free(buf);
	return n;
}

static void prof_save(const char *name)
{
	const char *dir = getenv("UE_RESULTS");
	char path[512], buf[65536];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/prof-%s.txt", dir ? dir : ".", name);
	in = open(TRACEFS "/trace", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		die("save the trace to %s", path);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			die("write %s", path);
	close(in);
	close(out);
}

static const char * const kmem_events[] = {
	"kmem/kmalloc", "kmem/kmem_cache_alloc", "kmem/kfree",
	"kmem/kmem_cache_free",
};

static void prof_kmem(bool on)
{
	char path[128];
	unsigned int i;

	for (i = 0; i < sizeof(kmem_events) / sizeof(kmem_events[0]); i++) {
		snprintf(path, sizeof(path), "events/%s/enable", kmem_events[i]);
		tracefs_set(path, on ? "1" : "0");
	}
}

struct profile {
	const char *name;
	const char *filter;	/* DIR/filter-FILTER.txt */
	bool kmem;		/* record allocations too */
	void (*setup)(void);
	void (*op)(int k);	/* k: 0 .. 2 * PROF_N - 1, never the same twice */
	void (*after)(void);	/* untimed, after each op (or NULL) */
	void (*teardown)(void);
};

/* The cost of the timing itself: two clock reads */
static double prof_clock_cost(void)
{
	double v[101];
	uint64_t t0;
	int i;

	for (i = 0; i < 101; i++) {
		t0 = now_ns();
		v[i] = now_ns() - t0;
	}
	return median(v, 101);
}

static void run_profile(const struct profile *p)
{
	double u0[PROF_N], u1[PROF_N], clk;
	char key[96], mark[64];
	uint64_t t0, start = now_ns();
	int k, len, markfd, nf;

	pin_cpu(0);
	p->setup();
	clk = prof_clock_cost();
	for (k = 0; k < PROF_N; k++) {
		t0 = now_ns();
		p->op(k);
		u0[k] = now_ns() - t0 - clk;
		if (p->after)
			p->after();
	}

	nf = prof_filter(p->filter);
	snprintf(mark, sizeof(mark), "%d", getpid());
	tracefs_set("set_ftrace_pid", mark);
	tracefs_set("tracing_on", "0");
	tracefs_set("current_tracer", "function_graph");
	tracefs_set("trace_options", "funcgraph-tail");
	tracefs_set("trace_options", "nofuncgraph-irqs");
	tracefs_set("trace_options", "nofuncgraph-proc");
	tracefs_set("trace", "");
	if (p->kmem)
		prof_kmem(true);
	markfd = open(TRACEFS "/trace_marker", O_WRONLY);
	if (markfd < 0)
		die("open trace_marker");
	tracefs_set("tracing_on", "1");
	for (k = 0; k < PROF_N; k++) {
		len = snprintf(mark, sizeof(mark), "ue_bench it %d", k);
		if (write(markfd, mark, len) != len)
			die("trace_marker");
		t0 = now_ns();
		p->op(PROF_N + k);
		u1[k] = now_ns() - t0 - clk;
		if (p->after)
			p->after();
	}
	if (p->kmem) {
		/* What the operations freed late (RCU) is freed by now */
		usleep(500000);
		len = snprintf(mark, sizeof(mark), "ue_bench end");
		if (write(markfd, mark, len) != len)
			die("trace_marker");
		prof_kmem(false);
	}
	tracefs_set("tracing_on", "0");
	close(markfd);
	prof_save(p->name);
	tracefs_set("current_tracer", "nop");
	tracefs_set("set_ftrace_filter", "");
	tracefs_set("set_ftrace_pid", "");
	tracefs_set("trace", "");
	tracefs_set("tracing_on", "1");
	p->teardown();

	printf("# profile %s: %d functions traced, %.1f s\n", p->name, nf,
	       (now_ns() - start) / 1e9);
	snprintf(key, sizeof(key), "prof_%s_u0", p->name);
	row(key, "ns", u0, PROF_N);
	snprintf(key, sizeof(key), "prof_%s_u1", p->name);
	row(key, "ns", u1, PROF_N);
}

static void prof_reg_one(const char *fmt, int k, int bit)
{
	char cmd[64];
	int ret;

	snprintf(cmd, sizeof(cmd), fmt, getpid(), prof_seq, k);
	ret = reg_event(prof_fd, cmd, &prof_words[bit / 32], bit % 32, NULL);
	if (ret) {
		errno = -ret;
		die("register %s", cmd);
	}
	prof_bits[prof_nbits++] = bit;
}

/* Registrations of new events: the 100th and on, as in section 4 */
static void prof_reg_setup(void)
{
	int i;

	prof_fd = open_data();
	for (i = 0; i < 99; i++)
		prof_reg_one("ue_bp%dx%d_pre%d u32 v", i, 2 * PROF_N + i);
}

static void prof_reg_op(int k)
{
	prof_reg_one("ue_bp%dx%d_%d u32 v", k, k);
}

/* The same event at new addresses: one enabler each */
static void prof_same_op(int k)
{
	prof_reg_one("ue_bp%dx%d_pre%d u32 v", 0, k);
}

/* Enablers belong to the process, not to the fd: unregister them */
static void prof_close(void)
{
	int i;

	for (i = 0; i < prof_nbits; i++)
		unreg_event(prof_fd, &prof_words[prof_bits[i] / 32],
			    prof_bits[i] % 32);
	prof_nbits = 0;
	close(prof_fd);
}

/* An ioctl that our handler refuses at once: the cost of the hooks */
static void prof_cal_setup(void)
{
	prof_fd = open_data();
}

static void prof_cal_op(int k)
{
	(void)k;
	if (ioctl(prof_fd, _IO(DIAG_IOC_MAGIC, 0x7f), NULL) >= 0 ||
	    errno != ENOTTY)
		die("unknown ioctl not refused with ENOTTY");
}

/* 32 B payload writes with ftrace attached, and trace_marker_raw */
static void prof_write_setup(void)
{
	uint32_t *word = &prof_words[0];

	prof_fd = open_data();
	if (reg_event(prof_fd, "ue_bench_p u32 v", word, 0, &prof_index))
		die("register ue_bench_p");
	prof_bits[prof_nbits++] = 0;
	prof_fd2 = open(TRACEFS "/trace_marker_raw", O_WRONLY);
	if (prof_fd2 < 0)
		die("open trace_marker_raw");
	memset(payload, 0, sizeof(payload));
	prof_iov[0].iov_base = &prof_index;
	prof_iov[0].iov_len = sizeof(prof_index);
	prof_iov[1].iov_base = payload + 4;
	prof_iov[1].iov_len = 32;
	ftrace_enable("ue_bench_p", true);
	if (!(*word & 1))
		die("enable bit not set by ftrace");
}

static void prof_write_teardown(void)
{
	ftrace_enable("ue_bench_p", false);
	write_str(TRACEFS "/trace", "");
	close(prof_fd2);
	prof_close();
}

static void prof_writev_op(int k)
{
	(void)k;
	ue_write(prof_fd, prof_iov, 36);
}

static void prof_write1_op(int k)
{
	(void)k;
	memcpy(payload, &prof_index, 4);
	ue_write1(prof_fd, 36);
}

static void prof_raw_op(int k)
{
	(void)k;
	memset(payload, 0, 4);
	raw_write(prof_fd2, 36);
}

/* fork() of a process with 1000 enablers; the child exits at once */
static uint32_t fork_words[1000 / 32 + 1];

static void prof_fork_setup(void)
{
	int i;

	prof_fd = open_data();
	for (i = 0; i < 1000; i++)
		if (reg_event(prof_fd, "ue_bench_k u32 v", &fork_words[i / 32],
			      i % 32, NULL))
			die("register enabler %d", i);
}

static void prof_fork_teardown(void)
{
	int i;

	for (i = 0; i < 1000; i++)
		unreg_event(prof_fd, &fork_words[i / 32], i % 32);
	close(prof_fd);
}

static pid_t prof_child;

static void prof_fork_op(int k)
{
	(void)k;
	prof_child = fork();
	if (!prof_child)
		_exit(0);
	if (prof_child < 0)
		die("fork");
}

static void prof_fork_reap(void)
{
	wait_child(prof_child);
}

static const struct profile profiles[] = {
	{ "cal", "ours", false, prof_cal_setup, prof_cal_op, NULL, prof_close },
	{ "reg", "all", false, prof_reg_setup, prof_reg_op, NULL, prof_close },
	{ "regmem", "all", true, prof_reg_setup, prof_reg_op, NULL,
	  prof_close },
	{ "regsplit", "split", false, prof_reg_setup, prof_reg_op, NULL,
	  prof_close },
	{ "same", "all", false, prof_reg_setup, prof_same_op, NULL,
	  prof_close },
	{ "samemem", "all", true, prof_reg_setup, prof_same_op, NULL,
	  prof_close },
	{ "writev", "all", false, prof_write_setup, prof_writev_op, NULL,
	  prof_write_teardown },
	{ "write1", "all", false, prof_write_setup, prof_write1_op, NULL,
	  prof_write_teardown },
	{ "raw", "all", false, prof_write_setup, prof_raw_op, NULL,
	  prof_write_teardown },
	{ "fork", "all", false, prof_fork_setup, prof_fork_op, prof_fork_reap,
	  prof_fork_teardown },
};

static void bench_prof(void)
{
	unsigned int i;

	if (!prof_dir)
		die("the prof section needs -d DIR (the host's filter lists)");
	/* Each in a child of its own: a fresh process, and fresh names */
	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		pid_t pid;

		prof_seq++;
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			run_profile(&profiles[i]);
			fflush(stdout);
			_exit(0);
		}
		wait_child(pid);
	}
}

/* ------------------------------------------------------------------ */
/* 9. Removal: the longest event_mutex hold while N events are reaped  */
/* ------------------------------------------------------------------ */

/*
 * N events registered on one fd, their enablers unregistered, the fd
 * closed: the close puts the last reference of all N at once, and the
 * reaper deletes them.  Meanwhile a prober thread on CPU 1 reads the
 * enable file of a kernel event, which takes event_mutex, every
 * REAP_PROBE_US and times each read; the closing thread is on CPU 0, so
 * the reaper (a work item of the CPU that queued it) runs there and the
 * prober does not take its CPU.  The prober's longest read is the
 * longest time another task waited for event_mutex, short of the hold
 * by at most one probe interval, long by the read's own cost (row
 * reap_probe_cost).  The prober also runs for REAP_IDLE_MS before each
 * close: its longest read then (row reap_idle_max) is what the guest and
 * a busy host add to a read without any reap.  The reap is over when
 * every event's directory is gone and user_events_status counts none of
 * them (polled every REAP_POLL_MS, from CPU 1).
 *
 * "Once enabled": enabled and disabled again through the system's enable
 * file before the close, so that ftrace has had them; "never enabled" is
 * the control.  A row whose repetitions would take longer than -c
 * seconds in all is not measured: its lines are "skip KEY SECONDS", the
 * projected time of one reap (the N = 1,000 reap of the same kind in the
 * first repetition, times 30: less than it takes, the removal of an event
 * costs more when there are more).
 */
#define REAP_MAX	30000
#define REAP_PROBE_US	500
#define REAP_IDLE_MS	500
#define REAP_POLL_MS	20
#define REAP_COSTS	4096
#define REAP_PROBE_FILE	TRACEFS "/events/sched/sched_switch/enable"
#define REAP_SYSTEM_ENABLE TRACEFS "/events/user_events/enable"

static const int reap_counts[] = { 1000, REAP_MAX };
static const char * const reap_kinds[] = { "never", "once" };
static int reap_cap_s = 600;	/* -c: the longest row, all repetitions */
static int reap_seq;		/* event names differ from run to run */

struct prober {
	pthread_t thread;
	int fd;
	int phase;		/* 0 idle, 1 reaping, 2 stop */
	double idle_max;	/* longest read before the close, ns */
	double reap_max;	/* longest read that ended after it, ns */
	unsigned long nreap;	/* reads that ended after it */
	double cost[REAP_COSTS];	/* reads before the close, ns */
	int ncost;
};

static void *prober_main(void *arg)
{
	struct prober *p = arg;
	char buf[8];
	uint64_t t0;
	double d;

	pin_cpu(1);
	while (__atomic_load_n(&p->phase, __ATOMIC_ACQUIRE) != 2) {
		t0 = now_ns();
		if (pread(p->fd, buf, sizeof(buf), 0) <= 0)
			die("read " REAP_PROBE_FILE);
		d = now_ns() - t0;
		/* A read that began before the close may wait for the reap */
		if (__atomic_load_n(&p->phase, __ATOMIC_ACQUIRE)) {
			if (d > p->reap_max)
				p->reap_max = d;
			p->nreap++;
		} else {
			if (d > p->idle_max)
				p->idle_max = d;
			if (p->ncost < REAP_COSTS)
				p->cost[p->ncost++] = d;
		}
		usleep(REAP_PROBE_US);
	}
	return NULL;
}

static bool reap_event_exists(int seq, int i)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/events/user_events/ue_rp%d_%d",
		 seq, i);
	return !access(path, F_OK);
}

/* Whether every enable bit of the first @n is @on */
static bool reap_bits_are(const uint32_t *words, int n, bool on)
{
	int i;

	for (i = 0; i < n; i++)
		if (!!(words[i / 32] & (1u << (i % 32))) != on)
			return false;
	return true;
}

struct reap_result {
	double hold_ms;		/* longest probe read after the close */
	double total_s;		/* close until the last event is gone */
	double idle_ms;		/* longest probe read before the close */
	double cost_us;		/* median probe read before the close */
};

static void reap_run(int n, bool once, struct reap_result *res)
{
	static uint32_t words[REAP_MAX / 32 + 1];
	int seq = ++reap_seq, base, fd, i, ret, next = 0;
	struct prober p = { .phase = 0 };
	uint64_t t0, t1;
	char cmd[64];

	pin_cpu(0);
	/* The last run's events may be kept for their records: clear them */
	write_str(TRACEFS "/trace", "");
	for (i = 0; i < 100 && kept_events() > 0; i++)
		usleep(100000);
	base = active_events();
	if (base + kept_events() + n > read_int("/proc/sys/kernel/user_events_max"))
		die("%d events, %d kept and %d more are over kernel.user_events_max",
		    base, kept_events(), n);
	memset(words, 0, sizeof(words));
	fd = open_data();
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "ue_rp%d_%d u32 v", seq, i);
		ret = reg_event(fd, cmd, &words[i / 32], i % 32, NULL);
		if (ret) {
			errno = -ret;
			die("register %s", cmd);
		}
	}
	if (once) {
		write_str(REAP_SYSTEM_ENABLE, "1");
		if (!reap_bits_are(words, n, true))
			die("enable bits not all set by the system enable file");
		write_str(REAP_SYSTEM_ENABLE, "0");
		if (!reap_bits_are(words, n, false))
			die("enable bits still set after the system was disabled");
	}
	/* Enablers belong to the process: now only the fd holds the events */
	for (i = 0; i < n; i++)
		unreg_event(fd, &words[i / 32], i % 32);
	if (active_events() != base + n)
		die("%d user events before the close, want %d", active_events(),
		    base + n);

	p.fd = open(REAP_PROBE_FILE, O_RDONLY);
	if (p.fd < 0)
		die("open " REAP_PROBE_FILE);
	if (pthread_create(&p.thread, NULL, prober_main, &p))
		die("pthread_create");
	usleep(REAP_IDLE_MS * 1000);

	__atomic_store_n(&p.phase, 1, __ATOMIC_RELEASE);
	t0 = now_ns();
	close(fd);
	pin_cpu(1);
	for (;;) {
		usleep(REAP_POLL_MS * 1000);
		while (next < n && !reap_event_exists(seq, next))
			next++;
		if (next == n && active_events() <= base)
			break;
		if (now_ns() - t0 > 3600 * 1000000000ull)
			die("%d of %d events left an hour after the close",
			    n - next, n);
	}
	t1 = now_ns();
	__atomic_store_n(&p.phase, 2, __ATOMIC_RELEASE);
	pthread_join(p.thread, NULL);
	close(p.fd);
	if (!p.ncost || !p.nreap)
		die("the prober made no read (%d before the close, %lu after)",
		    p.ncost, p.nreap);

	res->hold_ms = p.reap_max / 1e6;
	res->total_s = (t1 - t0) / 1e9;
	res->idle_ms = p.idle_max / 1e6;
	res->cost_us = median(p.cost, p.ncost) / 1000;
	printf("# reap %s %d: longest read %.3g ms of %lu during the reap, %.3g s; idle %.3g ms, one read %.3g us\n",
	       reap_kinds[once], n, res->hold_ms, p.nreap, res->total_s,
	       res->idle_ms, res->cost_us);
	fflush(stdout);
}

#define REAP_N	(int)(sizeof(reap_counts) / sizeof(reap_counts[0]))

static void bench_reap(void)
{
	double hold[2][REAP_N][MAX_REPS], total[2][REAP_N][MAX_REPS];
	double idle[MAX_REPS], cost[MAX_REPS];
	double projected[2][REAP_N] = {};
	struct reap_result res;
	struct timespec ts;
	char key[64];
	int r, c, k, runs;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		die("the reap section needs 2 CPUs: the prober's and the reaper's");
	clock_getres(CLOCK_MONOTONIC, &ts);
	printf("# reap: probe every %d us, clock resolution %ld ns, cap %d s\n",
	       REAP_PROBE_US, ts.tv_nsec, reap_cap_s);
	for (r = 0; r < reps; r++) {
		idle[r] = cost[r] = 0;
		runs = 0;
		for (c = 0; c < REAP_N; c++) {
			/* Alternate, so that noise hits both kinds alike */
			for (k = 0; k < 2; k++) {
				if (projected[k][c])
					continue;
				reap_run(reap_counts[c], k, &res);
				hold[k][c][r] = res.hold_ms;
				total[k][c][r] = res.total_s;
				if (res.idle_ms > idle[r])
					idle[r] = res.idle_ms;
				cost[r] += res.cost_us;
				runs++;
				if (r || c + 1 == REAP_N)
					continue;
				/* The next count would take at least this long */
				projected[k][c + 1] = res.total_s *
					reap_counts[c + 1] / reap_counts[c];
				if (projected[k][c + 1] * reps <= reap_cap_s)
					projected[k][c + 1] = 0;
			}
		}
		cost[r] /= runs;
	}
	for (c = 0; c < REAP_N; c++) {
		for (k = 0; k < 2; k++) {
			const char *kind = reap_kinds[k];
			int n = reap_counts[c];

			if (projected[k][c]) {
				printf("skip reap_hold_%s_%d %.0f\n", kind, n,
				       projected[k][c]);
				printf("skip reap_total_%s_%d %.0f\n", kind, n,
				       projected[k][c]);
				continue;
			}
			snprintf(key, sizeof(key), "reap_hold_%s_%d", kind, n);
			row(key, "ms", hold[k][c], reps);
			snprintf(key, sizeof(key), "reap_total_%s_%d", kind, n);
			row(key, "s", total[k][c], reps);
		}
	}
	row("reap_idle_max", "ms", idle, reps);
	row("reap_probe_cost", "us", cost, reps);
}

/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(void);
} sections[] = {
	{ "write", bench_write },
	{ "disabled", bench_disabled },
	{ "fanout", bench_fanout },
	{ "reg", bench_reg },
	{ "tput", bench_tput },
	{ "fork", bench_fork },
	{ "reap", bench_reap },
	{ "prof", bench_prof },
	{ "prof_ue", prof_ue },		/* from here on: not in "all" */
	{ "prof_raw", prof_raw },
};

#define NR_ALL 7	/* "prof" and the rest are not in "all" */

#define NR_SECTIONS (sizeof(sections) / sizeof(sections[0]))

/* Each section in a child: a failure is contained, and leaves no state */
static int run_section(int s)
{
	uint64_t t0 = now_ns();
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		section = sections[s].name;
		errno = 0;
		sections[s].fn();
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	printf("# section %s: %.1f s\n", sections[s].name,
	       (now_ns() - t0) / 1e9);
	fflush(stdout);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("error %s: exited with status 0x%x\n", sections[s].name,
		       st);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int opt, i, s, bad = 0;

	while ((opt = getopt(argc, argv, "c:d:r:t:")) != -1) {
		switch (opt) {
		case 'c':
			reap_cap_s = atoi(optarg);
			break;
		case 'd':
			prof_dir = optarg;
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 't':
			slice_ms = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (reps < 1 || reps > MAX_REPS || slice_ms < 1 || optind >= argc)
		goto usage;

	printf("# reps %d, slice %d ms, %ld CPUs\n", reps, slice_ms,
	       sysconf(_SC_NPROCESSORS_ONLN));
	for (i = optind; i < argc; i++) {
		bool all = !strcmp(argv[i], "all"), found = all;

		for (s = 0; s < (int)NR_SECTIONS; s++) {
			if ((all && s < NR_ALL) ||
			    !strcmp(argv[i], sections[s].name)) {
				found = true;
				bad |= run_section(s);
			}
		}
		if (!found)
			goto usage;
	}
	return bad;
usage:
	fprintf(stderr, "usage: %s [-c S] [-d DIR] [-r REPS] [-t MS] write|disabled|fanout|reg|tput|fork|reap|prof|all...\n",
		argv[0]);
	return 2;
}
