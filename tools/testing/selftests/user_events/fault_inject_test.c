// SPDX-License-Identifier: GPL-2.0
/*
 * Every error path of the user_events calls, the way syzkaller walks
 * them: each operation runs with /proc/thread-self/fail-nth = 1, 2, 3...
 * (failslab, fail_page_alloc and fail_usercopy armed for this task only;
 * the fork sweep leaves page allocations out, see there) until it
 * completes with no fault injected. After each injected failure:
 *
 * - the call failed with an errno its documentation lists (ENOMEM or
 *   EFAULT; any errno for execve, which is not ours), never a positive
 *   or made-up value;
 * - nothing changed: user_events_status, dynamic_events and the tracefs
 *   event directories are byte for byte as before, no enabler was left
 *   (DIAG_IOCSUNREG gives ENOENT), no write index (a write with the
 *   index it would have had gives ENOENT), no record, no tracer;
 * - the same call without a fault then succeeds.
 *
 * An injected fault that the call absorbs (it succeeds anyway) must
 * leave the same result as a clean call. fork() either fails with
 * ENOMEM or gives a child with every enabler of its parent; execve()
 * either fails and leaves the enablers or drops them all. After each
 * attempt the state is back to where the operation started, and the
 * events of the sweeps are unreferenced at the end (each is deleted at
 * once when the fd that registered it is closed): no reference leaked on
 * any path. The fork and execve sweeps check that after every failed
 * fork and every execve: the process that owns the enablers lets go of
 * them (unregisters them and closes its fd, or is gone), and DIAG_IOCSDEL
 * must then delete each event it used at once, after a fork that failed
 * half-way through copying the enablers of several events too.
 * Each operation prints how many fault sites it reached.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "user_events_selftests.h"

#define FI_DEBUGFS	"/sys/kernel/debug"
#define FI_NTH		"/proc/thread-self/fail-nth"
#define FI_RECORD_CMD	TRACEFS_DIR "/options/record-cmd"
#define FI_LSM		"/sys/kernel/security/lsm"
/* More sites than any of these calls reaches: the sweep must end */
#define FI_MAX_SITES	5000

/* ksft_print_msg(), flushed: the harness ends each test with _exit() */
#define FI_NOTE(...) do {						\
	ksft_print_msg(__VA_ARGS__);					\
	fflush(stdout);							\
} while (0)

#define EV_NEW		"__fi_new"
#define EV_NEW_CMD	EV_NEW " u32 a; char[20] b; __data_loc char[] c"
#define EV_OLD		"__fi_old"
#define EV_OLD_CMD	EV_OLD " u32 a"
#define EV_MULTI	"__fi_multi"
#define EV_MULTI_CMD	EV_MULTI " u32 a; u64 b"
#define EV_UNREG	"__fi_unreg"
#define EV_UNREG_CMD	EV_UNREG " u32 a"
#define EV_DEL		"__fi_del"
#define EV_DEL_CMD	EV_DEL " u32 a"
#define EV_DYN		"__fi_dyn"
#define EV_DYN_CMD	EV_DYN " u32 a; char[16] b"
#define EV_WRITE	"__fi_write"
#define EV_WRITE_CMD	EV_WRITE " u32 a; __data_loc char[] s"
#define EV_FT		"__fi_ftrace"
#define EV_FT_CMD	EV_FT " u32 a"
#define EV_PERF		"__fi_perf"
#define EV_PERF_CMD	EV_PERF " u32 a"
#define EV_FORK		"__fi_fork"
#define EV_FORK_CMD	EV_FORK " u32 a"
#define EV_FORK_B	"__fi_fork_b"
#define EV_FORK_B_CMD	EV_FORK_B " u64 b"
#define EV_FORK_C	"__fi_fork_c"
#define EV_FORK_C_CMD	EV_FORK_C " char[8] c"
#define EV_EXEC		"__fi_exec"
#define EV_EXEC_CMD	EV_EXEC " u32 a"

static const char * const fi_events[] = {
	EV_NEW, EV_OLD, EV_MULTI, EV_UNREG, EV_DEL, EV_DYN, EV_WRITE, EV_FT,
	EV_PERF, EV_FORK, EV_FORK_B, EV_FORK_C, EV_EXEC,
};

/*
 * Enablers of the fork sweep. A fork that fails half-way through the
 * copies of the parent's enablers must give every reference back,
 * wherever it failed. The parent has enablers of 3 events: interleaved
 * (runs of 1) at both ends and one long run per event between, so that
 * a failure finds references of several events, in whatever order
 * the kernel takes them.
 */
#define FORK_EVENTS		3
#define FORK_INTERLEAVED	15	/* at each end */
/*
 * A fork may copy the enablers into one kvmalloc_array() of their count,
 * 80 bytes an enabler on 64-bit: a failure of it is a fault site of this
 * sweep only as a kmalloc of at most a page (51 enablers), which has no
 * vmalloc fallback to absorb the fault.
 */
#define FORK_RUN		7	/* per event */
#define FORK_ENABLERS		(2 * FORK_INTERLEAVED + FORK_EVENTS * FORK_RUN)
#define EXEC_ENABLERS		8

/* The words of the enable bits, one page, index per operation */
enum {
	W_NEW, W_OLD_HOLD, W_OLD, W_MULTI, W_UNREG_HOLD, W_UNREG, W_WRITE,
	W_FT, W_PERF, W_PWRITE, W_FORK,
	W_FORK_LAST = W_FORK + (FORK_ENABLERS - 1) / 32, W_EXEC,
};

/*
 * The debugfs knobs: probability 100 for tasks with make-it-fail only
 * (none: task-filter), so that fail-nth is the only thing that fails;
 * GFP_KERNEL allocations and order-0 pages count too; nothing logged.
 * Set in this order, restored in the reverse one: the task filter is on
 * before any probability is, or every allocation of the system fails.
 */
struct fi_knob {
	const char *path;
	const char *value;
	char old[64];
	bool saved;
};

static struct fi_knob fi_knobs[] = {
	{ "failslab/task-filter", "Y" },
	{ "fail_page_alloc/task-filter", "Y" },
	{ "fail_usercopy/task-filter", "Y" },
	{ "failslab/verbose", "0" },
	{ "fail_page_alloc/verbose", "0" },
	{ "fail_usercopy/verbose", "0" },
	{ "failslab/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "fail_page_alloc/min-order", "0" },
	{ "failslab/interval", "1" },
	{ "fail_page_alloc/interval", "1" },
	{ "fail_usercopy/interval", "1" },
	{ "failslab/space", "0" },
	{ "fail_page_alloc/space", "0" },
	{ "fail_usercopy/space", "0" },
	{ "failslab/times", "-1" },
	{ "fail_page_alloc/times", "-1" },
	{ "fail_usercopy/times", "-1" },
	{ "failslab/probability", "100" },
	{ "fail_page_alloc/probability", "100" },
	{ "fail_usercopy/probability", "100" },
};

/* debugfs attributes do not seek: a fresh open for each read and write */
static int fi_knob_read(const char *knob, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), FI_DEBUGFS "/%s", knob);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';

	return 0;
}

static int fi_knob_write(const char *knob, const char *value)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), FI_DEBUGFS "/%s", knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	/* "times" is an atomic_t that 6.1's debugfs parses as unsigned */
	if (n < 0 && !strcmp(value, "-1"))
		return fi_knob_write(knob, "4294967295");

	return n == (ssize_t)strlen(value) ? 0 : -1;
}

static void fi_knobs_restore(void)
{
	int i;

	for (i = ARRAY_SIZE(fi_knobs) - 1; i >= 0; i--) {
		if (fi_knobs[i].saved)
			fi_knob_write(fi_knobs[i].path, fi_knobs[i].old);
		fi_knobs[i].saved = false;
	}
}

