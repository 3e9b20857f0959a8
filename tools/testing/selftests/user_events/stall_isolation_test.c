// SPDX-License-Identifier: GPL-2.0
/*
 * A fault that a process controls delays only the bits of that process
 * (Documentation/trace/user_events.rst: "A fault that waits (for I/O,
 * for a FUSE server, for a userfaultfd monitor) delays only the bits of
 * that process").
 *
 * Many processes ("stuck" ones) each put an enable word of event STUCK
 * on a page that only their own userfaultfd (missing mode, never served)
 * can provide. When STUCK is enabled, the kernel's bit writer meets each
 * of these faults; it may wait in one only on behalf of its process.
 *
 * Another process (the bystander) has the word of an unrelated event on
 * a page that needs an ordinary fault (MADV_DONTNEED of anonymous
 * memory): once that event is enabled, its bit must be set within the
 * worker's bound, UE_FAULT_MS, however many other processes wait on
 * their own userfaultfd.
 *
 * Variants: a few stuck processes (the bystander is served) and more
 * stuck processes than a workqueue runs at a time (WQ_UNBOUND_MAX_ACTIVE
 * is 512 on machines with up to 128 CPUs).
 *
 * userfaultfd that catches faults taken by the kernel needs
 * CAP_SYS_PTRACE or vm.unprivileged_userfaultfd=1; a FUSE server can do
 * the same without either.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <linux/userfaultfd.h>

#include "user_events_selftests.h"

#define EV_STUCK	"__stall_stuck"
#define EV_STUCK_CMD	EV_STUCK " u32 a"
#define EV_BYST		"__stall_bystander"
#define EV_BYST_CMD	EV_BYST " u32 a"

/* How long the stuck processes get to reach their fault, at most */
#define STUCK_WAIT_MS	90000

struct stall_shared {
	int ready;	/* stuck processes registered and armed */
	int waiting;	/* stuck processes whose fault is pending */
};

FIXTURE(stall) {
	struct stall_shared *sh;
	pid_t *pids;
	int nr;
	bool umount;
};

FIXTURE_VARIANT(stall) {
	int stuck;
};

FIXTURE_VARIANT_ADD(stall, few_stuck_processes) {
	.stuck = 16,
};

FIXTURE_VARIANT_ADD(stall, more_stuck_processes_than_workers) {
	.stuck = 530,
};

static void stall_cleanup(void)
{
	ue_enable(EV_STUCK, 0);
	ue_enable(EV_BYST, 0);
	ue_cleanup_event(EV_STUCK);
	ue_cleanup_event(EV_BYST);
}

FIXTURE_SETUP(stall) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	stall_cleanup();
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	self->pids = calloc(variant->stuck, sizeof(pid_t));
	ASSERT_NE(NULL, self->pids);
	self->nr = 0;
	/* Persistent: the stuck processes share it */
	ASSERT_EQ(0, ue_dyn_write("u:" EV_STUCK_CMD));
}

FIXTURE_TEARDOWN(stall) {
	int i;

	for (i = 0; i < self->nr; i++)
		kill(self->pids[i], SIGKILL);
	for (i = 0; i < self->nr; i++)
		waitpid(self->pids[i], NULL, 0);
	free(self->pids);
	stall_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * A stuck process: its word of STUCK lies on a page that only its own
 * userfaultfd can provide, and it never provides it.
 */
static void stuck_process(struct stall_shared *sh)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {0};
	long page = sysconf(_SC_PAGESIZE);
	struct pollfd pfd;
	int *word, fd, uffd;

	word = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (word == MAP_FAILED)
		_exit(1);
	*word = 0;

	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0 || ue_reg_fd(fd, EV_STUCK_CMD, word, 0, sizeof(int), 0,
				NULL))
		_exit(2);

	/* Non-blocking: poll() on a blocking one reports POLLERR at once */
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		_exit(3);
	reg.range.start = (unsigned long)word;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		_exit(4);
	if (madvise(word, page, MADV_DONTNEED))
		_exit(5);

	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);

	/* The kernel's fault on the word shows here; it is never served */
	pfd.fd = uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, -1) == 1 && (pfd.revents & POLLIN))
		__atomic_add_fetch(&sh->waiting, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pause();
}

