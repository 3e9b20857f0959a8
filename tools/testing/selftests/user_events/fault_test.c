// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fault tests: enable words whose page is dropped, shared
 * copy-on-write, write-protected, unmapped or replaced while registered,
 * and write payloads that are not (fully) mapped.
 *
 * The kernel sets and clears enable bits with FOLL_NOFAULT pins; when the
 * page is not present or not writable it faults it in from a worker, so
 * the first bit update after such a change is asynchronous and waited for
 * here (bounded, UE_FAULT_MS); once the page is back, updates are
 * immediate again. A page that cannot be made writable (read-only or
 * unmapped) only logs "user_events: Fault for mm" (rate limited) and
 * leaves the word alone; the next tracer change tries again. A
 * registration or unregistration faults the page in itself and writes
 * its bit at once.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>

#include "user_events_selftests.h"

#define EVENT		"__fault_event"
#define EVENT_CMD	EVENT " u32 count"
#define EVENT2		"__fault_event2"
#define EVENT2_CMD	EVENT2 " u32 count"
#define WAIT_MS		UE_FAULT_MS

FIXTURE(fault) {
	bool umount;
	long page;
	char *map;
	int data_fd;
	int memfd;
};

static void fault_cleanup(void)
{
	ue_enable(EVENT, 0);
	ue_enable(EVENT2, 0);
	ue_cleanup_event(EVENT);
	ue_cleanup_event(EVENT2);
}

FIXTURE_SETUP(fault) {
	self->map = MAP_FAILED;
	self->data_fd = -1;
	self->memfd = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	fault_cleanup();
	self->page = sysconf(_SC_PAGESIZE);
	self->map = mmap(NULL, self->page * 2, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)self->map);
	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(fault) {
	if (self->data_fd >= 0)
		close(self->data_fd);
	if (self->memfd >= 0)
		close(self->memfd);
	if (self->map != MAP_FAILED)
		munmap(self->map, self->page * 2);
	fault_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* The page was dropped: the enable faults it back in and sets the bit */
TEST_F(fault, dontneed_then_enable) {
	int *word = (int *)self->map;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 5, 4,
			       0, NULL));
	*word = 0;
	ASSERT_EQ(0, madvise(self->map, self->page, MADV_DONTNEED));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(word, 1 << 5, WAIT_MS));

	/* Present again: the next updates are immediate */
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 5, *word);

	ASSERT_EQ(0, madvise(self->map, self->page, MADV_DONTNEED));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(word, 1 << 5, WAIT_MS));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, (void *)word, 5));
}

/*
 * Another thread drops the page of the enable word over and over, as an
 * allocator that returns memory would (MADV_DONTNEED). The word stays
 * mapped writable all along, so every registration and unregistration
 * succeeds, however often the kernel finds the page gone: it faults the
 * page in itself. Each round waits for a drop more, so that the other
 * thread keeps up even on one CPU.
 */
#define DROP_ROUNDS	2000

struct dropper {
	char *page;
	long size;
	bool stop;		/* atomic: set by the registering thread */
	long drops;		/* atomic */
};

static void *drop_main(void *arg)
{
	struct dropper *d = arg;

	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		madvise(d->page, d->size, MADV_DONTNEED);
		__atomic_add_fetch(&d->drops, 1, __ATOMIC_RELAXED);
	}

	return NULL;
}

