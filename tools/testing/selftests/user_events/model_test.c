// SPDX-License-Identifier: GPL-2.0
/*
 * user_events model test: random programs over the whole ABI, run on the
 * kernel and on a model of what a user observes, side by side.
 *
 * The model is written from the ABI's documentation: events (name,
 * fields, flags, who references them), each process's enable words, each
 * open file's write indexes, ftrace (top buffer and an instance) and perf
 * attachments, the sysctl limits. A program is a sequence of steps:
 * DIAG_IOCSREG (valid and invalid commands and structs, every field type,
 * PERSIST, MULTI_FORMAT, 4- and 8-byte words, shared and distinct
 * addresses, from a thread that exits), DIAG_IOCSUNREG, DIAG_IOCSDEL,
 * u:/-:/!u: lines and a truncating open of dynamic_events, ftrace and
 * perf attach and detach, write()/writev() of valid and invalid payloads,
 * open and close, fork (with MADV_DONTFORK and MADV_WIPEONFORK words; a
 * third of the children not perfmon_capable(), so that PERSIST and the
 * deletion of a persistent event are EPERM to them), execve() and exit
 * of processes, the limits, snapshots, per-event files
 * kept open across the event's removal. A removed event that ftrace
 * recorded keeps its format, counted by kernel.user_events_max, while a
 * buffer may hold its records; the model knows that for certain only
 * while the buffers hold what they held at the removal, and otherwise
 * lets a creation at the limit succeed or fail. After every step the test
 * compares: the call's result and errno, every enable word of every
 * process, user_events_status, the event directories, dynamic_events,
 * the decoded records of trace (top, instance, snapshot) and of perf's
 * ring buffers, error_log's word and caret, a new event's format file,
 * and that a stale per-event file gives ENODEV. The first difference
 * fails the program; it is then shrunk (steps removed while it still
 * fails) and printed as C. The main process runs at a real-time priority
 * where it may, so that a step right after the removal of an event's last
 * reference sees the event gone at once, not after the kernel's own work.
 *
 *   model_test [--seed N] [--steps N] [--programs N] [--seconds N]
 *              [--shrink-seconds N]
 *
 * or UE_MODEL_SEED, UE_MODEL_STEPS, UE_MODEL_PROGRAMS, UE_MODEL_SECONDS,
 * UE_MODEL_SHRINK_SECONDS in the environment (a guest gets them from the
 * kernel command line). Program i runs with seed SEED + i. With
 * --seconds the run stops after the program that passes that time (at
 * most --programs programs). Shrinking stops after --shrink-seconds
 * (300; 0: the failing program is printed as it is).
 */
#define _GNU_SOURCE
/* 32-bit builds too: /proc/PID/mem is read at addresses above 2 GiB */
#define _FILE_OFFSET_BITS 64
#include <ctype.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <linux/capability.h>
#include <linux/futex.h>

#include "user_events_selftests.h"

#define MT_PREFIX	"__mt"
#define MT_INSTANCE	TRACEFS_DIR "/instances/__mt"
#define SNAPSHOT_FILE	TRACEFS_DIR "/snapshot"
#define ERROR_LOG	TRACEFS_DIR "/error_log"
#define ENABLERS_FILE	"/proc/sys/kernel/user_events_max_enablers"

#define NR_NAMES	5	/* event names of the pool */
#define NR_SIGS		3	/* field lists per name */
#define MAX_FIELDS	6
#define MAX_PROCS	6
#define MAX_FDS		4	/* fd slots of a process */
#define MAX_FILES	64
#define MAX_EVENTS	1024
#define MAX_ENABLERS	48
#define MAX_SLOTS_FILE	32
#define MAX_STALE	8
#define MAX_RECS	96	/* records a buffer holds before a clear */
#define NR_WORDS	8	/* 8-byte enable words per area */
#define CMD_MAX		1100
#define DATA_MAX	9000
#define SETTLE_EVERY	64

#define DEF_SEED	0x6d6f64656cULL
#define DEF_STEPS	800
#define DEF_PROGRAMS	2

/* ---- random numbers -------------------------------------------------- */

static __u64 rng;

static __u64 rnd(void)
{
	return ue_rand64(&rng);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

/* ---- field types ------------------------------------------------------ */

enum kind { K_INT, K_STR, K_STRUCT, K_DATA_LOC, K_REL_LOC };

static const struct {
	const char *type;
	int size;
	const char *fmt;
} int_types[] = {
	{ "u8", 1, "%u" }, { "s8", 1, "%d" }, { "u16", 2, "%u" },
	{ "s16", 2, "%d" }, { "u32", 4, "%u" }, { "s32", 4, "%d" },
	{ "u64", 8, "%llu" }, { "s64", 8, "%lld" }, { "int", 4, "%d" },
	{ "unsigned int", 4, "%u" }, { "short", 2, "%d" },
	{ "unsigned short", 2, "%u" }, { "char", 1, "%d" },
	{ "unsigned char", 1, "%u" },
};

/* The types a generated field list takes, besides int_types */
static const char * const other_types[] = {
	"char[8]", "char[0x10]", "char[1]", "unsigned char[6]", "char[010]",
	"char[1024]", "__data_loc char[]", "__rel_loc char[]", "__data_loc unsigned char[]",
	"__rel_loc unsigned char[]", "__data_loc int", "__rel_loc u16",
	"struct s1", "struct s2",
};

static const char * const bad_types[] = { UE_BAD_TYPES };

static const char * const bad_sizes[] = {
	"0", "2147483648", "4294967296", "99999999999", "-1", "0x10", "8a",
	"", "65536",
};

static const char * const field_names[] = {
	"a", "b", "c", "count", "x1", "_", "data", "__n",
};

static const char * const bad_field_names[] = {
	"9z", "a-b", "a.b", "$", "a[2]",
};

static const char * const odd_names[] = {
	"", "a/b", "x:y", "name:", ":", "\x01", "\x7f", "\xc3\xa9", "..", ".",
	"enable", "filter", "!", "#", "-", "u", "x\x7f", "\x7fy", "x\x1f",
};

struct mt_field {
	char type[40];		/* as given, e.g. "unsigned int", "char[0x10]" */
	char name[48];
	enum kind kind;
	int size;		/* static size in the payload */
	int len;		/* K_STR: N of char[N] */
	bool is_signed;
	bool str;		/* a string (char data) */
	int offset;		/* in the payload */
	const char *fmt;	/* K_INT */
};

struct mt_sig {
	int nf;
	struct mt_field f[MAX_FIELDS];
	int min_size;
	char canon[512];	/* "TYPE NAME[ SIZE]; ..." */
};

/* ---- the model -------------------------------------------------------- */

enum area { A_NORMAL, A_DONTFORK, A_WIPE, A_RO, A_HOLE, NR_AREAS };

/* Trace arrays: the top one (with its snapshot), the instance */
enum { TR_TOP, TR_INST, NR_TRS };

/*
 * What the format of a removed event waits for in a trace array that
 * recorded it, as far as the model knows: nothing; nothing once the next
 * reclaim runs (the array was cleared since and got no record); unknown;
 * records the array held at the removal and still holds (kept for sure).
 */
enum keep { KEEP_NONE, KEEP_SOON, KEEP_MAYBE, KEEP_HELD };

struct mt_event {
	char name[300];		/* register name */
	char tp[320];		/* tracepoint name: name, or name.ID */
	bool multi;
	bool persist;
	bool live;		/* exists and counts */
	bool dying;		/* unreferenced: its auto-delete is due */
	bool ftrace, inst;	/* enabled in the top buffer, the instance */
	bool rec[NR_TRS];	/* enabled in the trace array since made */
	enum keep keep[NR_TRS];	/* once removed: its format kept there */
	int perf_fd;
	void *perf_ring;
	struct mt_sig sig;
};

struct mt_enabler {
	int area, word, off, size, bit;	/* the word: area, 8-byte slot, +off */
	int ev;
};

struct mt_file {
	bool used;
	bool rdonly;
	int holders;		/* processes with an fd of it */
	int nslots;
	int slots[MAX_SLOTS_FILE];	/* write index -> event */
};

struct mt_proc {
	bool alive;
	bool execed;		/* a new image: no enable words to read */
	bool dontfork;		/* has the MADV_DONTFORK page */
	bool unpriv;		/* without CAP_PERFMON and CAP_SYS_ADMIN */
	pid_t pid;
	int pidfd;
	int memfd;		/* its /proc/PID/mem */
	int fd[MAX_FDS];	/* real fd numbers, -1 */
	int file[MAX_FDS];	/* model files */
	int nen;
	struct mt_enabler en[MAX_ENABLERS];
};

struct mt_rec {
	int ev;
	int len;
	unsigned char *data;
};

struct mt_buf {
	int n;
	struct mt_rec r[MAX_RECS];
};

enum { B_TOP, B_INST, B_SNAP, NR_BUFS };

struct mt_stale {
	int fd;
	int ev;
	int file;		/* index in stale_files */
};

static struct {
	int nev;
	struct mt_event ev[MAX_EVENTS];
	struct mt_file file[MAX_FILES];
	struct mt_proc proc[MAX_PROCS];
	struct mt_buf buf[NR_BUFS];
	struct mt_buf perf[MAX_EVENTS];
	int nstale;
	struct mt_stale stale[MAX_STALE];
	int max_events;		/* 0: the default */
	int max_enablers;	/* 0: the default */
	struct mt_sig sigs[NR_NAMES][NR_SIGS];
} m;

/* What the program needs to know of the machine */
static struct {
	long page;
	struct ue_limits lim;
	int hdr;		/* common header of a record */
	bool kernel64;
	bool compat;		/* a 32-bit process on a 64-bit kernel */
	bool perf;
	bool snapshot;
	bool trunc;		/* no dynamic event but ours: truncating open */
	int base_active, base_busy;
	int base_kept;		/* kept formats, not ours, at the start */
	char *saved_max, *saved_enablers;
	int notify[2];		/* the pipe an exec'd image reports on */
	bool rt;		/* the main process holds its CPU */
} sys;

/* How often the generator reached a bound of the ABI, for the summary */
enum {
	GB_CMD_511, GB_CMD_512, GB_STATIC_AT, GB_STATIC_OVER, GB_STRUCT_SIZE,
	GB_EXTRA, GB_FTRACE_OVER, GB_LOC_END, GB_DYN_LONG, GB_ADDR_IN_USE,
	GB_OTHER_WORD, GB_DEL_MANY, GB_PENDING, GB_WIPE_FORK, GB_PERF_PAD,
	GB_EPERM, NR_GB
};

static const char * const gb_names[NR_GB] = {
	"command of 511 bytes", "command of 512 bytes",
	"static size at its bound", "static size one over",
	"struct size of a live event +-1", "field with a token after its name",
	"payload one over ftrace's", "location ending one past the record",
	"u: line of 512 bytes or more", "registration at a bit in use",
	"enable word of another process", "DIAG_IOCSDEL of 2+ events",
	"name of an event due to go, still there", "fork of a set bit in WIPEONFORK",
	"location past the payload, in perf's padding",
	"EPERM: persistent, without CAP_PERFMON",
};

static unsigned long st_gb[NR_GB];

/* ---- memory: enable words, buffers, holes ------------------------------ */

/*
 * One mapping made before any fork, at the same address in every
 * process: pages 0-4 the areas (normal, MADV_DONTFORK, MADV_WIPEONFORK,
 * read-only, PROT_NONE), 5-7 buffers (structs, commands), 8 a hole.
 */
#define PG_BUF		5
#define PG_CMD		7
#define PG_TAIL		8
#define NR_PAGES	9

static char *mem;

static char *page_at(int n)
{
	return mem + n * sys.page;
}

static char *word_addr(int area, int word, int off)
{
	return page_at(area) + word * 8 + off;
}

/* Make this process's word pages its own: a write breaks copy-on-write */
static void touch_words(bool dontfork)
{
	int a, w;

	for (a = A_NORMAL; a <= A_WIPE; a++) {
		if (a == A_DONTFORK && !dontfork)
			continue;
		for (w = 0; w < NR_WORDS; w++)
			ue_touch_word(word_addr(a, w, 0));
	}
}

/* ---- mailboxes: steps run by other processes --------------------------- */

enum op {
	OP_REG, OP_UNREG, OP_DEL, OP_WRITE, OP_OPEN, OP_CLOSE, OP_FORK,
	OP_EXEC, OP_EXIT, OP_DYN, OP_FTRACE, OP_INST, OP_PERF, OP_MAX,
	OP_MAX_EN, OP_SNAP, OP_STALE, OP_TRUNC, NR_OPS
};

static const char * const op_names[] = {
	"reg", "unreg", "del", "write", "open", "close", "fork", "exec",
	"exit", "dyn", "ftrace", "instance", "perf", "max", "max_enablers",
	"snapshot", "stale", "truncate",
};

/* A step of a program: what the generator chose */
struct mt_step {
	enum op op;
	int proc, fd;		/* who: process slot, its fd slot */
	int area, word, off, size, bit;	/* enable word */
	int flags;
	int variant;		/* of the struct, payload, placement */
	int index;		/* write index */
	int ev;			/* tracer ops: event (model index) */
	int on;
	__u64 seed;		/* payload bytes, struct bytes */
	char *cmd;		/* command, name or dynamic_events line */
};

/* What a process runs: built by the main process from a step */
struct mt_box {
	int req, resp;		/* futex words */
	int ready;		/* a new process closed its copies of tracer fds */
	enum op op;
	int fd, slot, flags, variant, thread;
	__u64 uptr;		/* enable_addr / disable_addr as passed */
	__u32 rsize;		/* struct size */
	unsigned char tail;	/* a byte after the known struct, or 0 */
	__u8 bit, esize;
	int name_at;		/* where the command is: see cmd_ptr() */
	int nio;
	int iolen[3];
	int iohole[3];		/* this iovec points into the hole */
	long ret;
	int err;
	int aux;		/* write_index, pid, fd */
	char cmd[CMD_MAX];
	unsigned char data[DATA_MAX + 16];
};

static struct mt_box *boxes;
static pid_t boxes_pid[MAX_PROCS];

static long futex(int *uaddr, int op, int val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

enum { AT_CMD, AT_NULL, AT_HOLE, AT_KERNEL, AT_NONUL, AT_RO };

#define BAD_ADDR	0x00ff000000000000ULL
#define KERNEL_ADDR	0xffffffff81000000ULL

static __u64 uptr(const void *p)
{
	/* A 32-bit program's (__u64)ptr sign-extends; the kernel takes it */
	if (sys.compat && (rnd() & 1))
		return (__u64)(long)p;
	return (__u64)(unsigned long)p;
}

static const char *cmd_ptr(struct mt_box *b)
{
	char *cmd = page_at(PG_CMD);

	switch (b->name_at) {
	case AT_NULL:
		return NULL;
	case AT_HOLE:
		return page_at(A_HOLE) + 100;
	case AT_KERNEL:
		return (const char *)(unsigned long)KERNEL_ADDR;
	case AT_NONUL:
		cmd = page_at(PG_TAIL) - 64;
		memset(cmd, 'x', 64);
		return cmd;
	case AT_RO:
		return page_at(A_RO);	/* zeros: an empty command */
	}
	strcpy(cmd, b->cmd);
	return cmd;
}

struct thread_arg {
	struct mt_box *b;
	void *reg;
};

static void *reg_thread(void *p)
{
	struct thread_arg *a = p;

	a->b->ret = ioctl(a->b->fd, DIAG_IOCSREG, a->reg);
	a->b->err = errno;
	return NULL;
}

/*
 * Variants of where a struct is: S_TAIL puts its first TAIL_BYTES bytes
 * right before an unmapped page; S_SPLIT a struct user_reg's write_index
 * across two pages, the second one not faulted in
 */
enum { S_BUF, S_RO, S_TAIL, S_KERNEL, S_SPLIT };
#define SPLIT_AT	(offsetof(struct user_reg, write_index) + 2)
#define TAIL_BYTES	20

static void *place_struct(struct mt_box *b, const void *s, size_t len)
{
	char *at = page_at(PG_BUF);

	if (b->variant == S_KERNEL)
		return (void *)(unsigned long)KERNEL_ADDR;
	if (b->variant == S_TAIL) {
		at = page_at(PG_TAIL) - TAIL_BYTES;
		memcpy(at, s, len < TAIL_BYTES ? len : TAIL_BYTES);
		return at;
	}
	if (b->variant == S_RO) {
		at = page_at(A_RO);
		mprotect(at, sys.page, PROT_READ | PROT_WRITE);
		memset(at, 0, sys.page);
		memcpy(at, s, len);
		if (b->tail)
			at[len + (b->tail % (b->rsize - len))] = b->tail;
		mprotect(at, sys.page, PROT_READ);
		return at;
	}
	if (b->variant == S_SPLIT) {
		/* The second page: the struct's zeros, not faulted in */
		memset(at, 0, 2 * sys.page);
		at = page_at(PG_BUF + 1) - SPLIT_AT;
		memcpy(at, s, len);
		madvise(page_at(PG_BUF + 1), sys.page, MADV_DONTNEED);
		return at;
	}
	memset(at, 0, 2 * sys.page);
	memcpy(at, s, len);
	if (b->tail && b->rsize > len && b->rsize <= 2 * sys.page)
		at[len + (b->tail % (b->rsize - len))] = b->tail;
	return at;
}

static void serve(int slot);
static void forget_tracer_fds(void);
static pid_t main_pid;

static void do_reg(struct mt_box *b)
{
	struct user_reg reg = {0};
	struct thread_arg a = { b };
	pthread_t t;

	reg.size = b->rsize;
	reg.enable_bit = b->bit;
	reg.enable_size = b->esize;
	reg.flags = b->flags;
	reg.enable_addr = b->uptr;
	reg.name_args = uptr(cmd_ptr(b));
	reg.write_index = UE_INDEX_GARBAGE;
	a.reg = place_struct(b, &reg, sizeof(reg));
	if (b->thread && !pthread_create(&t, NULL, reg_thread, &a)) {
		pthread_join(t, NULL);
	} else {
		b->ret = ioctl(b->fd, DIAG_IOCSREG, a.reg);
		b->err = errno;
	}
	/* Variants past S_SPLIT place the struct as S_BUF does */
	b->aux = -1;
	if (b->variant != S_TAIL && b->variant != S_KERNEL)
		memcpy(&b->aux, (char *)a.reg + offsetof(struct user_reg, write_index),
		       sizeof(b->aux));
}

static void do_write(struct mt_box *b)
{
	struct iovec io[3];
	int i, off = 0;

	for (i = 0; i < b->nio; i++) {
		io[i].iov_base = b->iohole[i] ? page_at(A_HOLE) :
						(void *)(b->data + off);
		io[i].iov_len = b->iolen[i];
		off += b->iolen[i];
	}
	b->ret = writev(b->fd, io, b->nio);
	b->err = errno;
}

/*
 * Give up CAP_PERFMON and CAP_SYS_ADMIN, for good: still uid 0, so that
 * the files stay open to it, but not perfmon_capable(), here or in an
 * image it execs
 */
static bool drop_perfmon(void)
{
	static const int caps[] = { CAP_PERFMON, CAP_SYS_ADMIN };
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned int i, bit;

	if (syscall(SYS_capget, &h, d))
		return false;
	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		if (prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0))
			return false;
		bit = 1U << (caps[i] % 32);
		d[caps[i] / 32].effective &= ~bit;
		d[caps[i] / 32].permitted &= ~bit;
		d[caps[i] / 32].inheritable &= ~bit;
	}
	return !syscall(SYS_capset, &h, d);
}

