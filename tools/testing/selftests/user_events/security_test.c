// SPDX-License-Identifier: GPL-2.0
/*
 * user_events security checks.
 *
 * An unprivileged process (uid/gid 65534, no capabilities) that was given
 * access to user_events_data must not be able to make the kernel write or
 * read outside its own memory, nor create or delete persistent events.
 * Nothing the tracing files or the kernel log show may be a raw kernel
 * address (hashed %p values are fine: they print as 00000000xxxxxxxx).
 *
 * The Makefile lists this program last, so that the kernel log it scans
 * holds what the other user_events tests (faults included) left there.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <grp.h>
#include <stdint.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/utsname.h>

#include "user_events_selftests.h"

#define EVENT		"__sec_event"
#define EVENT_CMD	EVENT " u32 a; __data_loc char[] s; __rel_loc char[] r"
#define EVENT_NEW	"__sec_new"
#define EVENT_P		"__sec_persist"
#define EVENT_P_CMD	EVENT_P " u32 a"
#define EVENT_FAULT	"__sec_fault"
#define NOBODY		65534
#define WAIT_MS		5000

/*
 * Addresses this process can never have mapped: kernel addresses, and
 * addresses outside the user range, of the architecture it runs on.
 * Every use of one (enable word, ioctl argument, command string, write
 * index or payload) must give EFAULT, and nothing may be written there.
 *
 * s390x gives user space an address space of its own: the kernel never
 * takes a value from user space for one of its own addresses, and any
 * value below -PAGE_SIZE (TASK_SIZE_MAX) may be a user address. What
 * look like kernel addresses elsewhere would merely be unmapped user
 * addresses there, proving nothing, so s390x probes only the common
 * entries: the top page lies above TASK_SIZE_MAX and is never mapped.
 */
static const __u64 bad_addrs[] = {
#if defined(__x86_64__)
	0xffff888000000000ULL,	/* direct map */
	0xffffc90000000000ULL,	/* vmalloc */
	0xffffea0000000000ULL,	/* vmemmap */
	0xffffffff81000000ULL,	/* kernel text */
	0xffffffffff600000ULL,	/* vsyscall page: user-readable, kernel's */
	0xffff800000000000ULL,	/* the first kernel address */
	0x8000000000000000ULL,	/* non-canonical */
	0xdead000000000000ULL,	/* non-canonical (poison pointers) */
	/*
	 * The guard page below TASK_SIZE_MAX and the first address above
	 * it: no user address with 4-level paging, and never mapped with
	 * 5-level paging unless a mmap() asks for an address that high.
	 */
	0x00007ffffffff000ULL,
	0x0000800000000000ULL,
#elif defined(__aarch64__)
	0xffff000000000000ULL,	/* linear map (PAGE_OFFSET, 48-bit VA) */
	0xffff800008000000ULL,	/* kernel image (KIMAGE_VADDR) */
	0xfffffc0000000000ULL,	/* vmemmap (48-bit VA, 4 KiB pages) */
	0x0010000000000000ULL,	/* above the largest (52-bit) user range */
#elif defined(__i386__)
	/* A 32-bit kernel with the 3G/1G split: the kernel from 3 GiB */
	0xc0000000ULL,		/* PAGE_OFFSET: the direct map */
	0xc1000000ULL,		/* kernel text (16 MiB physical start) */
	0xe0000000ULL,		/* direct map, 512 MiB up */
#endif
	/* Everywhere: the top page, and its last word (8 bytes reach 0) */
	(uintptr_t)-4096,
	(uintptr_t)-8,
};

FIXTURE(sec) {
	struct stat orig;
	struct stat orig_dir;
	int start_active;
	bool umount;
};

static void sec_cleanup(void)
{
	ue_enable(EVENT, 0);
	ue_enable(EVENT_FAULT, 0);
	ue_cleanup_event(EVENT);
	ue_cleanup_event(EVENT_NEW);
	ue_cleanup_event(EVENT_FAULT);
	ue_cleanup_event(EVENT_P);
}

