/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Common setup and helpers of the user_events kselftests.
 *
 * Every fixture calls USER_EVENT_FIXTURE_SETUP() first: the tests need
 * root (they enable events and read tracefs), tracefs mounted at
 * /sys/kernel/tracing (mounted here if it is not) and a kernel with
 * user_events. The helpers below open user_events_data for each call
 * unless told otherwise, so that only enablers keep events alive.
 */
#ifndef _USER_EVENTS_SELFTESTS_H
#define _USER_EVENTS_SELFTESTS_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

#include "../kselftest_harness.h"

#define TRACEFS_DIR	"/sys/kernel/tracing"
#define DATA_FILE	TRACEFS_DIR "/user_events_data"
#define STATUS_FILE	TRACEFS_DIR "/user_events_status"
#define DYN_FILE	TRACEFS_DIR "/dynamic_events"
#define MAX_FILE	"/proc/sys/kernel/user_events_max"
#define TRACE_FILE	TRACEFS_DIR "/trace"
#define EVENTS_DIR	TRACEFS_DIR "/events/" USER_EVENTS_SYSTEM
#define MULTI_DIR	TRACEFS_DIR "/events/" USER_EVENTS_MULTI_SYSTEM

/*
 * Decide whether the tests can run. Returns true when they can; otherwise
 * *reason says why and *fail tells a failure from a skip. *mounted is set
 * when tracefs was mounted here and must be unmounted in teardown.
 */
/*
 * Whether the kernel's long has 64 bits, whatever this process's has: a
 * 32-bit process on a 64-bit kernel sees the kernel's machine name, unless
 * it runs with the linux32 personality, which is dropped for the question.
 * Only a 64-bit kernel takes 8-byte enable words.
 */
static inline bool ue_kernel_is_64bit(void)
{
	int old = personality(0xffffffff);
	struct utsname uts;
	int ret;

	if (old != -1 && (old & PER_MASK) != PER_LINUX)
		personality((old & ~PER_MASK) | PER_LINUX);
	ret = uname(&uts);
	if (old != -1 && (old & PER_MASK) != PER_LINUX)
		personality(old);
	if (ret)
		return false;

	return strstr(uts.machine, "64") || !strcmp(uts.machine, "s390x");
}

static inline bool ue_tracefs_ready(const char **reason, bool *fail,
				    bool *mounted)
{
	struct stat st;

	*fail = false;
	*mounted = false;

	if (geteuid() != 0) {
		*fail = true;
		*reason = "user_events selftests must run as root";
		return false;
	}

	if (stat(TRACEFS_DIR "/README", &st) != 0) {
		if (stat(TRACEFS_DIR, &st) != 0) {
			*reason = "tracefs is not supported (no " TRACEFS_DIR ")";
			return false;
		}
		if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) != 0) {
			*reason = errno == ENODEV ?
				  "tracefs is not supported" :
				  "tracefs could not be mounted";
			*fail = errno != ENODEV;
			return false;
		}
		*mounted = true;
	}

	if (stat(DATA_FILE, &st) != 0) {
		*fail = errno != ENOENT;
		*reason = *fail ? "cannot stat " DATA_FILE :
				  "user_events is not installed";
		if (*mounted)
			umount(TRACEFS_DIR);
		*mounted = false;
		return false;
	}

	return true;
}

/*
 * Checks in child processes. A test's child (fork(), vfork(), clone())
 * cannot use ASSERT_*(): the harness reports the test's own process
 * only. A child checks with UE_CHILD_CHECK(cond), UE_CHILD_EQ(expected,
 * seen) or UE_CHILD_FAIL(what) instead: the first check that fails in
 * any child writes which one and why into a page all processes of the
 * program share, and the child exits with UE_CHILD_FAILED. The test
 * waits for the child with ASSERT_CHILD_OK(pid) or EXPECT_CHILD_OK(pid),
 * which fail with that report when the child did not exit with 0.
 *
 * Nothing is formatted in the child, so that the checks work in vfork()
 * and CLONE_VM children too: the report keeps pointers to the check's
 * text and file name, which the parent's image has at the same address.
 * A child that execs runs a new image and reports by its exit status.
 */
#define UE_CHILD_FAILED		1

struct ue_child_report {
	int taken;		/* by the first failing check */
	int complete;		/* the fields below are written */
	int pid;		/* of the process that failed it */
	int line;
	int err;		/* errno when the check failed */
	bool values;		/* expected and seen hold the values */
	long long expected;
	long long seen;
	const char *file;
	const char *check;
};