/*
 * Logs how many unbound kworkers exist and how many of them wait in a
 * userfaultfd, and which CPUs are possible (the workqueue's limit of
 * concurrent items depends on their number).
 */
static void log_workers(void)
{
	int total = 0, in_uffd = 0;
	char path[300], *text;
	struct dirent *d;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc)
		return;
	while ((d = readdir(proc))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		text = ue_read_file(path);
		if (!text || strncmp(text, "kworker/u", 9)) {
			free(text);
			continue;
		}
		free(text);
		total++;
		snprintf(path, sizeof(path), "/proc/%s/wchan", d->d_name);
		text = ue_read_file(path);
		if (text && strstr(text, "userfault"))
			in_uffd++;
		free(text);
	}
	closedir(proc);
	text = ue_read_file("/sys/devices/system/cpu/possible");
	ksft_print_msg("unbound kworkers: %d, %d of them in a userfaultfd; possible CPUs: %s",
		       total, in_uffd, text ? text : "?\n");
	fflush(stdout);
	free(text);
}

/*
 * Waits up to @ms for *@counter to reach @want, or (@settle) to stay
 * the same, and not 0, for 3 s; returns its value.
 */
static int wait_count(int *counter, int want, int ms, bool settle)
{
	long end = ue_now_ms() + ms, since = ue_now_ms();
	int n, last = -1;

	while ((n = __atomic_load_n(counter, __ATOMIC_SEQ_CST)) < want &&
	       ue_now_ms() < end) {
		if (n != last) {
			last = n;
			since = ue_now_ms();
		} else if (settle && n && ue_now_ms() - since > 3000) {
			break;
		}
		ue_sleep_ms(20);
	}

	return n;
}

TEST_F_TIMEOUT(stall, bystander_bit_not_delayed, 600)
{
	long page = sysconf(_SC_PAGESIZE);
	int *word, waiting, i, n;
	long start;
	bool set;
	pid_t pid;

	for (i = 0; i < variant->stuck; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			stuck_process(self->sh);
		self->pids[self->nr++] = pid;
	}
	n = wait_count(&self->sh->ready, variant->stuck, STUCK_WAIT_MS, false);
	ASSERT_EQ(variant->stuck, n) {
		TH_LOG("not every stuck process armed its userfaultfd");
	}

	/* The bystander's word needs an ordinary fault */
	word = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, ue_reg(EV_BYST_CMD, word, 0, sizeof(int), 0)) {
		TH_LOG("register the bystander: %s", strerror(errno));
	}
	ASSERT_EQ(0, madvise(word, page, MADV_DONTNEED));

	/* Every stuck process now has the kernel wait in its fault */
	ASSERT_EQ(0, ue_enable(EV_STUCK, 1));
	waiting = wait_count(&self->sh->waiting, variant->stuck,
			     variant->stuck > 100 ? 30000 : 10000, true);
	ksft_print_msg("%d of %d stuck processes have a fault pending\n",
		       waiting, variant->stuck);
	fflush(stdout);

	start = ue_now_ms();
	ASSERT_EQ(0, ue_enable(EV_BYST, 1));
	set = ue_wait_int(word, 1, UE_FAULT_MS);
	ksft_print_msg("bystander bit %s after %ld ms\n",
		       set ? "set" : "still clear", ue_now_ms() - start);
	fflush(stdout);
	log_workers();
	EXPECT_TRUE(set) {
		TH_LOG("bystander's bit not written within %d ms, %d others wait",
		       UE_FAULT_MS, waiting);
	}

	/* What held the bystander up goes with the stuck processes */
	if (!set) {
		start = ue_now_ms();
		for (i = 0; i < self->nr; i++)
			kill(self->pids[i], SIGKILL);
		for (i = 0; i < self->nr; i++)
			waitpid(self->pids[i], NULL, 0);
		self->nr = 0;
		set = ue_wait_int(word, 1, UE_FAULT_MS);
		ksft_print_msg("stuck ones killed: bystander bit %s %ld ms later\n",
			       set ? "set" : "still clear",
			       ue_now_ms() - start);
		fflush(stdout);
	}

	ASSERT_EQ(0, ue_enable(EV_BYST, 0));
	ASSERT_EQ(0, ue_enable(EV_STUCK, 0));
	ASSERT_EQ(0, ue_unreg(word, 0));
	munmap(word, page);
}

TEST_HARNESS_MAIN
