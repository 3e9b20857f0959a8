// SPDX-License-Identifier: GPL-2.0
/*
 * user_events bits in pages that need a fault, in every kind of writable
 * mapping: the kernel's worker faults the page in and writes the bit, the
 * process never touches it.
 *
 * Each variant registers an enable word in one kind of mapping, then makes
 * the page need a fault before each change of the event: MADV_DONTNEED
 * and a read leave the page absent or mapped read-only (the zero page of
 * anonymous memory; a page cache page of a shared file mapping; a private
 * file page not mapped at all). The bit must follow enable and disable
 * within the worker's bound (UE_FAULT_MS), and the worker must then go
 * idle: no run of it while nothing changes.
 *
 * Except where the fault goes to the file system: a shared file page,
 * whose first write goes to its page_mkwrite, and a private file page
 * that is not mapped, which must be read (ramfs here; FUSE in
 * fuse_stall_test). A file system may wait for anything there, whatever
 * the fault flags ask: the worker never asks it. It gives the bit up like
 * an unwritable word, and the next change of the event writes it once
 * the process has written to its page itself.
 *
 * A word that can never be written (its mapping made read-only after the
 * registration) is given up after a bounded number of attempts, with one
 * "Fault for mm" line in the kernel log, and then costs nothing: the
 * worker does not run again until the event changes.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>

#include "user_events_selftests.h"

#define EVENT		"__worker_event"
#define EVENT_CMD	EVENT " u32 v"
#define RAMFS_DIR	"/tmp/__worker_ramfs"
#define TMPFS_FILE	"/tmp/__worker_tmpfs"
#define WQ_EVENT_DIR	TRACEFS_DIR "/events/workqueue/workqueue_execute_start"
#define WQ_INSTANCE	TRACEFS_DIR "/instances/__worker"
#define WORKER_FUNC	"user_event_mm_work"
#define WQ_ENABLE	WQ_INSTANCE "/events/workqueue/workqueue_execute_start/enable"
#define IDLE_MS		2000

enum mapping {
	MAP_ANON_PRIVATE,	/* anonymous private memory */
	MAP_MEMFD_SHARED,	/* shmem through memfd_create() */
	MAP_TMPFS_SHARED,	/* a file on tmpfs */
	MAP_RAMFS_SHARED,	/* a file on ramfs: page_mkwrite */
	MAP_RAMFS_PRIVATE,	/* a private file page never mapped */
};

/* Where the page that need_fault() leaves needs the file system */
static bool fs_fault(enum mapping mapping)
{
	return mapping == MAP_RAMFS_SHARED || mapping == MAP_RAMFS_PRIVATE;
}

FIXTURE(worker) {
	long page;
	char *map;
	int fd;
	bool ramfs;
	bool umount;
};

FIXTURE_VARIANT(worker) {
	enum mapping mapping;
};

FIXTURE_VARIANT_ADD(worker, anon_private) {
	.mapping = MAP_ANON_PRIVATE,
};

FIXTURE_VARIANT_ADD(worker, memfd_shared) {
	.mapping = MAP_MEMFD_SHARED,
};

FIXTURE_VARIANT_ADD(worker, tmpfs_shared) {
	.mapping = MAP_TMPFS_SHARED,
};

FIXTURE_VARIANT_ADD(worker, ramfs_shared) {
	.mapping = MAP_RAMFS_SHARED,
};

FIXTURE_VARIANT_ADD(worker, ramfs_private) {
	.mapping = MAP_RAMFS_PRIVATE,
};

/* A file of one page, filled with zeros, or -1 */
static int page_file(const char *path, long page)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, page)) {
		close(fd);
		return -1;
	}

	return fd;
}