static struct ue_child_report *ue_child_page;

static void __attribute__((constructor)) ue_child_report_map(void)
{
	void *page = mmap(NULL, sizeof(*ue_child_page),
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			  -1, 0);

	ue_child_page = page == MAP_FAILED ? NULL : page;
}

/* Forget an earlier test's report (each test starts with none) */
static inline void ue_child_report_reset(void)
{
	if (ue_child_page)
		memset(ue_child_page, 0, sizeof(*ue_child_page));
}

/* Record the first failed check of any child, exit (never returns) */
static inline void ue_child_fail(const char *file, int line,
				 const char *check, bool values,
				 long long expected, long long seen)
{
	struct ue_child_report *r = ue_child_page;
	int err = errno;

	if (r && !__atomic_exchange_n(&r->taken, 1, __ATOMIC_ACQ_REL)) {
		r->pid = getpid();
		r->line = line;
		r->err = err;
		r->values = values;
		r->expected = expected;
		r->seen = seen;
		r->file = file;
		r->check = check;
		__atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
	}
	_exit(UE_CHILD_FAILED);
}

/* In a child: exit with a report unless @cond holds */
#define UE_CHILD_CHECK(cond) do {					\
	if (!(cond))							\
		ue_child_fail(__FILE__, __LINE__, #cond, false, 0, 0);	\
} while (0)

/* In a child: exit with a report that @what failed (errno says why) */
#define UE_CHILD_FAIL(what)						\
	ue_child_fail(__FILE__, __LINE__, what, false, 0, 0)

/* In a child: exit with a report unless @seen equals @expected */
#define UE_CHILD_EQ(expected, seen) do {				\
	long long __ue_exp = (expected);				\
	long long __ue_seen = (seen);					\
									\
	if (__ue_exp != __ue_seen)					\
		ue_child_fail(__FILE__, __LINE__,			\
			      #expected " == " #seen, true,		\
			      __ue_exp, __ue_seen);			\
} while (0)

/*
 * Which child check failed and why, into @why (@len bytes), or that none
 * did; the report is forgotten then.
 */
static inline void ue_child_report_text(char *why, size_t len)
{
	struct ue_child_report *r = ue_child_page;

	if (!r || !__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE))
		snprintf(why, len, "no child check failed");
	else if (r->values)
		snprintf(why, len,
			 "%s:%d: process %d: check %s failed: expected %lld, seen %lld",
			 r->file, r->line, r->pid, r->check, r->expected,
			 r->seen);
	else
		snprintf(why, len,
			 "%s:%d: process %d: check %s failed (errno %d: %s)",
			 r->file, r->line, r->pid, r->check, r->err,
			 strerror(r->err));
	ue_child_report_reset();
}

/*
 * Wait for child @pid. Its exit status, 128 when it did not exit
 * normally, -1 when it cannot be waited for; unless that is 0, @why says
 * how it ended and which child check failed, and why.
 */
static inline int ue_child_result(pid_t pid, char *why, size_t len)
{
	int status, ret, n;

	if (waitpid(pid, &status, 0) != pid) {
		snprintf(why, len, "waitpid(%d): %s", pid, strerror(errno));
		return -1;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;

	if (WIFEXITED(status)) {
		ret = WEXITSTATUS(status);
		n = snprintf(why, len, "child %d exited with %d: ", pid, ret);
	} else {
		ret = 128;
		n = snprintf(why, len, "child %d ended by signal %d: ", pid,
			     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
	if (n >= 0 && (size_t)n < len)
		ue_child_report_text(why + n, len - n);

	return ret;
}

/* Child @pid exited with 0; otherwise the test fails with its report */
#define ASSERT_CHILD_OK(pid) do {					\
	char __ue_why[512];						\
									\
	ASSERT_EQ(0, ue_child_result((pid), __ue_why, sizeof(__ue_why))) {\
		TH_LOG("%s", __ue_why);					\
	}								\
} while (0)

#define EXPECT_CHILD_OK(pid) do {					\
	char __ue_why[512];						\
									\
	EXPECT_EQ(0, ue_child_result((pid), __ue_why, sizeof(__ue_why))) {\
		TH_LOG("%s", __ue_why);					\
	}								\
} while (0)

/*
 * For FIXTURE_SETUP. A skip leaves through the harness's jump buffer so
 * that neither the test body nor the teardown runs.
 */
#define USER_EVENT_FIXTURE_SETUP(umount_flag) do {			\
	const char *__reason = "";					\
	bool __fail;							\
									\
	ue_child_report_reset();					\
	if (!ue_tracefs_ready(&__reason, &__fail, &(umount_flag))) {	\
		if (__fail)						\
			TH_LOG("%s", __reason);				\
		ASSERT_FALSE(__fail);					\
		SKIP(longjmp(_metadata->env, 1), "%s", __reason);	\
	}								\
} while (0)