/* The flags of a fork's request */
#define FORK_DONTFORK	1	/* the parent has the MADV_DONTFORK page */
#define FORK_UNPRIV	2	/* the child gives up CAP_PERFMON */

/* Run the request of @b in this process */
static void run_box(struct mt_box *b)
{
	char arg[16], arg2[16];
	bool unpriv;
	pid_t pid;
	int slot;

	errno = 0;
	switch (b->op) {
	case OP_REG:
		do_reg(b);
		break;
	case OP_UNREG: {
		struct user_unreg u = {0};

		u.size = b->rsize;
		u.disable_bit = b->bit;
		u.disable_addr = b->uptr;
		if (b->flags & 1)
			u.__reserved = 1;
		if (b->flags & 2)
			u.__reserved2 = 0x100;
		b->ret = ioctl(b->fd, DIAG_IOCSUNREG,
			       place_struct(b, &u, sizeof(u)));
		b->err = errno;
		break;
	}
	case OP_DEL:
		b->ret = ioctl(b->fd, DIAG_IOCSDEL, cmd_ptr(b));
		b->err = errno;
		break;
	case OP_WRITE:
		do_write(b);
		break;
	case OP_OPEN:
		b->ret = open(DATA_FILE, b->flags ? O_RDONLY : O_RDWR);
		b->err = errno;
		break;
	case OP_CLOSE:
		b->ret = close(b->fd);
		b->err = errno;
		break;
	case OP_FORK:
		/*
		 * The child's slot, read before: once this process answered,
		 * the next request overwrites its box, which the child shares
		 */
		slot = b->slot;
		unpriv = b->flags & FORK_UNPRIV;
		pid = fork();
		if (pid == 0) {
			/* ready 2: the main process reports it */
			if (unpriv && !drop_perfmon()) {
				__atomic_store_n(&boxes[slot].ready, 2, __ATOMIC_RELEASE);
				futex(&boxes[slot].ready, FUTEX_WAKE, 1, NULL);
				_exit(1);
			}
			forget_tracer_fds();
			touch_words(false);
			/* The tracers' files are the main process's alone again */
			__atomic_store_n(&boxes[slot].ready, 1, __ATOMIC_RELEASE);
			futex(&boxes[slot].ready, FUTEX_WAKE, 1, NULL);
			serve(slot);
		}
		touch_words(b->flags & FORK_DONTFORK);
		b->ret = pid;
		b->err = errno;
		break;
	case OP_EXEC:
		/* Answered before: the new image reports on sys.notify */
		__atomic_store_n(&b->resp, b->req, __ATOMIC_RELEASE);
		futex(&b->resp, FUTEX_WAKE, 1, NULL);
		snprintf(arg, sizeof(arg), "%d", sys.notify[1]);
		snprintf(arg2, sizeof(arg2), "%d", main_pid);
		execl("/proc/self/exe", "model_test", "--mt-idle", arg, arg2,
		      NULL);
		_exit(3);
	case OP_EXIT:
		_exit(0);
	default:
		b->ret = -1;
		b->err = EINVAL;
		break;
	}
}

/* A child's life: run what its mailbox asks, until told to exit */
static void serve(int slot)
{
	struct mt_box *b = &boxes[slot];
	struct timespec ts = { 1, 0 };
	int seen = 0;	/* the main process set both counters to 0 */

	for (;;) {
		int req = __atomic_load_n(&b->req, __ATOMIC_ACQUIRE);

		if (req == seen) {
			/* Nobody to serve once the test is gone */
			if (kill(main_pid, 0) && errno == ESRCH)
				_exit(0);
			futex(&b->req, FUTEX_WAIT, seen, &ts);
			continue;
		}
		seen = req;
		run_box(b);
		__atomic_store_n(&b->resp, seen, __ATOMIC_RELEASE);
		futex(&b->resp, FUTEX_WAKE, 1, NULL);
	}
}

/* Run @b in process @p: the main process itself, or through its box */
static bool call(int p, struct mt_box *b)
{
	struct mt_box *box = &boxes[p];
	struct timespec ts = { 0, 100000000 };
	long end = ue_now_ms() + 20000;
	int req;

	if (p == 0) {
		run_box(b);
		return true;
	}
	/* Everything but the counters */
	if (b != box)
		memcpy(&box->op, &b->op, sizeof(*b) - offsetof(struct mt_box, op));
	req = __atomic_add_fetch(&box->req, 1, __ATOMIC_ACQ_REL);
	futex(&box->req, FUTEX_WAKE, 1, NULL);
	if (b->op == OP_EXIT)
		return true;
	while (__atomic_load_n(&box->resp, __ATOMIC_ACQUIRE) != req) {
		if (ue_now_ms() > end)
			return false;
		futex(&box->resp, FUTEX_WAIT, box->resp, &ts);
	}
	return true;
}

static bool failf(const char *fmt, ...);
static void failf_more(const char *fmt, ...);

/* A process that did not answer within the bound: what it is doing */
static bool no_answer(int p)
{
	char path[64], *stat, *wchan, *sc;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", boxes_pid[p]);
	stat = ue_read_file(path);
	snprintf(path, sizeof(path), "/proc/%d/wchan", boxes_pid[p]);
	wchan = ue_read_file(path);
	/* A futex wait shows its address: is it the box's? */
	snprintf(path, sizeof(path), "/proc/%d/syscall", boxes_pid[p]);
	sc = ue_read_file(path);
	ok = failf("process %d (pid %d) does not answer: req %d at %p, resp %d",
		   p, boxes_pid[p], boxes[p].req, (void *)&boxes[p].req,
		   boxes[p].resp);
	failf_more(", stat %s, wchan %s, syscall %s", stat ? stat : "(gone)",
		   wchan ? wchan : "?", sc ? sc : "?");
	free(stat);
	free(wchan);
	free(sc);
	return ok;
}

/* ---- commands: parsing as the documentation says ----------------------- */

/* kstrtouint-like: base 0 (0x, 0) or 10; false when not a number */
static bool parse_num(const char *s, int base, unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	if (base == 10 && *s == '0' && (s[1] == 'x' || s[1] == 'X'))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

enum verdict { V_OK, V_EINVAL, V_EADDRINUSE, V_UNKNOWN };

struct parsed {
	enum verdict v;
	enum verdict name_v;	/* the name alone */
	char name[300];
	struct mt_sig sig;
	int caret;		/* offset of the refused token, -1 unknown */
	int lo;			/* where the text error_log quotes from starts */
	bool opaque;		/* fields the model does not follow */
};

struct tok {
	const char *s;
	int len, at;
};

static bool tok_is(const struct tok *t, const char *s)
{
	return t->len == (int)strlen(s) && !strncmp(t->s, s, t->len);
}

/* One field from its tokens into @f; false (and @caret) when refused */
static bool parse_field(const struct tok *t, int n, struct mt_field *f,
			int *caret)
{
	unsigned long long v;
	int tt = 1, i, rest;
	char num[16];
	const char *br;
	bool bad_name;

	memset(f, 0, sizeof(*f));
	*caret = t[0].at;
	if (tok_is(&t[0], "unsigned") || tok_is(&t[0], "struct"))
		tt = 2;
	else if (tok_is(&t[0], "__data_loc") || tok_is(&t[0], "__rel_loc"))
		tt = n > 2 && tok_is(&t[1], "unsigned") ? 3 : 2;
	if (n < tt + 1) {
		*caret = -1;
		return false;
	}
	for (i = 0; i < tt; i++) {
		if (strlen(f->type) + t[i].len + 2 > sizeof(f->type))
			return false;
		if (i)
			strcat(f->type, " ");
		strncat(f->type, t[i].s, t[i].len);
	}
	if (t[tt].len >= (int)sizeof(f->name)) {
		*caret = -1;
		return false;
	}
	memcpy(f->name, t[tt].s, t[tt].len);
	bad_name = !ue_c_ident(f->name);
	rest = n - tt - 1;
	f->is_signed = f->type[0] != 'u';
	f->str = !!strstr(f->type, "char");
	br = strchr(f->type, '[');

	if (!strncmp(f->type, "struct ", 7)) {
		f->kind = K_STRUCT;
		if (!rest) {
			*caret = -1;
			return false;
		}
		memcpy(num, t[tt + 1].s, t[tt + 1].len < 15 ? t[tt + 1].len : 15);
		num[t[tt + 1].len < 15 ? t[tt + 1].len : 15] = '\0';
		if (t[tt + 1].len >= 15 || !parse_num(num, 10, &v) || !v ||
		    v >= 0x80000000ULL || v > (unsigned long long)sys.lim.max_static) {
			*caret = t[tt + 1].at;
			goto refused;
		}
		f->size = v;
		rest--;
	} else if (!strncmp(f->type, "__data_loc ", 11) ||
		   !strncmp(f->type, "__rel_loc ", 10)) {
		f->kind = f->type[2] == 'd' ? K_DATA_LOC : K_REL_LOC;
		f->size = 4;
	} else if (br) {
		const char *end;

		f->kind = K_STR;
		f->str = true;
		/* Which word of "unsigned char[N]" is refused is not said */
		if (tt > 1)
			*caret = -1;
		if (!((br - f->type == 4 && !strncmp(f->type, "char", 4)) ||
		      (br - f->type == 13 &&
		       !strncmp(f->type, "unsigned char", 13))))
			goto refused;
		/* What follows the "]" is ignored, within the 7 characters */
		br++;
		end = strchr(br, ']');
		if (strlen(br) > 7 || !end)
			goto refused;
		memcpy(num, br, end - br);
		num[end - br] = '\0';
		if (!parse_num(num, 0, &v) || !v || v > 1024)
			goto refused;
		f->size = v;
		f->len = v;
	} else {
		for (i = 0; i < (int)ARRAY_SIZE(int_types); i++)
			if (!strcmp(f->type, int_types[i].type))
				break;
		/* Which word of "unsigned X" is refused is not said */
		if (i == (int)ARRAY_SIZE(int_types) && tt > 1)
			*caret = -1;
		if (i == (int)ARRAY_SIZE(int_types))
			goto refused;
		f->kind = K_INT;
		f->size = int_types[i].size;
		f->fmt = int_types[i].fmt;
		f->str = false;
	}
	if (bad_name) {
		*caret = t[tt].at;
		return false;
	}
	if (rest) {
		*caret = t[n - rest].at;
		return false;
	}
	return true;
refused:
	/* The name is refused too: which of the two the log shows is not said */
	if (bad_name)
		*caret = -1;
	return false;
}

static void canon_add(struct mt_sig *s, const struct mt_field *f)
{
	size_t len = strlen(s->canon);

	snprintf(s->canon + len, sizeof(s->canon) - len, "%s%s %s",
		 len ? "; " : "", f->type, f->name);
	if (f->kind == K_STRUCT) {
		len = strlen(s->canon);
		snprintf(s->canon + len, sizeof(s->canon) - len, " %d",
			 f->size);
	}
}

/* The fields of @args (starting at @at in the command) into @p->sig */
static bool parse_fields(const char *args, int at, struct parsed *p)
{
	const char *s = args;
	struct tok t[8];
	int n, j;
	long total = 0;

	memset(&p->sig, 0, sizeof(p->sig));
	while (*s) {
		n = 0;
		while (*s && *s != ';') {
			if (*s == ' ' || *s == '\t') {
				s++;
				continue;
			}
			if (n == 8)
				break;
			t[n].s = s;
			t[n].at = at + (s - args);
			while (*s && *s != ';' && *s != ' ' && *s != '\t')
				s++;
			t[n].len = s - t[n].s;
			n++;
		}
		if (n == 8 || (n && p->sig.nf == MAX_FIELDS)) {
			p->v = V_UNKNOWN;
			p->opaque = true;
			return false;
		}
		if (*s == ';')
			s++;
		if (!n)
			continue;
		if (n > 4) {
			p->caret = -1;
			return false;
		}
		if (!parse_field(t, n, &p->sig.f[p->sig.nf], &p->caret))
			return false;
		for (j = 0; j < p->sig.nf; j++)
			if (!strcmp(p->sig.f[j].name, p->sig.f[p->sig.nf].name)) {
				/* The same field name twice: not documented */
				p->v = V_UNKNOWN;
				p->opaque = true;
				return false;
			}
		p->sig.f[p->sig.nf].offset = total;
		total += p->sig.f[p->sig.nf].size;
		/* Where a sum over the bound is refused is not said */
		if (total > sys.lim.max_static) {
			p->caret = -1;
			return false;
		}
		canon_add(&p->sig, &p->sig.f[p->sig.nf]);
		p->sig.nf++;
	}
	p->sig.min_size = total;
	if (total > sys.lim.max_static) {
		p->caret = -1;
		return false;
	}
	return true;
}

static bool name_valid(const char *name, bool *high)
{
	const unsigned char *c;

	*high = false;
	if (!*name || strlen(name) > 255 || !strcmp(name, ".") ||
	    !strcmp(name, "..") || !strcmp(name, "enable") ||
	    !strcmp(name, "filter"))
		return false;
	for (c = (const unsigned char *)name; *c; c++) {
		if (*c == '/' || *c == ':' || *c < 0x20 || *c == 0x7f)
			return false;
		*high |= *c > 0x7f;
	}
	return true;
}

/*
 * Where error_log puts the caret for the invalid name of @len bytes at
 * @name: its first refused byte, else where it gets too long, else its
 * start. -1 where a byte above 0x7f comes first (Latin-1 control or space
 * to the kernel, or not).
 */
static int name_caret(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (c > 0x7f)
			return -1;
		if (c == ':' || c == '/' || c < 0x20 || c == 0x7f)
			return i;
	}
	return len > 255 ? 255 : 0;
}

/*
 * Parse @cmd (at @at in what was written) as a command: the name, the
 * fields, whether they are valid. The name ends at the first space or
 * tab; an invalid name is EINVAL before anything else.
 */
static void parse_cmd(const char *cmd, int at, struct parsed *p)
{
	size_t len = strcspn(cmd, " \t");
	bool high;

	memset(p, 0, sizeof(*p));
	p->caret = -1;
	p->lo = at;
	if (len >= sizeof(p->name)) {
		p->v = V_EINVAL;
		p->name_v = V_EINVAL;
		if (name_caret(cmd, len) >= 0)
			p->caret = at + name_caret(cmd, len);
		return;
	}
	memcpy(p->name, cmd, len);
	if (!name_valid(p->name, &high)) {
		p->v = V_EINVAL;
		p->name_v = V_EINVAL;
		if (name_caret(cmd, len) >= 0)
			p->caret = at + name_caret(cmd, len);
		return;
	}
	p->v = V_OK;
	/* The fields, after one space or tab */
	p->lo = at + len + !!cmd[len];
	if (!parse_fields(cmd[len] ? cmd + len + 1 : "", at + len + 1, p) &&
	    p->v == V_OK)
		p->v = V_EINVAL;
	if (high) {
		p->v = V_UNKNOWN;
		p->name_v = V_UNKNOWN;
	}
}

/* ---- model queries ----------------------------------------------------- */

static int refs(int e)
{
	struct mt_event *ev = &m.ev[e];
	int n = ev->ftrace + ev->inst + (ev->perf_fd >= 0), i, j;

	for (i = 0; i < MAX_FILES; i++)
		for (j = 0; m.file[i].used && j < m.file[i].nslots; j++)
			n += m.file[i].slots[j] == e;
	for (i = 0; i < MAX_PROCS; i++)
		for (j = 0; m.proc[i].alive && j < m.proc[i].nen; j++)
			n += m.proc[i].en[j].ev == e;
	return n;
}

static bool enabled(int e)
{
	return m.ev[e].ftrace || m.ev[e].inst || m.ev[e].perf_fd >= 0;
}

static int live_count(void)
{
	int e, n = 0;

	for (e = 0; e < m.nev; e++)
		n += m.ev[e].live;
	return n;
}

static int dying_count(void)
{
	int e, n = 0;

	for (e = 0; e < m.nev; e++)
		n += m.ev[e].dying;
	return n;
}

static int find_live(const char *name, bool multi, const char *canon)
{
	int e;

	for (e = 0; e < m.nev; e++)
		if (m.ev[e].live && m.ev[e].multi == multi &&
		    !strcmp(m.ev[e].name, name) &&
		    (!canon || !strcmp(m.ev[e].sig.canon, canon)))
			return e;
	return -1;
}

/* What the format of removed event @e waits for: the most of its arrays */
static enum keep ev_keep(int e)
{
	enum keep k = KEEP_NONE;
	int t;

	for (t = 0; t < NR_TRS; t++)
		if (m.ev[e].keep[t] > k)
			k = m.ev[e].keep[t];
	return k;
}

/*
 * Formats kept for records that count towards kernel.user_events_max:
 * @sure of them for certain, up to @maybe more. An unreferenced event
 * whose removal is still due may yet be taken back: not for certain.
 */
static void kept_count(int *sure, int *maybe)
{
	int e;

	*sure = 0;
	*maybe = sys.base_kept;
	for (e = 0; e < m.nev; e++) {
		if (m.ev[e].live || ev_keep(e) == KEEP_NONE)
			continue;
		if (ev_keep(e) == KEEP_HELD && !m.ev[e].dying)
			(*sure)++;
		else
			(*maybe)++;
	}
}

/*
 * Event @e goes, or its removal is due: its format stays while an array
 * that recorded it may hold its records, for certain while the array
 * holds what it holds now.
 */
static void ev_gone(int e, bool due)
{
	int held[NR_TRS] = {
		m.buf[B_TOP].n + m.buf[B_SNAP].n, m.buf[B_INST].n,
	};
	int t;

	m.ev[e].live = false;
	m.ev[e].dying = due;
	for (t = 0; t < NR_TRS; t++)
		if (m.ev[e].rec[t])
			m.ev[e].keep[t] = held[t] ? KEEP_HELD : KEEP_MAYBE;
}

/* In the arrays of @mask, what waits from @lo to @hi waits for @to now */
static void keep_set(unsigned int mask, enum keep lo, enum keep hi,
		     enum keep to)
{
	int e, t;

	for (e = 0; e < m.nev; e++)
		for (t = 0; t < NR_TRS; t++)
			if (mask & (1 << t) && m.ev[e].keep[t] >= lo &&
			    m.ev[e].keep[t] <= hi)
				m.ev[e].keep[t] = to;
}

/* Array @t got a record: a reclaim may find it and wait for it */
static void keep_written(int t)
{
	keep_set(1 << t, KEEP_SOON, KEEP_SOON, KEEP_MAYBE);
}

