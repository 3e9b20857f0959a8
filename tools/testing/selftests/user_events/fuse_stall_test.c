// SPDX-License-Identifier: GPL-2.0
/*
 * An enable word in a shared mapping of a FUSE file whose server stops
 * answering: the kernel's bit writer must not wait for the server, and
 * the exit of the process must not wait for the bit writer.
 *
 * A thread of the test is the server of a FUSE file system with one file
 * of one page, speaking the /dev/fuse protocol itself. A child process
 * maps the file shared and writable and registers an enable word in it
 * while the server answers everything. The server then keeps the WRITE
 * requests it reads without answering them, and the test starts the
 * writeback of the page, which the registration dirtied: the page is
 * write-protected, and the next write to it goes through FUSE's
 * page_mkwrite, which waits until the server answers that WRITE. Then
 * the event is enabled through ftrace: the kernel has to write the bit.
 *
 * Documentation/trace/user_events.rst, "The enable bit": the worker
 * waits for nothing the process controls, and a bit it cannot write is
 * left as it is, with one (rate limited) "Fault for mm" line in the
 * kernel log, until the event changes again. Checked: that line within
 * UE_FAULT_MS, the word still clear, and, with the WRITE still held, the
 * exit of the child within EXIT_BOUND_S. That bound detects a hang, it
 * is not a retry: when it passes, the connection is aborted (fusectl)
 * so that the machine goes on, and the test fails. Once the server
 * answers again, nothing is left: the event deletes at once, and no
 * task sleeps uninterruptibly in user_events or FUSE code.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <linux/fuse.h>

#include "user_events_selftests.h"

#define EVENT		"__fuse_stall"
#define EVENT_CMD	EVENT " u32 v"
#define MNT_DIR		"/tmp/__fuse_stall"
#define FILE_NAME	"page"
#define FILE_PATH	MNT_DIR "/" FILE_NAME
#define FILE_ID		2
#define FUSECTL_DIR	"/sys/fs/fuse/connections"
/* Largest WRITE the kernel sends: a page of any size there is */
#define MAX_WRITE	(256 * 1024)
#define MAX_HELD	16
/* Where the child writes besides its enable word (offset 0) */
#define MARK_OFF	64
#define EXIT_BOUND_S	30
#define READY_MS	30000

struct fuse_server {
	int fd;			/* /dev/fuse */
	long page;
	char *data;		/* the file */
	pthread_mutex_t lock;	/* the fields below */
	bool hold;		/* keep WRITE requests unanswered */
	int held;
	uint64_t held_unique[MAX_HELD];
	uint32_t held_size[MAX_HELD];
};

static void fs_reply(struct fuse_server *fs, uint64_t unique, int err,
		     const void *arg, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + len,
		.error = -err,
		.unique = unique,
	};
	struct iovec iov[] = {
		{ &out, sizeof(out) },
		{ (void *)arg, len },
	};

	/* Fails only for a request that is gone (interrupted, aborted) */
	if (writev(fs->fd, iov, len ? 2 : 1) < 0)
		return;
}

static void fs_attr(struct fuse_server *fs, uint64_t nodeid,
		    struct fuse_attr *attr)
{
	attr->ino = nodeid;
	attr->blksize = fs->page;
	if (nodeid == FUSE_ROOT_ID) {
		attr->mode = S_IFDIR | 0755;
		attr->nlink = 2;
	} else {
		attr->mode = S_IFREG | 0600;
		attr->nlink = 1;
		attr->size = fs->page;
		attr->blocks = fs->page / 512;
	}
}

/* Stores the data at once; the answer waits while WRITEs are held */
static void fs_write(struct fuse_server *fs, struct fuse_in_header *in,
		     struct fuse_write_in *wr)
{
	struct fuse_write_out out = { .size = wr->size };

	if (wr->offset < (uint64_t)fs->page)
		memcpy(fs->data + wr->offset, wr + 1,
		       wr->size < fs->page - wr->offset ?
		       wr->size : fs->page - wr->offset);

	pthread_mutex_lock(&fs->lock);
	if (fs->hold && fs->held < MAX_HELD) {
		fs->held_unique[fs->held] = in->unique;
		fs->held_size[fs->held] = wr->size;
		__atomic_store_n(&fs->held, fs->held + 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&fs->lock);
		return;
	}
	pthread_mutex_unlock(&fs->lock);
	fs_reply(fs, in->unique, 0, &out, sizeof(out));
}

