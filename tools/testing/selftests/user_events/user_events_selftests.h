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

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
 * For FIXTURE_SETUP. A skip leaves through the harness's jump buffer so
 * that neither the test body nor the teardown runs.
 */
#define USER_EVENT_FIXTURE_SETUP(umount_flag) do {			\
	const char *__reason = "";					\
	bool __fail;							\
									\
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

/* Register @cmd with its enable bit at @addr; returns the ioctl result. */
static inline int ue_reg_fd(int fd, const char *cmd, void *addr, int bit,
			    int size, int flags, int *index)
{
	struct user_reg reg = {0};
	int ret;

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

/* Wait up to @ms for @path to exist (@want) or be gone (!@want). */
static inline bool ue_wait_path(const char *path, bool want, int ms)
{
	long end = ue_now_ms() + ms;

	for (;;) {
		if (ue_exists(path) == want)
			return true;
		if (ue_now_ms() > end)
			return false;
		ue_sleep_ms(10);
	}
}

/*
 * Read an enable word the kernel may change at any time (it uses atomic
 * bit operations on it): a fresh load each call, like READ_ONCE().
 */
static inline int ue_load(const int *word)
{
	return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/* Wait up to @ms for *@word to become @want. */
static inline bool ue_wait_int(const int *word, int want, int ms)
{
	long end = ue_now_ms() + ms;

	for (;;) {
		if (ue_load(word) == want)
			return true;
		if (ue_now_ms() > end)
			return false;
		ue_sleep_ms(5);
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

/* The "Active: N" count of user_events_status, or -1. */
static inline int ue_active_count(void)
{
	char *text = ue_read_file(STATUS_FILE);
	char *active;
	int count = -1;

	if (!text)
		return -1;

	active = strstr(text, "\nActive: ");
	if (active)
		count = atoi(active + strlen("\nActive: "));
	free(text);

	return count;
}

/* Wait up to @ms for the Active count to become @want. */
static inline bool ue_wait_active(int want, int ms)
{
	long end = ue_now_ms() + ms;

	for (;;) {
		if (ue_active_count() == want)
			return true;
		if (ue_now_ms() > end)
			return false;
		ue_sleep_ms(10);
	}
}

/*
 * Remove event @name and wait until it is gone: DIAG_IOCSDEL succeeds
 * for an unreferenced event, and a reference still being dropped
 * (deferred by RCU) only delays it.
 */
static inline bool ue_delete_wait(const char *name, int ms)
{
	long end = ue_now_ms() + ms;

	for (;;) {
		if (ue_del(name) == 0 || errno == ENOENT)
			return true;
		if (errno != EBUSY || ue_now_ms() > end)
			return false;
		ue_sleep_ms(10);
	}
}

/* DIAG_IOCSDEL, retried while a reference is still being dropped. */
static inline int ue_del_retry(const char *name, int ms)
{
	long end = ue_now_ms() + ms;
	int ret;

	while ((ret = ue_del(name)) == -1 && errno == EBUSY &&
	       ue_now_ms() < end)
		ue_sleep_ms(10);

	return ret;
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
	ssize_t __ret = (call);						\
									\
	if (__ret != (ssize_t)(expected))				\
		TH_LOG("%s: %zd (%s)", #call, __ret, strerror(errno));	\
	ASSERT_EQ((ssize_t)(expected), __ret);				\
} while (0)

static inline int ue_clear_trace(void)
{
	return ue_write_str(TRACE_FILE, "", O_TRUNC);
}

#endif /* _USER_EVENTS_SELFTESTS_H */