/*
 * Whether creating single- or @multi-format @name with fields @canon
 * finds no room under kernel.user_events_max: 0 room, 1 none, -1 either
 * (kept formats the model cannot count for sure). A single-format event
 * takes back the format kept for a removed one of the same name and
 * fields, which counts already.
 */
static int over_limit(const char *name, const char *canon, bool multi)
{
	int sure, maybe, e, n = sys.base_active + live_count();
	bool back = false;

	if (!m.max_events)
		return 0;
	kept_count(&sure, &maybe);
	for (e = 0; !multi && e < m.nev; e++) {
		if (m.ev[e].live || m.ev[e].multi || ev_keep(e) == KEEP_NONE ||
		    strcmp(m.ev[e].name, name) ||
		    strcmp(m.ev[e].sig.canon, canon))
			continue;
		if (ev_keep(e) == KEEP_HELD && !m.ev[e].dying)
			return 0;
		back = true;
	}
	if (n + sure >= m.max_events)
		return back ? -1 : 1;
	return n + sure + maybe >= m.max_events ? -1 : 0;
}

/*
 * A creation met the limit and made room: the formats whose arrays were
 * cleared since and got no record went.
 */
static void kept_reclaimed(void)
{
	keep_set(1 << TR_TOP | 1 << TR_INST, KEEP_SOON, KEEP_SOON, KEEP_NONE);
}

/*
 * A registration of @name with @canon created event @e: a kept format of
 * the same name and fields, if any, is its format now, with what it
 * waits for.
 */
static void kept_taken(int e, const char *name, const char *canon)
{
	int k;

	for (k = 0; k < m.nev; k++)
		if (k != e && !m.ev[k].live && !m.ev[k].multi &&
		    ev_keep(k) == KEEP_HELD && !m.ev[k].dying &&
		    !strcmp(m.ev[k].name, name) &&
		    !strcmp(m.ev[k].sig.canon, canon)) {
			memcpy(m.ev[e].keep, m.ev[k].keep, sizeof(m.ev[e].keep));
			memset(m.ev[k].keep, 0, sizeof(m.ev[k].keep));
		}
}

static const char *sys_dir(int e)
{
	return m.ev[e].multi ? MULTI_DIR : EVENTS_DIR;
}

static void ev_path(char *buf, size_t len, int e, const char *file)
{
	snprintf(buf, len, "%s/%s/%s", sys_dir(e), m.ev[e].tp, file);
}

/* An event that the last step left unreferenced, or -1 */
static int just_gone = -1;

/* The events no longer referenced go: persistent ones stay */
static bool update_dying(void)
{
	bool any = false;
	int e;

	for (e = 0; e < m.nev; e++) {
		if (!m.ev[e].live || m.ev[e].persist || refs(e))
			continue;
		ev_gone(e, true);
		just_gone = e;
		any = true;
	}
	return any;
}

/* ---- failure reports ---------------------------------------------------- */

static char why[8192];

static bool failf(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return false;
}

static void failf_more(const char *fmt, ...)
{
	va_list ap;
	size_t len = strlen(why);

	va_start(ap, fmt);
	vsnprintf(why + len, sizeof(why) - len, fmt, ap);
	va_end(ap);
}

/* The bytes of a payload, into the failure report */
static void dump_failing(const unsigned char *p, int len)
{
	int i;

	failf_more("\n  payload:");
	for (i = 0; i < len && i < 256; i++)
		failf_more(" %02x", p[i]);
}

static const char *err_name(int err)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ 0, "success" }, { EINVAL, "EINVAL" }, { EFAULT, "EFAULT" },
		{ E2BIG, "E2BIG" }, { EBADF, "EBADF" }, { ENOENT, "ENOENT" },
		{ EBUSY, "EBUSY" }, { EPERM, "EPERM" }, { EMFILE, "EMFILE" },
		{ ENOSPC, "ENOSPC" }, { EADDRINUSE, "EADDRINUSE" },
		{ ENOMEM, "ENOMEM" }, { ENODEV, "ENODEV" }, { EEXIST, "EEXIST" },
	};
	static char buf[16];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].err == err)
			return names[i].name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* The expected answers of a call: a set of errnos, 0 for success */
struct expect {
	int n;
	int err[8];
};

static void want(struct expect *x, int err)
{
	/* An outcome dropped here would fail a kernel that is right */
	if (x->n == (int)ARRAY_SIZE(x->err)) {
		fprintf(stderr, "model_test: more outcomes than struct expect holds\n");
		abort();
	}
	x->err[x->n++] = err;
}

static bool last_ok;
static unsigned long st_recs;

static bool check_ret(const char *what, struct expect *x, long ret, int err)
{
	int got = ret < 0 ? err : 0, i;
	char list[128] = "";

	last_ok = !got;
	for (i = 0; i < x->n; i++)
		if (x->err[i] == got)
			return true;
	for (i = 0; i < x->n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", i ? " or " : "", err_name(x->err[i]));
	return failf("%s: the kernel gave %s (%ld), the model %s", what,
		     err_name(got), ret, list);
}

/* ---- tracefs files ------------------------------------------------------ */

static bool write_file(const char *path, const char *text, int flags)
{
	return ue_write_str(path, text, flags) == 0;
}

static bool read_into(const char *path, char **text)
{
	free(*text);
	*text = ue_read_file(path);
	return !!*text;
}

static void clear_buffers(void)
{
	int b;

	ue_clear_trace();
	write_file(MT_INSTANCE "/trace", "", O_TRUNC);
	if (sys.snapshot)
		write_file(SNAPSHOT_FILE, "2", 0);
	for (b = 0; b < NR_BUFS; b++) {
		while (m.buf[b].n)
			free(m.buf[b].r[--m.buf[b].n].data);
	}
	keep_set(1 << TR_TOP | 1 << TR_INST, KEEP_MAYBE, KEEP_HELD, KEEP_SOON);
}

static void add_rec(struct mt_buf *buf, int e, const unsigned char *p, int len)
{
	struct mt_rec *r;

	if (buf->n == MAX_RECS)
		return;
	r = &buf->r[buf->n++];
	r->ev = e;
	r->len = len;
	r->data = malloc(len ? len : 1);
	memcpy(r->data, p, len);
}

/* ---- the expected text of a record ---------------------------------------- */

static void hex(char *out, size_t cap, const unsigned char *p, int len)
{
	int i;

	for (i = 0; i < len && (size_t)(2 * i + 3) < cap; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/*
 * The @size byte integer at @at in the program's byte order, zero
 * extended: copied into a variable of its own size, which on a
 * big-endian machine is not the first bytes of a 64-bit one.
 */
static unsigned long long load_int(const unsigned char *at, int size)
{
	__u16 u16;
	__u32 u32;
	__u64 u64;

	switch (size) {
	case 1:
		return *at;
	case 2:
		memcpy(&u16, at, 2);
		return u16;
	case 4:
		memcpy(&u32, at, 4);
		return u32;
	default:
		memcpy(&u64, at, 8);
		return u64;
	}
}

/* "TP: f=v ..." for a record of event @e, payload @p of @len bytes */
/* Where each field of the last decoded line starts (its " NAME=") */
static int dec_start[MAX_FIELDS + 1], dec_n;

static void decode(char *out, size_t cap, int e, const unsigned char *p,
		   int len)
{
	struct mt_sig *s = &m.ev[e].sig;
	static char val[2 * DATA_MAX + 16];
	int i;

	snprintf(out, cap, "%s:", m.ev[e].tp);
	dec_n = 0;
	for (i = 0; i < s->nf; i++) {
		const struct mt_field *f = &s->f[i];
		const unsigned char *at = p + f->offset;
		unsigned long long u = 0;
		__u32 loc;
		int off, sz;

		switch (f->kind) {
		case K_INT:
			u = load_int(at, f->size);
			if (f->is_signed && f->size < 8 &&
			    (u >> (f->size * 8 - 1)) & 1)
				u |= ~0ULL << (f->size * 8);
			snprintf(val, sizeof(val), f->is_signed ? "%lld" :
				 "%llu", u);
			break;
		case K_STR:
			snprintf(val, sizeof(val), "%.*s", f->len, at);
			break;
		case K_STRUCT:
			hex(val, sizeof(val), at, f->size);
			break;
		default:
			memcpy(&loc, at, 4);
			off = loc & 0xffff;
			sz = loc >> 16;
			off += f->kind == K_REL_LOC ? f->offset + 4 : -sys.hdr;
			if (f->str)
				snprintf(val, sizeof(val), "%.*s", sz, p + off);
			else
				hex(val, sizeof(val), p + off, sz);
			break;
		}
		dec_start[dec_n++] = strlen(out);
		snprintf(out + strlen(out), cap - strlen(out), " %s=%s",
			 f->name, val);
	}
}

/* ---- checks: the kernel's state against the model's ---------------------- */

static char *text_a, *text_b;

#define TOO_BIG		"[LINE TOO BIG]"

/*
 * A record's line in a trace file, @got after @plen bytes of the same
 * page (its prefix), against the model's @want, just decoded. A line
 * whose text and newline do not fit in the page is cut before the last
 * field that leaves room for TOO_BIG, its newline and a NUL, and ends
 * with TOO_BIG.
 */
static bool same_line(const char *got, int plen, const char *want)
{
	static char cut[2 * DATA_MAX + 4096];
	int at = strlen(want), i;

	if (plen + at + 1 <= sys.page)
		return !strcmp(got, want);
	at = strcspn(want, ":") + 1;
	for (i = 0; i < dec_n; i++)
		if (plen + dec_start[i] + (int)sizeof(TOO_BIG "\n") <= sys.page)
			at = dec_start[i];
	snprintf(cut, sizeof(cut), "%.*s" TOO_BIG, at, want);
	return !strcmp(got, cut);
}

static bool check_trace(int b)
{
	static const char * const files[] = {
		TRACE_FILE, MT_INSTANCE "/trace", SNAPSHOT_FILE,
	};
	static const char * const names[] = { "trace", "instance trace",
					      "snapshot" };
	static char want[2 * DATA_MAX + 4096];
	char *line, *save = NULL, *got;
	int i = 0, ann = 0;

	if (b == B_SNAP && !sys.snapshot)
		return true;
	if (!read_into(files[b], &text_a))
		return failf("cannot read %s", files[b]);
	for (line = strtok_r(text_a, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* A CPU's first record after an overrun: in the same page */
		if (!strncmp(line, "##### CPU ", 10)) {
			ann = strlen(line) + 1;
			continue;
		}
		if (line[0] == '#')
			continue;
		got = strchr(line, ']');
		got = got ? strstr(got, ": ") : NULL;
		got = got ? got + 2 : line;
		if (i == m.buf[b].n)
			return failf("%s: a record the model has not (%d before it):\n%.2000s",
				     names[b], i, got);
		decode(want, sizeof(want), m.buf[b].r[i].ev, m.buf[b].r[i].data,
		       m.buf[b].r[i].len);
		if (!same_line(got, ann + (got - line), want))
			return failf("%s differs at record %d:\n--- kernel\n%.3900s\n"
				     "--- model\n%.3900s\n", names[b], i, got, want);
		ann = 0;
		i++;
	}
	if (i != m.buf[b].n)
		return failf("%s: %d records, the model %d", names[b], i,
			     m.buf[b].n);
	st_recs += m.buf[b].n;
	return true;
}

struct perf_ring {
	struct perf_event_mmap_page meta;
};

#define PERF_PAGES	8

/* New samples of event @e's perf ring against the model's queue */
static bool check_perf(int e)
{
	struct mt_event *ev = &m.ev[e];
	struct perf_event_mmap_page *meta = ev->perf_ring;
	unsigned char *data = (unsigned char *)ev->perf_ring + sys.page;
	__u64 size = PERF_PAGES * sys.page, head, tail;
	struct mt_buf *q = &m.perf[e];
	unsigned char rec[DATA_MAX + 64];
	int n = 0, i;

	head = ue_perf_head(meta);
	tail = meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		__u32 raw;

		for (i = 0; i < (int)sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (h.size > sizeof(rec) || h.size < sizeof(h))
			return failf("perf %s: a record of %d bytes",
				     ev->tp, h.size);
		for (i = 0; i < h.size; i++)
			rec[i] = data[(tail + i) % size];
		tail += h.size;
		if (h.type != PERF_RECORD_SAMPLE)
			return failf("perf %s: record type %d", ev->tp, h.type);
		if (n >= q->n)
			return failf("perf %s: a sample the model has not",
				     ev->tp);
		memcpy(&raw, rec + sizeof(h), 4);
		if ((int)raw < sys.hdr + q->r[n].len ||
		    memcmp(rec + sizeof(h) + 4 + sys.hdr, q->r[n].data,
			   q->r[n].len))
			return failf("perf %s: sample %d differs (raw size %u, payload %d)",
				     ev->tp, n, raw, q->r[n].len);
		n++;
	}
	ue_perf_set_tail(meta, tail);
	if (n != q->n)
		return failf("perf %s: %d samples, the model %d", ev->tp, n,
			     q->n);
	while (q->n)
		free(q->r[--q->n].data);
	return true;
}

/* Set @en's bit in @b, the 8 bytes of its slot, where the kernel sets it */
static void set_enabler_bit(const struct mt_enabler *en, unsigned char *b)
{
	if (en->size == 8) {
		__u64 v;

		memcpy(&v, b, 8);
		v |= 1ULL << en->bit;
		memcpy(b, &v, 8);
	} else {
		__u32 v;

		memcpy(&v, b + en->off, 4);
		v |= 1U << en->bit;
		memcpy(b + en->off, &v, 4);
	}
}

/* The value the model gives the 8-byte slot @w of @area in process @p */
static __u64 model_word(struct mt_proc *p, int area, int w)
{
	unsigned char b[8] = {0};
	__u64 v;
	int i;

	for (i = 0; i < p->nen; i++) {
		struct mt_enabler *en = &p->en[i];

		if (en->area == area && en->word == w && enabled(en->ev))
			set_enabler_bit(en, b);
	}
	memcpy(&v, b, 8);
	return v;
}

/*
 * Whether the (valid) registration @s of process @p names a bit of memory
 * that one of its enablers has under another address and bit, e.g. a
 * 4-byte word inside an 8-byte one.  Only the same pair is refused; the
 * bit then shows whichever of the two events was written last, an order
 * the model does not follow.
 */
static bool other_pair_same_bit(const struct mt_proc *p,
				const struct mt_step *s)
{
	struct mt_enabler en = {
		.area = s->area, .word = s->word, .off = s->off,
		.size = s->size, .bit = s->bit,
	};
	unsigned char mine[8] = {0}, theirs[8];
	__u64 a, b;
	int i;

	set_enabler_bit(&en, mine);
	memcpy(&a, mine, 8);
	for (i = 0; i < p->nen; i++) {
		const struct mt_enabler *o = &p->en[i];

		if (o->area != s->area || o->word != s->word ||
		    (o->off == s->off && o->bit == s->bit))
			continue;
		memset(theirs, 0, sizeof(theirs));
		set_enabler_bit(o, theirs);
		memcpy(&b, theirs, 8);
		if (a & b)
			return true;
	}
	return false;
}

static bool read_words(struct mt_proc *p, int area, __u64 *w)
{
	/*
	 * A copy, not 8-byte atomic loads, which a 32-bit machine may not
	 * have: a settled word does not change under it, and check_words()
	 * reads a word that is still changing again.
	 */
	if (p == &m.proc[0]) {
		memcpy(w, word_addr(area, 0, 0), NR_WORDS * 8);
		return true;
	}
	return pread(p->memfd, w, NR_WORDS * 8,
		     (unsigned long)word_addr(area, 0, 0)) == NR_WORDS * 8;
}

static bool check_words(int pi, int wait_ms)
{
	struct mt_proc *p = &m.proc[pi];
	__u64 w[NR_WORDS];
	long end = ue_now_ms() + wait_ms;
	int a, i;

	for (a = A_NORMAL; a <= A_WIPE; a++) {
		if (a == A_DONTFORK && !p->dontfork)
			continue;
		for (;;) {
			if (!read_words(p, a, w))
				return failf("cannot read the words of process %d: %s",
					     pi, strerror(errno));
			for (i = 0; i < NR_WORDS; i++)
				if (w[i] != model_word(p, a, i))
					break;
			if (i == NR_WORDS)
				break;
			if (ue_now_ms() < end) {
				ue_sleep_ms(2);
				continue;
			}
			return failf("process %d, area %d, word %d: kernel 0x%llx, model 0x%llx",
				     pi, a, i, (unsigned long long)w[i],
				     (unsigned long long)model_word(p, a, i));
		}
	}
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/*
 * Whether @name (an event's name, or its tracepoint's) is one of ours:
 * other programs' events are left alone. Ours have the pool's prefix,
 * except where a command without a name makes its first field's type
 * the name (e.g. "__data_loc"): the model has such an event.
 */
static bool ours(const char *name, size_t len)
{
	int e;

	if (!strncmp(name, MT_PREFIX, strlen(MT_PREFIX)))
		return true;
	for (e = 0; e < m.nev; e++)
		if ((strlen(m.ev[e].name) == len &&
		     !strncmp(m.ev[e].name, name, len)) ||
		    (strlen(m.ev[e].tp) == len && !strncmp(m.ev[e].tp, name, len)))
			return true;
	return false;
}

/*
 * user_events_status: one line per event sorted by name, "Used by" with
 * the tracers; Active and Busy. A dying event may still be listed.
 */
static bool check_status(void)
{
	char *lines[MAX_EVENTS], *line, *save = NULL, *at;
	int n = 0, e, i, active = -1, busy = -1, n_ours = 0, want_busy = 0;
	int optional = 0;

	if (!read_into(STATUS_FILE, &text_a))
		return failf("cannot read %s", STATUS_FILE);
	for (e = 0; e < m.nev; e++) {
		if (!m.ev[e].live)
			continue;
		lines[n] = malloc(400);
		snprintf(lines[n], 400, "%s%s%s%s", m.ev[e].tp,
			 enabled(e) ? " # Used by" : "",
			 m.ev[e].ftrace || m.ev[e].inst ? " ftrace" : "",
			 m.ev[e].perf_fd >= 0 ? " perf" : "");
		want_busy += enabled(e);
		n++;
	}
	qsort(lines, n, sizeof(*lines), cmp_str);
	for (line = strtok_r(text_a, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "Active: %d", &active) == 1 ||
		    sscanf(line, "Busy: %d", &busy) == 1)
			continue;
		if (!ours(line, strcspn(line, " ")))
			continue;
		if (n_ours < n && !strcmp(lines[n_ours], line)) {
			n_ours++;
			continue;
		}
		/* A dying event, still listed, unused */
		for (e = 0; e < m.nev; e++)
			if (m.ev[e].dying && !strcmp(m.ev[e].tp, line))
				break;
		if (e < m.nev) {
			optional++;
			continue;
		}
		at = n_ours < n ? lines[n_ours] : "(none)";
		failf("user_events_status: line \"%s\", the model \"%s\"",
		      line, at);
		goto out;
	}
	if (n_ours != n)
		failf("user_events_status: no line \"%s\"", lines[n_ours]);
	else if (active != sys.base_active + n + optional ||
		 busy != sys.base_busy + want_busy)
		failf("user_events_status: Active %d Busy %d, the model %d (+%d dying) and %d",
		      active, busy, sys.base_active + n, optional,
		      sys.base_busy + want_busy);
out:
	for (i = 0; i < n; i++)
		free(lines[i]);
	return !why[0];
}

/* Is @tp (in @multi's system) a directory of tracefs? */
static bool tp_listed(const char *tp, bool multi)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", multi ? MULTI_DIR : EVENTS_DIR,
		 tp);
	return ue_exists(path);
}

/* Whether an unreferenced event of @name is there still: its removal is due */
static bool pending_named(const char *name)
{
	int e;

	for (e = 0; e < m.nev; e++)
		if (m.ev[e].dying && !strcmp(m.ev[e].name, name) &&
		    tp_listed(m.ev[e].tp, m.ev[e].multi))
			return true;
	return false;
}

static bool known_tp(const char *tp, bool multi, bool *dying)
{
	int e;

	for (e = 0; e < m.nev; e++) {
		if ((!m.ev[e].live && !m.ev[e].dying) || m.ev[e].multi != multi ||
		    strcmp(m.ev[e].tp, tp))
			continue;
		*dying = m.ev[e].dying;
		return true;
	}
	return false;
}

/* The event directories of both systems and dynamic_events */
static bool check_listing(void)
{
	char *line, *save = NULL, *canon;
	int sysi, e, n;
	bool dying;

	for (sysi = 0; sysi < 2; sysi++) {
		DIR *dir = opendir(sysi ? MULTI_DIR : EVENTS_DIR);
		struct dirent *d;

		n = 0;
		while (dir && (d = readdir(dir))) {
			if (!ours(d->d_name, strlen(d->d_name)))
				continue;
			if (!known_tp(d->d_name, sysi, &dying)) {
				closedir(dir);
				return failf("events/%s/%s: a directory the model has not",
					     sysi ? USER_EVENTS_MULTI_SYSTEM :
					     USER_EVENTS_SYSTEM, d->d_name);
			}
		}
		if (dir)
			closedir(dir);
		for (e = 0; e < m.nev; e++)
			if (m.ev[e].live && m.ev[e].multi == sysi &&
			    !tp_listed(m.ev[e].tp, sysi))
				return failf("no directory of event %s",
					     m.ev[e].tp);
		(void)n;
	}

	if (!read_into(DYN_FILE, &text_a))
		return failf("cannot read %s", DYN_FILE);
	n = 0;
	for (line = strtok_r(text_a, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "u:", 2) || !ours(line + 2, strcspn(line + 2, " ")))
			continue;
		canon = strchr(line, ' ');
		if (canon)
			*canon++ = '\0';
		for (e = 0; e < m.nev; e++) {
			if ((!m.ev[e].live && !m.ev[e].dying) ||
			    strcmp(m.ev[e].name, line + 2) ||
			    strcmp(m.ev[e].sig.canon, canon ? canon : ""))
				continue;
			break;
		}
		if (e == m.nev)
			return failf("dynamic_events: \"%s %s\", an event the model has not",
				     line, canon ? canon : "");
		n++;
	}
	if (n < live_count() || n > live_count() + dying_count())
		return failf("dynamic_events: %d of our events, the model %d (+%d dying)",
			     n, live_count(), dying_count());
	return true;
}

/* The format file of a new event e: fields, offsets, print fmt */
static bool check_format(int e)
{
	struct mt_sig *s = &m.ev[e].sig;
	char path[512], decl[128], fmt[2048] = "\"", args[2048] = "";
	char *text, *at;
	int i;

	ev_path(path, sizeof(path), e, "format");
	text = ue_read_file(path);
	if (!text)
		return failf("cannot read %s", path);
	for (i = 0; i < s->nf; i++) {
		const struct mt_field *f = &s->f[i];
		const char *spec = "%llu", *arg = "REC->";
		char line[256];

		switch (f->kind) {
		case K_INT:
			snprintf(decl, sizeof(decl), "%s %s", f->type, f->name);
			spec = f->fmt;
			break;
		case K_STR:
			snprintf(decl, sizeof(decl), "%.*s %s[%d]",
				 (int)(strchr(f->type, '[') - f->type), f->type,
				 f->name, f->len);
			spec = "%s";
			break;
		case K_STRUCT:
			snprintf(decl, sizeof(decl), "%s %s", f->type, f->name);
			break;
		case K_DATA_LOC:
			snprintf(decl, sizeof(decl), "%s %s", f->type, f->name);
			if (f->str) {
				spec = "%s";
				arg = "__get_str(";
			}
			break;
		case K_REL_LOC:
			if (strchr(f->type, '['))
				snprintf(decl, sizeof(decl), "%.*s %s%s",
					 (int)(strchr(f->type, '[') - f->type),
					 f->type, f->name, strchr(f->type, '['));
			else
				snprintf(decl, sizeof(decl), "%s %s", f->type,
					 f->name);
			if (f->str) {
				spec = "%s";
				arg = "__get_rel_str(";
			}
			break;
		}
		snprintf(line, sizeof(line),
			 "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n", decl,
			 sys.hdr + f->offset, f->size, f->is_signed);
		if (!strstr(text, line)) {
			failf("%s: no line \"%s\":\n%s", path, line, text);
			free(text);
			return false;
		}
		snprintf(fmt + strlen(fmt), sizeof(fmt) - strlen(fmt),
			 "%s%s=%s", i ? " " : "", f->name, spec);
		snprintf(args + strlen(args), sizeof(args) - strlen(args),
			 ", %s%s%s", arg, f->name, arg[0] == '_' ? ")" : "");
	}
	strcat(fmt, "\"");
	snprintf(decl, sizeof(decl), "name: %s\n", m.ev[e].tp);
	at = strstr(text, "print fmt: ");
	if (!at || strncmp(at + 11, fmt, strlen(fmt)) ||
	    strncmp(at + 11 + strlen(fmt), args, strlen(args)) ||
	    at[11 + strlen(fmt) + strlen(args)] != '\n' ||
	    strncmp(text, decl, strlen(decl))) {
		failf("%s: want %sprint fmt: %s%s\n%s", path, decl, fmt, args,
		      text);
		free(text);
		return false;
	}
	free(text);
	return true;
}

/* Per-event files of removed events: ENODEV for every read and write */
static bool check_stale(void)
{
	static const char * const cmds[] = { "1", "common_pid == 1",
					     "traceon" };
	char buf[64];
	int i;

	for (i = 0; i < m.nstale; i++) {
		struct mt_stale *s = &m.stale[i];
		ssize_t ret;

		if (m.ev[s->ev].live || m.ev[s->ev].dying)
			continue;
		errno = 0;
		ret = read(s->fd, buf, sizeof(buf));
		if (ret != -1 || errno != ENODEV)
			return failf("read of stale file %d of %s: %zd %s", s->file,
				     m.ev[s->ev].tp, ret, strerror(errno));
		if (s->file < 3) {
			errno = 0;
			ret = write(s->fd, cmds[s->file], strlen(cmds[s->file]));
			if (ret != -1 || errno != ENODEV)
				return failf("write of stale file %d of %s: %zd %s",
					     s->file, m.ev[s->ev].tp, ret,
					     strerror(errno));
		}
		close(s->fd);
		m.stale[i--] = m.stale[--m.nstale];
	}
	return true;
}

static bool check_all(void)
{
	int p, e, b;

	for (p = 0; p < MAX_PROCS; p++)
		if (m.proc[p].alive && !m.proc[p].execed && !check_words(p, 0))
			return false;
	if (!check_status() || !check_listing() || !check_stale())
		return false;
	for (b = 0; b < NR_BUFS; b++)
		if (!check_trace(b))
			return false;
	for (e = 0; e < m.nev; e++)
		if (m.ev[e].perf_fd >= 0 && !check_perf(e))
			return false;
	return true;
}

/*
 * Wait for the auto-delete of every dying event: gone from tracefs
 * within UE_AUTO_DELETE_MS. Then they are gone for the model too.
 */
static bool settle(void)
{
	long end = ue_now_ms() + UE_AUTO_DELETE_MS;
	int e;

	for (e = 0; e < m.nev; e++) {
		if (!m.ev[e].dying)
			continue;
		while (tp_listed(m.ev[e].tp, m.ev[e].multi)) {
			if (ue_now_ms() > end)
				return failf("event %s is unreferenced but still there after %d ms",
					     m.ev[e].tp, UE_AUTO_DELETE_MS);
			ue_sleep_ms(2);
		}
		m.ev[e].dying = false;
	}
	return true;
}

/* ---- steps: run and judge ------------------------------------------------- */

static struct mt_box req;

static void box_init(struct mt_box *b, enum op op, int fd)
{
	memset(b, 0, offsetof(struct mt_box, cmd));
	b->op = op;
	b->fd = fd;
	b->name_at = AT_CMD;
	b->cmd[0] = '\0';
}

static struct mt_box *result_box(int p)
{
	return p ? &boxes[p] : &req;
}

/* The enable address a step names, as the ioctl gets it */
static __u64 step_addr(const struct mt_step *s)
{
	if (s->area == NR_AREAS)
		return s->variant & 1 || sys.compat ? BAD_ADDR + s->word * 8 :
						     KERNEL_ADDR + s->word * 8;
	return uptr(word_addr(s->area, s->word, s->off));
}

static bool mapped_writable(struct mt_proc *p, int area)
{
	return area == A_NORMAL || area == A_WIPE ||
	       (area == A_DONTFORK && p->dontfork);
}

static int file_index(struct mt_file *f, int e, bool add)
{
	int i;

	for (i = 0; i < f->nslots; i++)
		if (f->slots[i] == e)
			return i;
	if (!add || f->nslots == MAX_SLOTS_FILE)
		return -1;
	f->slots[f->nslots] = e;
	return f->nslots++;
}

/* Reg struct variants: the size and the bytes after the known ones */
static void reg_struct(const struct mt_step *s, struct mt_box *b)
{
	static const __u32 sizes[] = { 0, 4, 20, 27, 29, 32, 64, 0 };

	b->rsize = 28;
	if (s->variant >= 8 && s->variant < 16) {
		b->rsize = sizes[s->variant - 8];
		if (!b->rsize)
			b->rsize = sys.page + 1 + (s->seed & 1) * 0x7ffff000U;
		b->tail = s->seed & 2 ? (s->seed >> 8) | 1 : 0;
	}
	b->variant = s->variant >= 16 ? s->variant - 16 : S_BUF;
}

/* The struct checks of DIAG_IOCSREG, before the command is read: -errno */
static int reg_struct_err(const struct mt_step *s, struct mt_box *b,
			  struct mt_proc *p)
{
	int i;

	if (b->variant == S_KERNEL || b->variant == S_TAIL)
		return -EFAULT;
	if (b->rsize > sys.page)
		return -E2BIG;
	if (b->rsize < 28)
		return -EINVAL;
	if (b->tail && b->rsize > 28)
		return -E2BIG;
	if (s->flags & ~3)
		return -EINVAL;
	if (s->size != 4 && !(s->size == 8 && sys.kernel64))
		return -EINVAL;
	if (s->area != NR_AREAS && (s->off % s->size))
		return -EINVAL;
	if (s->bit >= s->size * 8)
		return -EINVAL;
	if (s->area == NR_AREAS)
		return -EFAULT;
	for (i = 0; i < p->nen; i++)
		if (p->en[i].area == s->area && p->en[i].word == s->word &&
		    p->en[i].off == s->off && p->en[i].bit == s->bit)
			return -EADDRINUSE;
	return 0;
}

static bool learn_multi_tp(int e)
{
	char pattern[512];
	glob_t g;
	size_t i;
	bool dying;

	snprintf(pattern, sizeof(pattern), MULTI_DIR "/%s.*", m.ev[e].name);
	if (glob(pattern, 0, NULL, &g))
		return failf("no directory %s", pattern);
	for (i = 0; i < g.gl_pathc; i++) {
		const char *tp = strrchr(g.gl_pathv[i], '/') + 1;

		if (known_tp(tp, true, &dying))
			continue;
		if (strspn(tp + strlen(m.ev[e].name) + 1, "0123456789abcdef") !=
		    strlen(tp + strlen(m.ev[e].name) + 1))
			continue;
		snprintf(m.ev[e].tp, sizeof(m.ev[e].tp), "%s", tp);
		globfree(&g);
		return true;
	}
	globfree(&g);
	return failf("no new directory %s", pattern);
}

static int new_event(const struct parsed *ps, bool multi, bool persist)
{
	struct mt_event *ev = &m.ev[m.nev];
	int e;

	/* An unreferenced event of the name goes when the name is registered */
	for (e = 0; !multi && e < m.nev; e++)
		if (m.ev[e].dying && !m.ev[e].multi &&
		    !strcmp(m.ev[e].name, ps->name))
			m.ev[e].dying = false;

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "%s", ps->name);
	snprintf(ev->tp, sizeof(ev->tp), "%s", ps->name);
	ev->multi = multi;
	ev->persist = persist;
	ev->live = true;
	ev->perf_fd = -1;
	ev->sig = ps->sig;
	return m.nev++;
}