static void fs_request(struct fuse_server *fs, struct fuse_in_header *in)
{
	union {
		struct fuse_init_out init;
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
	} out;
	struct fuse_init_in *init = (void *)(in + 1);
	struct fuse_read_in *rd = (void *)(in + 1);
	size_t len = 0;
	void *at = &out;

	memset(&out, 0, sizeof(out));
	switch (in->opcode) {
	case FUSE_INIT:
		out.init.major = FUSE_KERNEL_VERSION;
		out.init.minor = init->minor;
		out.init.max_readahead = init->max_readahead;
		out.init.max_write = MAX_WRITE;
		out.init.time_gran = 1;
		len = sizeof(out.init);
		break;
	case FUSE_LOOKUP:
		if (in->nodeid != FUSE_ROOT_ID || strcmp((char *)(in + 1), FILE_NAME)) {
			fs_reply(fs, in->unique, ENOENT, NULL, 0);
			return;
		}
		out.entry.nodeid = FILE_ID;
		out.entry.generation = 1;
		out.entry.entry_valid = 3600;
		out.entry.attr_valid = 3600;
		fs_attr(fs, FILE_ID, &out.entry.attr);
		len = sizeof(out.entry);
		break;
	case FUSE_GETATTR:
		out.attr.attr_valid = 3600;
		fs_attr(fs, in->nodeid, &out.attr.attr);
		len = sizeof(out.attr);
		break;
	case FUSE_OPEN:
		out.open.fh = 1;
		out.open.open_flags = FOPEN_KEEP_CACHE;
		len = sizeof(out.open);
		break;
	case FUSE_READ:
		if (rd->offset >= (uint64_t)fs->page)
			break;
		at = fs->data + rd->offset;
		len = rd->size < fs->page - rd->offset ?
		      rd->size : fs->page - rd->offset;
		break;
	case FUSE_WRITE:
		fs_write(fs, in, (void *)(in + 1));
		return;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		/* No answer */
		return;
	default:
		/* Nothing else is supported */
		fs_reply(fs, in->unique, EOPNOTSUPP, NULL, 0);
		return;
	}
	fs_reply(fs, in->unique, 0, at, len);
}

/* Serves requests until the connection is aborted or unmounted */
static void *fs_thread(void *arg)
{
	struct fuse_server *fs = arg;
	size_t size = MAX_WRITE + 4096;
	char *buf = malloc(size);
	ssize_t n;

	while (buf) {
		n = read(fs->fd, buf, size);
		/* ENOENT: the request was interrupted before it was read */
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			break;
		fs_request(fs, (struct fuse_in_header *)buf);
	}
	free(buf);

	return NULL;
}

/* The server answers the WRITEs it kept, and every one after them */
static void fs_resume(struct fuse_server *fs)
{
	struct fuse_write_out out = {0};
	int i;

	pthread_mutex_lock(&fs->lock);
	fs->hold = false;
	for (i = 0; i < fs->held; i++) {
		out.size = fs->held_size[i];
		fs_reply(fs, fs->held_unique[i], 0, &out, sizeof(out));
	}
	pthread_mutex_unlock(&fs->lock);
}

FIXTURE(fuse_stall) {
	struct fuse_server fs;
	pthread_t thread;
	bool started;
	bool mounted;
	bool fusectl;
	unsigned int conn;
	int fd;
	int *word;
	pid_t child;
	bool umount;
};

/* Aborts the connection: every request ends, the server thread too */
static int fs_abort(unsigned int conn)
{
	char path[64];

	snprintf(path, sizeof(path), FUSECTL_DIR "/%u/abort", conn);

	return ue_write_str(path, "1", 0);
}

