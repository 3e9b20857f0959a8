// SPDX-License-Identifier: GPL-2.0
/*
 * user_events lifetime invariants, checked through the public files:
 *
 * - kernel.user_events_max holds under concurrent creation: with room
 *   for K more events, racing processes create exactly K, the others get
 *   EMFILE, the Active count (polled meanwhile) never exceeds the limit,
 *   and it comes back to its start once they are gone;
 * - a non-persistent event is deleted within AUTO_DELETE_MS of its last
 *   reference going away, whatever that reference was (an fd, an
 *   enabler dropped by unregister or by exit, ftrace, perf), and not
 *   before;
 * - persistent events survive their creators and need an explicit
 *   delete, which removes them at once;
 * - unregister, close and exit drop their references at once: the next
 *   DIAG_IOCSDEL, "-:" or registration with other fields works without
 *   a retry; so do exit and execve() while another process reads the
 *   memory of the leaving one (and so holds a user of its mm).
 */
#define _GNU_SOURCE
/* /proc/PID/mem offsets are addresses: 2 GiB and more in 32-bit programs */
#define _FILE_OFFSET_BITS 64
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "user_events_selftests.h"

#define PREFIX		"__life"
#define ROOM		50	/* K: events the limit leaves room for */
#define NR_CREATORS	4
#define PER_CREATOR	25	/* attempts of each creator, > ROOM / 4 */
#define AUTO_DELETE_MS	UE_AUTO_DELETE_MS
#define WAIT_MS		UE_AUTO_DELETE_MS
#define ROUNDS		10

FIXTURE(life) {
	int saved_max;		/* user_events_max to restore, or -1 */
	int start_active;
	bool umount;
};

static void life_cleanup(void)
{
	char name[64];
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), PREFIX "_ad%d", i);
		ue_enable(name, 0);
		ue_cleanup_event(name);
	}
	ue_cleanup_event(PREFIX "_p");
	ue_cleanup_event(PREFIX "_dyn");
	ue_cleanup_event(PREFIX "_now");
	ue_cleanup_event(PREFIX "_orphan");
	ue_cleanup_event(PREFIX "_passed");
}

FIXTURE_SETUP(life) {
	self->saved_max = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	life_cleanup();
	self->start_active = ue_active_count();
	ASSERT_LE(0, self->start_active);
}