FIXTURE_SETUP(sec) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	sec_cleanup();
	self->start_active = ue_active_count();
	ASSERT_LE(0, self->start_active);
	ASSERT_EQ(0, stat(DATA_FILE, &self->orig));
	ASSERT_EQ(0, stat(TRACEFS_DIR, &self->orig_dir));

	/* Group NOBODY may use user_events_data; others reach the files */
	ASSERT_EQ(0, chmod(TRACEFS_DIR, 0711));
	ASSERT_EQ(0, chown(DATA_FILE, 0, NOBODY));
	ASSERT_EQ(0, chmod(DATA_FILE, 0660));
}

FIXTURE_TEARDOWN(sec) {
	chown(DATA_FILE, self->orig.st_uid, self->orig.st_gid);
	chmod(DATA_FILE, self->orig.st_mode & 07777);
	chmod(TRACEFS_DIR, self->orig_dir.st_mode & 07777);
	sec_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

static bool drop_privileges(void)
{
	/* Leaving uid 0 clears the permitted and effective capabilities */
	return !setgroups(0, NULL) && !setgid(NOBODY) && !setuid(NOBODY) &&
	       geteuid() == NOBODY;
}

/*
 * Run @fn in a child that dropped its privileges: its pid, or -1. @fn
 * checks with UE_CHILD_CHECK(), returns 0 when all of them held.
 */
static pid_t run_unprivileged(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		UE_CHILD_CHECK(drop_privileges());
		_exit(fn(arg));
	}

	return pid;
}

/* Wait up to @ms for *@word to reach at least @want; returns *@word */
static int wait_at_least(int *word, int want, int ms)
{
	long end = ue_now_ms() + ms;

	while (ue_load(word) < want && ue_now_ms() < end)
		ue_sleep_ms(5);

	return ue_load(word);
}

/* Does a multi-format version of @name ("name.<id>") exist? */
static bool multi_exists(const char *name)
{
	DIR *dir = opendir(MULTI_DIR);
	size_t len = strlen(name);
	struct dirent *d;
	bool found = false;

	if (!dir)
		return false;
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, name, len) && d->d_name[len] == '.')
			found = true;
	closedir(dir);

	return found;
}

/* What the unprivileged child of kernel_addresses_rejected shares */
struct probe_mem {
	int word;		/* the one valid enable word */
	int canary[64];		/* must never change */
	int ready;		/* child: registered, enable the event */
	int done;		/* parent: enabled and disabled again */
	char cmd[64];
};