FIXTURE_SETUP(fuse_stall) {
	char opts[128], path[64];
	struct stat st;

	self->fs.fd = -1;
	self->fd = -1;
	self->word = MAP_FAILED;
	self->child = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);

	self->fs.fd = open("/dev/fuse", O_RDWR);
	if (self->fs.fd < 0 && (errno == ENOENT || errno == ENODEV)) {
		USER_EVENT_FIXTURE_TEARDOWN(self->umount);
		SKIP(longjmp(_metadata->env, 1),
		     "no /dev/fuse: a kernel without CONFIG_FUSE_FS");
	}
	ASSERT_LE(0, self->fs.fd) {
		TH_LOG("open /dev/fuse: %s", strerror(errno));
	}
	self->fs.page = sysconf(_SC_PAGESIZE);
	self->fs.data = calloc(1, self->fs.page);
	ASSERT_NE(0, (uintptr_t)self->fs.data);
	pthread_mutex_init(&self->fs.lock, NULL);

	ASSERT_TRUE(mkdir(MNT_DIR, 0700) == 0 || errno == EEXIST);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", self->fs.fd);
	ASSERT_EQ(0, mount("__fuse_stall", MNT_DIR, "fuse",
			   MS_NOSUID | MS_NODEV, opts)) {
		TH_LOG("mount fuse: %s", strerror(errno));
	}
	self->mounted = true;
	ASSERT_EQ(0, pthread_create(&self->thread, NULL, fs_thread, &self->fs));
	self->started = true;

	/* The connection's fusectl directory is named after the kernel's dev_t */
	ASSERT_EQ(0, stat(MNT_DIR, &st)) {
		TH_LOG("stat of the mount: %s", strerror(errno));
	}
	self->conn = major(st.st_dev) << 20 | minor(st.st_dev);
	snprintf(path, sizeof(path), FUSECTL_DIR "/%u", self->conn);
	if (!ue_exists(path)) {
		ASSERT_EQ(0, mount("fusectl", FUSECTL_DIR, "fusectl", 0, NULL)) {
			TH_LOG("mount fusectl: %s", strerror(errno));
		}
		self->fusectl = true;
	}
	ASSERT_TRUE(ue_exists(path));
}

FIXTURE_TEARDOWN(fuse_stall) {
	if (self->started)
		fs_abort(self->conn);
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->word != MAP_FAILED)
		munmap(self->word, self->fs.page);
	if (self->fd >= 0)
		close(self->fd);
	if (self->mounted)
		umount2(MNT_DIR, MNT_DETACH);
	if (self->started) {
		pthread_cancel(self->thread);
		pthread_join(self->thread, NULL);
	}
	if (self->fs.fd >= 0)
		close(self->fs.fd);
	rmdir(MNT_DIR);
	if (self->fusectl)
		umount(FUSECTL_DIR);
	free(self->fs.data);
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * The process with the enable word: maps the file, registers the word,
 * dirties the page, says so on @ready and exits when @go is closed. It
 * keeps no descriptor of the file: closing one at exit would wait for
 * the writeback (FUSE's flush), whatever user_events does.
 */
static void word_process(int ready, int go, long page)
{
	char *map, c;
	int fd;

	fd = open(FILE_PATH, O_RDWR);
	UE_CHILD_CHECK(fd >= 0);
	map = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	UE_CHILD_CHECK(map != MAP_FAILED);
	UE_CHILD_EQ(0, close(fd));
	UE_CHILD_EQ(0, ue_reg(EVENT_CMD, map, 0, sizeof(int), 0));
	map[MARK_OFF] = 1;
	UE_CHILD_EQ(1, write(ready, "r", 1));
	UE_CHILD_EQ(0, read(go, &c, 1));
	_exit(0);
}

static void on_alarm(int sig)
{
}

/* Whether child @pid ended within @seconds (it is left to be reaped) */
static bool ended_within(pid_t pid, int seconds)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	siginfo_t info;
	int ret;

	/* No SA_RESTART: the alarm interrupts waitid() */
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
	ret = waitid(P_PID, pid, &info, WEXITED | WNOWAIT);
	alarm(0);

	return ret == 0;
}

/*
 * Logs each task in D state whose stack (or wait channel) is in
 * user_events or FUSE code; returns how many there are.
 */