FIXTURE_TEARDOWN(life) {
	if (self->saved_max >= 0)
		ue_write_max(self->saved_max);
	life_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Shared by the creators, the poller and the parent */
struct race {
	atomic_int go;		/* parent: start creating */
	atomic_int release;	/* parent: creators may exit */
	atomic_int stop;	/* parent: the poller may stop */
	atomic_int created, emfile, other, done;
	atomic_int max_seen, polls;
	atomic_int first_ok;	/* creator * 100 + i of a created event */
};

static void creator(struct race *r, int id)
{
	int words[PER_CREATOR] = {0};
	char cmd[64];
	int fd, i;

	fd = open(DATA_FILE, O_RDWR);
	while (!atomic_load(&r->go))
		;
	for (i = 0; i < PER_CREATOR; i++) {
		snprintf(cmd, sizeof(cmd), PREFIX "_%d_%d u32 v", id, i);
		if (!ue_reg_fd(fd, cmd, &words[i], 0, 4, 0, NULL)) {
			int none = -1;

			atomic_fetch_add(&r->created, 1);
			atomic_compare_exchange_strong(&r->first_ok, &none,
						       id * 100 + i);
		} else if (errno == EMFILE) {
			atomic_fetch_add(&r->emfile, 1);
		} else {
			fprintf(stderr, "# %s: %s\n", cmd, strerror(errno));
			atomic_fetch_add(&r->other, 1);
		}
	}
	atomic_fetch_add(&r->done, 1);

	/* Hold the events (fd and enablers) until told; exit drops all */
	while (!atomic_load(&r->release))
		ue_sleep_ms(5);
	_exit(0);
}

static void poller(struct race *r)
{
	int n;

	while (!atomic_load(&r->stop)) {
		n = ue_active_count();
		if (n > atomic_load(&r->max_seen))
			atomic_store(&r->max_seen, n);
		atomic_fetch_add(&r->polls, 1);
	}
	_exit(0);
}

TEST_F_TIMEOUT(life, max_under_concurrent_creation, 120) {
	pid_t pids[NR_CREATORS + 1];
	int max = ue_read_max(), limit, i, word = 0;
	struct race *r;
	char cmd[64];
	long t0;

	ASSERT_LT(0, max);
	/* Deleted events kept for their records count towards the limit too */
	ASSERT_EQ(0, ue_release_kept()) {
		TH_LOG("deleted events kept for records outside the top buffer");
	}
	self->saved_max = max;
	limit = self->start_active + ROOM;
	ASSERT_EQ(0, ue_write_max(limit));

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)r);
	memset(r, 0, sizeof(*r));
	r->first_ok = -1;

	for (i = 0; i <= NR_CREATORS; i++) {
		pids[i] = fork();
		ASSERT_NE(-1, pids[i]);
		if (pids[i] == 0) {
			if (i == NR_CREATORS)
				poller(r);
			creator(r, i);
		}
	}
	atomic_store(&r->go, 1);

	t0 = ue_now_ms();
	while (atomic_load(&r->done) < NR_CREATORS &&
	       ue_now_ms() - t0 < 60000)
		ue_sleep_ms(10);
	TH_LOG("%d attempts by %d processes: %d created, %d EMFILE, %d other",
	       NR_CREATORS * PER_CREATOR, NR_CREATORS,
	       atomic_load(&r->created), atomic_load(&r->emfile),
	       atomic_load(&r->other));
	EXPECT_EQ(NR_CREATORS, atomic_load(&r->done));
	EXPECT_EQ(ROOM, atomic_load(&r->created));
	EXPECT_EQ(NR_CREATORS * PER_CREATOR - ROOM, atomic_load(&r->emfile));
	EXPECT_EQ(0, atomic_load(&r->other));
	EXPECT_EQ(limit, ue_active_count());

	/* At the limit: an existing event is reused, a new one is refused */
	i = atomic_load(&r->first_ok);
	ASSERT_LE(0, i);
	snprintf(cmd, sizeof(cmd), PREFIX "_%d_%d u32 v", i / 100, i % 100);
	EXPECT_EQ(0, ue_reg(cmd, &word, 0, 4, 0));
	EXPECT_EQ(0, ue_unreg(&word, 0));
	EXPECT_EQ(-1, ue_reg(PREFIX "_new u32 v", &word, 0, 4, 0));
	EXPECT_EQ(EMFILE, errno);

	/* Everything goes away with the creators */
	atomic_store(&r->release, 1);
	for (i = 0; i < NR_CREATORS; i++)
		EXPECT_CHILD_OK(pids[i]);
	t0 = ue_now_ms();
	EXPECT_TRUE(ue_wait_active(self->start_active, AUTO_DELETE_MS));
	TH_LOG("Active back to %d in %ld ms", ue_active_count(),
	       ue_now_ms() - t0);

	atomic_store(&r->stop, 1);
	EXPECT_CHILD_OK(pids[NR_CREATORS]);
	TH_LOG("poller: %d reads of user_events_status, highest Active %d, limit %d",
	       atomic_load(&r->polls), atomic_load(&r->max_seen), limit);
	EXPECT_LT(0, atomic_load(&r->polls));
	EXPECT_GE(limit, atomic_load(&r->max_seen));

	ASSERT_EQ(0, ue_write_max(max));
	self->saved_max = -1;
	ASSERT_EQ(max, ue_read_max());
	munmap(r, sizeof(*r));
}

/* How the last reference of an auto-delete event goes away */
enum last_ref {
	LAST_FD,		/* unregister, then close the fd */
	LAST_UNREG,		/* close the fd, then unregister */
	LAST_EXIT,		/* a child registers and exits */
	LAST_FTRACE,		/* ftrace enabled when the rest went */
	LAST_PERF,		/* perf open when the rest went */
	NR_LAST,
};

static const char * const last_names[] = {
	"fd close", "unregister", "process exit", "ftrace disable",
	"perf close",
};