TEST_F(fault, register_while_page_dropped) {
	struct dropper d = { .page = self->map, .size = self->page };
	long rounds, reg_failed = 0, unreg_failed = 0;
	int *word = (int *)self->map;
	pthread_t thread;
	int err = 0;

	/* Traced: registering sets the bit, unregistering clears it */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 3, 4,
			       0, NULL));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, (void *)word, 3));
	ASSERT_EQ(0, pthread_create(&thread, NULL, drop_main, &d));

	for (rounds = 0; rounds < DROP_ROUNDS; rounds++) {
		while (__atomic_load_n(&d.drops, __ATOMIC_RELAXED) <= rounds)
			sched_yield();
		if (ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 3, 4,
			      0, NULL)) {
			reg_failed++;
			err = errno;
			continue;
		}
		if (ue_unreg_fd(self->data_fd, (void *)word, 3)) {
			unreg_failed++;
			err = errno;
		}
	}
	__atomic_store_n(&d.stop, true, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	TH_LOG("%ld rounds against %ld drops of the page", rounds, d.drops);
	ASSERT_EQ(0, reg_failed) {
		TH_LOG("%ld registrations failed, the last with %s",
		       reg_failed, strerror(err));
	}
	ASSERT_EQ(0, unreg_failed) {
		TH_LOG("%ld unregistrations failed, the last with %s",
		       unreg_failed, strerror(err));
	}

	/* The page stays now: the bit follows at once */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 3, 4,
			       0, NULL));
	ASSERT_EQ(1 << 3, ue_load(word));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_load(word));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, (void *)word, 3));
}

/* After fork the page is COW-shared: each process gets its own update */
TEST_F(fault, cow_after_fork) {
	int *word = (int *)self->map;
	int sync[2], back[2];
	char c = 0;
	pid_t pid;

	*word = 0;
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 3, 4,
			       0, NULL));
	ASSERT_EQ(0, pipe(sync));
	ASSERT_EQ(0, pipe(back));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		/* Child: see the bit set, report, then see it cleared */
		UE_CHILD_CHECK(ue_wait_int(word, 1 << 3, WAIT_MS));
		UE_CHILD_EQ(1, write(back[1], &c, 1));
		UE_CHILD_EQ(1, read(sync[0], &c, 1));
		/*
		 * Another process's word is updated at once only when its
		 * fault worker, which set this bit, has let go of its lock
		 */
		UE_CHILD_CHECK(ue_wait_int(word, 0, WAIT_MS));
		_exit(0);
	}

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(word, 1 << 3, WAIT_MS));
	ASSERT_EQ(1, read(back[0], &c, 1));
	/* The parent's copy was faulted in: immediate; the child's waits */
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(1, write(sync[1], &c, 1));
	ASSERT_CHILD_OK(pid);
	close(sync[0]);
	close(sync[1]);
	close(back[0]);
	close(back[1]);
}

/*
 * An initialised global variable, the usual home of an enable word: it
 * lives in the program's private mapping of its own file (.data).
 */
static int data_word = 1 << 20;

/* Whether @addr is in a private mapping of a file, from /proc/self/maps */
static bool in_private_file_mapping(const void *addr)
{
	unsigned long start, end, a = (unsigned long)addr;
	char line[512], perms[8], path[256];
	bool found = false;
	FILE *maps;

	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return false;
	while (!found && fgets(line, sizeof(line), maps)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &start, &end,
			   perms, path) < 3)
			continue;
		found = a >= start && a < end && perms[3] == 'p' &&
			path[0] == '/';
	}
	fclose(maps);

	return found;
}

/*
 * The same in .data: after fork the page is shared copy-on-write in a
 * file mapping, and the worker breaks the copy-on-write for each process
 */
TEST_F(fault, cow_after_fork_data_word) {
	int *word = &data_word;
	int sync[2], back[2];
	char c = 0;
	pid_t pid;

	if (!in_private_file_mapping(word))
		SKIP(return, "the linker did not put data_word in a file mapping");
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 3, 4,
			       0, NULL));
	ASSERT_EQ(1 << 20, *word);
	ASSERT_EQ(0, pipe(sync));
	ASSERT_EQ(0, pipe(back));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		UE_CHILD_CHECK(ue_wait_int(word, 1 << 20 | 1 << 3, WAIT_MS));
		UE_CHILD_EQ(1, write(back[1], &c, 1));
		UE_CHILD_EQ(1, read(sync[0], &c, 1));
		/*
		 * Another process's word is updated at once only when its
		 * fault worker, which set this bit, has let go of its lock
		 */
		UE_CHILD_CHECK(ue_wait_int(word, 1 << 20, WAIT_MS));
		_exit(0);
	}

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(word, 1 << 20 | 1 << 3, WAIT_MS));
	ASSERT_EQ(1, read(back[0], &c, 1));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(1 << 20, *word);
	ASSERT_EQ(1, write(sync[1], &c, 1));
	ASSERT_CHILD_OK(pid);
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, (void *)word, 3));
	close(sync[0]);
	close(sync[1]);
	close(back[0]);
	close(back[1]);
}