#define USER_EVENT_FIXTURE_TEARDOWN(umount_flag) do {			\
	if (umount_flag)						\
		umount(TRACEFS_DIR);					\
} while (0)

/*
 * The data_head of a perf ring's metadata page, read the way the perf ABI
 * asks: a load, then a barrier before the records it covers.  A copy, not
 * an 8-byte atomic load, which a 32-bit machine may not have (ppc32 would
 * need libatomic): the head counts every byte written since the mmap, and
 * no test writes 4 GiB, so its high half stays 0.  The fence also keeps
 * the compiler from reusing an earlier copy.
 */
static inline __u64 ue_perf_head(struct perf_event_mmap_page *meta)
{
	__u64 head;

	memcpy(&head, &meta->data_head, sizeof(head));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return head;
}

/* Give the records before @tail back to the kernel, after reading them */
static inline void ue_perf_set_tail(struct perf_event_mmap_page *meta,
				    __u64 tail)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	memcpy(&meta->data_tail, &tail, sizeof(tail));
}

/*
 * Write the 4-byte word at @word as it is, as the program's own store
 * would: its page is then present and writable, copy-on-write broken.  A
 * compare-and-exchange, as an atomic OR of no bits may be compiled into a
 * load (clang does); it is tried again while a bit of the word changes.
 */
static inline void ue_touch_word(void *word)
{
	__u32 *p = word, v = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (!__atomic_compare_exchange_n(p, &v, v, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED))
		;
}

/* xorshift64*: a reproducible pseudo-random sequence from *@state (not 0) */
static inline __u64 ue_rand64(__u64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;

	return *state * 0x2545F4914F6CDD1DULL;
}

/*
 * Words in the place of a field's type that name no type of the ABI, for
 * random commands: most make the field refused, a few ("", "u32 ") make
 * the name the type or leave the field as it was; the tests' own parsers
 * say which.
 */
#define UE_BAD_TYPES							\
	"long", "unsigned long", "bool", "u32[4]", "char[]", "char[0]",	\
	"char[9999]", "char[1025]", "char[aa]", "char[0x0000000000001]",	\
	"char[", "u33", "void", "int*", "__data_loc", "__rel_loc",	\
	"unsigned", "struct", "", "U32", "u32 ", "\xff\xfe"

/* Whether @s is a C identifier, as a field name must be */
static inline bool ue_c_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* What the helpers put in write_index before DIAG_IOCSREG fills it in */
#define UE_INDEX_GARBAGE	0x5eadbeefU

/*
 * Register @cmd with its enable bit at @addr; returns the ioctl result.
 * On success *@index (when given) is what the kernel stored, which the
 * callers compare with the index they expect.
 */
static inline int ue_reg_fd(int fd, const char *cmd, void *addr, int bit,
			    int size, int flags, int *index)
{
	struct user_reg reg = {0};
	int ret;

	/* The kernel must store the index: start with garbage */
	reg.write_index = UE_INDEX_GARBAGE;
	reg.size = sizeof(reg);
	reg.name_args = (__u64)(unsigned long)cmd;
	reg.enable_bit = bit;
	reg.enable_size = size;
	reg.enable_addr = (__u64)(unsigned long)addr;
	reg.flags = flags;

	ret = ioctl(fd, DIAG_IOCSREG, &reg);
	if (ret == 0 && index)
		*index = reg.write_index;

	return ret;
}

static inline int ue_unreg_fd(int fd, void *addr, int bit)
{
	struct user_unreg unreg = {0};

	unreg.size = sizeof(unreg);
	unreg.disable_bit = bit;
	unreg.disable_addr = (__u64)(unsigned long)addr;

	return ioctl(fd, DIAG_IOCSUNREG, &unreg);
}