static int perf_open(const char *name)
{
	char path[256], *id;
	int fd;

	id = ue_read_file(ue_event_file(path, sizeof(path), name, "id"));
	if (!id)
		return -1;
	fd = ue_perf_open(atoi(id));
	free(id);

	return fd;
}

TEST_F(life, auto_delete_bounded) {
	char name[64], cmd[80], enable[256];
	int how, fd, word, pfd, err, longest = 0;
	pid_t pid;
	long t0;

	for (how = 0; how < NR_LAST; how++) {
		if (how == LAST_PERF && !ue_have_perf()) {
			TH_LOG("%s not tried: %s", last_names[how], UE_NO_PERF);
			continue;
		}
		snprintf(name, sizeof(name), PREFIX "_ad%d", how);
		snprintf(cmd, sizeof(cmd), "%s u32 v", name);
		ue_event_file(enable, sizeof(enable), name, "enable");
		word = 0;
		pfd = -1;

		fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, fd);
		if (how == LAST_EXIT) {
			pid = fork();
			ASSERT_NE(-1, pid);
			if (pid == 0) {
				UE_CHILD_EQ(0, ue_reg_fd(fd, cmd, &word, 0, 4, 0,
							 NULL));
				_exit(0);
			}
			close(fd);
			/* The child's exit drops its enabler and its fd */
			ASSERT_CHILD_OK(pid);
			t0 = ue_now_ms();
		} else {
			ASSERT_EQ(0, ue_reg_fd(fd, cmd, &word, 0, 4, 0, NULL));
			ASSERT_EQ(0, how == LAST_FTRACE ? ue_enable(name, 1) : 0);
			pfd = how == LAST_PERF ? perf_open(name) : 0;
			ASSERT_LE(0, pfd);
			/* All references but the last one go */
			if (how != LAST_UNREG)
				ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
			if (how != LAST_FD)
				close(fd);

			/* The last one alone holds the event */
			ASSERT_EQ(-1, ue_del(name));
			err = errno;
			ASSERT_EQ(EBUSY, err) {
				TH_LOG("%s: %s", last_names[how], strerror(err));
			}
			ASSERT_TRUE(ue_exists(enable));

			t0 = ue_now_ms();
			if (how == LAST_FD)
				close(fd);
			ASSERT_EQ(0, how == LAST_UNREG ? ue_unreg(&word, 0) : 0);
			ASSERT_EQ(0, how == LAST_FTRACE ? ue_enable(name, 0) : 0);
			if (how == LAST_PERF)
				close(pfd);
		}

		ASSERT_TRUE(ue_wait_path(enable, false, AUTO_DELETE_MS)) {
			TH_LOG("%s: still there %d ms after the last reference (%s)",
			       name, AUTO_DELETE_MS, last_names[how]);
		}
		t0 = ue_now_ms() - t0;
		TH_LOG("%s: gone %ld ms after the last reference", last_names[how],
		       t0);
		if (t0 > longest)
			longest = t0;
	}
	TH_LOG("longest: %d ms (bound %d ms)", longest, AUTO_DELETE_MS);
	ASSERT_TRUE(ue_wait_active(self->start_active, WAIT_MS));
}