static int fi_knobs_set(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fi_knobs); i++) {
		if (fi_knob_read(fi_knobs[i].path, fi_knobs[i].old,
				 sizeof(fi_knobs[i].old))) {
			fprintf(stderr, "# cannot read %s/%s: %s\n",
				FI_DEBUGFS, fi_knobs[i].path, strerror(errno));
			return -1;
		}
		fi_knobs[i].saved = true;
		if (fi_knob_write(fi_knobs[i].path, fi_knobs[i].value)) {
			fprintf(stderr, "# cannot set %s/%s to %s: %s\n",
				FI_DEBUGFS, fi_knobs[i].path, fi_knobs[i].value,
				strerror(errno));
			return -1;
		}
	}

	return 0;
}

/* Arm fail-nth of the task behind @fd: its @n-th fault site fails. */
static int fi_arm(int fd, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return write(fd, buf, len) == len ? 0 : -1;
}

/*
 * Disarm: true when the armed fault was injected (the count reached 0).
 * The read's own copy to user memory is a fault site too: when it fails
 * the count was 1, i.e. the operation did not reach it. Writing 0 may
 * likewise consume the last count, which leaves 0 all the same.
 */
static bool fi_disarm(int fd, bool *ok)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	bool fired = false;

	if (n > 0) {
		buf[n] = '\0';
		fired = strtoul(buf, NULL, 10) == 0;
	}
	if (write(fd, "0", 1) != 1)
		write(fd, "0", 1);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	*ok = n > 0 && buf[0] == '0';

	return fired;
}

/*
 * Write to every private writable page once. This process is a fork
 * child: its pages are copy-on-write, and a page fault inside a fail-nth
 * window would take the injected fault instead of the call under test.
 */
static void fi_touch_all(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long lo, hi, p;
	char line[512], perms[8];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			continue;
		if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p')
			continue;
		for (p = lo; p < hi; p += page) {
			char *c = (char *)p;

			/* Read and write back: accesses the compiler keeps */
			__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
		}
	}
	fclose(maps);
}

/* The state an injected failure must leave as it found it */
struct fi_snap {
	char *status;
	char *dyn;
	char *dirs;
};

static int fi_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The event directories of both systems, sorted, one per line */
static char *fi_list_dirs(void)
{
	static const char * const systems[] = { EVENTS_DIR, MULTI_DIR };
	char *names[4096], *out;
	size_t len = 1, n = 0, i, s;
	struct dirent *d;
	DIR *dir;

	for (s = 0; s < 2; s++) {
		dir = opendir(systems[s]);
		if (!dir)
			continue;
		while ((d = readdir(dir)) && n < 4096) {
			if (d->d_name[0] == '.' || d->d_type != DT_DIR)
				continue;
			if (asprintf(&names[n], "%zu/%s", s, d->d_name) < 0)
				break;
			len += strlen(names[n]) + 1;
			n++;
		}
		closedir(dir);
	}
	qsort(names, n, sizeof(names[0]), fi_cmp_str);
	out = calloc(1, len);
	for (i = 0; i < n; i++) {
		if (out) {
			strcat(out, names[i]);
			strcat(out, "\n");
		}
		free(names[i]);
	}

	return out;
}

static void fi_snap_take(struct fi_snap *s)
{
	char *kept;

	s->status = ue_read_file(STATUS_FILE);
	/*
	 * Deleted events kept for their records come and go with the trace
	 * buffer: fi_sweep() checks that they all go once it is cleared.
	 */
	kept = s->status ? strstr(s->status, "\nKept: ") : NULL;
	if (kept)
		kept[1] = '\0';
	s->dyn = ue_read_file(DYN_FILE);
	s->dirs = fi_list_dirs();
}

static void fi_snap_free(struct fi_snap *s)
{
	free(s->status);
	free(s->dyn);
	free(s->dirs);
	memset(s, 0, sizeof(*s));
}

static bool fi_str_eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* NULL when @a and @b hold the same state, else what differs */
static const char *fi_snap_diff(const struct fi_snap *a,
				const struct fi_snap *b,
				const char **was, const char **now)
{
	if (!fi_str_eq(a->status, b->status)) {
		*was = a->status;
		*now = b->status;
		return "user_events_status";
	}
	if (!fi_str_eq(a->dyn, b->dyn)) {
		*was = a->dyn;
		*now = b->dyn;
		return "dynamic_events";
	}
	if (!fi_str_eq(a->dirs, b->dirs)) {
		*was = a->dirs;
		*now = b->dirs;
		return "the event directories";
	}

	return NULL;
}

/* What one sweep works with */
struct fi_ctx {
	int nth;		/* fail-nth of this thread */
	char *record_cmd;	/* options/record-cmd to restore, or NULL */
	int *w;			/* the enable words, one page */
	int fd;			/* user_events_data, per attempt */
	int hold_fd;		/* user_events_data, per sweep */
	int dyn_fd;
	int enable_fd;
	int perf_fd;
	int index;
	int id;			/* trace event id for perf */
	__u64 count;
	const char *trace_name;	/* the event a write records */
	const struct fi_op *op;
	int n;			/* the fail-nth of this attempt */
	char where[160];	/* what is being checked, for a failure */
};

/*
 * One operation: setup() before each attempt, run() alone inside the
 * fail-nth window (0, or -errno, or a positive value it did not expect),
 * failed() probes what an injected failure must not have left behind,
 * done() the result of a successful call, teardown() brings the state
 * back to where setup() started.
 */
struct fi_op {
	const char *name;
	bool any_errno;
	void (*setup)(struct __test_metadata *_metadata, struct fi_ctx *c);
	long (*run)(struct fi_ctx *c);
	void (*failed)(struct __test_metadata *_metadata, struct fi_ctx *c);
	void (*done)(struct __test_metadata *_metadata, struct fi_ctx *c);
	void (*teardown)(struct __test_metadata *_metadata, struct fi_ctx *c);
};

static long fi_ret(long ret)
{
	return ret < 0 ? -errno : ret;
}

/* The errnos an injected allocation or user copy failure may give */
static bool fi_errno_ok(const struct fi_op *op, long err)
{
	return op->any_errno || err == ENOMEM || err == EFAULT;
}

#define FI_ASSERT_SAME(a, b, when) do {					\
	const char *__was = NULL, *__now = NULL;			\
	const char *__what = fi_snap_diff(a, b, &__was, &__now);	\
									\
	ASSERT_EQ(0, (uintptr_t)__what) {				\
		TH_LOG("%s, fail-nth %d: %s changed %s", c->op->name,	\
		       c->n, __what, when);				\
		TH_LOG("was:\n%s", __was ? __was : "(unreadable)");	\
		TH_LOG("now:\n%s", __now ? __now : "(unreadable)");	\
	}								\
} while (0)