static int try_bad_enable_addrs(void *arg)
{
	struct probe_mem *m = arg;
	struct user_reg reg;
	/* A 32-bit kernel refuses an 8-byte word before its address */
	unsigned int i, size, max_size = ue_kernel_is_64bit() ? 8 : 4;
	int fd, idx = -1;

	fd = open(DATA_FILE, O_RDWR);
	UE_CHILD_CHECK(fd >= 0);
	UE_CHILD_CHECK(!ue_reg_fd(fd, EVENT_CMD, &m->word, 0, 4, 0, &idx));

	for (i = 0; i < ARRAY_SIZE(bad_addrs); i++) {
		for (size = 4; size <= max_size; size += 4) {
			/* An existing event and a new one: both EFAULT */
			errno = 0;
			UE_CHILD_CHECK(ue_reg_fd(fd, EVENT_CMD,
						 (void *)(uintptr_t)bad_addrs[i],
						 size * 8 - 1, size, 0,
						 NULL) == -1 && errno == EFAULT);
			errno = 0;
			UE_CHILD_CHECK(ue_reg_fd(fd, EVENT_NEW " u32 a",
						 (void *)(uintptr_t)bad_addrs[i],
						 0, size,
						 USER_EVENT_REG_MULTI_FORMAT,
						 NULL) == -1 && errno == EFAULT);
		}
		/* Nothing was registered there to unregister */
		errno = 0;
		UE_CHILD_CHECK(ue_unreg_fd(fd, (void *)(uintptr_t)bad_addrs[i],
					   0) == -1 && errno == ENOENT);
	}

	/* The kernel reads nothing from kernel addresses either */
	for (i = 0; i < ARRAY_SIZE(bad_addrs); i++) {
		struct iovec io[2] = {
			{ &idx, sizeof(idx) },
			{ (void *)(uintptr_t)bad_addrs[i], 16 },
		};

		/* The struct itself, the command string, a delete name */
		errno = 0;
		UE_CHILD_CHECK(ioctl(fd, DIAG_IOCSREG,
				     (void *)(uintptr_t)bad_addrs[i]) == -1 &&
			       errno == EFAULT);
		memset(&reg, 0, sizeof(reg));
		reg.size = sizeof(reg);
		reg.enable_size = 4;
		reg.enable_addr = (uintptr_t)&m->canary[0];
		reg.name_args = bad_addrs[i];
		errno = 0;
		UE_CHILD_CHECK(ioctl(fd, DIAG_IOCSREG, &reg) == -1 &&
			       errno == EFAULT);
		errno = 0;
		UE_CHILD_CHECK(ioctl(fd, DIAG_IOCSUNREG,
				     (void *)(uintptr_t)bad_addrs[i]) == -1 &&
			       errno == EFAULT);
		errno = 0;
		UE_CHILD_CHECK(ioctl(fd, DIAG_IOCSDEL,
				     (void *)(uintptr_t)bad_addrs[i]) == -1 &&
			       errno == EFAULT);
		/*
		 * The index itself there: the index is read first, EFAULT
		 * whether or not the event is traced. (A payload there is
		 * probed below, with the event traced.)
		 */
		io[0].iov_base = (void *)(uintptr_t)bad_addrs[i];
		errno = 0;
		UE_CHILD_CHECK(writev(fd, io, 1) == -1 && errno == EFAULT);
	}

	/* Let the parent enable and disable the event */
	__atomic_store_n(&m->ready, 1, __ATOMIC_SEQ_CST);
	UE_CHILD_CHECK(ue_wait_int(&m->word, 1, WAIT_MS));

	/*
	 * A payload there, the event traced. Untraced, the write could be
	 * refused with EBADF before the payload is read: on x86_64 the VFS
	 * refuses a kernel address in any iovec first (EFAULT), on arm64
	 * and s390x some of these addresses pass that check and reach
	 * user_events, which tells "nobody traces it" first. Traced, the
	 * payload is read, and EFAULT is the only right answer everywhere.
	 */
	for (i = 0; i < ARRAY_SIZE(bad_addrs); i++) {
		struct iovec io[2] = {
			{ &idx, sizeof(idx) },
			{ (void *)(uintptr_t)bad_addrs[i], 16 },
		};

		errno = 0;
		UE_CHILD_CHECK(writev(fd, io, 2) == -1 && errno == EFAULT);
	}

	__atomic_store_n(&m->ready, 2, __ATOMIC_SEQ_CST);
	UE_CHILD_CHECK(ue_wait_int(&m->done, 1, WAIT_MS));
	UE_CHILD_CHECK(ue_load(&m->word) == 0);
	for (i = 0; i < ARRAY_SIZE(m->canary); i++)
		UE_CHILD_CHECK(ue_load(&m->canary[i]) == 0x5a5a5a5a);

	UE_CHILD_CHECK(!ue_unreg_fd(fd, &m->word, 0));
	close(fd);

	return 0;
}