TEST_F(life, persistent_needs_delete) {
	char enable_p[256], enable_d[256];
	int word = 0;
	pid_t pid;

	ue_event_file(enable_p, sizeof(enable_p), PREFIX "_p", "enable");
	ue_event_file(enable_d, sizeof(enable_d), PREFIX "_dyn", "enable");

	/* Made by a process that then exits, and through dynamic_events */
	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		UE_CHILD_EQ(0, ue_reg(PREFIX "_p u32 v", &word, 0, 4,
				      USER_EVENT_REG_PERSIST));
		_exit(0);
	}
	ASSERT_CHILD_OK(pid);
	ASSERT_EQ(0, ue_write_str(DYN_FILE, "u:" PREFIX "_dyn u32 v",
				  O_APPEND));

	/* Used and dropped again, by an enabler and by ftrace */
	ASSERT_EQ(0, ue_reg(PREFIX "_dyn u32 v", &word, 1, 4, 0));
	ASSERT_EQ(0, ue_enable(PREFIX "_dyn", 1));
	ASSERT_EQ(2, word);
	ASSERT_EQ(0, ue_unreg(&word, 1));
	ASSERT_EQ(0, ue_enable(PREFIX "_dyn", 0));

	/*
	 * Unreferenced, and still live events: an event waiting for its
	 * auto-delete would not keep other fields from registering.
	 */
	ASSERT_TRUE(ue_exists(enable_p));
	ASSERT_TRUE(ue_exists(enable_d));
	ASSERT_EQ(self->start_active + 2, ue_active_count());
	ASSERT_EQ(-1, ue_reg(PREFIX "_p u64 w", &word, 2, 4, 0));
	ASSERT_EQ(EADDRINUSE, errno);
	ASSERT_EQ(-1, ue_reg(PREFIX "_dyn u64 w", &word, 2, 4, 0));
	ASSERT_EQ(EADDRINUSE, errno);

	/* An explicit delete removes each at once */
	ASSERT_EQ(0, ue_del(PREFIX "_p"));
	ASSERT_FALSE(ue_exists(enable_p));
	ASSERT_EQ(0, ue_write_str(DYN_FILE, "-:" PREFIX "_dyn u32 v",
				  O_APPEND));
	ASSERT_FALSE(ue_exists(enable_d));
	ASSERT_EQ(self->start_active, ue_active_count());
}

/* Register, unregister and close: the event is unreferenced at once */
static void reg_unreg_close(struct __test_metadata *_metadata,
			    const char *cmd, int flags)
{
	int fd = open(DATA_FILE, O_RDWR);
	int word = 0;

	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, cmd, &word, 0, 4, flags, NULL));
	ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
	close(fd);
}

TEST_F(life, unregister_close_delete_at_once) {
	int i;

	for (i = 0; i < ROUNDS; i++) {
		reg_unreg_close(_metadata, PREFIX "_now u32 v",
				USER_EVENT_REG_PERSIST);
		ASSERT_EQ(0, ue_del(PREFIX "_now")) {
			TH_LOG("round %d: DIAG_IOCSDEL: %s", i, strerror(errno));
		}
		ASSERT_FALSE(ue_event_exists(PREFIX "_now"));
	}
}

TEST_F(life, unregister_close_dyn_delete_at_once) {
	int i;

	for (i = 0; i < ROUNDS; i++) {
		reg_unreg_close(_metadata, PREFIX "_now u32 v",
				USER_EVENT_REG_PERSIST);
		ASSERT_EQ(0, ue_dyn_write("-:" PREFIX "_now u32 v"));
		ASSERT_FALSE(ue_event_exists(PREFIX "_now"));
	}
}

/* The same name with other fields, right after the last user left */
TEST_F(life, unregister_close_register_other_fields) {
	char path[256], *format;
	int i, word = 0, fd;

	ue_event_file(path, sizeof(path), PREFIX "_now", "format");
	for (i = 0; i < ROUNDS; i++) {
		reg_unreg_close(_metadata, PREFIX "_now u32 v", 0);

		fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, fd);
		ASSERT_EQ(0, ue_reg_fd(fd, PREFIX "_now u64 w", &word, 1, 4, 0,
				       NULL)) {
			TH_LOG("round %d: %s", i, strerror(errno));
		}
		ASSERT_EQ(0, ue_unreg_fd(fd, &word, 1));

		/* The new event, with its own fields */
		format = ue_read_file(path);
		ASSERT_NE(0, (uintptr_t)format);
		EXPECT_NE(0, (uintptr_t)strstr(format, "field:u64 w;"));
		EXPECT_EQ(0, (uintptr_t)strstr(format, "field:u32 v;"));
		free(format);
		close(fd);
		ASSERT_TRUE(ue_wait_auto_delete(path));
	}
}