/* Registering on a read-only page fails as a whole */
TEST_F(fault, register_read_only) {
	int before = ue_active_count();

	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ));
	ASSERT_EQ(-1, ue_reg_fd(self->data_fd, EVENT_CMD, self->map, 0, 4,
				0, NULL));
	ASSERT_EQ(EFAULT, errno);
	/* The event it created is removed again, at once */
	ASSERT_EQ(before, ue_active_count());
	ASSERT_FALSE(ue_event_exists(EVENT));
}

/*
 * Write-protected after registration: enabling cannot set the bit (the
 * fault-in fails and is logged). Once writable again, the next tracer
 * change sets it.
 */
TEST_F(fault, mprotect_read_only_after_register) {
	int *word = (int *)self->map;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 7, 4,
			       0, NULL));
	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ue_sleep_ms(300);
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EVENT, 0));

	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(word, 1 << 7, WAIT_MS));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, (void *)word, 7));
}

/*
 * Unmapped while registered: tracer changes leave it alone; the other
 * enablers (own and a forked child's copy) keep being updated. The
 * unregister removes the enabler but cannot clear the bit: EFAULT.
 */
TEST_F(fault, munmap_while_registered) {
	int *gone = (int *)self->map;
	int *other = (int *)(self->map + self->page);
	int sync[2], back[2];
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)gone, 1, 4,
			       0, NULL));
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)other, 2, 4,
			       0, NULL));
	ASSERT_EQ(0, pipe(sync));
	ASSERT_EQ(0, pipe(back));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		/* Child keeps its copy of the page the parent unmaps */
		UE_CHILD_CHECK(ue_wait_int(gone, 1 << 1, WAIT_MS));
		UE_CHILD_EQ(1, write(back[1], &c, 1));
		UE_CHILD_EQ(1, read(sync[0], &c, 1));
		/*
		 * Another process's word is updated at once only when its
		 * fault worker, which set this bit, has let go of its lock
		 */
		UE_CHILD_CHECK(ue_wait_int(gone, 0, WAIT_MS));
		_exit(0);
	}

	ASSERT_EQ(0, munmap(self->map, self->page));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(other, 1 << 2, WAIT_MS));
	ASSERT_EQ(1, read(back[0], &c, 1));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *other);
	ASSERT_EQ(1, write(sync[1], &c, 1));
	ASSERT_CHILD_OK(pid);

	ASSERT_EQ(-1, ue_unreg_fd(self->data_fd, (void *)gone, 1));
	ASSERT_EQ(EFAULT, errno);
	/* The enabler is gone all the same */
	ASSERT_EQ(-1, ue_unreg_fd(self->data_fd, (void *)gone, 1));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, (void *)other, 2));

	/* Teardown unmaps only what is left */
	munmap(self->map + self->page, self->page);
	self->map = MAP_FAILED;
	close(sync[0]);
	close(sync[1]);
	close(back[0]);
	close(back[1]);
}

/* The address now belongs to a shared file mapping: that file is updated */
TEST_F(fault, remapped_to_file) {
	int *word = (int *)self->map;
	int value = -1;
	void *map;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 9, 4,
			       0, NULL));
	self->memfd = memfd_create("ue_fault", 0);
	ASSERT_NE(-1, self->memfd);
	ASSERT_EQ(0, ftruncate(self->memfd, self->page));

	map = mmap(self->map, self->page, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_FIXED, self->memfd, 0);
	ASSERT_EQ((uintptr_t)self->map, (uintptr_t)map);
	/* Not faulted in yet: the kernel has to do it */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(word, 1 << 9, WAIT_MS));
	ASSERT_EQ(4, pread(self->memfd, &value, 4, 0));
	ASSERT_EQ(1 << 9, value);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(4, pread(self->memfd, &value, 4, 0));
	ASSERT_EQ(0, value);
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, (void *)word, 9));
}