TEST_F(sec, kernel_addresses_rejected) {
	struct probe_mem *m;
	struct utsname uts;
	long trace_before;
	unsigned int i;
	char why[512];
	int ret;

	/*
	 * The i386 entries are kernel addresses of a 32-bit kernel; for a
	 * 32-bit process on a 64-bit kernel they are user addresses.
	 */
	ASSERT_EQ(0, uname(&uts));
	if (sizeof(void *) == 4 && !strcmp(uts.machine, "x86_64"))
		SKIP(return, "a 32-bit build on a 64-bit kernel: no kernel address fits a pointer");

	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)m);
	for (i = 0; i < ARRAY_SIZE(m->canary); i++)
		m->canary[i] = 0x5a5a5a5a;

	ASSERT_EQ(0, ue_clear_trace());
	if (fork() == 0) {
		/* The prober's parent; the test plays the tracer */
		pid_t prober = run_unprivileged(try_bad_enable_addrs, m);

		ret = prober < 0 ? -1 : ue_wait_child(prober);
		__atomic_store_n(&m->ready, ret ? 100 + ret : 3,
				 __ATOMIC_SEQ_CST);
		_exit(0);
	}

	/*
	 * 1: registered and probed; 100 + the prober's exit status: a check
	 * failed, which the child report tells
	 */
	ASSERT_EQ(1, wait_at_least(&m->ready, 1, 60000)) {
		ue_child_report_text(why, sizeof(why));
		TH_LOG("prober: %s", why);
	}
	/*
	 * Enabling updates every enabler of the event: had a rejected
	 * registration left one at a kernel address, this would write
	 * there (and KASAN or the splat scan would tell).
	 */
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/" EVENT_NEW));
	ASSERT_EQ(self->start_active + 1, ue_active_count());
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	trace_before = ue_trace_size();
	ASSERT_EQ(2, wait_at_least(&m->ready, 2, 60000)) {
		ue_child_report_text(why, sizeof(why));
		TH_LOG("prober: %s", why);
	}
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	/* The failed writes recorded nothing */
	ASSERT_EQ(trace_before, ue_trace_size());
	__atomic_store_n(&m->done, 1, __ATOMIC_SEQ_CST);

	ASSERT_EQ(3, wait_at_least(&m->ready, 3, 60000)) {
		ue_child_report_text(why, sizeof(why));
		TH_LOG("prober: %s", why);
	}
	wait(NULL);
	ASSERT_TRUE(ue_wait_active(self->start_active, WAIT_MS));
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/" EVENT));
	munmap(m, sizeof(*m));
}

/* dynamic_events, opened by the parent while privileged */
static int dyn_fd = -1;

static int dyn_write(const char *cmd)
{
	return write(dyn_fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) ? 0 :
	       -1;
}

static int try_persist(void *arg)
{
	int word = 0, fd;

	(void)arg;
	fd = open(DATA_FILE, O_RDWR);
	UE_CHILD_CHECK(fd >= 0);

	/* Not even for an event that exists, nor through a new fd */
	errno = 0;
	UE_CHILD_CHECK(ue_reg_fd(fd, EVENT_P_CMD, &word, 0, 4,
				 USER_EVENT_REG_PERSIST, NULL) == -1 &&
		       errno == EPERM);
	errno = 0;
	UE_CHILD_CHECK(ue_reg_fd(fd, EVENT_NEW " u32 a", &word, 0, 4,
				 USER_EVENT_REG_PERSIST |
				 USER_EVENT_REG_MULTI_FORMAT, NULL) == -1 &&
		       errno == EPERM);
	errno = 0;
	UE_CHILD_CHECK(dyn_write("u:" EVENT_NEW " u32 a") == -1 &&
		       errno == EPERM);

	/* Deleting the persistent event: ioctl, "-:" and "!u:" */
	errno = 0;
	UE_CHILD_CHECK(ioctl(fd, DIAG_IOCSDEL, EVENT_P) == -1 && errno == EPERM);
	errno = 0;
	UE_CHILD_CHECK(dyn_write("-:" EVENT_P " u32 a") == -1 && errno == EPERM);
	errno = 0;
	UE_CHILD_CHECK(dyn_write("-:" USER_EVENTS_SYSTEM "/" EVENT_P " u32 a")
		       == -1 && errno == EPERM);
	errno = 0;
	UE_CHILD_CHECK(dyn_write("!u:" EVENT_P " u32 a") == -1 &&
		       errno == EPERM);

	/* dynamic_events itself stays closed to others */
	errno = 0;
	UE_CHILD_CHECK(open(DYN_FILE, O_WRONLY | O_APPEND) == -1 &&
		       errno == EACCES);

	/* Registering without PERSIST still works */
	UE_CHILD_CHECK(!ue_reg_fd(fd, EVENT_P_CMD, &word, 0, 4, 0, NULL));
	UE_CHILD_CHECK(!ue_unreg_fd(fd, &word, 0));
	close(fd);

	return 0;
}