/* Escaped as error_log shows a word: \xHH for a backslash and all but printable ASCII */
static int escape_word(char *out, size_t cap, const unsigned char *w, size_t n)
{
	char *e = out;
	size_t i;

	for (i = 0; i < n && e < out + cap - 5; i++) {
		if (w[i] < 0x20 || w[i] >= 0x7f || w[i] == '\\')
			e += sprintf(e, "\\x%02x", w[i]);
		else
			*e++ = w[i];
	}
	*e = '\0';
	return e - out;
}

static bool word_end(char c)
{
	return !c || c == ';' || c == ' ' || c == '\t';
}

/*
 * error_log after a refused command: the word around the refused byte at
 * @caret, from @lo on (the name, or the fields), and nothing else,
 * escaped, the caret under that byte
 */
static bool check_caret(const char *cmd, int caret, int lo)
{
	char *log, *line, *last = NULL, *caret_line = NULL, *save = NULL;
	char *prev = NULL, esc[CMD_MAX * 4 + 1];
	int col, start = caret, end = caret, want_col;

	if (caret < 0)
		return true;
	if (!read_into(ERROR_LOG, &text_b))
		return failf("cannot read error_log");
	log = text_b;
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (prev && strstr(prev, "  Command: ") == prev) {
			last = prev + strlen("  Command: ");
			caret_line = line;
		}
		prev = line;
	}
	if (!last || !caret_line)
		return failf("error_log has no entry for \"%s\"", cmd);
	col = strchr(caret_line, '^') ? strchr(caret_line, '^') - caret_line -
					(int)strlen("  Command: ") : -1;
	while (start > lo && !word_end(cmd[start - 1]))
		start--;
	while (!word_end(cmd[end]))
		end++;
	want_col = escape_word(esc, sizeof(esc),
			       (const unsigned char *)cmd + start, caret - start);
	escape_word(esc, sizeof(esc), (const unsigned char *)cmd + start,
		    end - start);
	if (strcmp(last, esc) || col != want_col)
		return failf("error_log: \"%s\" with the caret at %d, not \"%s\" at %d",
			     last, col, esc, want_col);
	return true;
}

static bool step_reg(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc];
	struct mt_box *b = result_box(s->proc);
	struct mt_file *f;
	struct parsed ps;
	struct expect x = {0};
	int err, serr, e = -1, fi, idx, caret = -1, lo = 0, lim = 0;
	bool multi = s->flags & USER_EVENT_REG_MULTI_FORMAT;
	bool persist = s->flags & USER_EVENT_REG_PERSIST;
	bool create = false;

	if (p->fd[s->fd] < 0)
		return true;
	fi = p->file[s->fd];
	f = &m.file[fi];
	box_init(&req, OP_REG, p->fd[s->fd]);
	snprintf(req.cmd, sizeof(req.cmd), "%s", s->cmd);
	req.name_at = s->variant < 8 ? s->variant : AT_CMD;
	req.bit = s->bit;
	req.esize = s->size;
	req.flags = s->flags;
	req.uptr = step_addr(s);
	req.thread = s->on;
	reg_struct(s, &req);
	serr = reg_struct_err(s, &req, p);
	/* Left out: see other_pair_same_bit() */
	if (!serr && other_pair_same_bit(p, s))
		return true;

	parse_cmd(s->cmd, 0, &ps);
	if (pending_named(ps.name))
		st_gb[GB_PENDING]++;
	if (f->rdonly) {
		err = EBADF;
	} else if (serr) {
		err = -serr;
		if (err == EADDRINUSE)
			st_gb[GB_ADDR_IN_USE]++;
	} else if (m.max_enablers && p->nen >= m.max_enablers) {
		/* Like a bit in use, before the command is read */
		err = ENOSPC;
	} else if (req.name_at != AT_CMD && req.name_at != AT_RO) {
		err = req.name_at == AT_NONUL ? EFAULT : EFAULT;
	} else if (req.name_at == AT_RO || strlen(s->cmd) >= 512) {
		err = EINVAL;
	} else if (persist && p->unpriv && ps.name_v != V_EINVAL) {
		/* Before the fields are read or an event is looked up */
		err = EPERM;
	} else if (ps.v == V_UNKNOWN || (multi && strlen(ps.name) > 238)) {
		err = -1;
	} else if (ps.v == V_EINVAL && !(!multi && find_live(ps.name, false, NULL) >= 0 &&
					 ps.name[0])) {
		err = EINVAL;
		caret = ps.caret;
		lo = ps.lo;
	} else {
		e = find_live(ps.name, multi, multi ? ps.sig.canon : NULL);
		if (e < 0)
			lim = over_limit(ps.name, ps.sig.canon, multi);
		if (!multi && e >= 0 &&
		    (ps.v != V_OK || strcmp(m.ev[e].sig.canon, ps.sig.canon))) {
			err = EADDRINUSE;
			caret = strcspn(s->cmd, " \t") + 1;
			if (!s->cmd[caret - 1])
				caret = -1;
			lo = caret;
			e = -1;
		} else if (ps.v == V_EINVAL) {
			err = EINVAL;
			caret = ps.caret;
			lo = ps.lo;
		} else if (lim > 0) {
			err = EMFILE;
		} else if (!mapped_writable(p, s->area) ||
			   req.variant == S_RO) {
			err = EFAULT;
		} else {
			err = 0;
			create = e < 0;
		}
	}
	if (err != -1 && err != EBADF)
		write_file(ERROR_LOG, "", O_TRUNC);
	if (err == -1) {
		/* Accepted, the rest of the checks follow */
		want(&x, !mapped_writable(p, s->area) || req.variant == S_RO ?
			 EFAULT : 0);
		want(&x, EINVAL);
		want(&x, EADDRINUSE);
		if (over_limit(ps.name, ps.sig.canon, multi))
			want(&x, EMFILE);
	} else {
		want(&x, err);
		if (lim < 0 && (err == 0 || err == EFAULT))
			want(&x, EMFILE);
		/*
		 * A byte above 0x7f may be a control or a space to the
		 * kernel: the name check may refuse the name first
		 */
		if (err == EPERM && ps.name_v == V_UNKNOWN)
			want(&x, EINVAL);
	}
	if (!call(s->proc, &req))
		return no_answer(s->proc);
	if (!check_ret("DIAG_IOCSREG", &x, b->ret, b->err)) {
		failf_more(" (the model: process %d has %d enable bits, at most %d)",
			   s->proc, p->nen, m.max_enablers);
		return false;
	}
	st_gb[GB_EPERM] += b->ret && b->err == EPERM;
	if (b->ret && b->err == EMFILE)
		kept_reclaimed();
	if (b->ret)
		return check_caret(s->cmd, caret, lo);
	/* Success: an unknown verdict is learned */
	if (err == -1) {
		e = find_live(ps.name, multi, multi ? ps.sig.canon : NULL);
		if (e < 0 && ps.v == V_UNKNOWN && !ps.sig.nf && ps.name[0])
			ps.v = V_OK;
		create = e < 0;
	}
	if (create) {
		e = new_event(&ps, multi, persist);
		if (!multi)
			kept_taken(e, ps.name, ps.sig.canon);
		if (multi && !learn_multi_tp(e))
			return false;
		if (!check_format(e))
			return false;
	}
	idx = file_index(f, e, true);
	if (b->aux != idx)
		return failf("DIAG_IOCSREG stored write_index %d, the model %d",
			     b->aux, idx);
	if (p->nen < MAX_ENABLERS) {
		struct mt_enabler *en = &p->en[p->nen++];

		en->area = s->area;
		en->word = s->word;
		en->off = s->off;
		en->size = s->size;
		en->bit = s->bit;
		en->ev = e;
	}
	return true;
}