/* A process' exit drops its enablers' and fds' references at once */
TEST_F(life, exit_drops_references_at_once) {
	int word = 0, i;
	pid_t pid;

	for (i = 0; i < ROUNDS; i++) {
		pid = fork();
		ASSERT_NE(-1, pid);
		if (pid == 0) {
			int fd = open(DATA_FILE, O_RDWR);

			/* Keep the fd and the enabler: exit drops both */
			UE_CHILD_EQ(0, ue_reg_fd(fd, PREFIX "_now u32 v", &word,
						 0, 4, USER_EVENT_REG_PERSIST,
						 NULL));
			_exit(0);
		}
		ASSERT_CHILD_OK(pid);
		ASSERT_EQ(0, ue_del(PREFIX "_now")) {
			TH_LOG("round %d: DIAG_IOCSDEL: %s", i, strerror(errno));
		}
		ASSERT_FALSE(ue_event_exists(PREFIX "_now"));
	}
}

/* Reads a process's memory through /proc/PID/mem until told to stop */
struct mm_reader {
	pid_t pid;
	unsigned long addr;
	atomic_int stop;
	atomic_int reads;
	atomic_int err;		/* errno of a read that failed */
	pthread_t thread;
};

static void *mm_reader_run(void *arg)
{
	struct mm_reader *r = arg;
	char path[64];
	int fd, v;

	snprintf(path, sizeof(path), "/proc/%d/mem", r->pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;

	/* Each read holds a user of the mm for a moment */
	while (!atomic_load(&r->stop)) {
		if (pread(fd, &v, sizeof(v), (off_t)r->addr) != sizeof(v)) {
			atomic_store(&r->err, errno ? errno : EIO);
			break;
		}
		atomic_fetch_add(&r->reads, 1);
	}
	close(fd);

	return NULL;
}

/*
 * A child registers a persistent event and waits; two threads read its
 * memory in a loop, so that a user of its mm other than its own task is
 * often held when it leaves the mm. The child then exits or execs; once
 * the parent sees that (waitpid(), or the end of a close-on-exec pipe),
 * the child's references must be gone: DIAG_IOCSDEL returns 0, never
 * EBUSY.
 */
static void leave_with_mm_reader(struct __test_metadata *_metadata,
				 bool exec)
{
	struct mm_reader readers[2];
	int ready[2], go[2], i, round, word = 0;
	char c;
	pid_t pid;

	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
		ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
		pid = fork();
		ASSERT_NE(-1, pid);
		if (pid == 0) {
			int fd = open(DATA_FILE, O_RDWR | O_CLOEXEC);

			close(ready[0]);
			close(go[1]);
			UE_CHILD_EQ(0, ue_reg_fd(fd, PREFIX "_now u32 v", &word,
						 0, 4, USER_EVENT_REG_PERSIST,
						 NULL));
			UE_CHILD_EQ(1, write(ready[1], "r", 1));
			UE_CHILD_EQ(1, read(go[0], &c, 1));
			if (exec) {
				execl("/bin/true", "true", (char *)NULL);
				UE_CHILD_FAIL("execl(/bin/true)");
			}
			_exit(0);
		}
		close(ready[1]);
		close(go[0]);
		ASSERT_EQ(1, read(ready[0], &c, 1));

		for (i = 0; i < 2; i++) {
			readers[i].pid = pid;
			readers[i].addr = (unsigned long)&word;
			atomic_init(&readers[i].stop, 0);
			atomic_init(&readers[i].reads, 0);
			atomic_init(&readers[i].err, 0);
			ASSERT_EQ(0, pthread_create(&readers[i].thread, NULL,
						    mm_reader_run,
						    &readers[i]));
		}
		while (atomic_load(&readers[0].reads) < 10 ||
		       atomic_load(&readers[1].reads) < 10) {
			ASSERT_EQ(0, atomic_load(&readers[0].err) |
				     atomic_load(&readers[1].err)) {
				TH_LOG("reading /proc/%d/mem at %#lx failed", pid,
				       readers[0].addr);
			}
			sched_yield();
		}

		ASSERT_EQ(1, write(go[1], "g", 1));
		if (exec) {
			/* End of file once the exec closed the write end */
			ASSERT_EQ(0, read(ready[0], &c, 1));
		} else {
			ASSERT_CHILD_OK(pid);
		}
		EXPECT_EQ(0, ue_del(PREFIX "_now")) {
			TH_LOG("round %d: DIAG_IOCSDEL: %s", round,
			       strerror(errno));
		}

		for (i = 0; i < 2; i++) {
			atomic_store(&readers[i].stop, 1);
			pthread_join(readers[i].thread, NULL);
		}
		if (exec)
			ASSERT_CHILD_OK(pid);
		close(ready[0]);
		close(go[1]);
		ASSERT_TRUE(ue_cleanup_event(PREFIX "_now"));
	}
}