/* One-shot variants: open user_events_data, do one ioctl, close. */
static inline int ue_reg(const char *cmd, void *addr, int bit, int size,
			 int flags)
{
	int fd = open(DATA_FILE, O_RDWR);
	int ret, err;

	if (fd < 0)
		return -1;

	ret = ue_reg_fd(fd, cmd, addr, bit, size, flags, NULL);
	err = errno;
	close(fd);
	errno = err;

	return ret;
}

static inline int ue_unreg(void *addr, int bit)
{
	int fd = open(DATA_FILE, O_RDWR);
	int ret, err;

	if (fd < 0)
		return -1;

	ret = ue_unreg_fd(fd, addr, bit);
	err = errno;
	close(fd);
	errno = err;

	return ret;
}

static inline int ue_del(const char *name)
{
	int fd = open(DATA_FILE, O_RDWR);
	int ret, err;

	if (fd < 0)
		return -1;

	ret = ioctl(fd, DIAG_IOCSDEL, name);
	err = errno;
	close(fd);
	errno = err;

	return ret;
}

static inline long ue_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);

	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Exit status of a child, 128 if it did not exit normally, -1 on error */
static inline int ue_wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;

	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * Pass file descriptor @fd over the Unix socket @sock (SCM_RIGHTS), with
 * the int @value as the message: 0 or -1.
 */
static inline int ue_send_fd(int sock, int fd, int value)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = { .iov_base = &value, .iov_len = sizeof(value) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));

	return sendmsg(sock, &msg, 0) == sizeof(value) ? 0 : -1;
}

/*
 * Receive over @sock a file descriptor and the int sent with it (into
 * @value unless NULL), waiting at most @ms ms (-1: as long as it takes):
 * the fd, or -1.
 */
static inline int ue_recv_fd(int sock, int *value, int ms)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int v, fd;
	struct iovec iov = { .iov_base = &v, .iov_len = sizeof(v) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	if (poll(&p, 1, ms) != 1 || recvmsg(sock, &msg, 0) != sizeof(v))
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (value)
		*value = v;

	return fd;
}

static inline void ue_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static inline bool ue_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Path of @file in the directory of single-format event @name. */
static inline const char *ue_event_file(char *buf, size_t len,
					const char *name, const char *file)
{
	snprintf(buf, len, EVENTS_DIR "/%s/%s", name, file);

	return buf;
}

/*
 * Bounded waits, each for something the kernel does asynchronously by
 * design; everything else a test checks at once.
 *
 * UE_AUTO_DELETE_MS: a non-persistent event whose last reference went
 * is deleted by a kernel work item shortly after (the last put may come
 * from a tracer's unregister, where an event cannot be removed).
 *
 * UE_FAULT_MS: an enable bit whose page is not present or not writable
 * (dropped, copy-on-write after fork, remapped) is written by the
 * kernel's fault worker after it faulted the page in.
 */
#define UE_AUTO_DELETE_MS	5000
#define UE_FAULT_MS		10000

/*
 * UE_TIMEOUT_FACTOR=N: the runner gives each program N times its
 * "settings" timeout (3 times by default). N > 3 is an emulated debug
 * guest (harness/arch.sh armhf, ppc32, riscv64): a program whose cases
 * do much work calls ue_scale_case_timeouts() in main() to give its
 * cases N / 3 times their timeouts too. The same work, more time;
 * nothing retried.
 */
static inline int ue_timeout_factor(void)
{
	const char *env = getenv("UE_TIMEOUT_FACTOR");
	int factor = env ? atoi(env) : 0;

	return factor > 3 ? factor : 3;
}

static inline void ue_scale_case_timeouts(void)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout = t->timeout * ue_timeout_factor() / 3;
}

/* Wait up to @ms for @path to exist (@want) or be gone (!@want). */
static inline bool ue_wait_path(const char *path, bool want, int ms)
{
	long end = ue_now_ms() + ms;

	for (;;) {
		if (ue_exists(path) == want)
			return true;
		if (ue_now_ms() > end)
			return false;
		ue_sleep_ms(5);
	}
}

/* Wait for the auto-delete of the event whose directory is @path. */
static inline bool ue_wait_auto_delete(const char *path)
{
	return ue_wait_path(path, false, UE_AUTO_DELETE_MS);
}

/*
 * Read an enable word the kernel may change at any time (it uses atomic
 * bit operations on it): a fresh load each call, like READ_ONCE().
 */