static void fi_sweep(struct __test_metadata *_metadata, struct fi_ctx *c,
		     const struct fi_op *op)
{
	int sites = 0, failed = 0, absorbed = 0, nomem = 0, fault = 0;
	struct fi_snap base, pre, post;
	bool fired, ok;
	long ret;

	c->op = op;
	c->n = 0;
	fi_snap_take(&base);

	/* A clean pass first: the call works, and its code is paged in */
	op->setup(_metadata, c);
	ret = op->run(c);
	ASSERT_EQ(0, ret) {
		TH_LOG("%s without fault injection: %ld (%s)", op->name, ret,
		       ret < 0 ? strerror(-ret) : "unexpected value");
	}
	op->done(_metadata, c);
	op->teardown(_metadata, c);
	fi_snap_take(&post);
	FI_ASSERT_SAME(&base, &post, "after a clean call and its teardown");
	fi_snap_free(&post);
	fi_touch_all();

	for (c->n = 1; c->n < FI_MAX_SITES; c->n++) {
		op->setup(_metadata, c);
		fi_snap_take(&pre);

		ASSERT_EQ(0, fi_arm(c->nth, c->n));
		ret = op->run(c);
		fired = fi_disarm(c->nth, &ok);
		ASSERT_TRUE(ok) TH_LOG("fail-nth did not go back to 0");

		snprintf(c->where, sizeof(c->where),
			 "%s, fail-nth %d: after a %s", op->name, c->n,
			 ret < 0 ? "failure" : fired ? "success with a fault" :
			 "success with no fault");
		if (ret < 0) {
			ASSERT_TRUE(fired) {
				TH_LOG("%s, fail-nth %d: %s with no fault injected",
				       op->name, c->n, strerror(-ret));
			}
			ASSERT_TRUE(fi_errno_ok(op, -ret)) {
				TH_LOG("%s, fail-nth %d: errno %ld (%s)",
				       op->name, c->n, -ret, strerror(-ret));
			}
			nomem += -ret == ENOMEM;
			fault += -ret == EFAULT;
			failed++;

			fi_snap_take(&post);
			FI_ASSERT_SAME(&pre, &post, "by the failed call");
			fi_snap_free(&post);
			if (op->failed)
				op->failed(_metadata, c);

			ret = op->run(c);
			ASSERT_EQ(0, ret) {
				TH_LOG("%s, fail-nth %d: clean call after the failure: %ld (%s)",
				       op->name, c->n, ret, ret < 0 ?
				       strerror(-ret) : "unexpected value");
			}
		} else {
			ASSERT_EQ(0, ret) {
				TH_LOG("%s, fail-nth %d: unexpected result %ld",
				       op->name, c->n, ret);
			}
			absorbed += fired;
		}
		op->done(_metadata, c);
		op->teardown(_metadata, c);
		c->where[0] = '\0';

		fi_snap_take(&post);
		FI_ASSERT_SAME(&base, &post, "after the teardown");
		fi_snap_free(&post);
		fi_snap_free(&pre);

		if (!fired)
			break;
		sites++;
	}
	ASSERT_LT(c->n, FI_MAX_SITES) TH_LOG("%s: no end to its fault sites", op->name);
	fi_snap_free(&base);
	ASSERT_EQ(0, ue_release_kept()) {
		TH_LOG("%s: deleted events still kept once the trace is cleared",
		       op->name);
	}

	FI_NOTE("%s: %d fault sites, all clean\n", op->name, sites);
	FI_NOTE("%s: %d failed: ENOMEM %d, EFAULT %d, other %d; %d absorbed\n",
		op->name, failed, nomem, fault, failed - nomem - fault,
		absorbed);
}

/* A write with @index of the event that has no fields: ENOENT or not */
static long fi_write_index(int fd, int index)
{
	return fi_ret(write(fd, &index, sizeof(index)));
}

static void fi_open_fd(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	c->fd = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, c->fd);
}

static void fi_close_fd(struct fi_ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static bool fi_multi_exists(const char *name)
{
	char pattern[512];
	glob_t g;
	bool found;

	snprintf(pattern, sizeof(pattern), MULTI_DIR "/%s.*", name);
	found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);

	return found;
}

static bool fi_event_exists(const char *name)
{
	char path[512];

	return ue_exists(ue_event_file(path, sizeof(path), name, "")) ||
	       fi_multi_exists(name);
}

/* "Used by" of @name in user_events_status: 0 idle, 1 ftrace, 2 perf, 3 */
static int fi_used_by(const char *name)
{
	char *text = ue_read_file(STATUS_FILE), *line, *save = NULL;
	size_t len = strlen(name);
	int used = -1;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, name, len) || (line[len] && line[len] != ' '))
			continue;
		used = (strstr(line, " ftrace") ? 1 : 0) |
		       (strstr(line, " perf") ? 2 : 0);
		break;
	}
	free(text);

	return used;
}

/*
 * DIAG_IOCSDEL of an event nothing holds deletes it at once, unless the
 * kernel's reaper of unreferenced events was faster (ENOENT); gone both
 * ways. Persistent events are never reaped: 0 only.
 */
static void fi_delete(struct __test_metadata *_metadata, const char *name,
		      bool persistent)
{
	int ret = ue_del(name) ? errno : 0;

	ASSERT_TRUE(ret == 0 || (ret == ENOENT && !persistent)) {
		TH_LOG("DIAG_IOCSDEL %s: %s", name, strerror(ret));
	}
	ASSERT_FALSE(fi_event_exists(name));
	ASSERT_EQ(-1, fi_used_by(name));
}

/*
 * End of a sweep on an event the holding fd registered: once that fd is
 * closed nothing may hold the event, or one of the attempts leaked a
 * reference; unreferenced, it deletes at once.
 */
static void fi_drop_hold(struct __test_metadata *_metadata, struct fi_ctx *c,
			 const char *name)
{
	close(c->hold_fd);
	c->hold_fd = -1;
	fi_delete(_metadata, name, false);
}

/* --- register a new event --- */

static void new_setup(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	fi_open_fd(_metadata, c);
}

static long new_run(struct fi_ctx *c)
{
	return fi_ret(ue_reg_fd(c->fd, EV_NEW_CMD, &c->w[W_NEW], 7, 4, 0,
				&c->index));
}

static void new_failed(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(-ENOENT, fi_write_index(c->fd, 0));
	ASSERT_EQ(-ENOENT, fi_ret(ue_unreg_fd(c->fd, &c->w[W_NEW], 7)));
	ASSERT_EQ(0, ue_load(&c->w[W_NEW]));
}

/* Index 0 and the 28 bytes of the event's fields (no string data) */
static const int new_payload[8];

/*
 * The fields of EV_NEW_CMD in format file @path, each once, after the
 * common header: a registration that absorbed a fault has all of them
 */
static void fi_check_fields(struct __test_metadata *_metadata,
			    const char *path)
{
	static const char * const names[] = { "a", "b", "c" };
	struct ue_format_field fields[32];
	int n = ue_format_fields(path, fields, 32), i, j, found;

	ASSERT_LT(0, n) TH_LOG("%s: cannot be read", path);
	for (i = 0; i < 3; i++) {
		found = 0;
		for (j = 0; j < n; j++)
			found += !fields[j].common &&
				 !strcmp(fields[j].name, names[i]);
		ASSERT_EQ(1, found) {
			TH_LOG("%s: field %s listed %d times", path, names[i],
			       found);
		}
	}
}

static void new_done(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	char path[512];

	ASSERT_EQ(0, c->index);
	ASSERT_TRUE(ue_exists(ue_event_file(path, sizeof(path), EV_NEW,
					    "enable")));
	fi_check_fields(_metadata, ue_event_file(path, sizeof(path), EV_NEW,
						 "format"));
	/* Nobody traces it: the slot is there, the write has no reader */
	ASSERT_EQ(-EBADF, fi_ret(write(c->fd, new_payload,
				       sizeof(new_payload))));
	ASSERT_EQ(0, ue_load(&c->w[W_NEW]));
}

static void new_teardown(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_unreg_fd(c->fd, &c->w[W_NEW], 7));
	fi_close_fd(c);
	fi_delete(_metadata, EV_NEW, false);
}

static const struct fi_op op_new = {
	"register new event", false, new_setup, new_run, new_failed,
	new_done, new_teardown,
};

/* --- register an existing event (enabled: the bit is set at once) --- */

static long old_run(struct fi_ctx *c)
{
	return fi_ret(ue_reg_fd(c->fd, EV_OLD_CMD, &c->w[W_OLD], 5, 4, 0,
				&c->index));
}

static void old_failed(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(-ENOENT, fi_write_index(c->fd, 0));
	ASSERT_EQ(-ENOENT, fi_ret(ue_unreg_fd(c->fd, &c->w[W_OLD], 5)));
	ASSERT_EQ(0, ue_load(&c->w[W_OLD]));
}