static int stuck_tasks(struct __test_metadata *_metadata)
{
	char path[300], *text, *state, *where, *line, *save;
	int i, n = 0;
	glob_t g;

	if (glob("/proc/[0-9]*/task/[0-9]*/stat", 0, NULL, &g))
		return 0;
	for (i = 0; i < (int)g.gl_pathc; i++) {
		text = ue_read_file(g.gl_pathv[i]);
		state = text ? strrchr(text, ')') : NULL;
		if (!state || strncmp(state, ") D", 3)) {
			free(text);
			continue;
		}
		snprintf(path, sizeof(path), "%.*s/stack",
			 (int)(strrchr(g.gl_pathv[i], '/') - g.gl_pathv[i]),
			 g.gl_pathv[i]);
		where = ue_read_file(path);
		if (!where || !*where) {
			free(where);
			strcpy(strrchr(path, '/'), "/wchan");
			where = ue_read_file(path);
		}
		if (where && (strstr(where, "user_event") || strstr(where, "fuse"))) {
			TH_LOG("task %.*s in D state:", (int)(state + 1 - text), text);
			for (line = strtok_r(where, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save))
				TH_LOG("  %s", line);
			n++;
		}
		free(where);
		free(text);
	}
	globfree(&g);

	return n;
}

TEST_F_TIMEOUT(fuse_stall, exit_while_server_holds_write, 150)
{
	int ready[2], go[2], before, lines, n;
	long page = self->fs.page, end;
	char why[512] = "", c;
	struct pollfd p;
	bool ended;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		close(self->fs.fd);
		close(ready[0]);
		close(go[1]);
		word_process(ready[1], go[0], page);
	}
	close(ready[1]);
	close(go[0]);
	p.fd = ready[0];
	p.events = POLLIN;
	ASSERT_EQ(1, poll(&p, 1, READY_MS)) {
		TH_LOG("the child did not register within %d ms", READY_MS);
	}
	n = read(ready[0], &c, 1);
	close(ready[0]);
	if (n != 1) {
		ue_child_result(self->child, why, sizeof(why));
		self->child = -1;
	}
	ASSERT_EQ(1, n) {
		TH_LOG("the child did not register: %s", why);
	}

	self->fd = open(FILE_PATH, O_RDONLY);
	ASSERT_LE(0, self->fd);
	self->word = mmap(NULL, page, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)self->word);
	ASSERT_EQ(0, ue_load(self->word));

	/* The writeback of the dirty page starts, its WRITE stays unanswered */
	pthread_mutex_lock(&self->fs.lock);
	self->fs.hold = true;
	pthread_mutex_unlock(&self->fs.lock);
	ASSERT_EQ(0, sync_file_range(self->fd, 0, 0, SYNC_FILE_RANGE_WRITE));
	ASSERT_TRUE(ue_wait_int(&self->fs.held, 1, UE_FAULT_MS)) {
		TH_LOG("the server got no WRITE of the page within %d ms",
		       UE_FAULT_MS);
	}

	/* The warning allows 10 lines in 5 s: earlier tests' are past */
	ue_sleep_ms(5100);
	before = ue_fault_lines();
	ASSERT_LE(0, before);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	end = ue_now_ms() + UE_FAULT_MS;
	while ((lines = ue_fault_lines()) == before && ue_now_ms() < end)
		ue_sleep_ms(10);
	EXPECT_EQ(before + 1, lines) {
		TH_LOG("want one \"Fault for mm\" line within %d ms: the word given up",
		       UE_FAULT_MS);
	}
	EXPECT_EQ(0, ue_load(self->word));

	/* The child exits while the server still holds the WRITE */
	close(go[1]);
	ended = ended_within(self->child, EXIT_BOUND_S);
	if (!ended) {
		TH_LOG("the exit hangs after %d s; its stack and the tasks in D state:",
		       EXIT_BOUND_S);
		stuck_tasks(_metadata);
		ASSERT_EQ(0, fs_abort(self->conn));
		TH_LOG("the connection aborted: the child %s",
		       ended_within(self->child, EXIT_BOUND_S) ?
		       "exited" : "still hangs");
	}
	ASSERT_TRUE(ended) {
		TH_LOG("the exit did not complete within %d s while a WRITE was held",
		       EXIT_BOUND_S);
	}
	ASSERT_CHILD_OK(self->child);
	self->child = -1;

	/* Once the server answers again, nothing is left */
	fs_resume(&self->fs);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	EXPECT_TRUE(ue_del_unreferenced(EVENT)) {
		TH_LOG("the event is still referenced after the exit");
	}
	EXPECT_EQ(0, stuck_tasks(_metadata));
	EXPECT_EQ(before + 1, ue_fault_lines());
	EXPECT_EQ(0, ue_load(self->word));
}

TEST_HARNESS_MAIN