static inline int ue_load(const int *word)
{
	return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/*
 * Wait up to @ms for *@word to become @want: only for updates that need
 * the fault worker (see UE_FAULT_MS) or another process' action.
 */
static inline bool ue_wait_int(const int *word, int want, int ms)
{
	long end = ue_now_ms() + ms;

	for (;;) {
		if (ue_load(word) == want)
			return true;
		if (ue_now_ms() > end)
			return false;
		ue_sleep_ms(1);
	}
}

static inline int ue_write_str(const char *path, const char *str, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	int ret, err;

	if (fd < 0)
		return -1;

	ret = write(fd, str, strlen(str));
	err = errno;
	close(fd);
	errno = err;

	return ret == (int)strlen(str) ? 0 : -1;
}

/* Enable (1) or disable (0) single-format event @name for ftrace. */
static inline int ue_enable(const char *name, int on)
{
	char path[512];

	return ue_write_str(ue_event_file(path, sizeof(path), name, "enable"),
			    on ? "1" : "0", 0);
}

/* Read a whole (small) file into a NUL-terminated malloc'd buffer. */
static inline char *ue_read_file(const char *path)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}

	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';

	return buf;
}

/* kernel.user_events_max, or -1. */
static inline int ue_read_max(void)
{
	char *text = ue_read_file(MAX_FILE);
	int max = text ? atoi(text) : -1;

	free(text);

	return max;
}

static inline int ue_write_max(int max)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d\n", max);

	return ue_write_str(MAX_FILE, buf, 0);
}

/*
 * Whether this kernel has perf events: with CONFIG_PERF_EVENTS, a NULL
 * attr is EFAULT; without it, the system call is not implemented.
 */
static inline bool ue_have_perf(void)
{
	return syscall(__NR_perf_event_open, NULL, 0, -1, -1, 0) == -1 &&
	       errno == EFAULT;
}

#define UE_NO_PERF "no perf_event_open(): a kernel without CONFIG_PERF_EVENTS"

/* perf on trace event @id of this process, any CPU: a raw sample per hit */
static inline int ue_perf_open(int id)
{
	struct perf_event_attr pe = {0};

	pe.type = PERF_TYPE_TRACEPOINT;
	pe.size = sizeof(pe);
	pe.config = id;
	pe.sample_type = PERF_SAMPLE_RAW;
	pe.sample_period = 1;
	pe.wakeup_events = 1;

	return syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
}

/* "Fault for mm" lines in the kernel log */
static inline int ue_fault_lines(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *log, *at;
	int len, n = 0;

	if (size <= 0)
		return -1;
	log = calloc(1, size + 1);
	if (!log)
		return -1;
	len = klogctl(3, log, size);		/* SYSLOG_ACTION_READ_ALL */
	if (len < 0) {
		free(log);
		return -1;
	}
	log[len] = '\0';
	for (at = log; (at = strstr(at, "user_events: Fault for mm")); at++)
		n++;
	free(log);

	return n;
}

/* The count of @label ("\nActive: ") in user_events_status, or -1. */
static inline int ue_status_count(const char *label)
{
	char *text = ue_read_file(STATUS_FILE);
	char *at;
	int count = -1;

	if (!text)
		return -1;

	at = strstr(text, label);
	if (at)
		count = atoi(at + strlen(label));
	free(text);

	return count;
}

/* The "Active: N" count of user_events_status: events that exist */
static inline int ue_active_count(void)
{
	return ue_status_count("\nActive: ");
}

/*
 * The "Kept: N" count: deleted events kept for their records, which
 * count towards kernel.user_events_max with the active ones.
 */
static inline int ue_kept_count(void)
{
	return ue_status_count("\nKept: ");
}

/* Wait up to @ms for the Active count to become @want (auto-deletes). */
static inline bool ue_wait_active(int want, int ms)
{
	long end = ue_now_ms() + ms;

	for (;;) {
		if (ue_active_count() == want)
			return true;
		if (ue_now_ms() > end)
			return false;
		ue_sleep_ms(5);
	}
}

/* Does any multi-format version of @name ("name.<id>") exist? */
static inline bool ue_multi_exists(const char *name)
{
	char pattern[512];
	glob_t g;
	bool found;

	snprintf(pattern, sizeof(pattern), MULTI_DIR "/%s.*/format", name);
	found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);

	return found;
}

/*
 * Does an event of @name exist, single- or multi-format? (Its directory
 * has a format file; the system's own "enable" and "filter" do not.)
 */
static inline bool ue_event_exists(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), EVENTS_DIR "/%s/format", name);

	return ue_exists(path) || ue_multi_exists(name);
}