FIXTURE_SETUP(worker) {
	int flags = MAP_SHARED;

	self->fd = -1;
	self->map = MAP_FAILED;
	self->ramfs = false;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
	rmdir(WQ_INSTANCE);
	self->page = sysconf(_SC_PAGESIZE);

	switch (variant->mapping) {
	case MAP_ANON_PRIVATE:
		break;
	case MAP_MEMFD_SHARED:
		self->fd = memfd_create("__worker", 0);
		ASSERT_LE(0, self->fd);
		ASSERT_EQ(0, ftruncate(self->fd, self->page));
		break;
	case MAP_TMPFS_SHARED:
		self->fd = page_file(TMPFS_FILE, self->page);
		ASSERT_LE(0, self->fd);
		break;
	case MAP_RAMFS_SHARED:
	case MAP_RAMFS_PRIVATE:
		mkdir(RAMFS_DIR, 0700);
		ASSERT_EQ(0, mount("none", RAMFS_DIR, "ramfs", 0, NULL)) {
			TH_LOG("mount ramfs: %s", strerror(errno));
		}
		self->ramfs = true;
		self->fd = page_file(RAMFS_DIR "/page", self->page);
		ASSERT_LE(0, self->fd);
		if (variant->mapping == MAP_RAMFS_PRIVATE)
			flags = MAP_PRIVATE;
		break;
	}

	if (self->fd < 0)
		self->map = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		self->map = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
				 flags, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->map);
}

FIXTURE_TEARDOWN(worker) {
	if (self->map != MAP_FAILED) {
		ue_unreg(self->map, 0);
		munmap(self->map, self->page);
	}
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
	ue_write_str(WQ_ENABLE, "0", 0);
	rmdir(WQ_INSTANCE);
	if (self->fd >= 0)
		close(self->fd);
	unlink(TMPFS_FILE);
	if (self->ramfs)
		umount(RAMFS_DIR);
	rmdir(RAMFS_DIR);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * Leaves the page of @map needing a fault for a write, keeping what it
 * holds. A shared mapping drops the page (the file keeps it) and reads
 * it back, which maps it read-only. A private mapping cannot drop its
 * page without losing the bit: a child forked and kept waiting makes it
 * copy-on-write instead; its pid goes to *@child, to be killed after.
 * @fresh: the private page holds nothing yet, drop it (an anonymous one
 * is then read back as the zero page, a file one stays unmapped).
 */
static int need_fault(enum mapping mapping, char *map, long page,
		      bool fresh, pid_t *child)
{
	bool shared = mapping != MAP_ANON_PRIVATE &&
		      mapping != MAP_RAMFS_PRIVATE;

	*child = -1;
	if (shared || fresh) {
		if (madvise(map, page, MADV_DONTNEED))
			return -1;
		if (mapping != MAP_RAMFS_PRIVATE)
			(void)ue_load((int *)map);
		return 0;
	}

	*child = fork();
	if (*child < 0)
		return -1;
	if (*child == 0) {
		pause();
		_exit(0);
	}

	return 0;
}

static void end_child(pid_t child)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
}

/* Waits up to UE_FAULT_MS for the "Fault for mm" lines to become @want */
static int wait_fault_lines(int want)
{
	long end = ue_now_ms() + UE_FAULT_MS;
	int lines;

	while ((lines = ue_fault_lines()) != want && ue_now_ms() < end)
		ue_sleep_ms(10);

	return lines;
}

/*
 * Runs of the user_events worker during @ms, counted from the
 * workqueue_execute_start events of a trace instance of its own; -1 when
 * the tracepoint cannot be used.
 */
static int worker_runs(int ms)
{
	char *text, *at;
	int n = 0;

	if (!ue_exists(WQ_EVENT_DIR))
		return -1;
	if (!ue_exists(WQ_INSTANCE) && mkdir(WQ_INSTANCE, 0755))
		return -1;
	if (ue_write_str(WQ_INSTANCE "/trace", "", O_TRUNC) ||
	    ue_write_str(WQ_ENABLE, "1", 0))
		return -1;
	ue_sleep_ms(ms);
	if (ue_write_str(WQ_ENABLE, "0", 0))
		return -1;
	text = ue_read_file(WQ_INSTANCE "/trace");
	if (!text)
		return -1;
	for (at = text; (at = strstr(at, WORKER_FUNC)); at++)
		n++;
	free(text);

	return n;
}