static void old_done(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(0, c->index);
	ASSERT_EQ(1 << 5, ue_load(&c->w[W_OLD]));
}

static void old_teardown(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_unreg_fd(c->fd, &c->w[W_OLD], 5));
	ASSERT_EQ(0, ue_load(&c->w[W_OLD]));
	fi_close_fd(c);
}

static const struct fi_op op_old = {
	"register existing event", false, new_setup, old_run, old_failed,
	old_done, old_teardown,
};

/* --- register a multi-format event --- */

static long multi_run(struct fi_ctx *c)
{
	return fi_ret(ue_reg_fd(c->fd, EV_MULTI_CMD, &c->w[W_MULTI], 0, 4,
				USER_EVENT_REG_MULTI_FORMAT, &c->index));
}

static void multi_failed(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(-ENOENT, fi_write_index(c->fd, 0));
	ASSERT_EQ(-ENOENT, fi_ret(ue_unreg_fd(c->fd, &c->w[W_MULTI], 0)));
}

static void multi_done(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(0, c->index);
	ASSERT_TRUE(fi_multi_exists(EV_MULTI));
}

static void multi_teardown(struct __test_metadata *_metadata,
			   struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_unreg_fd(c->fd, &c->w[W_MULTI], 0));
	fi_close_fd(c);
	fi_delete(_metadata, EV_MULTI, false);
}

static const struct fi_op op_multi = {
	"register multi-format event", false, new_setup, multi_run,
	multi_failed, multi_done, multi_teardown,
};

/* --- unregister (the event is enabled: the bit is set until then) --- */

static void unreg_setup(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	fi_open_fd(_metadata, c);
	ASSERT_EQ(0, ue_reg_fd(c->fd, EV_UNREG_CMD, &c->w[W_UNREG], 3, 4, 0,
			       NULL));
	ASSERT_EQ(1 << 3, ue_load(&c->w[W_UNREG]));
}

static long unreg_run(struct fi_ctx *c)
{
	return fi_ret(ue_unreg_fd(c->fd, &c->w[W_UNREG], 3));
}

static void unreg_failed(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	/* Still registered: still set (the clean call then finds it) */
	ASSERT_EQ(1 << 3, ue_load(&c->w[W_UNREG]));
}

static void unreg_done(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_load(&c->w[W_UNREG]));
	ASSERT_EQ(-ENOENT, fi_ret(ue_unreg_fd(c->fd, &c->w[W_UNREG], 3)));
}

static void unreg_teardown(struct __test_metadata *_metadata,
			   struct fi_ctx *c)
{
	fi_close_fd(c);
}

static const struct fi_op op_unreg = {
	"unregister", false, unreg_setup, unreg_run, unreg_failed, unreg_done,
	unreg_teardown,
};

/* --- DIAG_IOCSDEL of an unreferenced persistent event --- */

static void del_setup(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_dyn_write("u:" EV_DEL_CMD));
}

static long del_run(struct fi_ctx *c)
{
	return fi_ret(ioctl(c->hold_fd, DIAG_IOCSDEL, EV_DEL));
}

static void del_failed(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_TRUE(fi_event_exists(EV_DEL));
}

static void del_done(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_FALSE(fi_event_exists(EV_DEL));
}

static void fi_nothing(struct __test_metadata *_metadata, struct fi_ctx *c)
{
}

static const struct fi_op op_del = {
	"DIAG_IOCSDEL", false, del_setup, del_run, del_failed, del_done,
	fi_nothing,
};

/* --- "u:" create and "-:" delete through dynamic_events --- */

static void dyn_open(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	c->dyn_fd = open(DYN_FILE, O_WRONLY | O_APPEND);
	ASSERT_LE(0, c->dyn_fd);
}

static long fi_write_all(int fd, const char *text)
{
	ssize_t n = write(fd, text, strlen(text));

	if (n < 0)
		return -errno;

	return n == (ssize_t)strlen(text) ? 0 : 1;
}

static long dyn_create_run(struct fi_ctx *c)
{
	return fi_write_all(c->dyn_fd, "u:" EV_DYN_CMD);
}

static void dyn_absent(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_FALSE(fi_event_exists(EV_DYN));
}

static void dyn_present(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	char path[512];

	ASSERT_TRUE(ue_exists(ue_event_file(path, sizeof(path), EV_DYN,
					    "format")));
}

static void dyn_create_teardown(struct __test_metadata *_metadata,
				struct fi_ctx *c)
{
	close(c->dyn_fd);
	ASSERT_EQ(0, ue_dyn_write("-:" EV_DYN_CMD));
}

static const struct fi_op op_dyn_create = {
	"u: create", false, dyn_open, dyn_create_run, dyn_absent, dyn_present,
	dyn_create_teardown,
};

static void dyn_delete_setup(struct __test_metadata *_metadata,
			     struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_dyn_write("u:" EV_DYN_CMD));
	dyn_open(_metadata, c);
}

static long dyn_delete_run(struct fi_ctx *c)
{
	return fi_write_all(c->dyn_fd, "-:" EV_DYN_CMD);
}

static void dyn_delete_teardown(struct __test_metadata *_metadata,
				struct fi_ctx *c)
{
	close(c->dyn_fd);
}

static const struct fi_op op_dyn_delete = {
	"-: delete", false, dyn_delete_setup, dyn_delete_run, dyn_present,
	dyn_absent, dyn_delete_teardown,
};

/* --- writes with ftrace, then perf, attached --- */

/* Naturally aligned: no padding between the fields or after them */
struct fi_payload {
	int index;
	__u32 a;
	__u32 loc;
	char s[8];
};

static_assert(sizeof(struct fi_payload) == 20, "struct fi_payload is padded");

/* .loc is set by fi_payload_locate() */
static struct fi_payload fi_payload = {
	.a = 0xfa17,
	.s = "inject",
};

/*
 * The string follows the fixed fields, and __data_loc counts from the
 * record start: the common header, whose size the format file tells.
 */
static void fi_payload_locate(struct __test_metadata *_metadata)
{
	int hdr = ue_payload_offset(EV_WRITE);

	ASSERT_LT(0, hdr) TH_LOG("no payload offset in the format of " EV_WRITE);
	fi_payload.loc = DYN_LOC(hdr + offsetof(struct fi_payload, s) -
				 sizeof(fi_payload.index),
				 sizeof(fi_payload.s));
}

static void ftrace_write_setup(struct __test_metadata *_metadata,
			       struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_clear_trace());
	ASSERT_EQ(0, ue_trace_count(" " EV_WRITE ":"));
}

static long fi_writev_payload(int fd, int index)
{
	struct iovec io[2];
	ssize_t n;

	fi_payload.index = index;
	io[0].iov_base = &fi_payload.index;
	io[0].iov_len = sizeof(fi_payload.index);
	io[1].iov_base = &fi_payload.a;
	io[1].iov_len = sizeof(fi_payload) - sizeof(fi_payload.index);
	n = writev(fd, io, 2);
	if (n < 0)
		return -errno;

	return n == sizeof(fi_payload) ? 0 : 1;
}

static long fi_write_payload(int fd, int index)
{
	ssize_t n;

	fi_payload.index = index;
	n = write(fd, &fi_payload, sizeof(fi_payload));
	if (n < 0)
		return -errno;

	return n == sizeof(fi_payload) ? 0 : 1;
}

static long ftrace_writev_run(struct fi_ctx *c)
{
	return fi_writev_payload(c->hold_fd, c->index);
}

static long ftrace_write_run(struct fi_ctx *c)
{
	return fi_write_payload(c->hold_fd, c->index);
}