/* Unmapped or partly unmapped payloads: EFAULT and nothing recorded */
TEST_F(fault, write_payload_unmapped) {
	int *word = (int *)self->map;
	char *hole = self->map + self->page;
	struct iovec io[2];
	__u32 count = 42;
	long size;
	int idx;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, (void *)word, 0, 4,
			       0, &idx));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_TRUE(ue_wait_int(word, 1, WAIT_MS));
	ASSERT_EQ(0, ue_clear_trace());

	io[0].iov_base = &idx;
	io[0].iov_len = sizeof(idx);
	io[1].iov_base = &count;
	io[1].iov_len = sizeof(count);
	ASSERT_WRITE(8, writev(self->data_fd, io, 2));
	size = ue_trace_size();
	ASSERT_LT(0, size);

	ASSERT_EQ(0, munmap(hole, self->page));

	/* Entirely unmapped */
	io[1].iov_base = hole;
	ASSERT_EQ(-1, writev(self->data_fd, io, 2));
	ASSERT_EQ(EFAULT, errno);

	/* Straddling the end of the mapped page */
	io[1].iov_base = hole - 2;
	ASSERT_EQ(-1, writev(self->data_fd, io, 2));
	ASSERT_EQ(EFAULT, errno);

	/* The index itself is unmapped */
	io[0].iov_base = hole;
	io[1].iov_base = &count;
	ASSERT_EQ(-1, writev(self->data_fd, io, 2));
	ASSERT_EQ(EFAULT, errno);

	ASSERT_EQ(size, ue_trace_size());

	/* A plain write() whose buffer runs into the hole */
	memcpy(hole - 8, &idx, 4);
	memcpy(hole - 4, &count, 4);
	ASSERT_WRITE(8, write(self->data_fd, hole - 8, 8));
	size = ue_trace_size();
	memcpy(hole - 6, &idx, 4);
	ASSERT_EQ(-1, write(self->data_fd, hole - 6, 8));
	ASSERT_EQ(EFAULT, errno);
	memcpy(hole - 4, &idx, 4);
	ASSERT_EQ(-1, write(self->data_fd, hole - 4, 8));
	ASSERT_EQ(EFAULT, errno);

	ASSERT_EQ(size, ue_trace_size());
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, (void *)word, 0));

	munmap(self->map, self->page);
	self->map = MAP_FAILED;
}

/*
 * A page the kernel can never make writable: every tracer change makes
 * each enabler's fault-in fail. The kernel gives up on each (the words
 * stay 0) and warns at most at the printk rate limit (10 lines per 5 s;
 * 20 when the run straddles an interval), not once per failed attempt.
 * Once writable again, the next change sets the bits.
 */
TEST_F(fault, fault_warning_rate_limited) {
	int *words = (int *)self->map;
	int i, before, after;
	long t0;

	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &words[i], 0,
				       4, 0, NULL));
	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ));
	/*
	 * The warning allows 10 lines in 5 s: the faults of earlier tests of
	 * this program must not have used up the current interval.
	 */
	ue_sleep_ms(5100);
	before = ue_fault_lines();
	ASSERT_LE(0, before);

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, ue_enable(EVENT, 1));
		ASSERT_EQ(0, ue_enable(EVENT, 0));
	}
	/*
	 * The fault worker runs asynchronously: its first warning comes
	 * within WAIT_MS, and half a second more lets the others fail and log.
	 */
	t0 = ue_now_ms();
	while (ue_fault_lines() == before && ue_now_ms() - t0 < WAIT_MS)
		ue_sleep_ms(10);
	ue_sleep_ms(500);
	after = ue_fault_lines();
	TH_LOG("%d \"Fault for mm\" lines for 64 enablers and 8 changes",
	       after - before);
	ASSERT_LE(1, after - before);
	ASSERT_GE(20, after - before);
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, words[i]);

	ASSERT_EQ(0, mprotect(self->map, self->page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	for (i = 0; i < 64; i++)
		ASSERT_TRUE(ue_wait_int(&words[i], 1, WAIT_MS));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(0, words[i]);
		ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &words[i], 0));
	}
}