/*
 * Remove what an earlier (failed) run may have left of event @name, for
 * fixture setup and teardown: a persistent event is deleted at once, a
 * non-persistent one goes with its last reference through the kernel's
 * auto-delete (UE_AUTO_DELETE_MS). True when nothing of @name is left.
 */
static inline bool ue_cleanup_event(const char *name)
{
	long end = ue_now_ms() + UE_AUTO_DELETE_MS;

	for (;;) {
		/* 0, ENOENT or EBUSY (a leftover still held): all fine */
		ue_del(name);
		if (!ue_event_exists(name))
			return true;
		if (ue_now_ms() > end)
			return false;
		ue_sleep_ms(5);
	}
}

/*
 * The number of user events that exist, counted from their tracefs
 * directories (not from user_events_status).
 */
static inline int ue_count_event_dirs(void)
{
	static const char * const systems[] = { EVENTS_DIR, MULTI_DIR };
	struct dirent *d;
	unsigned int i;
	int count = 0;
	DIR *dir;

	for (i = 0; i < 2; i++) {
		dir = opendir(systems[i]);
		if (!dir)
			continue;
		while ((d = readdir(dir))) {
			if (d->d_type == DT_DIR && d->d_name[0] != '.')
				count++;
		}
		closedir(dir);
	}

	return count;
}

/* Append one line to dynamic_events: 0 or the errno. */
static inline int ue_dyn_write(const char *cmd)
{
	int fd = open(DYN_FILE, O_WRONLY | O_APPEND);
	int ret = 0;

	if (fd < 0)
		return errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		ret = errno;
	close(fd);

	return ret;
}

/*
 * DIAG_IOCSDEL of an event that nothing references any more (no fd slot,
 * no enabler, no tracer): the kernel deletes it at once and returns 0,
 * or finds it gone already (ENOENT) when its auto-delete came first;
 * never EBUSY. True when that held and the event is gone afterwards.
 */
static inline bool ue_del_unreferenced(const char *name)
{
	int ret = ue_del(name);

	if (ret != 0 && errno != ENOENT)
		return false;

	return !ue_event_exists(name);
}

/*
 * The layout of an event's records, as its format file describes it. A
 * record starts with the common header (the "common_" fields), followed
 * by the payload a program writes: the event's own fields. The header's
 * size is the kernel's business: 8 bytes on most, 12 on PREEMPT_RT
 * kernels whose header has a lazy preemption count. A __data_loc word
 * counts from the record start, so the tests read where the payload
 * starts, never assume it.
 */
struct ue_format_field {
	char name[128];
	int offset;
	int size;
	bool common;
};

/*
 * Parse one "\tfield:TYPE NAME;\toffset:N;\tsize:S;..." line: the name
 * is the last word before ';', without an array's "[N]".
 */
static inline bool ue_parse_format_line(const char *line,
					struct ue_format_field *f)
{
	const char *decl = strstr(line, "field:"), *semi, *name, *at;
	size_t len;

	if (!decl)
		return false;
	decl += strlen("field:");
	semi = strchr(decl, ';');
	if (!semi)
		return false;
	for (name = semi; name > decl && name[-1] != ' '; name--)
		;
	len = strcspn(name, "[;");
	if (!len || len >= sizeof(f->name))
		return false;
	memcpy(f->name, name, len);
	f->name[len] = '\0';

	at = strstr(semi, "offset:");
	if (!at || sscanf(at, "offset:%d;", &f->offset) != 1)
		return false;
	at = strstr(semi, "size:");
	if (!at || sscanf(at, "size:%d;", &f->size) != 1)
		return false;
	f->common = !strncmp(f->name, "common_", strlen("common_"));

	return true;
}

/*
 * Every field of format file @path, common ones included, into @fields
 * (at most @max): how many, or -1 when the file cannot be read.
 */
static inline int ue_format_fields(const char *path,
				   struct ue_format_field *fields, int max)
{
	char *text = ue_read_file(path), *line, *save = NULL;
	int n = 0;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		if (ue_parse_format_line(line, &fields[n]))
			n++;
	}
	free(text);

	return n;
}

/* Offset (and *@size, when given) of field @name in format file @path */
static inline int ue_format_offset(const char *path, const char *name,
				   int *size)
{
	struct ue_format_field fields[64];
	int i, n = ue_format_fields(path, fields, 64);

	for (i = 0; i < n; i++) {
		if (strcmp(fields[i].name, name))
			continue;
		if (size)
			*size = fields[i].size;
		return fields[i].offset;
	}

	return -1;
}