static bool step_unreg(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc];
	struct mt_box *b = result_box(s->proc);
	struct expect x = {0};
	int err = ENOENT, i;

	if (p->fd[s->fd] < 0)
		return true;
	box_init(&req, OP_UNREG, p->fd[s->fd]);
	req.bit = s->bit;
	req.uptr = step_addr(s);
	req.flags = s->flags;
	req.rsize = 16;
	if (s->variant >= 8 && s->variant < 16) {
		static const __u32 sizes[] = { 0, 8, 15, 17, 24, 64, 0, 16 };

		req.rsize = sizes[s->variant - 8];
		if (!req.rsize)
			req.rsize = sys.page + 1;
		req.tail = s->seed & 2 ? (s->seed >> 8) | 1 : 0;
	}
	req.variant = s->variant >= 16 ? s->variant - 16 : S_BUF;

	if (m.file[p->file[s->fd]].rdonly)
		err = EBADF;
	else if (req.variant == S_KERNEL ||
		 (req.variant == S_TAIL && req.rsize > TAIL_BYTES))
		err = EFAULT;
	else if (req.rsize > sys.page)
		err = E2BIG;
	else if (req.rsize < 16)
		err = EINVAL;
	else if (req.tail && req.rsize > 16)
		err = E2BIG;	/* refused uncopied: the reserved fields unseen */
	else if (s->flags)
		err = EINVAL;
	else if (s->area == NR_AREAS && sys.compat)
		err = EFAULT;	/* over 4 GiB, not a sign-extended address */
	else if (s->area != NR_AREAS)
		for (i = 0; i < p->nen; i++)
			if (p->en[i].area == s->area &&
			    p->en[i].word == s->word &&
			    p->en[i].off == s->off && p->en[i].bit == s->bit)
				err = 0;
	want(&x, err);
	if (!call(s->proc, &req))
		return no_answer(s->proc);
	if (!check_ret("DIAG_IOCSUNREG", &x, b->ret, b->err))
		return false;
	for (i = 0; !err && i < p->nen; i++) {
		if (p->en[i].area == s->area && p->en[i].word == s->word &&
		    p->en[i].off == s->off && p->en[i].bit == s->bit)
			p->en[i--] = p->en[--p->nen];
	}
	return true;
}

/* DIAG_IOCSDEL: every event of the name, none referenced */
static bool step_del(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc];
	struct mt_box *b = result_box(s->proc);
	struct expect x = {0};
	int e, cand = 0, busy = 0, dying = 0, perm = 0;

	if (p->fd[s->fd] < 0)
		return true;
	box_init(&req, OP_DEL, p->fd[s->fd]);
	snprintf(req.cmd, sizeof(req.cmd), "%s", s->cmd);
	req.name_at = s->variant < 8 ? s->variant : AT_CMD;
	for (e = 0; e < m.nev; e++) {
		if (strcmp(m.ev[e].name, s->cmd))
			continue;
		cand += m.ev[e].live;
		busy += m.ev[e].live && refs(e);
		dying += m.ev[e].dying;
		perm += m.ev[e].live && !refs(e) && m.ev[e].persist &&
			p->unpriv;
	}
	if (cand > 1 && !busy)
		st_gb[GB_DEL_MANY]++;
	if (pending_named(s->cmd))
		st_gb[GB_PENDING]++;
	if (m.file[p->file[s->fd]].rdonly) {
		want(&x, EBADF);
	} else if (req.name_at != AT_CMD && req.name_at != AT_RO) {
		want(&x, EFAULT);
	} else if (req.name_at == AT_RO) {
		want(&x, ENOENT);
		want(&x, EINVAL);
	} else if (strlen(s->cmd) >= 512) {
		want(&x, EINVAL);
	} else if (busy) {
		/* Each event in turn: whichever refusal comes first */
		want(&x, EBUSY);
		if (perm)
			want(&x, EPERM);
	} else if (perm) {
		want(&x, EPERM);
	} else if (cand) {
		want(&x, 0);
	} else {
		want(&x, ENOENT);
		if (dying)
			want(&x, 0);
	}
	if (!call(s->proc, &req))
		return no_answer(s->proc);
	if (!check_ret("DIAG_IOCSDEL", &x, b->ret, b->err))
		return false;
	st_gb[GB_EPERM] += b->ret && b->err == EPERM;
	if (b->ret && b->err != EBUSY && b->err != EPERM)
		return true;
	/*
	 * Deleted: all of them, or (EBUSY, EPERM) those found before the one
	 * refused
	 */
	for (e = 0; e < m.nev; e++) {
		if (strcmp(m.ev[e].name, s->cmd) || !m.ev[e].live || refs(e))
			continue;
		if (!b->ret || !tp_listed(m.ev[e].tp, m.ev[e].multi))
			ev_gone(e, false);
	}
	return true;
}

/* A record's payload for event @e: valid, or broken as @variant says */
enum {
	PL_OK, PL_SHORT, PL_LOC_OUT, PL_NO_NUL, PL_BIG, PL_PAYLOAD_HOLE,
	PL_INDEX_HOLE, PL_EXTRA, NR_PL
};

/* How far the last payload's dynamic locations ended past its end */
static int pl_past;

static int gen_payload(int e, int variant, unsigned char *p, __u64 seed,
		       int *expect)
{
	struct mt_sig *s = &m.ev[e].sig;
	__u64 save = rng;
	int len = s->min_size, i, j, dyn_fields = 0;

	rng = seed | 1;
	*expect = 0;
	pl_past = 0;
	for (i = 0; i < s->nf; i++) {
		const struct mt_field *f = &s->f[i];
		unsigned char *at = p + f->offset;
		int n;

		switch (f->kind) {
		case K_INT:
		case K_STRUCT:
			for (j = 0; j < f->size; j++)
				at[j] = rnd();
			break;
		case K_STR:
			n = rn(f->len);
			for (j = 0; j < f->len; j++)
				at[j] = j < n ? 'a' + rn(26) : 0;
			if (!rn(8))
				for (j = 0; j < f->len; j++)
					at[j] = 'A' + rn(26);
			break;
		default: {
			int sz = rn(12) + 1, off;
			__u32 loc;

			dyn_fields++;
			off = len - (f->kind == K_REL_LOC ? f->offset + 4 :
							    -sys.hdr);
			for (j = 0; j < sz; j++)
				p[len + j] = f->str ? (j == sz - 1 ? 0 :
						       'a' + rn(26)) : rnd();
			if (variant == PL_NO_NUL && f->str)
				p[len + sz - 1] = 'z';
			/* One byte past the record, or more */
			if (variant == PL_LOC_OUT)
				sz += rn(2) ? 1 : rn(4) + 1;
			loc = (__u32)sz << 16 | off;
			memcpy(at, &loc, 4);
			len += variant == PL_LOC_OUT ? sz - 1 - !rn(4) : sz;
			break;
		}
		}
	}
	if (variant == PL_EXTRA)
		for (i = rn(20); i > 0; i--)
			p[len++] = rnd();
	if (variant == PL_SHORT && s->min_size)
		len = rn(2) ? s->min_size - 1 : rn(s->min_size);
	if (variant == PL_BIG) {
		/* At a tracer's limit, one over, or anywhere up to perf's */
		static const int over[] = { 0, 1, 1, 1, 8, -1 };
		int big = rn(3) ? sys.lim.ftrace : sys.lim.perf;

		big = rn(3) ? big + over[rn(ARRAY_SIZE(over))] :
			      sys.lim.ftrace + 1 + rn(sys.lim.perf + 16 -
						      sys.lim.ftrace);

		if (big > DATA_MAX)
			big = DATA_MAX;
		memset(p + len, 0, big > len ? big - len : 0);
		len = big > len ? big : len;
	}
	/* What the validators say, for the payload as it is */
	for (i = 0; i < s->nf && len >= s->min_size; i++) {
		const struct mt_field *f = &s->f[i];
		__u32 loc;
		int end;

		if (f->kind != K_DATA_LOC && f->kind != K_REL_LOC)
			continue;
		memcpy(&loc, p + f->offset, 4);
		end = (loc & 0xffff) + (loc >> 16) +
		      (f->kind == K_REL_LOC ? f->offset + 4 : -sys.hdr);
		if (end > len || (f->str && (!(loc >> 16) || p[end - 1])))
			*expect = EFAULT;
		if (end - len > pl_past)
			pl_past = end - len;
	}
	rng = save;
	(void)dyn_fields;
	return len;
}

static bool step_write(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc];
	struct mt_box *b = result_box(s->proc);
	struct mt_file *f;
	struct expect x = {0};
	int e = -1, len = 0, verr = 0, err, limit = 0, cut;
	char what[400];
	bool ft, perf, sized = false;

	if (p->fd[s->fd] < 0)
		return true;
	f = &m.file[p->file[s->fd]];
	box_init(&req, OP_WRITE, p->fd[s->fd]);
	memcpy(req.data, &s->index, 4);
	if (s->index >= 0 && s->index < f->nslots) {
		e = f->slots[s->index];
		len = gen_payload(e, s->variant, req.data + 4, s->seed, &verr);
	} else {
		len = s->seed % 64;
		memset(req.data + 4, 0, len);
	}
	req.nio = 2;
	req.iolen[0] = 4;
	req.iolen[1] = len;
	if (s->variant == PL_INDEX_HOLE)
		req.iohole[0] = 1;
	if (s->variant == PL_PAYLOAD_HOLE && len)
		req.iohole[1] = 1;
	if (s->variant == PL_SHORT && s->index < 0) {
		req.nio = 1;
		req.iolen[0] = s->seed % 4;
		len = -4 + req.iolen[0];
	} else if (s->on && len > 1 && !req.iohole[1]) {
		cut = 1 + s->seed % (len - 1);
		req.iolen[1] = cut;
		req.iolen[2] = len - cut;
		req.nio = 3;
	}

	ft = e >= 0 && (m.ev[e].ftrace || m.ev[e].inst);
	perf = e >= 0 && m.ev[e].perf_fd >= 0;
	if (ft)
		limit = sys.lim.ftrace;
	if (perf && s->proc == 0)
		limit = limit && limit < sys.lim.perf ? limit : sys.lim.perf;
	if (f->rdonly)
		err = EBADF;
	else if (len == -4)
		err = 0;	/* no byte: the VFS returns 0 without asking us */
	else if (len < 0 || req.iohole[0])
		err = EFAULT;
	else if (s->index < 0)
		err = EINVAL;
	else if (e < 0)
		err = ENOENT;
	else if (len < m.ev[e].sig.min_size)
		err = EINVAL;
	else if (!ft && !perf)
		err = EBADF;
	else if (limit && len > limit)
		err = E2BIG;
	else
		sized = true;
	/* The size is allowed: what the copy and the checks of fields give */
	if (sized)
		err = req.iohole[1] ? EFAULT :
		      !ft && s->proc ? 0 :	/* perf records the main process only */
		      verr;
	want(&x, err);
	if (e < 0)
		pl_past = 0;
	if (ft && !f->rdonly && len == sys.lim.ftrace + 1)
		st_gb[GB_FTRACE_OVER]++;
	if ((ft || perf) && !f->rdonly && pl_past == 1)
		st_gb[GB_LOC_END]++;
	/* Past the payload, not past what perf pads its sample to */
	if (perf && !ft && !s->proc && !f->rdonly && pl_past > 0 &&
	    pl_past <= (7 & -(sys.hdr + len + 4)))
		st_gb[GB_PERF_PAD]++;
	/*
	 * perf of another task: whether its limit counts is not said; where it
	 * does, it is checked with ftrace's, before the payload is copied
	 */
	if (perf && s->proc && sized && len > sys.lim.perf)
		want(&x, E2BIG);
	if (!call(s->proc, &req))
		return no_answer(s->proc);
	snprintf(what, sizeof(what), "writev(index %d of %s, payload %d bytes, variant %d)",
		 s->index, e >= 0 ? m.ev[e].tp : "-", len, s->variant);
	if (!check_ret(what, &x, b->ret, b->err)) {
		if (e >= 0)
			failf_more(" [%s]", m.ev[e].sig.canon);
		dump_failing(req.data + 4, len);
		return false;
	}
	if (b->ret < 0 || len == -4)
		return true;
	if (b->ret != len + 4)
		return failf("writev returned %ld, the model %d", b->ret,
			     len + 4);
	if (m.ev[e].ftrace) {
		add_rec(&m.buf[B_TOP], e, req.data + 4, len);
		keep_written(TR_TOP);
	}
	if (m.ev[e].inst) {
		add_rec(&m.buf[B_INST], e, req.data + 4, len);
		keep_written(TR_INST);
	}
	if (perf && s->proc == 0)
		add_rec(&m.perf[e], e, req.data + 4, len);
	return true;
}

static int free_fd_slot(struct mt_proc *p)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (p->fd[i] < 0)
			return i;
	return -1;
}

static void drop_handle(struct mt_proc *p, int slot)
{
	struct mt_file *f = &m.file[p->file[slot]];

	p->fd[slot] = -1;
	if (--f->holders == 0) {
		f->used = false;
		f->nslots = 0;
	}
}

static bool step_open(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc];
	struct mt_box *b = result_box(s->proc);
	int slot = free_fd_slot(p), fi;

	if (slot < 0)
		return true;
	for (fi = 0; fi < MAX_FILES && m.file[fi].used; fi++)
		;
	if (fi == MAX_FILES)
		return true;
	box_init(&req, OP_OPEN, -1);
	req.flags = s->flags;
	if (!call(s->proc, &req))
		return no_answer(s->proc);
	if (b->ret < 0)
		return failf("open of %s: %s", DATA_FILE, strerror(b->err));
	memset(&m.file[fi], 0, sizeof(m.file[fi]));
	m.file[fi].used = true;
	m.file[fi].rdonly = s->flags;
	m.file[fi].holders = 1;
	p->fd[slot] = b->ret;
	p->file[slot] = fi;
	return true;
}

static bool step_close(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc];
	struct mt_box *b = result_box(s->proc);

	if (p->fd[s->fd] < 0)
		return true;
	box_init(&req, OP_CLOSE, p->fd[s->fd]);
	if (!call(s->proc, &req))
		return no_answer(s->proc);
	if (b->ret)
		return failf("close: %s", strerror(b->err));
	drop_handle(p, s->fd);
	return true;
}

static bool step_fork(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc], *c;
	struct mt_box *b = result_box(s->proc);
	char path[64];
	int ci, i;
	long end;

	for (ci = 1; ci < MAX_PROCS && m.proc[ci].alive; ci++)
		;
	if (ci == MAX_PROCS)
		return true;
	c = &m.proc[ci];
	box_init(&req, OP_FORK, -1);
	req.slot = ci;
	/* A third of the children are not perfmon_capable(): see drop_perfmon() */
	req.flags = (p->dontfork ? FORK_DONTFORK : 0) |
		    (s->flags ? FORK_UNPRIV : 0);
	boxes[ci].req = 0;
	boxes[ci].resp = 0;
	boxes[ci].ready = 0;
	if (!call(s->proc, &req))
		return no_answer(s->proc);
	if (b->ret <= 0)
		return failf("fork: %s", strerror(b->err));
	end = ue_now_ms() + 20000;
	while (!__atomic_load_n(&boxes[ci].ready, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 100000000 };

		if (ue_now_ms() > end) {
			boxes_pid[ci] = b->ret;
			return no_answer(ci);
		}
		futex(&boxes[ci].ready, FUTEX_WAIT, 0, &ts);
	}
	if (boxes[ci].ready == 2)
		return failf("the child of process %d cannot give up CAP_PERFMON",
			     s->proc);
	memset(c, 0, sizeof(*c));
	c->alive = true;
	c->unpriv = p->unpriv || s->flags;
	c->pid = b->ret;
	boxes_pid[ci] = c->pid;
	c->pidfd = syscall(SYS_pidfd_open, c->pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", c->pid);
	c->memfd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->pidfd < 0 || c->memfd < 0)
		return failf("pidfd or %s: %s", path, strerror(errno));
	for (i = 0; i < MAX_FDS; i++) {
		c->fd[i] = p->fd[i];
		c->file[i] = p->file[i];
		if (c->fd[i] >= 0)
			m.file[c->file[i]].holders++;
	}
	/* The copies: all but those of memory the child does not get */
	for (i = 0; i < p->nen; i++)
		if (p->en[i].area != A_DONTFORK)
			c->en[c->nen++] = p->en[i];
	for (i = 0; i < p->nen; i++)
		if (p->en[i].area == A_WIPE && enabled(p->en[i].ev)) {
			st_gb[GB_WIPE_FORK]++;
			break;
		}
	/* The child's words: a MADV_WIPEONFORK page is written again */
	return check_words(ci, UE_FAULT_MS);
}

static bool wait_gone(struct mt_proc *p)
{
	struct pollfd pfd = { p->pidfd, POLLIN, 0 };

	if (poll(&pfd, 1, 20000) != 1)
		return failf("process %d did not end", p->pid);
	close(p->pidfd);
	if (p->memfd >= 0)
		close(p->memfd);
	p->memfd = -1;
	return true;
}