TEST_F(life, exit_with_mm_reader_drops_at_once) {
	leave_with_mm_reader(_metadata, false);
}

TEST_F(life, exec_with_mm_reader_drops_at_once) {
	leave_with_mm_reader(_metadata, true);
}

/*
 * A fork child outlives the parent that registered: its copies of the
 * enablers and the fd it inherited keep the event, enabling reaches its
 * word at once (its copy of the page is its own and resident), and its
 * exit drops the last references at once.
 */
TEST_F(life, fork_child_outlives_parent) {
	int to_child[2], from_child[2], v;
	pid_t mid, child;
	char c = 0;

	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(from_child));

	mid = fork();
	ASSERT_NE(-1, mid);
	if (mid == 0) {
		static int word;
		int fd = open(DATA_FILE, O_RDWR);

		UE_CHILD_EQ(0, ue_reg_fd(fd, PREFIX "_orphan u32 v", &word, 0,
					 4, USER_EVENT_REG_PERSIST, NULL));
		child = fork();
		if (child == 0) {
			close(to_child[1]);
			close(from_child[0]);
			/* A private copy of the page, before anything is set */
			__atomic_store_n(&word, 0, __ATOMIC_SEQ_CST);
			child = getpid();
			UE_CHILD_EQ(sizeof(child),
				    write(from_child[1], &child, sizeof(child)));
			while (read(to_child[0], &c, 1) == 1) {
				v = ue_load(&word);
				UE_CHILD_EQ(sizeof(v),
					    write(from_child[1], &v, sizeof(v)));
			}
			_exit(0);
		}
		UE_CHILD_CHECK(child > 0);
		_exit(0);
	}
	close(to_child[0]);
	close(from_child[1]);
	ASSERT_CHILD_OK(mid);
	ASSERT_EQ(sizeof(child), read(from_child[0], &child, sizeof(child)));

	/* The registering process is gone; its child holds the event */
	ASSERT_EQ(-1, ue_del(PREFIX "_orphan"));
	ASSERT_EQ(EBUSY, errno);

	ASSERT_EQ(0, ue_enable(PREFIX "_orphan", 1));
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(sizeof(v), read(from_child[0], &v, sizeof(v)));
	ASSERT_EQ(1, v);
	ASSERT_EQ(0, ue_enable(PREFIX "_orphan", 0));
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(sizeof(v), read(from_child[0], &v, sizeof(v)));
	ASSERT_EQ(0, v);

	/* Its exit (at the end of its input) drops the rest */
	close(to_child[1]);
	ASSERT_CHILD_OK(child);
	close(from_child[0]);
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 0));
	ASSERT_EQ(0, ue_del(PREFIX "_orphan")) {
		TH_LOG("DIAG_IOCSDEL after the last exit: %s", strerror(errno));
	}
	ASSERT_FALSE(ue_event_exists(PREFIX "_orphan"));
}

/*
 * Write slots belong to the open file: a file passed to another process
 * (SCM_RIGHTS) keeps its slots after its sender exits, a dup() shares
 * them, and the event lives while any of them is open.
 */