static void ftrace_write_failed(struct __test_metadata *_metadata,
				struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_trace_count(" " EV_WRITE ":"));
}

static void ftrace_write_done(struct __test_metadata *_metadata,
			      struct fi_ctx *c)
{
	ASSERT_EQ(1, ue_trace_count(" " EV_WRITE ":"));
}

static const struct fi_op op_ftrace_writev = {
	"writev, ftrace attached", false, ftrace_write_setup,
	ftrace_writev_run, ftrace_write_failed, ftrace_write_done, fi_nothing,
};

static const struct fi_op op_ftrace_write = {
	"write, ftrace attached", false, ftrace_write_setup, ftrace_write_run,
	ftrace_write_failed, ftrace_write_done, fi_nothing,
};

static __u64 fi_perf_count(int fd)
{
	__u64 count = ~0ULL;

	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return ~0ULL;

	return count;
}

static void perf_write_setup(struct __test_metadata *_metadata,
			     struct fi_ctx *c)
{
	c->count = fi_perf_count(c->perf_fd);
	ASSERT_NE(~0ULL, c->count);
}

static long perf_writev_run(struct fi_ctx *c)
{
	return fi_writev_payload(c->hold_fd, c->index);
}

static void perf_write_failed(struct __test_metadata *_metadata,
			      struct fi_ctx *c)
{
	ASSERT_EQ(c->count, fi_perf_count(c->perf_fd));
}

static void perf_write_done(struct __test_metadata *_metadata,
			    struct fi_ctx *c)
{
	ASSERT_EQ(c->count + 1, fi_perf_count(c->perf_fd));
}

static const struct fi_op op_perf_writev = {
	"writev, perf attached", false, perf_write_setup, perf_writev_run,
	perf_write_failed, perf_write_done, fi_nothing,
};

/* --- user_events_status read --- */

static char fi_status_buf[65536];

static long status_run(struct fi_ctx *c)
{
	int fd = open(STATUS_FILE, O_RDONLY);
	ssize_t n, len = 0;
	long ret = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, fi_status_buf + len,
			 sizeof(fi_status_buf) - 1 - len)) > 0)
		len += n;
	if (n < 0)
		ret = -errno;
	close(fd);
	fi_status_buf[len] = '\0';

	return ret;
}

static void status_done(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_NE(0, (uintptr_t)strstr(fi_status_buf, "\nActive: "));
	ASSERT_NE(0, (uintptr_t)strstr(fi_status_buf, EV_FT));
}

static void fi_nothing_setup(struct __test_metadata *_metadata,
			     struct fi_ctx *c)
{
}

static const struct fi_op op_status = {
	"user_events_status read", false, fi_nothing_setup, status_run, NULL,
	status_done, fi_nothing,
};

/* --- enabling and disabling through ftrace, enabling through perf --- */

static void ft_open_enable(struct __test_metadata *_metadata,
			   struct fi_ctx *c)
{
	char path[512];

	c->enable_fd = open(ue_event_file(path, sizeof(path), EV_FT, "enable"),
			    O_WRONLY);
	ASSERT_LE(0, c->enable_fd);
}

static long ft_enable_run(struct fi_ctx *c)
{
	ssize_t n = write(c->enable_fd, "1", 1);

	return n < 0 ? -errno : n != 1;
}

static long ft_disable_run(struct fi_ctx *c)
{
	ssize_t n = write(c->enable_fd, "0", 1);

	return n < 0 ? -errno : n != 1;
}

static void ft_off(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_load(&c->w[W_FT]));
	ASSERT_EQ(0, fi_used_by(EV_FT));
}

static void ft_on(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(1, ue_load(&c->w[W_FT]));
	ASSERT_EQ(1, fi_used_by(EV_FT));
}

static void ft_enable_teardown(struct __test_metadata *_metadata,
			       struct fi_ctx *c)
{
	close(c->enable_fd);
	ASSERT_EQ(0, ue_enable(EV_FT, 0));
	ft_off(_metadata, c);
}

static const struct fi_op op_ft_enable = {
	"ftrace enable", false, ft_open_enable, ft_enable_run, ft_off, ft_on,
	ft_enable_teardown,
};

static void ft_disable_setup(struct __test_metadata *_metadata,
			     struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_enable(EV_FT, 1));
	ft_on(_metadata, c);
	ft_open_enable(_metadata, c);
}

static void ft_disable_teardown(struct __test_metadata *_metadata,
				struct fi_ctx *c)
{
	close(c->enable_fd);
}

static const struct fi_op op_ft_disable = {
	"ftrace disable", false, ft_disable_setup, ft_disable_run, ft_on,
	ft_off, ft_disable_teardown,
};

static long perf_enable_run(struct fi_ctx *c)
{
	c->perf_fd = ue_perf_open(c->id);

	return c->perf_fd < 0 ? -errno : 0;
}

static void perf_off(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(0, ue_load(&c->w[W_PERF]));
	ASSERT_EQ(0, fi_used_by(EV_PERF));
}

static void perf_on(struct __test_metadata *_metadata, struct fi_ctx *c)
{
	ASSERT_EQ(1, ue_load(&c->w[W_PERF]));
	ASSERT_EQ(2, fi_used_by(EV_PERF));
}

static void perf_enable_teardown(struct __test_metadata *_metadata,
				 struct fi_ctx *c)
{
	close(c->perf_fd);
	c->perf_fd = -1;
	/* perf's release unregisters synchronously */
	perf_off(_metadata, c);
}

static const struct fi_op op_perf_enable = {
	"perf enable", false, fi_nothing_setup, perf_enable_run, perf_off,
	perf_on, perf_enable_teardown,
};

FIXTURE(fi) {
	struct fi_ctx c;
	bool umount;
	bool armed;
};

static void fi_cleanup_events(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fi_events); i++) {
		ue_enable(fi_events[i], 0);
		ue_del(fi_events[i]);
	}
}

FIXTURE_SETUP(fi) {
	struct fi_ctx *c = &self->c;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->hold_fd = -1;
	c->dyn_fd = -1;
	c->enable_fd = -1;
	c->perf_fd = -1;
	c->nth = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);

	if (!ue_exists(FI_NTH) || !ue_exists(FI_DEBUGFS "/failslab") ||
	    !ue_exists(FI_DEBUGFS "/fail_page_alloc") ||
	    !ue_exists(FI_DEBUGFS "/fail_usercopy")) {
		USER_EVENT_FIXTURE_TEARDOWN(self->umount);
		SKIP(longjmp(_metadata->env, 1),
		     "no fault injection: needs CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_USERCOPY and FAULT_INJECTION_DEBUG_FS with debugfs mounted");
	}

	fi_cleanup_events();
	ASSERT_EQ(0, fi_knobs_set());
	self->armed = true;

	c->nth = open(FI_NTH, O_RDWR);
	ASSERT_LE(0, c->nth);
	c->w = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)c->w);
	c->hold_fd = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, c->hold_fd);
}