static bool step_exec(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc];
	struct pollfd pfd = { sys.notify[0], POLLIN, 0 };
	char c;

	if (!s->proc || p->execed)
		return true;
	box_init(&req, OP_EXEC, -1);
	if (!call(s->proc, &req))
		return no_answer(s->proc);
	if (poll(&pfd, 1, 20000) != 1 || read(sys.notify[0], &c, 1) != 1)
		return failf("the exec'd image of process %d does not report",
			     s->proc);
	p->execed = true;
	p->nen = 0;
	close(p->memfd);
	p->memfd = -1;
	return true;
}

static bool step_exit(const struct mt_step *s)
{
	struct mt_proc *p = &m.proc[s->proc];
	int i;

	if (!s->proc)
		return true;
	if (p->execed) {
		kill(p->pid, SIGKILL);
	} else {
		box_init(&req, OP_EXIT, -1);
		call(s->proc, &req);
	}
	if (!wait_gone(p))
		return false;
	for (i = 0; i < MAX_FDS; i++)
		if (p->fd[i] >= 0)
			drop_handle(p, i);
	p->alive = false;
	p->nen = 0;
	return true;
}

/* Lines of dynamic_events: u: creates, -: and !u: delete */
static bool step_dyn(const struct mt_step *s)
{
	struct expect x = {0};
	char cmd[CMD_MAX], del[CMD_MAX + 16];
	const char *name;
	struct parsed ps;
	int e, err, skip, ret, match = -1, busy = 0, lim = 0;

	/* dynamic_events takes "#" for the start of a comment */
	snprintf(cmd, sizeof(cmd), "%.*s", (int)strcspn(s->cmd, "#"), s->cmd);
	write_file(ERROR_LOG, "", O_TRUNC);
	if (!strncmp(cmd, "u:", 2)) {
		/* What error_log quotes starts after "u:" and white space */
		skip = 2 + strspn(cmd + 2, " \t\n\v\f\r");
		parse_cmd(cmd + skip, skip, &ps);
		if (strlen(cmd) >= 512 && ps.v == V_OK)
			st_gb[GB_DYN_LONG]++;
		e = find_live(ps.name, false, NULL);
		if (e < 0)
			lim = over_limit(ps.name, ps.sig.canon, false);
		if (ps.v == V_UNKNOWN) {
			err = -1;
		} else if (ps.v == V_EINVAL && !(e >= 0 && ps.name[0])) {
			err = EINVAL;
		} else if (e >= 0) {
			err = ps.v == V_OK && !strcmp(m.ev[e].sig.canon,
						      ps.sig.canon) ?
			      0 : EADDRINUSE;
			/* Under the field list, or the end without one */
			if (err) {
				ps.caret = skip + strlen(ps.name) +
					   !!cmd[skip + strlen(ps.name)];
				ps.lo = ps.caret;
			}
		} else if (lim > 0) {
			err = EMFILE;
		} else {
			err = 0;
		}
		if (err == -1) {
			want(&x, 0);
			want(&x, EINVAL);
			want(&x, EADDRINUSE);
			if (over_limit(ps.name, ps.sig.canon, false))
				want(&x, EMFILE);
		} else {
			want(&x, err);
			if (lim < 0 && !err)
				want(&x, EMFILE);
		}
		ret = ue_dyn_write(s->cmd);
		if (!check_ret(cmd, &x, ret ? -1 : 0, ret))
			return false;
		if (ret == EMFILE)
			kept_reclaimed();
		if (ret)
			return err == EINVAL || err == EADDRINUSE ?
			       check_caret(cmd, ps.caret, ps.lo) : true;
		if (find_live(ps.name, false, NULL) < 0 && ps.opaque) {
			/*
			 * Fields the model cannot follow: the event goes
			 * again, by its fields, as DIAG_IOCSDEL would also
			 * take (or find busy) a multi-format one of its name.
			 * Either system matches either kind: a multi-format
			 * namesake with these very fields would go too, and
			 * the check below tells.
			 */
			snprintf(del, sizeof(del), "-:%s/%s",
				 USER_EVENTS_SYSTEM, cmd + skip);
			ret = ue_dyn_write(del);
			if (ret)
				return failf("%s: %s", del, strerror(ret));
			for (e = 0; e < m.nev; e++)
				if (m.ev[e].live && !strcmp(m.ev[e].name, ps.name) &&
				    !tp_listed(m.ev[e].tp, m.ev[e].multi))
					return failf("%s took %s too", del,
						     m.ev[e].tp);
			return true;
		}
		if (find_live(ps.name, false, NULL) < 0) {
			e = new_event(&ps, false, true);
			kept_taken(e, ps.name, ps.sig.canon);
			return check_format(e);
		}
		return true;
	}

	/* -:[SYSTEM/]NAME FIELDS or !u:NAME FIELDS */
	skip = cmd[0] == '!' ? 3 : 2;
	name = cmd + skip;
	/* Either system, whichever the event's own is */
	if (!strncmp(name, USER_EVENTS_MULTI_SYSTEM "/", 18))
		name += 18;
	else if (!strncmp(name, USER_EVENTS_SYSTEM "/", 12))
		name += 12;
	parse_cmd(name, 0, &ps);
	for (e = 0; ps.v == V_OK && e < m.nev; e++) {
		if (!m.ev[e].live || strcmp(m.ev[e].name, ps.name) ||
		    strcmp(m.ev[e].sig.canon, ps.sig.canon))
			continue;
		if (match >= 0)
			return true;	/* both systems: which first is not said */
		match = e;
		busy = refs(e);
	}
	if (ps.v == V_UNKNOWN)
		return true;
	want(&x, match < 0 ? ENOENT : busy ? EBUSY : 0);
	ret = ue_dyn_write(s->cmd);
	if (!check_ret(cmd, &x, ret ? -1 : 0, ret))
		return false;
	if (!ret && match >= 0)
		ev_gone(match, false);
	return true;
}

/* A truncating open of dynamic_events: all or nothing */
static bool step_trunc(const struct mt_step *s)
{
	struct expect x = {0};
	int e, fd, err = 0;

	for (e = 0; e < m.nev; e++)
		if (m.ev[e].live && refs(e))
			err = EBUSY;
	want(&x, err);
	fd = open(DYN_FILE, O_WRONLY | O_TRUNC);
	if (!check_ret("open(dynamic_events, O_TRUNC)", &x, fd, errno))
		return false;
	if (fd >= 0)
		close(fd);
	if (err)
		return true;
	for (e = 0; e < m.nev; e++)
		if (m.ev[e].live)
			ev_gone(e, false);
	return true;
}

static bool perf_off(int e)
{
	struct mt_event *ev = &m.ev[e];

	if (ev->perf_fd < 0)
		return true;
	if (!check_perf(e))
		return false;
	munmap(ev->perf_ring, (PERF_PAGES + 1) * sys.page);
	close(ev->perf_fd);
	ev->perf_fd = -1;
	return true;
}

/* In a new child: the main process's perf and stale fds are not its own */
static void forget_tracer_fds(void)
{
	int e;

	for (e = 0; e < m.nev; e++) {
		if (m.ev[e].perf_fd >= 0)
			close(m.ev[e].perf_fd);
		m.ev[e].perf_fd = -1;
	}
	while (m.nstale)
		close(m.stale[--m.nstale].fd);
}

static bool step_tracer(const struct mt_step *s)
{
	struct mt_event *ev = &m.ev[s->ev];
	char path[600], *id;

	if (s->ev >= m.nev || !ev->live)
		return true;
	if (s->op == OP_FTRACE || s->op == OP_INST) {
		if (s->op == OP_FTRACE)
			ev_path(path, sizeof(path), s->ev, "enable");
		else
			snprintf(path, sizeof(path), MT_INSTANCE "/events/%s/%s/enable",
				 ev->multi ? USER_EVENTS_MULTI_SYSTEM :
				 USER_EVENTS_SYSTEM, ev->tp);
		if (!write_file(path, s->on ? "1" : "0", 0))
			return failf("write %s: %s", path, strerror(errno));
		if (s->op == OP_FTRACE)
			ev->ftrace = s->on;
		else
			ev->inst = s->on;
		ev->rec[s->op == OP_INST] |= s->on;
		return true;
	}
	if (!s->on)
		return perf_off(s->ev);
	if (ev->perf_fd >= 0 || !sys.perf)
		return true;
	ev_path(path, sizeof(path), s->ev, "id");
	id = ue_read_file(path);
	if (!id)
		return failf("cannot read %s", path);
	ev->perf_fd = ue_perf_open(atoi(id));
	free(id);
	if (ev->perf_fd < 0)
		return failf("perf_event_open of %s: %s", ev->tp,
			     strerror(errno));
	ev->perf_ring = mmap(NULL, (PERF_PAGES + 1) * sys.page,
			     PROT_READ | PROT_WRITE, MAP_SHARED, ev->perf_fd, 0);
	if (ev->perf_ring == MAP_FAILED) {
		close(ev->perf_fd);
		ev->perf_fd = -1;
		return failf("mmap of perf's ring: %s", strerror(errno));
	}
	return true;
}

static bool step_limits(const struct mt_step *s)
{
	char num[32];

	if (s->op == OP_MAX) {
		if (!settle())
			return false;
		m.max_events = s->on ? sys.base_active + live_count() +
				       s->index : 0;
		snprintf(num, sizeof(num), "%d\n",
			 m.max_events ? m.max_events : 32768);
		return write_file(MAX_FILE, num, 0) ||
		       failf("write %s: %s", MAX_FILE, strerror(errno));
	}
	m.max_enablers = s->on ? 1 + s->index : 0;
	snprintf(num, sizeof(num), "%d\n",
		 m.max_enablers ? m.max_enablers : 65536);
	return write_file(ENABLERS_FILE, num, 0) ||
	       failf("write %s: %s", ENABLERS_FILE, strerror(errno));
}

static bool step_snapshot(const struct mt_step *s)
{
	int i;

	if (!sys.snapshot)
		return true;
	if (!write_file(SNAPSHOT_FILE, "1", 0))
		return failf("snapshot: %s", strerror(errno));
	/* The top buffer's records are the snapshot's now */
	while (m.buf[B_SNAP].n)
		free(m.buf[B_SNAP].r[--m.buf[B_SNAP].n].data);
	for (i = 0; i < m.buf[B_TOP].n; i++)
		m.buf[B_SNAP].r[i] = m.buf[B_TOP].r[i];
	m.buf[B_SNAP].n = m.buf[B_TOP].n;
	m.buf[B_TOP].n = 0;
	ue_clear_trace();
	/* What the snapshot held is gone: what records were kept for is not said */
	keep_set(1 << TR_TOP, KEEP_HELD, KEEP_HELD, KEEP_MAYBE);
	return true;
}

static bool step_stale(const struct mt_step *s)
{
	static const char * const files[] = {
		"enable", "filter", "trigger", "format", "id", "hist",
	};
	struct mt_stale *st;
	char path[600];

	if (s->ev >= m.nev || !m.ev[s->ev].live || m.nstale == MAX_STALE)
		return true;
	st = &m.stale[m.nstale];
	st->file = s->index % ARRAY_SIZE(files);
	st->ev = s->ev;
	ev_path(path, sizeof(path), s->ev, files[st->file]);
	st->fd = open(path, (st->file < 3 ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	/* id: only with CONFIG_PERF_EVENTS; hist: with CONFIG_HIST_TRIGGERS */
	if (st->fd < 0 &&
	    !(errno == ENOENT && (!strcmp(files[st->file], "hist") ||
				  (!strcmp(files[st->file], "id") && !sys.perf))))
		return failf("open %s: %s", path, strerror(errno));
	if (st->fd < 0)
		return true;
	m.nstale++;
	return true;
}

static bool (* const step_runs[NR_OPS])(const struct mt_step *s) = {
	[OP_REG] = step_reg, [OP_UNREG] = step_unreg, [OP_DEL] = step_del,
	[OP_WRITE] = step_write, [OP_OPEN] = step_open,
	[OP_CLOSE] = step_close, [OP_FORK] = step_fork,
	[OP_EXEC] = step_exec, [OP_EXIT] = step_exit, [OP_DYN] = step_dyn,
	[OP_FTRACE] = step_tracer, [OP_INST] = step_tracer,
	[OP_PERF] = step_tracer, [OP_MAX] = step_limits,
	[OP_MAX_EN] = step_limits, [OP_SNAP] = step_snapshot,
	[OP_STALE] = step_stale, [OP_TRUNC] = step_trunc,
};

/* What the programs did: steps per operation, those that succeeded */
static unsigned long st_runs[NR_OPS], st_ok[NR_OPS];

static bool run_step(const struct mt_step *s)
{
	bool ok;

	if (s->proc >= MAX_PROCS || !m.proc[s->proc].alive ||
	    (m.proc[s->proc].execed && s->op != OP_EXIT))
		return true;
	last_ok = true;
	just_gone = -1;
	ok = step_runs[s->op](s);
	if (!ok)
		return false;
	st_runs[s->op]++;
	st_ok[s->op] += last_ok;
	/* Unreferenced events go; their records stay */
	update_dying();
	return true;
}

/* ---- the generator --------------------------------------------------------- */

static const char *ws(void)
{
	static const char * const w[] = { " ", " ", " ", "  ", "\t", " \t " };

	return w[rn(ARRAY_SIZE(w))];
}

/*
 * The size of a struct field after fields of @used bytes: mostly small,
 * sometimes so that the static size ends at a bound or one past it (the
 * largest static size, the largest ftrace payload), where buffers allow
 */
static int gen_struct_size(long used, bool at_bound)
{
	long bound = rn(2) ? sys.lim.max_static : sys.lim.ftrace;
	long size = bound + (int)rn(3) - 1 - used;

	if (!at_bound || size < 1 || sys.lim.max_static + 512 > DATA_MAX)
		return 1 + rn(24);
	return size;
}

static void gen_sig(struct mt_sig *sig)
{
	char cmd[600] = "x ";
	struct parsed ps;
	int n = rn(MAX_FIELDS + 1), i;
	/* A struct in a third of them: its size must match too */
	int st = rn(3) ? -1 : (int)rn(n + 1);
	char used[16] = "";

	for (i = 0; i < n; i++) {
		int t = rn(ARRAY_SIZE(int_types) + ARRAY_SIZE(other_types));
		const char *type = t < (int)ARRAY_SIZE(int_types) ?
				   int_types[t].type :
				   other_types[t - ARRAY_SIZE(int_types)];
		long before = 0;
		int fn;

		if (i == st)
			type = rn(2) ? "struct s1" : "struct s2";
		do {
			fn = rn(ARRAY_SIZE(field_names));
		} while (strchr(used, 'a' + fn));
		used[strlen(used)] = 'a' + fn;
		if (!strncmp(type, "struct", 6)) {
			/* The static size of the fields so far */
			parse_cmd(cmd, 0, &ps);
			if (ps.v == V_OK)
				before = ps.sig.min_size;
		}
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
			 "%s%s %s", i ? "; " : "", type, field_names[fn]);
		if (!strncmp(type, "struct", 6))
			snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
				 " %d", gen_struct_size(before, !rn(8)));
	}
	parse_cmd(cmd, 0, &ps);
	*sig = ps.sig;
}

static void pool_name(char *buf, int k)
{
	sprintf(buf, MT_PREFIX "%d", k);
}

/* Field @f after a separator (white space before the first field) */
static void put_field(char *cmd, const struct mt_field *f, bool first)
{
	strcat(cmd, first ? ws() : rn(2) ? ";" : rn(2) ? "; " : " ;\t");
	snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd), "%s%s%s",
		 f->type, ws(), f->name);
	if (f->kind == K_STRUCT)
		snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd), " %d",
			 f->size);
}

/* The field list @sig written out, struct sizes as they are */
static void put_fields(char *cmd, const struct mt_sig *sig)
{
	int i;

	for (i = 0; i < sig->nf; i++)
		put_field(cmd, &sig->f[i], !i);
}

/* One field of @sig refused by the parser, mostly */
static void put_bad_field(char *cmd, const struct mt_sig *sig,
			  const struct mt_field *f)
{
	switch (rn(5)) {
	case 4:
		/* A static size at a bound, or one past it */
		snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd),
			 "struct s1 %s %d", f->name,
			 gen_struct_size(sig->min_size - f->size, true));
		break;
	case 3:
		snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd),
			 "struct s1 %s %s", f->name,
			 bad_sizes[rn(ARRAY_SIZE(bad_sizes))]);
		break;
	case 0:
		/* One over the largest char[N] half the time */
		snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd),
			 "%s %s", rn(2) ? "char[1025]" :
			 bad_types[rn(ARRAY_SIZE(bad_types))], f->name);
		break;
	case 1:
		snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd),
			 "%s %s", f->type,
			 bad_field_names[rn(ARRAY_SIZE(bad_field_names))]);
		break;
	default:
		st_gb[GB_EXTRA]++;
		snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd),
			 "%s %s extra", f->type, f->name);
		break;
	}
}

/*
 * The fields of @sig and one struct after them that ends the static size
 * at a bound (the largest static size, the largest ftrace payload), one
 * before it or one past it
 */
static void put_bound_fields(char *cmd, const struct mt_sig *sig)
{
	static const int delta[] = { -1, 0, 1, 1 };
	bool top = rn(3);
	long bound = top ? sys.lim.max_static : sys.lim.ftrace;
	int d = delta[rn(ARRAY_SIZE(delta))];
	long size = bound + d - sig->min_size;

	put_fields(cmd, sig);
	if (size < 1 || sig->nf == MAX_FIELDS)
		return;
	if (top && d >= 0)
		st_gb[d ? GB_STATIC_OVER : GB_STATIC_AT]++;
	snprintf(cmd + strlen(cmd), CMD_MAX - strlen(cmd), "%sstruct s3 zz %ld",
		 sig->nf ? "; " : ws(), size);
}

/*
 * A command: the pool's names and field lists in any spelling, or not.
 * Where the name is a live event's, a field list that differs from it in
 * one place (a refused field, a struct size) is written over its fields,
 * so that the answer tells a wrongly accepted list from a mismatch.
 */