TEST_F(sec, persistent_events_protected) {
	pid_t pid;

	ASSERT_EQ(0, ue_write_str(DYN_FILE, "u:" EVENT_P_CMD, O_APPEND));
	dyn_fd = open(DYN_FILE, O_WRONLY | O_APPEND);
	ASSERT_NE(-1, dyn_fd);

	pid = run_unprivileged(try_persist, NULL);
	ASSERT_LT(0, pid);
	ASSERT_CHILD_OK(pid);
	close(dyn_fd);
	dyn_fd = -1;

	/* Nothing was created, the persistent event outlives the child */
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/" EVENT_NEW));
	ASSERT_FALSE(multi_exists(EVENT_NEW));
	ASSERT_TRUE(ue_exists(EVENTS_DIR "/" EVENT_P));
	ASSERT_EQ(0, ue_del(EVENT_P));
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/" EVENT_P));
}

/*
 * Count the raw kernel addresses in @text and log their lines: a run of
 * exactly 16 hex digits that starts with ffff (what %px and %lx print
 * for a kernel pointer on a 64-bit kernel).
 */
static int kernel_addrs(struct __test_metadata *_metadata, const char *what,
			const char *text)
{
	const char *p = text, *run, *line;
	int hits = 0, len;

	while (*p) {
		if (!isxdigit((unsigned char)*p)) {
			p++;
			continue;
		}
		for (run = p; isxdigit((unsigned char)*p); p++)
			;
		if (p - run != 16 || strncasecmp(run, "ffff", 4))
			continue;
		for (line = run; line > text && line[-1] != '\n'; line--)
			;
		len = strcspn(line, "\n");
		TH_LOG("%s: %.*s", what, len > 300 ? 300 : len, line);
		hits++;
	}

	return hits;
}

/*
 * Keeps the lines of @text that contain @word, in place, and returns
 * @text.
 */
static char *lines_with(char *text, const char *word)
{
	char *line = text, *out = text, *end;
	size_t len;

	while (*line) {
		end = strchrnul(line, '\n');
		/* The line with its newline, if it has one */
		len = end - line + (*end == '\n');
		if (memmem(line, end - line, word, strlen(word))) {
			memmove(out, line, len);
			out += len;
		}
		line += len;
	}
	*out = '\0';

	return text;
}

static int scan_file(struct __test_metadata *_metadata, const char *path)
{
	char *text = ue_read_file(path);
	int hits;

	if (!text) {
		TH_LOG("cannot read %s", path);
		return 1;
	}
	hits = kernel_addrs(_metadata, path, text);
	free(text);

	return hits;
}

/* Every format file of the events under @system_dir */
static int scan_formats(struct __test_metadata *_metadata,
			const char *system_dir, int *files)
{
	DIR *dir = opendir(system_dir);
	char path[512];
	struct dirent *d;
	int hits = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/format", system_dir,
			 d->d_name);
		if (!ue_exists(path))
			continue;
		hits += scan_file(_metadata, path);
		(*files)++;
	}
	closedir(dir);

	return hits;
}