FIXTURE_TEARDOWN(fi) {
	struct fi_ctx *c = &self->c;
	struct fi_snap now;

	if (c->where[0]) {
		/* A check of done() or failed() went wrong: say where */
		fi_snap_take(&now);
		TH_LOG("while checking %s", c->where);
		TH_LOG("user_events_status:\n%s", now.status ? now.status : "");
		TH_LOG("event directories:\n%s", now.dirs ? now.dirs : "");
		fi_snap_free(&now);
	}

	if (c->nth >= 0) {
		write(c->nth, "0", 1);
		close(c->nth);
	}
	if (self->armed)
		fi_knobs_restore();
	if (c->record_cmd) {
		ue_write_str(FI_RECORD_CMD, c->record_cmd, 0);
		free(c->record_cmd);
	}
	if (c->perf_fd >= 0)
		close(c->perf_fd);
	if (c->fd >= 0)
		close(c->fd);
	if (c->hold_fd >= 0)
		close(c->hold_fd);
	fi_cleanup_events();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F_TIMEOUT(fi, register_new_event, 300) {
	fi_sweep(_metadata, &self->c, &op_new);
}

TEST_F_TIMEOUT(fi, register_existing_event, 300) {
	struct fi_ctx *c = &self->c;

	ASSERT_EQ(0, ue_reg_fd(c->hold_fd, EV_OLD_CMD, &c->w[W_OLD_HOLD], 0, 4,
			       0, NULL));
	ASSERT_EQ(0, ue_enable(EV_OLD, 1));
	ASSERT_EQ(1, ue_load(&c->w[W_OLD_HOLD]));
	fi_sweep(_metadata, c, &op_old);
	ASSERT_EQ(0, ue_enable(EV_OLD, 0));
	ASSERT_EQ(0, ue_unreg_fd(c->hold_fd, &c->w[W_OLD_HOLD], 0));
	fi_drop_hold(_metadata, c, EV_OLD);
}

TEST_F_TIMEOUT(fi, register_multi_format_event, 300) {
	fi_sweep(_metadata, &self->c, &op_multi);
}

TEST_F_TIMEOUT(fi, unregister, 300) {
	struct fi_ctx *c = &self->c;

	ASSERT_EQ(0, ue_reg_fd(c->hold_fd, EV_UNREG_CMD, &c->w[W_UNREG_HOLD],
			       0, 4, 0, NULL));
	ASSERT_EQ(0, ue_enable(EV_UNREG, 1));
	fi_sweep(_metadata, c, &op_unreg);
	ASSERT_EQ(0, ue_enable(EV_UNREG, 0));
	ASSERT_EQ(0, ue_unreg_fd(c->hold_fd, &c->w[W_UNREG_HOLD], 0));
	fi_drop_hold(_metadata, c, EV_UNREG);
}

TEST_F_TIMEOUT(fi, delete_ioctl, 300) {
	fi_sweep(_metadata, &self->c, &op_del);
}

TEST_F_TIMEOUT(fi, dynamic_events_create, 300) {
	fi_sweep(_metadata, &self->c, &op_dyn_create);
}

TEST_F_TIMEOUT(fi, dynamic_events_delete, 300) {
	fi_sweep(_metadata, &self->c, &op_dyn_delete);
}

TEST_F_TIMEOUT(fi, write_ftrace_attached, 300) {
	struct fi_ctx *c = &self->c;

	ASSERT_EQ(0, ue_reg_fd(c->hold_fd, EV_WRITE_CMD, &c->w[W_WRITE], 0, 4,
			       0, &c->index));
	fi_payload_locate(_metadata);
	ASSERT_EQ(0, ue_enable(EV_WRITE, 1));
	ASSERT_EQ(1, ue_load(&c->w[W_WRITE]));
	fi_sweep(_metadata, c, &op_ftrace_writev);
	fi_sweep(_metadata, c, &op_ftrace_write);
	ASSERT_EQ(0, ue_enable(EV_WRITE, 0));
	ASSERT_EQ(0, ue_unreg_fd(c->hold_fd, &c->w[W_WRITE], 0));
	fi_drop_hold(_metadata, c, EV_WRITE);
}

TEST_F_TIMEOUT(fi, write_perf_attached, 300) {
	struct fi_ctx *c = &self->c;

	if (!ue_have_perf())
		SKIP(return, "%s", UE_NO_PERF);

	ASSERT_EQ(0, ue_reg_fd(c->hold_fd, EV_WRITE_CMD, &c->w[W_PWRITE], 0,
			       4, 0, &c->index));
	fi_payload_locate(_metadata);
	c->perf_fd = ue_perf_open(ue_event_id(EV_WRITE));
	ASSERT_LE(0, c->perf_fd);
	ASSERT_EQ(1, ue_load(&c->w[W_PWRITE]));
	fi_sweep(_metadata, c, &op_perf_writev);
	close(c->perf_fd);
	c->perf_fd = -1;
	ASSERT_EQ(0, ue_unreg_fd(c->hold_fd, &c->w[W_PWRITE], 0));
	fi_drop_hold(_metadata, c, EV_WRITE);
}

TEST_F_TIMEOUT(fi, status_read, 300) {
	struct fi_ctx *c = &self->c;

	ASSERT_EQ(0, ue_reg_fd(c->hold_fd, EV_FT_CMD, &c->w[W_FT], 0, 4, 0,
			       NULL));
	fi_sweep(_metadata, c, &op_status);
	ASSERT_EQ(0, ue_unreg_fd(c->hold_fd, &c->w[W_FT], 0));
	fi_drop_hold(_metadata, c, EV_FT);
}

/*
 * Enabling the first event also starts the core's recording of task
 * names (options/record-cmd), whose failed sched probe registration 6.1
 * ignores and then unregisters with a WARN: not this test's subject, so
 * the sweeps run with record-cmd off.
 */
TEST_F_TIMEOUT(fi, ftrace_enable_disable, 300) {
	struct fi_ctx *c = &self->c;

	c->record_cmd = ue_read_file(FI_RECORD_CMD);
	ASSERT_NE(NULL, c->record_cmd);
	ASSERT_EQ(0, ue_write_str(FI_RECORD_CMD, "0", 0));
	ASSERT_EQ(0, ue_reg_fd(c->hold_fd, EV_FT_CMD, &c->w[W_FT], 0, 4, 0,
			       NULL));
	fi_sweep(_metadata, c, &op_ft_enable);
	fi_sweep(_metadata, c, &op_ft_disable);
	ASSERT_EQ(0, ue_unreg_fd(c->hold_fd, &c->w[W_FT], 0));
	fi_drop_hold(_metadata, c, EV_FT);
}

TEST_F_TIMEOUT(fi, perf_enable, 300) {
	struct fi_ctx *c = &self->c;

	if (!ue_have_perf())
		SKIP(return, "%s", UE_NO_PERF);

	ASSERT_EQ(0, ue_reg_fd(c->hold_fd, EV_PERF_CMD, &c->w[W_PERF], 0, 4, 0,
			       NULL));
	c->id = ue_event_id(EV_PERF);
	ASSERT_LT(0, c->id);
	fi_sweep(_metadata, c, &op_perf_enable);
	ASSERT_EQ(0, ue_unreg_fd(c->hold_fd, &c->w[W_PERF], 0));
	fi_drop_hold(_metadata, c, EV_PERF);
}

/*
 * fork() and execve(): the call runs in a traced child, and the tracer
 * reads and clears the child's fail-nth at the ptrace stop that ends the
 * call (PTRACE_EVENT_FORK, PTRACE_EVENT_EXEC), before the child runs any
 * code of its own that could fault. The tracer sets SA_NOCLDSTOP, so no
 * SIGCHLD (and no signal allocation in the child) comes with the stops.
 */
struct fi_shared {
	int fired;		/* set by the tracer at the fork stop */
	int forked;		/* the fork stop was seen */
	char error[256];	/* the first thing that went wrong */
	int sites, failed, absorbed;
};

static void fi_set_error(struct fi_shared *sh, const char *fmt, ...)
{
	va_list ap;

	if (sh->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(sh->error, sizeof(sh->error), fmt, ap);
	va_end(ap);
}

/* Read and clear the fail-nth of task @pid: true when it had fired */
static bool fi_take_nth(pid_t pid, bool *ok)
{
	char path[64], buf[32];
	ssize_t n;
	int fd;

	*ok = false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/fail-nth", pid, pid);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return false;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	*ok = n > 0 && write(fd, "0", 1) == 1;
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';

	return strtoul(buf, NULL, 10) == 0;
}

static void fi_nocldstop(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL, .sa_flags = SA_NOCLDSTOP };

	sigaction(SIGCHLD, &sa, NULL);
}

/* Unregister every enabler of @words: how many were there */
static int fi_unreg_all(int fd, int *words, int count)
{
	int i, found = 0;

	for (i = 0; i < count; i++)
		found += ue_unreg_fd(fd, &words[i / 32], i % 32) == 0;

	return found;
}

static int fi_reg_all(int fd, const char *cmd, int *words, int count)
{
	int i;

	for (i = 0; i < count; i++) {
		if (ue_reg_fd(fd, cmd, &words[i / 32], i % 32, 4, 0, NULL))
			return -1;
	}

	return 0;
}

/* The events of the fork sweep, "u:" commands: persistent, never reaped */
static const char * const fi_fork_names[FORK_EVENTS] = {
	EV_FORK, EV_FORK_B, EV_FORK_C,
};

static const char * const fi_fork_cmds[FORK_EVENTS] = {
	EV_FORK_CMD, EV_FORK_B_CMD, EV_FORK_C_CMD,
};

/* The event of enabler @i: interleaved, one run per event, interleaved */
static int fork_event_of(int i)
{
	if (i < FORK_INTERLEAVED ||
	    i >= FORK_INTERLEAVED + FORK_EVENTS * FORK_RUN)
		return i % FORK_EVENTS;

	return (i - FORK_INTERLEAVED) / FORK_RUN;
}

/*
 * Before the first attempt and after each give-back: the events exist
 * (made anew through dynamic_events), and a new fd of the worker
 * registers the enablers.
 */
static int fork_take_events(struct fi_shared *sh, int *words, int n)
{
	char cmd[128];
	int i, fd, err;

	for (i = 0; i < FORK_EVENTS; i++) {
		snprintf(cmd, sizeof(cmd), "u:%s", fi_fork_cmds[i]);
		err = ue_dyn_write(cmd);
		if (err) {
			fi_set_error(sh, "before fail-nth %d: %s: %s", n, cmd,
				     strerror(err));
			return -1;
		}
	}
	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0) {
		fi_set_error(sh, "before fail-nth %d: open: %s", n,
			     strerror(errno));
		return -1;
	}
	for (i = 0; i < FORK_ENABLERS; i++) {
		if (ue_reg_fd(fd, fi_fork_cmds[fork_event_of(i)],
			      &words[i / 32], i % 32, 4, 0, NULL)) {
			fi_set_error(sh, "before fail-nth %d: enabler %d: %s",
				     n, i, strerror(errno));
			close(fd);
			return -1;
		}
	}

	return fd;
}