/*
 * Where the payload of the records of format file @path starts: the
 * offset of its first field after the common header, or -1 when it has
 * none (or the file cannot be read).
 */
static inline int ue_format_payload_offset(const char *path)
{
	struct ue_format_field fields[64];
	int i, n = ue_format_fields(path, fields, 64), first = -1;

	for (i = 0; i < n; i++) {
		if (!fields[i].common &&
		    (first < 0 || fields[i].offset < first))
			first = fields[i].offset;
	}

	return first;
}

/* ue_format_payload_offset() of single-format event @name */
static inline int ue_payload_offset(const char *name)
{
	char path[512];

	return ue_format_payload_offset(ue_event_file(path, sizeof(path),
						     name, "format"));
}

/*
 * The size of the common header, for a test that has no event with a
 * field at hand: every format file lists the same common fields, and
 * the header is the C struct of them, so its size is the end of the last
 * one rounded up to the largest one's alignment (their types are 1, 2
 * and 4 bytes, aligned to their size). -1 when no format file is found.
 * A test that has an event with a field reads ue_payload_offset(), the
 * kernel's own answer (and ftrace_test checks that both agree).
 */
static inline int ue_header_size(void)
{
	struct ue_format_field fields[64];
	int i, n = -1, end = 0, align = 1;
	glob_t g;

	if (glob(TRACEFS_DIR "/events/*/*/format", 0, NULL, &g) == 0) {
		for (i = 0; i < (int)g.gl_pathc && n <= 0; i++)
			n = ue_format_fields(g.gl_pathv[i], fields, 64);
	}
	globfree(&g);

	for (i = 0; i < n; i++) {
		if (!fields[i].common)
			continue;
		if (fields[i].offset + fields[i].size > end)
			end = fields[i].offset + fields[i].size;
		if (fields[i].size > align && fields[i].size <= 8)
			align = fields[i].size;
	}

	return end ? (end + align - 1) / align * align : -1;
}

/* The payload size limits of each tracer, from the page size */
struct ue_limits {
	long page;
	long ftrace;	/* largest payload in one ring buffer page */
	long perf;	/* largest payload of a perf raw sample */
	long both;	/* with ftrace and perf attached */
	long max_static;	/* largest static size an event may have */
	long header;	/* ue_header_size(), -1 when unknown */
};

/*
 * A record is the common header (ue_header_size(): H bytes) and the
 * payload. ftrace keeps it in one ring buffer page, which loses 40 bytes
 * to the page header, the event header and a time stamp: payload <=
 * PAGE_SIZE - 40 - H. perf's raw sample is ALIGN(H + payload + 4, 8) - 4
 * bytes, at most PERF_MAX_TRACE_SIZE (8192): payload <= 8188 - H. With
 * the usual 8-byte header that is PAGE_SIZE - 48 and 8180. An event whose
 * static size no tracer of this kernel can record cannot be registered.
 */
static inline void ue_get_limits(struct ue_limits *l)
{
	bool perf = ue_exists("/proc/sys/kernel/perf_event_paranoid");
	long most, hdr = ue_header_size();

	l->page = sysconf(_SC_PAGESIZE);
	l->header = hdr;
	/* Unknown (no format file): callers check l->header */
	if (hdr < 0)
		hdr = 0;
	l->ftrace = l->page - 40 - hdr;
	l->perf = 8192 - 4 - hdr;
	l->both = l->ftrace < l->perf ? l->ftrace : l->perf;
	most = perf && l->perf > l->ftrace ? l->perf : l->ftrace;
	l->max_static = most < 65535 ? most : 65535;
}

/* The id of single-format event @name, or -1. */
static inline int ue_event_id(const char *name)
{
	char path[512], *text, *at;
	int id = -1;

	/* The "id" file exists only with CONFIG_PERF_EVENTS; "format" always */
	text = ue_read_file(ue_event_file(path, sizeof(path), name, "format"));
	at = text ? strstr(text, "\nID: ") : NULL;
	if (at)
		id = atoi(at + 5);
	free(text);

	return id;
}

/* How often @text stands in the trace file (0 when it cannot be read) */
static inline int ue_trace_count(const char *text)
{
	char *trace = ue_read_file(TRACE_FILE), *at = trace;
	int n = 0;

	while (at && (at = strstr(at, text))) {
		n++;
		at += strlen(text);
	}
	free(trace);

	return n;
}