static char *gen_cmd(bool dyn_ok)
{
	char *cmd = malloc(CMD_MAX);
	int k = rn(NR_NAMES), i, r = rn(100), live;
	struct mt_sig *sig = &m.sigs[k][rn(NR_SIGS)], other;
	int len;

	pool_name(cmd, k);
	live = find_live(cmd, false, NULL);
	/* A static size over its bound is told from a mismatch under a free name */
	for (i = 0; r >= 74 && r < 80 && live >= 0 && i < NR_NAMES; i++) {
		k = (k + 1) % NR_NAMES;
		pool_name(cmd, k);
		live = find_live(cmd, false, NULL);
		sig = &m.sigs[k][rn(NR_SIGS)];
	}
	if (live >= 0 && ((r >= 70 && r < 74) || (r >= 88 && r < 96)))
		sig = &m.ev[live].sig;
	if (r < 8) {
		/* An odd or long name */
		if (rn(3)) {
			const char *odd = odd_names[rn(ARRAY_SIZE(odd_names))];
			bool high;

			/* Only ours: a name that may be valid gets the prefix */
			snprintf(cmd, CMD_MAX, "%s%s",
				 rn(2) || name_valid(odd, &high) ? MT_PREFIX : "",
				 odd);
		} else {
			memset(cmd, 'n', 256);
			memcpy(cmd, MT_PREFIX, 4);
			cmd[255 + rn(2)] = '\0';
		}
	}
	if (r >= 80 && r < 88) {
		gen_sig(&other);
		sig = &other;
	}
	if (r >= 70 && r < 74) {
		/* One struct size changed */
		other = *sig;
		for (i = 0; i < other.nf; i++)
			if (other.f[i].kind == K_STRUCT) {
				other.f[i].size += rn(2) ? 1 : other.f[i].size > 1 ? -1 : 2;
				if (live >= 0)
					st_gb[GB_STRUCT_SIZE]++;
				break;
			}
		put_fields(cmd, &other);
	} else if (r >= 74 && r < 80) {
		put_bound_fields(cmd, sig);
	} else if (r >= 88 && r < 96 && sig->nf) {
		int bad = rn(sig->nf);

		for (i = 0; i < sig->nf; i++) {
			const struct mt_field *f = &sig->f[i];

			if (i != bad) {
				put_field(cmd, f, true);
				strcat(cmd, ";");
				continue;
			}
			strcat(cmd, ws());
			put_bad_field(cmd, sig, f);
			strcat(cmd, ";");
		}
	} else {
		put_fields(cmd, sig);
	}
	if (!rn(8))
		strcat(cmd, rn(2) ? ";" : " ; ");
	/* Over the ioctl's 512 bytes, or around them in white space */
	if (r >= 96 && r < 98 && (dyn_ok || rn(2))) {
		while (strlen(cmd) < 530)
			strcat(cmd, "; u8 pad");
	} else if (!rn(12)) {
		/* u: lines have no such bound: longer ones are fine */
		size_t at = strcspn(cmd, " \t"), pad = dyn_ok ? 512 + rn(300) :
						   rn(3) ? 511 + rn(2) :
						   509 + rn(6);

		pad = pad > strlen(cmd) ? pad - strlen(cmd) : 0;
		memmove(cmd + at + pad, cmd + at, strlen(cmd + at) + 1);
		memset(cmd + at, ' ', pad);
		if (!dyn_ok && (strlen(cmd) == 511 || strlen(cmd) == 512))
			st_gb[strlen(cmd) == 511 ? GB_CMD_511 : GB_CMD_512]++;
	}
	/* A few bytes changed */
	len = strlen(cmd);
	if (r >= 98 && len > 6) {
		for (i = rn(3) + 1; i; i--)
			cmd[4 + rn(len - 4)] = " \t;[]:0x"[rn(8)];
	}
	return cmd;
}

/* A command that should be taken: a name of the pool, its live fields mostly */
static char *gen_plain_cmd(bool multi)
{
	char *cmd = malloc(CMD_MAX);
	int k = rn(NR_NAMES), live;

	pool_name(cmd, k);
	live = find_live(cmd, multi, NULL);
	put_fields(cmd, live >= 0 && rn(3) ? &m.ev[live].sig :
			&m.sigs[k][rn(NR_SIGS)]);
	return cmd;
}

static int pick_proc(bool main_ok)
{
	int live[MAX_PROCS], n = 0, i;

	for (i = main_ok ? 0 : 1; i < MAX_PROCS; i++)
		if (m.proc[i].alive && !m.proc[i].execed)
			live[n++] = i;
	return n ? live[rn(n)] : -1;
}

static int pick_fd(int p)
{
	int slots[MAX_FDS], n = 0, i;

	for (i = 0; i < MAX_FDS; i++)
		if (m.proc[p].fd[i] >= 0)
			slots[n++] = i;
	return n ? slots[rn(n)] : 0;
}

static int pick_event(void)
{
	int live[MAX_EVENTS], n = 0, e;

	for (e = 0; e < m.nev; e++)
		if (m.ev[e].live)
			live[n++] = e;
	return n ? live[rn(n)] : MAX_EVENTS;
}

/* A write index of fd slot @fd of process @p whose event is traced, or @def */
static int traced_index(int p, int fd, int def, bool perf_only)
{
	struct mt_file *f;
	int idx[MAX_SLOTS_FILE], n = 0, i, e;

	if (p < 0 || m.proc[p].fd[fd] < 0)
		return def;
	f = &m.file[m.proc[p].file[fd]];
	for (i = 0; i < f->nslots; i++) {
		e = f->slots[i];
		if (e < 0 || e >= m.nev || !m.ev[e].live || !enabled(e) ||
		    (perf_only && (m.ev[e].ftrace || m.ev[e].inst)))
			continue;
		idx[n++] = i;
	}
	return n ? idx[rn(n)] : def;
}

static void gen_word(struct mt_step *s)
{
	static const int areas[] = { A_NORMAL, A_NORMAL, A_NORMAL, A_NORMAL,
				     A_NORMAL, A_NORMAL, A_WIPE, A_DONTFORK,
				     A_RO, A_HOLE, NR_AREAS };
	static const int bits[] = { 0, 1, 2, 7, 31 };

	s->area = rn(12) ? areas[rn(ARRAY_SIZE(areas) - 1)] :
			   areas[rn(ARRAY_SIZE(areas))];
	/* Word 0 more often: where an area starts, right after another */
	s->word = rn(4) ? rn(NR_WORDS) : 0;
	s->size = rn(4) ? 4 : 8;
	if (!rn(40))
		s->size = rn(10);
	s->off = s->size == 4 ? 4 * rn(2) : 0;
	if (!rn(40))
		s->off = 1 + rn(3);
	s->bit = rn(6) ? bits[rn(ARRAY_SIZE(bits))] : rn(s->size * 8 + 1);
	/* One past the word's last bit */
	if (!rn(25))
		s->bit = s->size * 8;
}

/*
 * A bit of a word that no enabler of process @p uses, in memory it can
 * write, a quarter of the time memory that a fork does not copy as it is
 */
static void gen_free_word(struct mt_step *s, int p)
{
	const struct mt_proc *pr = &m.proc[p];
	int tries, i;

	s->area = rn(4) ? A_NORMAL : rn(2) || !pr->dontfork ? A_WIPE :
		  A_DONTFORK;
	for (tries = 0; tries < 8; tries++) {
		s->word = rn(NR_WORDS);
		for (i = 0; i < pr->nen; i++)
			if (pr->en[i].area == s->area &&
			    pr->en[i].word == s->word)
				break;
		if (i == pr->nen)
			break;
	}
	s->size = rn(4) || !sys.kernel64 ? 4 : 8;
	s->off = s->size == 4 ? 4 * rn(2) : 0;
	s->bit = rn(s->size * 8);
}

/*
 * The word and bit of an enabler of process @p, or (@other) of another
 * live process: a bit in use, or one that @p may not have
 */
static bool gen_enabler_word(struct mt_step *s, int p, bool other)
{
	const struct mt_enabler *en;
	int q = other ? pick_proc(true) : p, i;

	if (q < 0 || (other && q == p) || !m.proc[q].nen)
		return false;
	en = &m.proc[q].en[rn(m.proc[q].nen)];
	/* Half the time one in MADV_DONTFORK memory, where there is one */
	for (i = 0; other && rn(2) && i < m.proc[q].nen; i++)
		if (m.proc[q].en[i].area == A_DONTFORK)
			en = &m.proc[q].en[i];
	s->area = en->area;
	s->word = en->word;
	s->off = en->off;
	s->size = en->size;
	s->bit = en->bit;
	return true;
}

static int live_named(const char *name)
{
	int e, n = 0;

	for (e = 0; e < m.nev; e++)
		n += m.ev[e].live && !strcmp(m.ev[e].name, name);
	return n;
}

/* A name for DIAG_IOCSDEL: mostly of an unreferenced event, of several */
static void gen_del_name(char *cmd, int ev)
{
	int cand[MAX_EVENTS], n = 0, e, k;

	for (e = 0; e < m.nev; e++)
		if (m.ev[e].live && !refs(e))
			cand[n++] = e;
	if (n && rn(3)) {
		/* Of two picks, the name more events have */
		e = cand[rn(n)];
		k = cand[rn(n)];
		if (live_named(m.ev[k].name) > live_named(m.ev[e].name))
			e = k;
		strcpy(cmd, m.ev[e].name);
	} else if (ev < m.nev && rn(3)) {
		strcpy(cmd, m.ev[ev].name);
	} else {
		pool_name(cmd, rn(NR_NAMES + 1));
	}
}

/*
 * Right after the step that left event @e unreferenced, the main process
 * deletes its name or registers it again, before the kernel's own
 * removal could run: that is, at once
 */
static bool gen_at_once(struct mt_step *s, int e)
{
	int fd;

	if (e < 0 || e >= m.nev || m.ev[e].live || !rn(4))
		return false;
	fd = pick_fd(0);
	if (m.proc[0].fd[fd] < 0)
		return false;
	s->proc = 0;
	s->fd = fd;
	s->cmd = malloc(CMD_MAX);
	strcpy(s->cmd, m.ev[e].name);
	if (rn(2)) {
		s->op = OP_DEL;
		return true;
	}
	s->op = OP_REG;
	put_fields(s->cmd, rn(2) ? &m.ev[e].sig :
			   &m.sigs[rn(NR_NAMES)][rn(NR_SIGS)]);
	gen_word(s);
	s->flags = m.ev[e].multi ? USER_EVENT_REG_MULTI_FORMAT : 0;
	return true;
}

/* Whether process @i has a set bit in MADV_DONTFORK or WIPEONFORK memory */
static bool set_bit_not_copied(int i)
{
	const struct mt_proc *pr = &m.proc[i];
	int j;

	if (!pr->alive || pr->execed)
		return false;
	for (j = 0; j < pr->nen; j++)
		if ((pr->en[j].area == A_WIPE || pr->en[j].area == A_DONTFORK) &&
		    enabled(pr->en[j].ev))
			return true;
	return false;
}

/* A step, chosen from what the model holds now */
static void gen_step(struct mt_step *s)
{
	int r = rn(1000), gone = just_gone, p, i;

	just_gone = -1;
	memset(s, 0, sizeof(*s));
	s->seed = rnd();
	p = pick_proc(true);
	s->proc = p;
	s->fd = pick_fd(p);
	s->ev = pick_event();
	s->on = rn(2);
	if (gen_at_once(s, gone))
		return;
	if (r < 220) {
		/* A quarter of them plain, to have events to work on */
		bool plain = !rn(4), other = false;

		s->op = OP_REG;
		s->cmd = plain ? NULL : gen_cmd(false);
		gen_word(s);
		i = rn(12);
		if (i < 2) {
			other = gen_enabler_word(s, p, i) && i;
		} else if (i == 2 && m.proc[p].nen &&
			   m.proc[p].en[m.proc[p].nen - 1].area < A_WIPE) {
			/* The first word of the area after the last one's */
			s->area = m.proc[p].en[m.proc[p].nen - 1].area + 1;
			s->word = 0;
			s->off = 0;
		}
		s->flags = rn(100);
		s->flags = s->flags < 78 ? 0 : s->flags < 88 ?
			   USER_EVENT_REG_MULTI_FORMAT : s->flags < 94 ?
			   USER_EVENT_REG_PERSIST : s->flags < 98 ? 3 :
			   rn(2) ? 4 : 1 << (2 + rn(14));
		/* The first flag bit that does not exist */
		if (!rn(25))
			s->flags = 4;
		/* Where it takes a privilege, more often */
		if (m.proc[p].unpriv && !rn(3))
			s->flags = USER_EVENT_REG_PERSIST;
		if (plain) {
			s->flags &= USER_EVENT_REG_PERSIST |
				    USER_EVENT_REG_MULTI_FORMAT;
			s->cmd = gen_plain_cmd(s->flags &
					       USER_EVENT_REG_MULTI_FORMAT);
			gen_free_word(s, p);
			s->on = !rn(12);
			s->variant = AT_CMD;
			return;
		}
		st_gb[GB_OTHER_WORD] += other;
		s->on = !rn(12);	/* from a thread */
		s->variant = rn(6) ? AT_CMD : rn(24);
		if (s->variant == 6 || s->variant == 7)
			s->variant = AT_CMD;
		if (!rn(16))
			s->variant = 16 + S_SPLIT;
	} else if (r < 300) {
		s->op = OP_UNREG;
		gen_word(s);
		if (!rn(6) && gen_enabler_word(s, p, true)) {
			st_gb[GB_OTHER_WORD]++;
		} else if (m.proc[p].nen && rn(5)) {
			struct mt_enabler *en = &m.proc[p].en[rn(m.proc[p].nen)];

			s->area = en->area;
			s->word = en->word;
			s->off = en->off;
			s->bit = en->bit;
		}
		s->variant = rn(12) ? AT_CMD : rn(24);
		s->flags = rn(20) ? 0 : 1 + rn(3);
	} else if (r < 340) {
		s->op = OP_DEL;
		s->cmd = malloc(CMD_MAX);
		gen_del_name(s->cmd, s->ev);
		s->variant = rn(20) ? AT_CMD : rn(6);
		if (!rn(60)) {
			memset(s->cmd, 'd', 600);
			s->cmd[600] = '\0';
		}
	} else if (r < 580) {
		s->op = OP_WRITE;
		i = rn(100);
		s->variant = i < 64 ? PL_OK : i < 68 ? PL_SHORT : i < 76 ?
			     PL_LOC_OUT : i < 81 ? PL_NO_NUL : i < 88 ? PL_BIG :
			     i < 91 ? PL_PAYLOAD_HOLE : i < 93 ? PL_INDEX_HOLE :
			     PL_EXTRA;
		/* perf checks the main process's records only */
		if ((s->variant == PL_LOC_OUT || s->variant == PL_BIG) && rn(2)) {
			p = 0;
			s->proc = 0;
			s->fd = pick_fd(0);
		}
		i = rn(20);
		s->index = i < 17 ? (int)rn(4) : i < 19 ? 4 + rn(40) :
			   -1 - (int)rn(5);
		if (rn(4))
			s->index = traced_index(p, s->fd, s->index, false);
		/* Where perf alone checks the locations and the size */
		if (!p && (s->variant == PL_LOC_OUT || s->variant == PL_BIG) && rn(2))
			s->index = traced_index(p, s->fd, s->index, true);
		s->on = !rn(4);
	} else if (r < 630) {
		s->op = OP_DYN;
		s->cmd = gen_cmd(true);
		if (s->ev < m.nev && rn(2)) {
			static const char * const pre[] = {
				"-:", "!u:", "-:" USER_EVENTS_SYSTEM "/",
				"-:" USER_EVENTS_MULTI_SYSTEM "/",
			};

			snprintf(s->cmd, CMD_MAX, "%s%s%s%s",
				 pre[m.ev[s->ev].multi && rn(2) ? 3 : rn(4)],
				 m.ev[s->ev].name, m.ev[s->ev].sig.nf ? " " : "",
				 m.ev[s->ev].sig.canon);
			if (!rn(8))
				strcat(s->cmd, "; u8 zz");
		} else {
			char *line = malloc(CMD_MAX + 8);

			snprintf(line, CMD_MAX + 8, "u:%s%s", rn(4) ? "" : "  ",
				 s->cmd);
			/* One line, no comment: the core's parser, not ours */
			for (i = 0; line[i]; i++)
				if (line[i] == '\n' || line[i] == '#')
					line[i] = ' ';
			free(s->cmd);
			s->cmd = line;
		}
	} else if (r < 690) {
		s->op = OP_FTRACE;
	} else if (r < 740) {
		s->op = OP_INST;
	} else if (r < 790) {
		s->op = OP_PERF;
	} else if (r < 830) {
		s->op = OP_OPEN;
		s->flags = !rn(10);
		/* The main process's own files: their events go by its hand */
		if (rn(2)) {
			s->proc = 0;
			s->fd = pick_fd(0);
		}
	} else if (r < 860) {
		s->op = OP_CLOSE;
		if (rn(2)) {
			s->proc = 0;
			s->fd = pick_fd(0);
		}
	} else if (r < 900) {
		s->op = OP_FORK;
		s->flags = !rn(3);
		/*
		 * Half the time the last process with a set bit that a fork
		 * does not copy as it is
		 */
		for (i = rn(2) ? MAX_PROCS : 0; i < MAX_PROCS; i++)
			if (set_bit_not_copied(i))
				s->proc = i;
	} else if (r < 915) {
		s->op = OP_EXEC;
		s->proc = pick_proc(false);
	} else if (r < 945) {
		s->op = OP_EXIT;
		for (i = 0, s->proc = -1; i < 4 && s->proc < 0; i++)
			if (m.proc[1 + rn(MAX_PROCS - 1)].alive)
				s->proc = 1 + rn(MAX_PROCS - 1);
	} else if (r < 955) {
		s->op = OP_MAX;
		s->index = rn(3);
	} else if (r < 965) {
		s->op = OP_MAX_EN;
		s->index = rn(8);
	} else if (r < 975) {
		s->op = OP_SNAP;
	} else if (r < 990) {
		s->op = OP_STALE;
		s->index = rn(6);
	} else if (sys.trunc) {
		s->op = OP_TRUNC;
	} else {
		s->op = OP_FTRACE;
	}
	if (s->proc < 0)
		s->proc = MAX_PROCS;	/* nobody: the step does nothing */
}

/* ---- programs: run, reset, shrink, print ------------------------------------ */

/*
 * Kill every process below this one, known to the model or not (a step
 * that failed half way may leave one), and wait until each is gone.
 */
static void kill_descendants(void)
{
	pid_t pids[256], ppids[256];
	int n = 0, i, j, fd;
	bool mine[256] = { false }, seen[256] = { false }, more = true;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	while (dir && (d = readdir(dir)) && n < 256) {
		char path[300], *stat, *at;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		stat = ue_read_file(path);
		at = stat ? strrchr(stat, ')') : NULL;
		if (at && sscanf(at, ") %*c %d", &ppids[n]) == 1)
			pids[n++] = atoi(d->d_name);
		free(stat);
	}
	if (dir)
		closedir(dir);
	while (more) {
		for (i = 0; i < n; i++)
			for (j = 0; !mine[i] && j < n; j++)
				if (ppids[i] == main_pid ||
				    (mine[j] && ppids[i] == pids[j]))
					mine[i] = true;
		more = false;
		for (i = 0; i < n; i++)
			more |= mine[i] && !seen[i];
		memcpy(seen, mine, sizeof(seen));
	}
	for (i = 0; i < n; i++) {
		struct pollfd pfd = { -1, POLLIN, 0 };

		if (!mine[i])
			continue;
		fd = syscall(SYS_pidfd_open, pids[i], 0);
		kill(pids[i], SIGKILL);
		pfd.fd = fd;
		if (fd >= 0) {
			poll(&pfd, 1, 20000);
			close(fd);
		}
	}
}