/*
 * After each failed fork and after the sweep: the worker unregisters its
 * enablers and closes its fd. Nothing else may hold its events then (no
 * copy of a failed fork, no exited child): each one is deleted at once,
 * and the state is what it was before the sweep (@base): the same status
 * file, Active count included, no event directory, no dynamic_events
 * line.
 */
static int fork_give_back(struct fi_shared *sh, int *words, int fd,
			  const struct fi_snap *base, int n)
{
	const char *what, *was, *now;
	struct fi_snap post;
	int i, found;

	found = fi_unreg_all(fd, words, FORK_ENABLERS);
	close(fd);
	if (found != FORK_ENABLERS) {
		fi_set_error(sh, "after fail-nth %d: the parent has %d of its %d enablers",
			     n, found, FORK_ENABLERS);
		return -1;
	}
	for (i = 0; i < FORK_EVENTS; i++) {
		if (ue_del(fi_fork_names[i])) {
			fi_set_error(sh, "after fail-nth %d: DIAG_IOCSDEL %s: %s (leaked)",
				     n, fi_fork_names[i], strerror(errno));
			return -1;
		}
	}

	fi_snap_take(&post);
	what = fi_snap_diff(base, &post, &was, &now);
	if (what) {
		fi_set_error(sh, "after fail-nth %d and the deletes: %s is not as before the sweep",
			     n, what);
		FI_NOTE("was:\n%s", was ? was : "(unreadable)");
		FI_NOTE("now:\n%s", now ? now : "(unreadable)");
	}
	fi_snap_free(&post);

	return what ? -1 : 0;
}

/* The traced process of the fork sweep: forks with fail-nth 1, 2, ... */
static int fork_worker(struct fi_shared *sh, int *words)
{
	int nth = open(FI_NTH, O_RDWR);
	int n, fd, status, err;
	struct fi_snap base;
	bool fired, ok;
	pid_t pid;

	if (nth < 0) {
		fi_set_error(sh, "worker setup: %s", strerror(errno));
		return 1;
	}
	fi_snap_take(&base);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
		return 1;

	fd = fork_take_events(sh, words, 1);
	if (fd < 0)
		return 1;

	for (n = 1; n < FI_MAX_SITES; n++) {
		sh->forked = 0;
		sh->fired = 0;
		fi_touch_all();
		if (fi_arm(nth, n))
			return 1;
		pid = fork();
		if (pid == 0) {
			/* Every enabler of the parent, or a failed fork */
			_exit(fi_unreg_all(fd, words, FORK_ENABLERS) ==
			      FORK_ENABLERS ? 0 : 1);
		}
		err = errno;
		if (pid < 0) {
			fired = fi_disarm(nth, &ok);
			if (!fired || !ok || err != ENOMEM) {
				fi_set_error(sh,
					     "fail-nth %d: fork failed with %s (%s fault injected)",
					     n, strerror(err),
					     fired ? "a" : "no");
				return 1;
			}
			sh->failed++;
			/* What the failed fork took, it gave back */
			if (fork_give_back(sh, words, fd, &base, n))
				return 1;
			fd = fork_take_events(sh, words, n + 1);
			if (fd < 0)
				return 1;
		} else {
			if (!sh->forked) {
				fi_set_error(sh, "fail-nth %d: no fork stop", n);
				return 1;
			}
			fired = sh->fired;
			status = ue_wait_child(pid);
			if (status) {
				fi_set_error(sh, "fail-nth %d: the child %s",
					     n, status == 1 ?
					     "misses enablers of its parent" :
					     "crashed");
				return 1;
			}
			sh->absorbed += fired;
		}
		if (!fired)
			break;
		sh->sites++;
	}
	/*
	 * The parent's own enablers are all still there, and nothing that
	 * any fork (failed, absorbing a fault, or clean) took is left
	 */
	if (fork_give_back(sh, words, fd, &base, n))
		return 1;
	fi_snap_free(&base);

	return n < FI_MAX_SITES ? 0 : 1;
}