/*
 * A struct user_reg whose write_index straddles two pages, two bytes in
 * each, is a valid registration: the index is stored whole, whatever
 * fault each page needs first.
 */
#define INDEX_SPLIT	2

static struct user_reg *straddling_reg(char *map, long page)
{
	return (struct user_reg *)(map + page - INDEX_SPLIT -
				   offsetof(struct user_reg, write_index));
}

/* The first @len bytes of a registration of @cmd, written to @at */
static void put_reg(void *at, size_t len, const char *cmd, void *addr,
		    int bit)
{
	struct user_reg reg = {0};

	reg.size = sizeof(reg);
	reg.enable_bit = bit;
	reg.enable_size = 4;
	reg.enable_addr = (__u64)(unsigned long)addr;
	reg.name_args = (__u64)(unsigned long)cmd;
	reg.write_index = UE_INDEX_GARBAGE;
	memcpy(at, &reg, len);
}

static __u32 stored_index(struct user_reg *reg)
{
	__u32 index;

	memcpy(&index, (char *)reg + offsetof(struct user_reg, write_index),
	       sizeof(index));

	return index;
}

/* The second page is never touched by this process: the kernel's read */
TEST_F(fault, write_index_across_pages_second_untouched) {
	struct user_reg *reg = straddling_reg(self->map, self->page);
	int *word = (int *)self->map;
	int first = 0;

	/* The fd's first event takes index 0: the index stored here is 1 */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &first, 0, 4, 0,
			       NULL));
	put_reg(reg, sizeof(*reg) - INDEX_SPLIT, EVENT2_CMD, word, 5);

	ASSERT_EQ(0, ioctl(self->data_fd, DIAG_IOCSREG, reg)) {
		TH_LOG("DIAG_IOCSREG: %s", strerror(errno));
	}
	ASSERT_EQ(1, stored_index(reg));

	ASSERT_EQ(0, ue_enable(EVENT2, 1));
	ASSERT_EQ(1 << 5, ue_load(word));
	ASSERT_EQ(0, ue_enable(EVENT2, 0));
	ASSERT_EQ(0, ue_load(word));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, word, 5));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &first, 0));
}

/*
 * Both pages copy-on-write after a fork: in the child, and in the parent
 * after the child registered in its copy.
 */
TEST_F(fault, write_index_across_pages_after_fork) {
	struct user_reg *reg = straddling_reg(self->map, self->page);
	int *word = (int *)self->map;
	pid_t pid;
	int fd;

	put_reg(reg, sizeof(*reg), EVENT2_CMD, word, 6);

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		fd = open(DATA_FILE, O_RDWR);
		UE_CHILD_CHECK(fd >= 0);
		UE_CHILD_EQ(0, ioctl(fd, DIAG_IOCSREG, reg));
		UE_CHILD_EQ(0, stored_index(reg));
		_exit(0);
	}
	ASSERT_CHILD_OK(pid);
	ASSERT_EQ(UE_INDEX_GARBAGE, stored_index(reg));

	ASSERT_EQ(0, ioctl(self->data_fd, DIAG_IOCSREG, reg)) {
		TH_LOG("DIAG_IOCSREG: %s", strerror(errno));
	}
	ASSERT_EQ(0, stored_index(reg));

	ASSERT_EQ(0, ue_enable(EVENT2, 1));
	ASSERT_EQ(1 << 6, ue_load(word));
	ASSERT_EQ(0, ue_enable(EVENT2, 0));
	ASSERT_EQ(0, ue_load(word));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, word, 6));
}

/*
 * Makes each page of the write faults it reads writable again, after it
 * registered a word of its own through the same fd: a registration that
 * waited for it holding that fd's lock would never be served.
 */