/*
 * The first event of ours (a name with our prefix) that user_events_status
 * lists, in @name; false if none
 */
static bool our_listed_event(char *name, size_t len)
{
	char *text = ue_read_file(STATUS_FILE), *line, *save = NULL;
	bool found = false;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Active:", 7))
			break;
		if (strncmp(line, MT_PREFIX, strlen(MT_PREFIX)))
			continue;
		snprintf(name, len, "%.*s", (int)strcspn(line, " "), line);
		found = true;
	}
	free(text);
	return found;
}

/* Whether each line of dynamic_events, if any, is an event of ours */
static bool dyn_all_ours(void)
{
	char *dyn = ue_read_file(DYN_FILE), *line, *save = NULL;
	bool ours = dyn;

	for (line = dyn ? strtok_r(dyn, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		ours &= !strncmp(line, "u:" MT_PREFIX, strlen("u:" MT_PREFIX));
	free(dyn);
	return ours;
}

/*
 * Events of ours that neither the model nor the pool names: an earlier
 * run's, left by a failure, or under a name that the kernel took then and
 * refuses now (a mutant's). They go by name, else by a truncating open of
 * dynamic_events where every dynamic event is ours.
 */
static void remove_strays(void)
{
	char name[300];
	int n;

	for (n = 0; n < 64 && our_listed_event(name, sizeof(name)); n++)
		if (ue_del(name) && errno != ENOENT)
			break;
	if (our_listed_event(name, sizeof(name)) && dyn_all_ours())
		write_file(DYN_FILE, "", O_TRUNC);
}

static void reset_kernel(void)
{
	int p, e, i;

	kill_descendants();
	for (p = 1; p < MAX_PROCS; p++) {
		if (!m.proc[p].alive)
			continue;
		close(m.proc[p].pidfd);
		if (m.proc[p].memfd >= 0)
			close(m.proc[p].memfd);
	}
	for (i = 0; i < MAX_FDS; i++)
		if (m.proc[0].fd[i] >= 0)
			close(m.proc[0].fd[i]);
	for (i = 0; i < m.proc[0].nen; i++) {
		struct mt_enabler *en = &m.proc[0].en[i];

		ue_unreg(word_addr(en->area, en->word, en->off), en->bit);
	}
	for (e = 0; e < m.nev; e++) {
		char path[600];

		if (m.ev[e].perf_fd >= 0) {
			munmap(m.ev[e].perf_ring, (PERF_PAGES + 1) * sys.page);
			close(m.ev[e].perf_fd);
		}
		if (!m.ev[e].live)
			continue;
		ev_path(path, sizeof(path), e, "enable");
		write_file(path, "0", 0);
		snprintf(path, sizeof(path), MT_INSTANCE "/events/%s/%s/enable",
			 m.ev[e].multi ? USER_EVENTS_MULTI_SYSTEM :
			 USER_EVENTS_SYSTEM, m.ev[e].tp);
		write_file(path, "0", 0);
	}
	for (i = 0; i < m.nstale; i++)
		close(m.stale[i].fd);
	for (e = 0; e < NR_NAMES; e++) {
		char name[32];

		pool_name(name, e);
		ue_cleanup_event(name);
	}
	for (e = 0; e < m.nev; e++)
		if (m.ev[e].live || m.ev[e].dying)
			ue_cleanup_event(m.ev[e].name);
	remove_strays();
	write_file(MAX_FILE, sys.saved_max, 0);
	write_file(ENABLERS_FILE, sys.saved_enablers, 0);
	for (i = 0; i < MAX_EVENTS; i++)
		while (m.perf[i].n)
			free(m.perf[i].r[--m.perf[i].n].data);
	clear_buffers();
	write_file(ERROR_LOG, "", O_TRUNC);
	mprotect(page_at(A_RO), sys.page, PROT_READ | PROT_WRITE);
	memset(mem, 0, A_HOLE * sys.page);
	mprotect(page_at(A_RO), sys.page, PROT_READ);
}

static void reset_model(void)
{
	struct mt_sig sigs[NR_NAMES][NR_SIGS];
	int i;

	memcpy(sigs, m.sigs, sizeof(sigs));
	memset(&m, 0, sizeof(m));
	memcpy(m.sigs, sigs, sizeof(sigs));
	for (i = 0; i < MAX_PROCS; i++)
		memset(m.proc[i].fd, -1, sizeof(m.proc[i].fd));
	m.proc[0].alive = true;
	m.proc[0].dontfork = true;
	m.proc[0].pid = getpid();
}

/*
 * Start a program: a clean kernel, the main process with one fd. Every
 * buffer is clear: no format stays kept for earlier programs' records
 * once a creation at the limit made room.
 */
static bool begin(void)
{
	int kept;

	reset_kernel();
	reset_model();
	just_gone = -1;
	m.file[0].used = true;
	m.file[0].holders = 1;
	m.proc[0].fd[0] = open(DATA_FILE, O_RDWR);
	m.proc[0].file[0] = 0;
	why[0] = '\0';
	kept = ue_release_kept();
	return kept == sys.base_kept ||
	       failf("%d formats kept with every buffer cleared, %d at the start",
		     kept, sys.base_kept);
}

/* Run @n steps; the step that failed, or -1 */
static int run_steps(struct mt_step *steps, int n, bool quiet)
{
	int i;

	if (!begin())
		return 0;
	for (i = 0; i < n; i++) {
		if (!run_step(&steps[i]) || !check_all())
			return i;
		if (i % SETTLE_EVERY == SETTLE_EVERY - 1 && !settle())
			return i;
		if (m.buf[B_TOP].n > MAX_RECS - 8 ||
		    m.buf[B_INST].n > MAX_RECS - 8 ||
		    m.buf[B_SNAP].n > MAX_RECS - 8)
			clear_buffers();
	}
	if (!settle() || !check_all())
		return n - 1;
	(void)quiet;
	return -1;
}

static void print_c_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (isprint((unsigned char)*s))
			fputc(*s, out);
		else
			fprintf(out, "\\x%02x\"\"", (unsigned char)*s);
	}
	fputc('"', out);
}

static const char * const area_names[] = {
	"words", "dontfork_words", "wipeonfork_words", "ro_page", "hole",
	"kernel",
};

/* One step as C, for a regression test */
static void print_step(FILE *out, int i, const struct mt_step *s)
{
	fprintf(out, "\t/* %d: process %d, fd slot %d */ ", i, s->proc, s->fd);
	switch (s->op) {
	case OP_REG:
		fprintf(out, "ue_reg_fd(fd%d, ", s->fd);
		print_c_string(out, s->cmd);
		fprintf(out, ", (char *)%s + %d, %d, %d, 0x%x, &index);",
			area_names[s->area], s->word * 8 + s->off, s->bit,
			s->size, s->flags);
		if (s->variant != AT_CMD || s->on)
			fprintf(out, " /* variant %d%s */", s->variant,
				s->on ? ", from a thread" : "");
		break;
	case OP_UNREG:
		fprintf(out, "ue_unreg_fd(fd%d, (char *)%s + %d, %d);", s->fd,
			area_names[s->area], s->word * 8 + s->off, s->bit);
		if (s->variant != AT_CMD || s->flags)
			fprintf(out, " /* variant %d, reserved %d */",
				s->variant, s->flags);
		break;
	case OP_DEL:
		fprintf(out, "ioctl(fd%d, DIAG_IOCSDEL, ", s->fd);
		print_c_string(out, s->cmd);
		fprintf(out, ");");
		break;
	case OP_WRITE:
		fprintf(out, "writev(fd%d, {index %d, payload variant %d, seed 0x%llx}%s);",
			s->fd, s->index, s->variant,
			(unsigned long long)s->seed, s->on ? ", split" : "");
		break;
	case OP_DYN:
		fprintf(out, "ue_dyn_write(");
		print_c_string(out, s->cmd);
		fprintf(out, ");");
		break;
	case OP_FTRACE:
	case OP_INST:
	case OP_PERF:
		fprintf(out, "%s of event #%d %s;", op_names[s->op], s->ev,
			s->on ? "on" : "off");
		break;
	case OP_OPEN:
		fprintf(out, "open(DATA_FILE, %s);", s->flags ? "O_RDONLY" :
			"O_RDWR");
		break;
	case OP_CLOSE:
		fprintf(out, "close(fd%d);", s->fd);
		break;
	case OP_FORK:
		/* A child of a process without them has none either */
		fprintf(out, "fork(): the child in the first free slot%s;",
			s->flags ? ", without CAP_PERFMON and CAP_SYS_ADMIN (drop_perfmon())" : "");
		break;
	case OP_MAX:
	case OP_MAX_EN:
		fprintf(out, "%s %s (+%d);", op_names[s->op],
			s->on ? "set" : "default", s->index);
		break;
	default:
		fprintf(out, "%s;", op_names[s->op]);
		break;
	}
	fputc('\n', out);
}

/*
 * Shrink a failing program: drop chunks of steps, halving the chunk,
 * while the rest still fails; at most @budget_ms.
 */
static bool same_failure(const char *first)
{
	size_t len = strcspn(first, ":(");

	return !strncmp(why, first, len) && (why[len] == ':' || why[len] == '(');
}

static int shrink(struct mt_step *steps, int n, long budget_ms,
		  const char *first)
{
	long end = ue_now_ms() + budget_ms;
	struct mt_step *tmp = calloc(n, sizeof(*tmp));
	int chunk, i, f, runs = 0;

	for (chunk = n / 2; chunk >= 1 && ue_now_ms() < end; chunk /= 2) {
		for (i = 0; i + chunk <= n && ue_now_ms() < end;) {
			memcpy(tmp, steps, i * sizeof(*tmp));
			memcpy(tmp + i, steps + i + chunk,
			       (n - i - chunk) * sizeof(*tmp));
			runs++;
			f = run_steps(tmp, n - chunk, true);
			if (f >= 0 && same_failure(first)) {
				n = f + 1;
				memcpy(steps, tmp, n * sizeof(*tmp));
				if (i > n - chunk)
					i = 0;
			} else {
				i += chunk;
			}
		}
	}
	free(tmp);
	fprintf(stderr, "# shrunk in %d runs\n", runs);
	return n;
}

static long opt(const char *env, long def)
{
	const char *v = getenv(env);

	return v && *v ? strtol(v, NULL, 0) : def;
}

/* The seed is 64 bits in a 32-bit program too: the same programs anywhere */
static __u64 opt_seed(const char *env, __u64 def)
{
	const char *v = getenv(env);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static struct {
	__u64 seed;
	long steps, programs, seconds, shrink;
} args;

/* ---- the test ------------------------------------------------------------------ */

/*
 * The main process runs at a real-time priority: the work the kernel
 * queues on its CPU waits until it sleeps, so that its next step sees
 * what the ABI promises at once (an event removed with its last
 * reference) and not what the work did meanwhile. Its children run as
 * any process.
 */
static void hold_cpu(bool on)
{
	struct sched_param rt = { .sched_priority = on };

	if (on)
		sys.rt = !sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &rt);
	else if (sys.rt)
		sys.rt = sched_setscheduler(0, SCHED_OTHER, &rt);
}

FIXTURE(model) {
	bool umount;
};

FIXTURE_SETUP(model) {
	char *dyn, *line, *save = NULL, stray[300];
	struct sigaction sa = { .sa_handler = SIG_IGN };
	int i;

	USER_EVENT_FIXTURE_SETUP(self->umount);
	main_pid = getpid();
	sys.page = sysconf(_SC_PAGESIZE);
	ue_get_limits(&sys.lim);
	sys.hdr = sys.lim.header;
	sys.kernel64 = ue_kernel_is_64bit();
	sys.compat = sys.kernel64 && sizeof(long) == 4;
	sys.perf = ue_have_perf();
	sys.snapshot = ue_exists(SNAPSHOT_FILE);
	ASSERT_LT(0, sys.hdr);
	sys.saved_max = ue_read_file(MAX_FILE);
	sys.saved_enablers = ue_read_file(ENABLERS_FILE);
	ASSERT_NE(NULL, sys.saved_max);
	ASSERT_NE(NULL, sys.saved_enablers);
	ASSERT_EQ(0, pipe(sys.notify));
	if (!ue_exists(MT_INSTANCE))
		ASSERT_EQ(0, mkdir(MT_INSTANCE, 0755));

	/* Children are reaped by the kernel; orphans come to this process */
	sigaction(SIGCHLD, &sa, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	mem = mmap(NULL, NR_PAGES * sys.page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	memset(mem, 0, NR_PAGES * sys.page);
	ASSERT_EQ(0, madvise(page_at(A_DONTFORK), sys.page, MADV_DONTFORK));
	ASSERT_EQ(0, madvise(page_at(A_WIPE), sys.page, MADV_WIPEONFORK));
	ASSERT_EQ(0, mprotect(page_at(A_RO), sys.page, PROT_READ));
	ASSERT_EQ(0, mprotect(page_at(A_HOLE), sys.page, PROT_NONE));
	ASSERT_EQ(0, mprotect(page_at(PG_TAIL), sys.page, PROT_NONE));
	boxes = mmap(NULL, MAX_PROCS * sizeof(*boxes), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, boxes);

	/* Nothing of ours from an earlier run; what else is there */
	reset_model();
	reset_kernel();
	ASSERT_TRUE(ue_wait_active(ue_active_count(), 0));
	if (our_listed_event(stray, sizeof(stray)))
		SKIP(return, "an event of an earlier run cannot be removed: %s",
		     stray);
	/* Formats kept for records of other programs' events, in other arrays */
	sys.base_kept = ue_release_kept();
	ASSERT_LE(0, sys.base_kept);
	if (sys.base_kept)
		TH_LOG("%d formats kept for records not ours", sys.base_kept);
	text_a = ue_read_file(STATUS_FILE);
	ASSERT_NE(NULL, text_a);
	line = strstr(text_a, "\nActive: ");
	sys.base_active = line ? atoi(line + 9) : 0;
	line = strstr(text_a, "\nBusy: ");
	sys.base_busy = line ? atoi(line + 7) : 0;
	dyn = ue_read_file(DYN_FILE);
	ASSERT_NE(NULL, dyn);
	sys.trunc = true;
	for (line = strtok_r(dyn, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		sys.trunc = false;
	free(dyn);
	for (i = 0; i < MAX_PROCS; i++)
		m.proc[i].pidfd = -1;
}

FIXTURE_TEARDOWN(model) {
	if (mem) {
		reset_kernel();
		if (m.proc[0].fd[0] >= 0)
			close(m.proc[0].fd[0]);
	}
	rmdir(MT_INSTANCE);
	free(sys.saved_max);
	free(sys.saved_enablers);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F_TIMEOUT(model, random_programs, 7200) {
	long start = ue_now_ms(), total = 0, prog;
	struct mt_step *steps = calloc(args.steps, sizeof(*steps));
	int i, f, n;

	ASSERT_NE(NULL, steps);
	TH_LOG("seed 0x%llx, %ld steps per program, %ld programs, %ld s at most",
	       (unsigned long long)args.seed, args.steps, args.programs,
	       args.seconds);
	hold_cpu(true);
	if (!sys.rt)
		TH_LOG("no real-time priority (%s): the kernel's own work may come before a step",
		       strerror(errno));
	for (prog = 0; prog < args.programs; prog++) {
		if (args.seconds && ue_now_ms() - start > args.seconds * 1000)
			break;
		rng = args.seed + prog;
		rng = rng ? rng : 1;
		for (i = 0; i < NR_NAMES * NR_SIGS; i++)
			gen_sig(&m.sigs[i / NR_SIGS][i % NR_SIGS]);
		ASSERT_TRUE(begin()) {
			TH_LOG("program %ld (seed 0x%llx): %s", prog,
			       (unsigned long long)(args.seed + prog), why);
		}
		f = -1;
		for (n = 0; n < args.steps; n++) {
			gen_step(&steps[n]);
			if (!run_step(&steps[n]) || !check_all()) {
				f = n;
				break;
			}
			if (n % SETTLE_EVERY == SETTLE_EVERY - 1 && !settle()) {
				f = n;
				break;
			}
			if (m.buf[B_TOP].n > MAX_RECS - 8 ||
			    m.buf[B_INST].n > MAX_RECS - 8 ||
			    m.buf[B_SNAP].n > MAX_RECS - 8)
				clear_buffers();
		}
		if (f < 0 && (!settle() || !check_all()))
			f = n - 1;
		total += f < 0 ? n : f + 1;
		if (f >= 0) {
			char first[sizeof(why)];

			snprintf(first, sizeof(first), "%s", why);
			TH_LOG("program %ld (seed 0x%llx) fails at step %d: %s",
			       prog, (unsigned long long)(args.seed + prog), f,
			       first);
			fprintf(stderr, "# the failing step: ");
			print_step(stderr, f, &steps[f]);
			n = shrink(steps, f + 1, args.shrink * 1000, first);
			f = run_steps(steps, n, false);
			fprintf(stderr, "# the minimal program (%d steps), as C;", n);
			fprintf(stderr, " it fails at step %d:\n", f);
			for (i = 0; i < n; i++)
				print_step(stderr, i, &steps[i]);
			fprintf(stderr, "# %s\n", why[0] ? why : first);
			ASSERT_TRUE(false);
		}
		for (i = 0; i < n; i++)
			free(steps[i].cmd);
		memset(steps, 0, n * sizeof(*steps));
	}
	hold_cpu(false);
	TH_LOG("%ld programs, %ld steps in %ld s", prog, total,
	       (ue_now_ms() - start) / 1000);
	for (i = 0; i < NR_OPS; i++)
		TH_LOG("%-13s %6lu steps, %6lu succeeded", op_names[i],
		       st_runs[i], st_ok[i]);
	TH_LOG("records compared in the trace buffers (once per step each): %lu",
	       st_recs);
	for (i = 0; i < NR_GB; i++)
		TH_LOG("bound reached: %-36s %5lu times", gb_names[i], st_gb[i]);
	free(steps);
}

int main(int argc, char **argv)
{
	int i;

	/* The image a step's execve() runs: report, then wait to be killed */
	if (argc == 4 && !strcmp(argv[1], "--mt-idle")) {
		if (write(atoi(argv[2]), "x", 1) != 1)
			return 1;
		while (!kill(atoi(argv[3]), 0))
			sleep(1);
		return 0;
	}
	args.seed = opt_seed("UE_MODEL_SEED", DEF_SEED);
	args.steps = opt("UE_MODEL_STEPS", DEF_STEPS);
	args.programs = opt("UE_MODEL_PROGRAMS", DEF_PROGRAMS);
	args.seconds = opt("UE_MODEL_SECONDS", 0);
	args.shrink = opt("UE_MODEL_SHRINK_SECONDS", 300);
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seed"))
			args.seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--steps"))
			args.steps = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--programs"))
			args.programs = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seconds"))
			args.seconds = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--shrink-seconds"))
			args.shrink = strtol(argv[i + 1], NULL, 0);
		else
			break;
	}
	if (args.steps < 1)
		args.steps = 1;
	return test_harness_run(argc, argv);
}