static void *fi_shared_page(void)
{
	return mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

/*
 * Whatever fault a fork meets, it fails with ENOMEM or gives a child
 * every enabler; and a fork that failed half-way through copying them,
 * between runs of one event or in the middle of one, gives back exactly
 * the references it took, of every event.
 *
 * Page allocations are no fault sites of this sweep, slab allocations
 * and user copies are. How many pages a fork allocates (slab refills
 * among them) varies from one fork to the next, and with it the position
 * of every later site: counting them, a sweep can step over the
 * allocations of the enabler copies, the last ones of the memory's copy,
 * and often did. Those are slab allocations: without page sites each of
 * them fails in its turn, every sweep.
 */
TEST_F_TIMEOUT(fi, fork_with_enablers, 600) {
	struct fi_ctx *c = &self->c;
	struct fi_snap base, post;
	struct fi_shared *sh = fi_shared_page();
	bool ok = true, attached = false;
	long start = ue_now_ms();
	pid_t worker, pid;
	int status;

	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)sh);
	memset(c->w, 0, sysconf(_SC_PAGESIZE));
	fi_snap_take(&base);
	fi_nocldstop();
	/* No order is that large; the teardown restores the knob */
	ASSERT_EQ(0, fi_knob_write("fail_page_alloc/min-order", "64"));

	worker = fork();
	ASSERT_LE(0, worker);
	if (worker == 0)
		_exit(fork_worker(sh, &c->w[W_FORK]));

	for (;;) {
		pid = waitpid(-1, &status, __WALL);
		ASSERT_LT(0, pid);
		if (pid == worker && (WIFEXITED(status) || WIFSIGNALED(status)))
			break;
		if (!WIFSTOPPED(status))
			continue;
		if (pid != worker) {
			/* A fork child, stopped by its automatic attach */
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
		} else if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_FORK << 8))) {
			sh->fired = fi_take_nth(worker, &ok);
			sh->forked = 1;
			ASSERT_TRUE(ok);
			ptrace(PTRACE_CONT, worker, NULL, NULL);
		} else if (WSTOPSIG(status) == SIGSTOP && !attached) {
			ASSERT_EQ(0, ptrace(PTRACE_SETOPTIONS, worker, NULL,
					    PTRACE_O_TRACEFORK |
					    PTRACE_O_EXITKILL));
			attached = true;
			ptrace(PTRACE_CONT, worker, NULL, NULL);
		} else {
			ptrace(PTRACE_CONT, worker, NULL,
			       (void *)(long)WSTOPSIG(status));
		}
	}
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("fork: %s", sh->error[0] ? sh->error : "worker crashed");
	}
	ASSERT_EQ(0, fi_knob_write("fail_page_alloc/min-order", "0"));

	/* The worker deleted the events it made: all as before */
	fi_snap_take(&post);
	c->op = &(struct fi_op){ .name = "fork" };
	FI_ASSERT_SAME(&base, &post, "after the fork sweep");
	fi_snap_free(&base);
	fi_snap_free(&post);
	FI_NOTE("fork with %d enablers of %d events: %d fault sites, all clean, %ld s\n",
		FORK_ENABLERS, FORK_EVENTS, sh->sites,
		(ue_now_ms() - start) / 1000);
	FI_NOTE("fork: %d failed with ENOMEM, %d absorbed, every child had all enablers\n",
		sh->failed, sh->absorbed);
	FI_NOTE("fork: after each failure and the sweep, the events deleted at once\n");
}

/*
 * One execve() with fail-nth @n in a traced child with enablers. The
 * image never runs: the tracer kills it at the exec stop. Returns the
 * outcome: 0 exec done (*fired says if a fault was absorbed), 1 exec
 * failed cleanly, 2 the child was killed in the exec, -1 a problem
 * (described in @sh).
 */
static int exec_once(struct fi_shared *sh, const char *exe, int *words, int n,
		     bool *fired)
{
	int status, fd, nth, err, found;
	bool ok, nfired;
	pid_t pid;

	*fired = false;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char * const argv[] = { (char *)exe, "--never-runs", NULL };

		fd = open(DATA_FILE, O_RDWR | O_CLOEXEC);
		nth = open(FI_NTH, O_RDWR | O_CLOEXEC);
		if (fd < 0 || nth < 0 ||
		    fi_reg_all(fd, EV_EXEC_CMD, words, EXEC_ENABLERS))
			_exit(0x7f);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(0x7f);
		fi_touch_all();
		errno = 0;
		if (fi_arm(nth, n))
			_exit(0x7f);
		execve(exe, argv, environ);
		err = errno;
		nfired = fi_disarm(nth, &ok);
		/* Failed: the process lets go of the event itself */
		found = fi_unreg_all(fd, words, EXEC_ENABLERS);
		close(fd);
		/* errno, fault injected, enablers intact */
		_exit((err & 0x3f) | (nfired && ok ? 0x40 : 0) |
		      (found == EXEC_ENABLERS ? 0 : 0x80));
	}

	for (;;) {
		if (waitpid(pid, &status, __WALL) != pid)
			return -1;
		if (WIFEXITED(status)) {
			status = WEXITSTATUS(status);
			if (status == 0x7f) {
				fi_set_error(sh, "fail-nth %d: child setup failed", n);
				return -1;
			}
			*fired = status & 0x40;
			if (!*fired || (status & 0x80)) {
				fi_set_error(sh, "fail-nth %d: execve failed with %s, %s, %s",
					     n, strerror(status & 0x3f),
					     *fired ? "fault injected" :
					     "no fault injected",
					     status & 0x80 ? "enablers lost" :
					     "enablers intact");
				return -1;
			}
			return 1;
		}
		if (WIFSIGNALED(status)) {
			/* Failed after the point of no return: mm is gone */
			*fired = true;
			return 2;
		}
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			*fired = fi_take_nth(pid, &ok);
			kill(pid, SIGKILL);
			waitpid(pid, &status, __WALL);
			if (!ok) {
				fi_set_error(sh, "fail-nth %d: cannot read it back", n);
				return -1;
			}
			return 0;
		}
		if (WSTOPSIG(status) == SIGSTOP) {
			ptrace(PTRACE_SETOPTIONS, pid, NULL,
			       PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else {
			ptrace(PTRACE_CONT, pid, NULL,
			       (void *)(long)WSTOPSIG(status));
		}
	}
}

/* Whether securityfs lists TOMOYO among the active security modules */
static bool fi_tomoyo_active(void)
{
	char *lsm = ue_read_file(FI_LSM);
	bool active = lsm && strstr(lsm, "tomoyo");

	free(lsm);

	return active;
}

TEST_F_TIMEOUT(fi, exec_with_enablers, 600) {
	struct fi_ctx *c = &self->c;
	struct fi_shared *sh;
	int n, ret, err, killed = 0;
	long start = ue_now_ms();
	struct fi_snap base, post;
	char exe[4096];
	bool fired;
	ssize_t len;

	if (fi_tomoyo_active())
		SKIP(return,
		     "TOMOYO is active: without a loaded policy it panics on any failed allocation in execve() (tomoyo_warn_oom)");

	sh = fi_shared_page();
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)sh);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, len);
	exe[len] = '\0';
	fi_snap_take(&base);
	fi_nocldstop();
	c->op = &(struct fi_op){ .name = "exec" };

	for (n = 1; n < FI_MAX_SITES; n++) {
		c->n = n;
		ASSERT_EQ(0, ue_dyn_write("u:" EV_EXEC_CMD));
		ret = exec_once(sh, exe, &c->w[W_EXEC], n, &fired);
		ASSERT_LE(0, ret) TH_LOG("exec: %s", sh->error);
		sh->failed += ret == 1;
		killed += ret == 2;
		sh->absorbed += ret == 0 && fired;

		/*
		 * The process let go of its enablers and fd (failed), or is
		 * gone: nothing holds the event, which is deleted at once,
		 * and all is as before.
		 */
		err = ue_del(EV_EXEC) ? errno : 0;
		ASSERT_EQ(0, err) {
			TH_LOG("exec, fail-nth %d (%s): DIAG_IOCSDEL %s: %s (a reference leaked)",
			       n, ret == 1 ? "failed" : ret == 2 ?
			       "killed in the exec" : "done", EV_EXEC,
			       strerror(err));
		}
		fi_snap_take(&post);
		FI_ASSERT_SAME(&base, &post, "after the exec and the delete");
		fi_snap_free(&post);
		if (!fired)
			break;
		sh->sites++;
	}
	ASSERT_LT(n, FI_MAX_SITES);
	fi_snap_free(&base);
	FI_NOTE("exec with %d enablers: %d fault sites, all clean, %ld s\n",
		EXEC_ENABLERS, sh->sites, (ue_now_ms() - start) / 1000);
	FI_NOTE("exec: %d failed and kept the enablers, %d absorbed\n",
		sh->failed, sh->absorbed);
	FI_NOTE("exec: %d killed past the point of no return\n", killed);
	FI_NOTE("exec: after each, the event was deleted at once\n");
}

TEST_HARNESS_MAIN