TEST_F(worker, bit_follows_without_the_process)
{
	int *word = (int *)self->map;
	bool set, cleared;
	int runs, lines;
	pid_t child;

	ASSERT_EQ(0, ue_reg(EVENT_CMD, word, 0, sizeof(int), 0)) {
		TH_LOG("register: %s", strerror(errno));
	}
	ASSERT_EQ(0, ue_load(word));

	ASSERT_EQ(0, need_fault(variant->mapping, self->map, self->page, true,
				&child));
	if (fs_fault(variant->mapping)) {
		lines = ue_fault_lines();
		ASSERT_LE(0, lines);
		ASSERT_EQ(0, ue_enable(EVENT, 1));
		ASSERT_EQ(lines + 1, wait_fault_lines(lines + 1)) {
			TH_LOG("want one \"Fault for mm\" line: the worker asks no file system");
		}
		ASSERT_EQ(0, ue_load(word));

		/* Written at once by the next change after the process wrote */
		ue_touch_word(word);
		ASSERT_EQ(0, ue_enable(EVENT, 0));
		ASSERT_EQ(0, ue_enable(EVENT, 1));
		ASSERT_EQ(1, ue_load(word));
		ASSERT_EQ(0, ue_enable(EVENT, 0));
		ASSERT_EQ(0, ue_load(word));
		ASSERT_EQ(0, ue_unreg(word, 0));
		return;
	}
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	set = ue_wait_int(word, 1, UE_FAULT_MS);
	end_child(child);
	ASSERT_TRUE(set) {
		TH_LOG("the bit was not set within %d ms", UE_FAULT_MS);
	}

	ASSERT_EQ(0, need_fault(variant->mapping, self->map, self->page, false,
				&child));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	cleared = ue_wait_int(word, 0, UE_FAULT_MS);
	end_child(child);
	ASSERT_TRUE(cleared) {
		TH_LOG("the bit was not cleared within %d ms", UE_FAULT_MS);
	}

	/* Nothing is dirty any more: the worker does not run */
	runs = worker_runs(IDLE_MS);
	if (runs < 0)
		SKIP(return, "no workqueue_execute_start event to count with");
	ASSERT_EQ(0, runs) {
		TH_LOG("the worker ran %d times after the bit was written",
		       runs);
	}

	ASSERT_EQ(0, ue_unreg(word, 0));
}

TEST_F(worker, unwritable_word_given_up)
{
	int *word = (int *)self->map;
	int lines, runs;
	pid_t child;

	ASSERT_EQ(0, ue_reg(EVENT_CMD, word, 0, sizeof(int), 0));
	lines = ue_fault_lines();
	ASSERT_LE(0, lines);

	/* Registered while writable; now nothing can write the word */
	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ));
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	/* The worker gives up within its bound, and says so once */
	ASSERT_EQ(lines + 1, wait_fault_lines(lines + 1)) {
		TH_LOG("want one \"Fault for mm\" line for the given up word");
	}
	EXPECT_EQ(0, ue_load(word));

	runs = worker_runs(IDLE_MS);
	if (runs < 0)
		SKIP(return, "no workqueue_execute_start event to count with");
	ASSERT_EQ(0, runs) {
		TH_LOG("the worker ran %d times after it gave up", runs);
	}
	ASSERT_EQ(lines + 1, ue_fault_lines());

	/* Writable again: the next change of the event writes it */
	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, need_fault(variant->mapping, self->map, self->page, true,
				&child));
	if (fs_fault(variant->mapping))
		ue_touch_word(word);
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(word, 1, UE_FAULT_MS));
	end_child(child);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_TRUE(ue_wait_int(word, 0, UE_FAULT_MS));
	ASSERT_EQ(0, ue_unreg(word, 0));
}

/* TEST_HARNESS_MAIN, with the case timeouts of a slow guest */
static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	/* Slow guests: the worker's retries and the faults take longer */
	ue_scale_case_timeouts();
	return test_harness_run(argc, argv);
}