struct wp_monitor {
	int uffd;
	int stop[2];		/* a byte in the pipe: stop */
	long page;
	int data_fd;
	int own;		/* the monitor's enable word */
	int own_ret;		/* its registration's result, errno if any */
	int served;		/* atomic */
};

static void *wp_monitor_main(void *arg)
{
	struct wp_monitor *m = arg;
	struct pollfd pfd[2] = {
		{ .fd = m->uffd, .events = POLLIN },
		{ .fd = m->stop[0], .events = POLLIN },
	};
	struct uffdio_writeprotect wp = {0};
	struct uffd_msg msg;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (read(m->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT ||
		    !(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP))
			continue;
		if (!__atomic_load_n(&m->served, __ATOMIC_ACQUIRE) &&
		    ue_reg_fd(m->data_fd, EVENT_CMD, &m->own, 0, 4, 0, NULL))
			m->own_ret = errno;
		/* Mode 0: not write-protected any more, and the fault woken */
		wp.range.start = msg.arg.pagefault.address & ~(m->page - 1);
		wp.range.len = m->page;
		wp.mode = 0;
		if (!ioctl(m->uffd, UFFDIO_WRITEPROTECT, &wp))
			__atomic_add_fetch(&m->served, 1, __ATOMIC_RELEASE);
	}

	return NULL;
}

/*
 * The second page of the index is write-protected through userfaultfd:
 * only the monitor can make it writable, so the kernel cannot store the
 * index without waiting. The registration waits as a write of the
 * process would, holding no lock (the monitor registers through the same
 * fd meanwhile), and stores the index in both pages.
 */
TEST_F(fault, write_index_across_pages_second_write_protected) {
	struct user_reg *reg = straddling_reg(self->map, self->page);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register region = {0};
	struct uffdio_writeprotect wp = {0};
	struct wp_monitor m = { .page = self->page, .data_fd = self->data_fd };
	int *word = (int *)self->map;
	pthread_t thread;
	int ret, err;

	m.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (m.uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(m.uffd, UFFDIO_API, &api));
	if (!(api.features & UFFD_FEATURE_PAGEFAULT_FLAG_WP)) {
		close(m.uffd);
		SKIP(return, "no userfaultfd write protection on this architecture");
	}

	/* Both pages present and written; then the second one protected */
	put_reg(reg, sizeof(*reg), EVENT2_CMD, word, 5);
	region.range.start = (unsigned long)self->map + self->page;
	region.range.len = self->page;
	region.mode = UFFDIO_REGISTER_MODE_WP;
	ASSERT_EQ(0, ioctl(m.uffd, UFFDIO_REGISTER, &region));
	wp.range = region.range;
	wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
	ASSERT_EQ(0, ioctl(m.uffd, UFFDIO_WRITEPROTECT, &wp));
	ASSERT_EQ(0, pipe(m.stop));
	ASSERT_EQ(0, pthread_create(&thread, NULL, wp_monitor_main, &m));

	ret = ioctl(self->data_fd, DIAG_IOCSREG, reg);
	err = errno;
	ASSERT_EQ(1, write(m.stop[1], "", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	close(m.stop[0]);
	close(m.stop[1]);
	close(m.uffd);
	ASSERT_EQ(0, ret) {
		TH_LOG("DIAG_IOCSREG: %s", strerror(err));
	}
	ASSERT_LE(1, __atomic_load_n(&m.served, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, m.own_ret) {
		TH_LOG("the monitor's DIAG_IOCSREG: %s", strerror(m.own_ret));
	}
	/* The monitor's event came first in the fd: index 1 here */
	ASSERT_EQ(1, stored_index(reg));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &m.own, 0));

	ASSERT_EQ(0, ue_enable(EVENT2, 1));
	ASSERT_EQ(1 << 5, ue_load(word));
	ASSERT_EQ(0, ue_enable(EVENT2, 0));
	ASSERT_EQ(0, ue_load(word));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, word, 5));
}

TEST_HARNESS_MAIN