TEST_F(sec, no_kernel_addresses_shown) {
	struct {
		int idx;
		__u32 a;
		__u32 s;
		__u32 r;
		char s_data[8];
		char r_data[8];
	} rec = {
		.a = 42,
		/* rel_loc from the end of its own loc word */
		.r = DYN_LOC(8, 8),
		.s_data = "secure",
		.r_data = "relloc",
	};
	int word = 0, mword = 0, fd, i, hits = 0, files = 0, size, len, before;
	int hdr;
	long t0;
	long page = sysconf(_SC_PAGESIZE);
	char *log, *ro;

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EVENT_CMD, &word, 0, 4, 0, &rec.idx));
	/*
	 * data_loc from the record start: the common header (its size is
	 * the kernel's), a, s and r, then s's data
	 */
	hdr = ue_payload_offset(EVENT);
	ASSERT_LT(0, hdr);
	rec.s = DYN_LOC(hdr + 12, 8);
	ASSERT_EQ(0, ue_reg_fd(fd, EVENT_NEW " u64 x", &mword, 0, 4,
			       USER_EVENT_REG_MULTI_FORMAT, NULL));
	ASSERT_EQ(0, ue_write_str(DYN_FILE, "u:" EVENT_P_CMD, O_APPEND));

	/* Records in the trace, printed by the event's print fmt */
	ASSERT_EQ(0, ue_clear_trace());
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	for (i = 0; i < 4; i++)
		ASSERT_WRITE(sizeof(rec), write(fd, &rec, sizeof(rec)));
	ASSERT_EQ(1, word);

	/*
	 * A fault the kernel cannot fix: the enable word's page is read-only
	 * when the event is enabled, so the bit update has to give up and
	 * may say so in the kernel log. Not unmapped: the next mapping of
	 * this process (ue_fault_lines()' buffer) could take its place.
	 */
	ro = mmap(NULL, page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)ro);
	ASSERT_EQ(0, ue_reg_fd(fd, EVENT_FAULT " u32 a", ro, 3, 4, 0,
			       NULL));
	ASSERT_EQ(0, mprotect(ro, page, PROT_READ));
	/* The warning's rate limit allows 10 lines in 5 s: a new interval */
	ue_sleep_ms(5100);
	before = ue_fault_lines();
	ASSERT_EQ(0, ue_enable(EVENT_FAULT, 1));
	/* The fault worker fails and logs asynchronously: bounded */
	t0 = ue_now_ms();
	while (ue_fault_lines() == before && ue_now_ms() - t0 < UE_FAULT_MS)
		ue_sleep_ms(10);
	EXPECT_LT(before, ue_fault_lines());
	ASSERT_EQ(0, ue_enable(EVENT_FAULT, 0));
	ue_unreg_fd(fd, ro, 3);
	munmap(ro, page);

	log = ue_read_file(TRACE_FILE);
	ASSERT_NE(0, (uintptr_t)log);
	ASSERT_NE(0, (uintptr_t)strstr(log, "s=secure r=relloc"));
	free(log);
	hits += scan_file(_metadata, TRACE_FILE);
	hits += scan_file(_metadata, STATUS_FILE);
	hits += scan_file(_metadata, DYN_FILE);
	hits += scan_formats(_metadata, EVENTS_DIR, &files);
	hits += scan_formats(_metadata, MULTI_DIR, &files);
	ASSERT_LE(3, files);

	/*
	 * What user_events printed in the whole kernel log, all the other
	 * tests' messages included: its lines carry its prefix. The rest
	 * of the kernel is not ours to judge (a clocksource prints an
	 * all-ones mask, for one).
	 */
	size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	ASSERT_LT(0, size);
	log = calloc(1, size + 1);
	ASSERT_NE(0, (uintptr_t)log);
	len = klogctl(3, log, size);	/* SYSLOG_ACTION_READ_ALL */
	ASSERT_LT(0, len);
	log[len] = '\0';
	lines_with(log, "user_events: ");
	EXPECT_NE(0, log[0]) {
		TH_LOG("no line of user_events in the kernel log to scan");
	}
	hits += kernel_addrs(_metadata, "kernel log", log);
	free(log);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
	ASSERT_EQ(0, ue_unreg_fd(fd, &mword, 0));
	close(fd);
	ASSERT_EQ(0, hits);
}

TEST_HARNESS_MAIN