static inline bool ue_trace_has(const char *text)
{
	return ue_trace_count(text) > 0;
}

/* Size of the trace file, which grows with each recorded event. */
static inline long ue_trace_size(void)
{
	char *text = ue_read_file(TRACE_FILE);
	long len;

	if (!text)
		return -1;
	len = strlen(text);
	free(text);

	return len;
}

/* Assert that a write() or writev() returned @expected; log errno if not. */
#define ASSERT_WRITE(expected, call) do {				\
	ssize_t __want = (expected);					\
	ssize_t __ret = (call);						\
	int __err = errno;						\
									\
	ASSERT_EQ(__want, __ret) {					\
		TH_LOG("%s: %zd, want %zd (%s)", #call, __ret, __want,	\
		       strerror(__err));				\
	}								\
} while (0)

static inline int ue_clear_trace(void)
{
	return ue_write_str(TRACE_FILE, "", O_TRUNC);
}

/*
 * Lets go of the deleted events kept for their records in the top
 * buffer and its snapshot: clears both, then asks for one event more
 * than the limit allows, which makes the kernel reclaim what it keeps at
 * once. Returns the Kept count after, or -1.
 */
static inline int ue_release_kept(void)
{
	int max = ue_read_max(), word = 0;

	if (max < 0 || ue_clear_trace())
		return -1;
	if (ue_exists(TRACEFS_DIR "/snapshot"))
		ue_write_str(TRACEFS_DIR "/snapshot", "0", 0);
	if (ue_write_max(ue_active_count() + ue_kept_count()))
		return -1;
	if (!ue_reg("__ue_release_kept u32 a", &word, 0, sizeof(word), 0))
		ue_unreg(&word, 0);
	ue_write_max(max);
	ue_cleanup_event("__ue_release_kept");

	return ue_kept_count();
}

/*
 * Trace buffers other than the top one's: an instance is a directory of
 * INSTANCES_DIR with its own events/, trace and trace_marker files; the
 * snapshot is a copy of a buffer, taken by writing 1 to its snapshot file
 * (0 frees it, 2 clears it).
 */
#define INSTANCES_DIR	TRACEFS_DIR "/instances"
#define SNAPSHOT_FILE	TRACEFS_DIR "/snapshot"

/* Path of @file of single-format event @name in trace directory @dir */
static inline const char *ue_dir_event_file(char *buf, size_t len,
					    const char *dir, const char *name,
					    const char *file)
{
	snprintf(buf, len, "%s/events/" USER_EVENTS_SYSTEM "/%s/%s", dir, name,
		 file);

	return buf;
}

/* Enable (1) or disable (0) event @name in trace directory @dir */
static inline int ue_dir_enable(const char *dir, const char *name, int on)
{
	char path[512];

	return ue_write_str(ue_dir_event_file(path, sizeof(path), dir, name,
					      "enable"), on ? "1" : "0", 0);
}

/* Write @text to the trace_marker of trace directory @dir */
static inline int ue_dir_mark(const char *dir, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/trace_marker", dir);

	return ue_write_str(path, text, 0);
}

/*
 * Whether @text contains the @n strings of @want one after the other:
 * -1 when it does, otherwise the index of the first one not found after
 * those before it.
 */
static inline int ue_text_missing(const char *text, const char * const *want,
				  int n)
{
	const char *at = text;
	int i;

	for (i = 0; i < n; i++) {
		at = at ? strstr(at, want[i]) : NULL;
		if (!at)
			return i;
		at += strlen(want[i]);
	}

	return -1;
}

/*
 * Fails the test unless file @path shows the @n strings of @want one
 * after the other; the log names the first one missing and shows the
 * file.
 */
static inline void ue_assert_shows(struct __test_metadata *_metadata,
				   const char *path, const char * const *want,
				   int n)
{
	char *text = ue_read_file(path);
	int missing;

	/* As an integer: the harness's cast of a pointer warns with -m32 */
	ASSERT_NE(0, (uintptr_t)text) {
		TH_LOG("cannot read %s: %s", path, strerror(errno));
	}
	missing = ue_text_missing(text, want, n);
	ASSERT_EQ(-1, missing) {
		TH_LOG("%s does not show \"%.*s\"%s; it holds:\n%.4000s", path,
		       (int)strcspn(want[missing], "\n"), want[missing],
		       missing ? " after the lines before it" : "", text);
	}
	free(text);
}

#endif /* _USER_EVENTS_SELFTESTS_H */