TEST_F(life, passed_fd_keeps_slots) {
	struct {
		int idx;
		__u32 v;
	} rec = { 0, 0x5eed };
	int sock[2], fd, dup_fd, idx;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sock));
	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		static int word;

		close(sock[0]);
		fd = open(DATA_FILE, O_RDWR);
		UE_CHILD_EQ(0, ue_reg_fd(fd, PREFIX "_passed u32 v", &word, 0,
					 4, USER_EVENT_REG_PERSIST, &idx));
		UE_CHILD_EQ(0, ue_send_fd(sock[1], fd, idx));
		_exit(0);
	}
	close(sock[1]);
	fd = ue_recv_fd(sock[0], &idx, -1);
	close(sock[0]);
	ASSERT_LE(0, fd);
	ASSERT_CHILD_OK(pid);

	ASSERT_EQ(-1, ue_del(PREFIX "_passed"));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, ue_clear_trace());
	ASSERT_EQ(0, ue_enable(PREFIX "_passed", 1));
	rec.idx = idx;
	ASSERT_EQ(sizeof(rec), write(fd, &rec, sizeof(rec)));
	dup_fd = dup(fd);
	ASSERT_LE(0, dup_fd);
	close(fd);
	ASSERT_EQ(sizeof(rec), write(dup_fd, &rec, sizeof(rec)));
	ASSERT_EQ(0, ue_enable(PREFIX "_passed", 0));
	ASSERT_EQ(2, ue_trace_count(PREFIX "_passed: v=24301"));

	ASSERT_EQ(-1, ue_del(PREFIX "_passed"));
	ASSERT_EQ(EBUSY, errno);
	close(dup_fd);
	ASSERT_EQ(0, ue_del(PREFIX "_passed")) {
		TH_LOG("DIAG_IOCSDEL after the last close: %s", strerror(errno));
	}
}

/*
 * Threads of a process unregister an address and bit while another
 * thread registers new events at it, each on a new fd. An unregister
 * that comes right after the registration published its enabler takes
 * the event's enabler reference away; the fd's slot must still hold a
 * reference of its own: the event exists until the fd is closed, and a
 * write through the slot gives EBADF (nothing traces it).
 */
#define RACE_ROUNDS	500
#define RACE_THREADS	2

struct unreg_race {
	atomic_int stop;
	atomic_long unregs;
	int word;
	int fd;		/* the threads' own fd */
};

static void *unreg_loop(void *arg)
{
	struct unreg_race *r = arg;

	while (!atomic_load(&r->stop))
		if (!ue_unreg_fd(r->fd, &r->word, 0))
			atomic_fetch_add(&r->unregs, 1);

	return NULL;
}

TEST_F_TIMEOUT(life, register_racing_unregister, 120) {
	struct unreg_race r = { 0 };
	pthread_t threads[RACE_THREADS];
	int i, fd, index, taken = 0;
	__u32 buf[2];
	char cmd[64];

	r.fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, r.fd);
	for (i = 0; i < RACE_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, unreg_loop, &r));

	for (i = 0; i < RACE_ROUNDS; i++) {
		snprintf(cmd, sizeof(cmd), PREFIX "_race%d u32 v", i);
		fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, fd);
		/* The last round's enabler is gone, whoever removed it */
		ASSERT_EQ(0, ue_reg_fd(fd, cmd, &r.word, 0, 4, 0, &index)) {
			TH_LOG("round %d: %s", i, strerror(errno));
		}
		if (ue_unreg_fd(fd, &r.word, 0)) {
			/* A thread was first: the slot keeps the event */
			EXPECT_EQ(ENOENT, errno);
			taken++;
			*strchr(cmd, ' ') = '\0';
			EXPECT_TRUE(ue_event_exists(cmd));
			buf[0] = index;
			buf[1] = i;
			EXPECT_EQ(-1, write(fd, buf, sizeof(buf)));
			EXPECT_EQ(EBADF, errno);
		}
		close(fd);
	}

	atomic_store(&r.stop, 1);
	for (i = 0; i < RACE_THREADS; i++)
		pthread_join(threads[i], NULL);
	close(r.fd);
	TH_LOG("%d of %d registrations lost their enabler to another thread, %ld unregisters",
	       taken, RACE_ROUNDS, atomic_load(&r.unregs));
	/* The unreferenced events go: Active is back to its start */
	EXPECT_TRUE(ue_wait_active(self->start_active, WAIT_MS));
	if (!taken)
		SKIP(return, "no thread ever unregistered first in %d rounds",
		     RACE_ROUNDS);
}

/* TEST_HARNESS_MAIN, with the case timeouts of a slow guest */
static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	/* Slow guests: two threads reading the child's memory in a loop */
	ue_scale_case_timeouts();
	return test_harness_run(argc, argv);
}
