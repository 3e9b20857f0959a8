// SPDX-License-Identifier: GPL-2.0
/*
 * The recipes of "Deploying" in Documentation/trace/user_events.rst,
 * each followed step by step: a collector that starts before the
 * application, a tracer that hands user_events_data over a Unix socket,
 * containers, non-root producers, feature probing. Also: a BPF program
 * cannot be attached to a user event, while kernel tracepoints and
 * uprobes take them; a multi-format name too long with its ".<id>" is
 * refused with an error_log entry.
 *
 * The producer of a recipe always runs in a process of its own, with its
 * enable word on a private page nobody else writes, so that every bit it
 * checks must be right at once: the kernel updates the bits of present,
 * writable pages before the tracer's attach or detach returns.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <mntent.h>
#include <sched.h>
#include <signal.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/un.h>
#include <linux/bpf.h>

#include "user_events_selftests.h"

#define FIELDS		"u32 count; char[8] msg"
#define EV_DYN		"__deploy_dyn"
#define EV_PERSIST	"__deploy_persist"
/* The event of samples/user_events/example */
#define EV_SAMPLE	"test"
#define SAMPLE_FIELDS	"u32 count; char[16] msg"
#define EV_DIR_A	"__deploy_dir_a"
#define EV_DIR_B	"__deploy_dir_b"
#define EV_HAND		"__deploy_handoff"
#define EV_DUP		"__deploy_dup"
#define EV_FORK		"__deploy_fork"
#define EV_CTR		"__deploy_container"
#define EV_PERM		"__deploy_perm"
#define EV_BPF		"__deploy_bpf"
#define EV_BPFTRACE	"__deploy_bpftrace"
#define EV_MULTI	"__deploy_multi"

#define ERROR_LOG	TRACEFS_DIR "/error_log"
#define NOBODY		65534
/* The group the tracefs gid= mount gives access to */
#define TRACING_GID	4242

static const char * const deploy_events[] = {
	EV_DYN, EV_PERSIST, EV_SAMPLE, EV_DIR_A, EV_DIR_B, EV_HAND, EV_DUP,
	EV_FORK, EV_CTR, EV_PERM, EV_BPF, EV_BPFTRACE, EV_MULTI,
};

static void deploy_cleanup(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(deploy_events); i++) {
		ue_enable(deploy_events[i], 0);
		ue_cleanup_event(deploy_events[i]);
	}
}

/*
 * The write index and the payload of "u32 count; char[8] msg": packed
 * as the fields are, with no padding to add
 */
struct deploy_record {
	int index;
	__u32 count;
	char msg[8];
};

/* Why a process of a recipe stopped: its exit status */
enum deploy_step {
	S_OK,
	S_MAP = 10,
	S_OPEN,
	S_REGISTER,
	S_BIT_AT_REGISTER,
	S_WRITE,
	S_UNREGISTER,
	S_SYNC,
	S_RECV_FD,
	S_BIT_SET,
	S_BIT_CLEAR,
	S_UNSHARE,
	S_MOUNT,
	S_TRACEFS_VISIBLE,
	S_FIND,
	S_ENABLE,
	S_TRACE,
	S_DROP,
	S_OPEN_EACCES,
	S_OPEN_RDONLY,
	S_REG_EBADF,
	S_PROBE,
	S_PERSIST_EPERM,
	S_READ_STATUS,
	S_STATUS_EACCES,
	S_MAX
};

static const char *deploy_step_name(int step)
{
	static const char * const names[] = {
		"mmap of the enable word", "open user_events_data",
		"DIAG_IOCSREG",
		"the bit is set when the registration returns",
		"write of a record", "unregister clears the bit",
		"talk to the other process", "receive the fd (SCM_RIGHTS)",
		"the bit is set once the tracer attached",
		"the bit is clear once the tracer detached",
		"unshare(CLONE_NEWNS)", "mounts of the container",
		"tracefs is out of sight in the container",
		"find user_events_data through /proc/mounts",
		"enable through the container's tracefs",
		"the record in the container's trace file",
		"drop privileges", "open for writing gives EACCES",
		"open for reading", "DIAG_IOCSREG on a read-only fd gives EBADF",
		"the PERSIST probe gives EFAULT (known flag)",
		"PERSIST registration gives EPERM",
		"read user_events_status", "user_events_status gives EACCES",
	};

	if (step == S_OK)
		return "none";
	if (step >= S_MAP && step < S_MAX)
		return names[step - S_MAP];
	return step == 128 ? "killed by a signal" : "unknown";
}

/* One byte each way: "go on" from one side, "done" from the other */
static int deploy_send(int sock)
{
	return write(sock, "g", 1) == 1 ? 0 : -1;
}

/* False when the other side is gone: it failed, or was told to stop */
static bool deploy_wait(int sock)
{
	char c;

	return read(sock, &c, 1) == 1;
}

/* A private page of its own: the enable word at its start */
static int *deploy_word(void)
{
	void *p = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int deploy_emit(int fd, int index, __u32 count, const char *msg)
{
	struct deploy_record r = { .index = index, .count = count };

	snprintf(r.msg, sizeof(r.msg), "%s", msg);

	return write(fd, &r, sizeof(r)) == sizeof(r) ? 0 : -1;
}

/*
 * The producer's side of a tracer's attach (@bit 1) or detach (@bit 0):
 * tell the tracer to go on, wait until it is done, and find the bit as
 * the tracer left it.
 */
static int deploy_follow(int sock, int *word, int bit)
{
	if (deploy_send(sock) || !deploy_wait(sock))
		return S_SYNC;
	if (ue_load(word) != bit)
		return bit ? S_BIT_SET : S_BIT_CLEAR;

	return S_OK;
}

/* Follow the tracer's attach, then write the record (@count, @msg) */
static int deploy_follow_write(int sock, int fd, int *word, int index,
			       __u32 count, const char *msg)
{
	int ret = deploy_follow(sock, word, 1);

	if (!ret && deploy_emit(fd, index, count, msg))
		ret = S_WRITE;

	return ret;
}

/*
 * Start @fn(sock, @arg) in a process of its own, a producer the test
 * drives over a socket pair: its pid, the test's end of the pair in @sock.
 */
static pid_t deploy_start(int *sock, int (*fn)(int sock, const char *arg),
			  const char *arg)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		_exit(fn(sv[1], arg));
	}
	close(sv[1]);
	*sock = sv[0];

	return pid;
}

/* Let producer @pid on @sock finish: its exit status */
static int deploy_finish(int sock, pid_t pid)
{
	int ret = deploy_send(sock) ? -1 : ue_wait_child(pid);

	close(sock);

	return ret;
}

/* The tracer's side of a step: tell the producer to go on, wait for it */
static bool deploy_go(int sock)
{
	return !deploy_send(sock) && deploy_wait(sock);
}

/* Producer @pid did its step (@done); if it stopped instead, say where */
#define DEPLOY_ASSERT(done, pid, who) do {				\
	bool __done = (done);						\
									\
	ASSERT_TRUE(__done) {						\
		TH_LOG("%s: %s", who, deploy_step_name(ue_wait_child(pid))); \
	}								\
} while (0)

/*
 * The producer of the consumer-first recipes, in a process of its own:
 * it registers @cmd, finds its bit set by the registration itself (the
 * collector attached before), writes one record and unregisters.
 */
static int deploy_producer(const char *cmd, __u32 count, const char *msg)
{
	int *word = deploy_word();
	int fd, index;

	if (!word)
		return S_MAP;
	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0)
		return S_OPEN;
	if (ue_reg_fd(fd, cmd, word, 0, sizeof(*word), 0, &index))
		return S_REGISTER;
	if (ue_load(word) != 1)
		return S_BIT_AT_REGISTER;
	if (deploy_emit(fd, index, count, msg))
		return S_WRITE;
	if (ue_unreg_fd(fd, word, 0) || ue_load(word) != 0)
		return S_UNREGISTER;
	close(fd);

	return S_OK;
}

static int deploy_run_producer(const char *cmd, __u32 count, const char *msg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(deploy_producer(cmd, count, msg));
	if (pid < 0)
		return -1;

	return ue_wait_child(pid);
}

/* Offset of field @field in the records of single-format event @event */
static int deploy_field_offset(const char *event, const char *field)
{
	char path[512], decl[256], *text, *line;
	int offset = -1, off;
	size_t flen = strlen(field);

	text = ue_read_file(ue_event_file(path, sizeof(path), event, "format"));
	if (!text)
		return -1;

	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *name, *end;

		if (sscanf(line, " field:%255[^;];\toffset:%d;", decl, &off) != 2)
			continue;
		/* "TYPE NAME" or "TYPE NAME[N]": the last word, without [N] */
		end = strchr(decl, '[');
		if (end)
			*end = '\0';
		name = strrchr(decl, ' ');
		name = name ? name + 1 : decl;
		if (strlen(name) == flen && !strcmp(name, field)) {
			offset = off;
			break;
		}
	}
	free(text);

	return offset;
}

/*
 * The first sample of a perf ring buffer mapped at @ring (one metadata
 * page, one data page): its raw data (the trace record) or NULL.
 */
static const char *deploy_perf_raw(void *ring, __u32 *size)
{
	struct perf_event_mmap_page *meta = ring;
	const char *data = (char *)ring + getpagesize();
	__u64 head = ue_perf_head(meta);
	__u64 off = 0;

	while (off + sizeof(struct perf_event_header) <= head) {
		const struct perf_event_header *h = (const void *)(data + off);

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE) {
			*size = *(const __u32 *)(h + 1);
			return (const char *)(h + 1) + sizeof(__u32);
		}
		off += h->size;
	}

	return NULL;
}

/*
 * Does the first perf sample of @ring hold the record (count, msg) of
 * event @event? The fields are where the event's format file says.
 */
static bool deploy_perf_has(void *ring, const char *event, __u32 count,
			    const char *msg)
{
	int count_off = deploy_field_offset(event, "count");
	int msg_off = deploy_field_offset(event, "msg");
	const char *raw;
	__u32 size, got;

	raw = deploy_perf_raw(ring, &size);
	if (!raw || count_off < 0 || msg_off < 0 ||
	    size < (__u32)msg_off + 8)
		return false;
	memcpy(&got, raw + count_off, sizeof(got));

	return got == count && !strncmp(raw + msg_off, msg, 8);
}

/* A 1 + 1 page perf ring of perf event @fd */
static void *deploy_perf_ring(int fd)
{
	void *ring = mmap(NULL, 2 * getpagesize(), PROT_READ | PROT_WRITE,
			  MAP_SHARED, fd, 0);

	return ring == MAP_FAILED ? NULL : ring;
}

/*
 * A sampling perf event of trace event @id: of process @pid on any CPU,
 * or of every process (@pid -1) on CPU @cpu, as "perf record -a" opens.
 */
static int deploy_perf_open(int id, pid_t pid, int cpu)
{
	struct perf_event_attr pe = {0};

	pe.type = PERF_TYPE_TRACEPOINT;
	pe.size = sizeof(pe);
	pe.config = id;
	pe.sample_type = PERF_SAMPLE_RAW;
	pe.sample_period = 1;
	pe.wakeup_events = 1;

	return syscall(__NR_perf_event_open, &pe, pid, cpu, -1, 0);
}

#define DEPLOY_MAX_CPUS	64

/* A system-wide perf recording: one event and ring per CPU */
struct deploy_perf_all {
	int nr;
	int fd[DEPLOY_MAX_CPUS];
	void *ring[DEPLOY_MAX_CPUS];
};

static int deploy_perf_open_all(struct deploy_perf_all *all, int id)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int cpu, fd;

	all->nr = 0;
	for (cpu = 0; cpu < cpus && cpu < DEPLOY_MAX_CPUS; cpu++) {
		fd = deploy_perf_open(id, -1, cpu);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline */
		if (fd < 0)
			return -1;
		all->fd[all->nr] = fd;
		all->ring[all->nr] = deploy_perf_ring(fd);
		if (!all->ring[all->nr++])
			return -1;
	}

	return all->nr ? 0 : -1;
}

static bool deploy_perf_all_has(struct deploy_perf_all *all,
				const char *event, __u32 count,
				const char *msg)
{
	int i;

	for (i = 0; i < all->nr; i++) {
		if (deploy_perf_has(all->ring[i], event, count, msg))
			return true;
	}

	return false;
}

static void deploy_perf_close_all(struct deploy_perf_all *all)
{
	int i;

	for (i = 0; i < all->nr; i++) {
		if (all->ring[i])
			munmap(all->ring[i], 2 * getpagesize());
		close(all->fd[i]);
	}
	all->nr = 0;
}

FIXTURE(deploy) {
	bool umount;
	int check;
	char dir[64];
};

FIXTURE_SETUP(deploy) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	self->dir[0] = '\0';
	deploy_cleanup();
	ASSERT_EQ(0, ue_clear_trace());
}

FIXTURE_TEARDOWN(deploy) {
	deploy_cleanup();
	if (self->dir[0]) {
		char sub[128];

		snprintf(sub, sizeof(sub), "%s/tracing", self->dir);
		rmdir(sub);
		rmdir(self->dir);
	}
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * Consumer first: the collector creates the event through
 * dynamic_events and enables it before the application runs; the
 * application's registration of the same fields (spelled its own way)
 * finds the event, its bit is set by the registration itself and its
 * first write is recorded. The collector deletes the event at the end.
 */
TEST_F(deploy, consumer_first_dyn_event_ftrace) {
	char path[512];
	int ret;

	ASSERT_EQ(0, ue_dyn_write("u:" EV_DYN " " FIELDS));
	ASSERT_TRUE(ue_exists(ue_event_file(path, sizeof(path), EV_DYN,
					    "enable")));
	ASSERT_EQ(0, ue_enable(EV_DYN, 1));

	ret = deploy_run_producer(EV_DYN " u32 count;char[8]   msg", 42,
				  "first");
	ASSERT_EQ(S_OK, ret) {
		TH_LOG("producer: %s", deploy_step_name(ret));
	}
	ASSERT_TRUE(ue_trace_has(EV_DYN ": count=42 msg=first"));

	ASSERT_EQ(0, ue_enable(EV_DYN, 0));
	ASSERT_EQ(0, ue_dyn_write("-:" EV_DYN " " FIELDS));
	ASSERT_FALSE(ue_event_exists(EV_DYN));
}

/*
 * Consumer first, with a PERSIST registration instead of a "u:" line,
 * and system-wide perf events (what "perf record -a" opens) as the
 * tracer.
 */
TEST_F(deploy, consumer_first_persist_registration_perf) {
	struct deploy_perf_all all;
	int fd, id, ret;

	if (!ue_have_perf())
		SKIP(return, UE_NO_PERF);

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EV_PERSIST " " FIELDS, &self->check, 0,
			       sizeof(self->check), USER_EVENT_REG_PERSIST,
			       NULL));
	ASSERT_EQ(0, ue_unreg_fd(fd, &self->check, 0));
	close(fd);
	/* Nobody uses it, it stays */
	ASSERT_TRUE(ue_event_exists(EV_PERSIST));

	id = ue_event_id(EV_PERSIST);
	ASSERT_LT(0, id);
	ASSERT_EQ(0, deploy_perf_open_all(&all, id)) {
		TH_LOG("perf_event_open on every CPU: %s", strerror(errno));
	}

	ret = deploy_run_producer(EV_PERSIST " " FIELDS, 7, "perf");
	ASSERT_EQ(S_OK, ret) {
		TH_LOG("producer: %s", deploy_step_name(ret));
	}
	ASSERT_TRUE(deploy_perf_all_has(&all, EV_PERSIST, 7, "perf"));

	deploy_perf_close_all(&all);
	ASSERT_EQ(0, ue_del(EV_PERSIST));
	ASSERT_FALSE(ue_event_exists(EV_PERSIST));
}

/* The path of program @name in $PATH, or NULL */
static const char *deploy_which(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[1024], *dir, *save;

	snprintf(dirs, sizeof(dirs), "%s",
		 path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/%s", dir, name);
		if (!access(buf, X_OK))
			return buf;
	}

	return NULL;
}

/* Start @argv with its output (stdout and stderr) into file @out */
static pid_t deploy_spawn(char *const argv[], const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}

	return pid;
}

/*
 * Wait up to @ms for process @pid to exit: its status as ue_wait_child()
 * gives it, or -2 when it did not exit in time (it is killed then).
 */
static int deploy_wait_exit(pid_t pid, int ms)
{
	long end = ue_now_ms() + ms;
	int status;

	for (;;) {
		pid_t ret = waitpid(pid, &status, WNOHANG);

		if (ret == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		if (ret < 0)
			return -1;
		if (ue_now_ms() > end) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -2;
		}
		ue_sleep_ms(20);
	}
}

/*
 * Consumer first with the perf tool: "perf record" starts the
 * application, the sample, whose event it created before; the sample
 * registers after perf attached, finds its bit set on its first
 * iteration and writes, and "perf script" shows that record.
 */
TEST_F_TIMEOUT(deploy, consumer_first_perf_record, 300) {
	const char *sample = getenv("UE_SAMPLE");
	char perf[256], *out = NULL;
	char *const rec[] = { perf, "record", "-q", "--no-buildid", "-e",
			      "user_events:" EV_SAMPLE, "-o", "deploy.perf.data",
			      "--", (char *)sample, "-n", "1", "-i", "0", NULL };
	char *const script[] = { perf, "script", "-i", "deploy.perf.data",
				 NULL };
	pid_t pid;
	int ret;

	if (!deploy_which("perf", perf, sizeof(perf)))
		SKIP(return, "perf is not installed");
	if (!ue_have_perf())
		SKIP(return, UE_NO_PERF);
	if (!sample || access(sample, X_OK))
		SKIP(return, "no sample binary: set UE_SAMPLE to samples/user_events/example");

	ASSERT_EQ(0, ue_dyn_write("u:" EV_SAMPLE " " SAMPLE_FIELDS));

	pid = deploy_spawn(rec, "deploy.perf.log");
	ASSERT_LT(0, pid);
	ret = deploy_wait_exit(pid, 200000);
	out = ue_read_file("deploy.perf.log");
	ASSERT_EQ(0, ret) {
		TH_LOG("perf record: %d: %s", ret, out ? out : "");
	}
	/* The sample's first iteration found the bit set, and wrote */
	EXPECT_TRUE(out && strstr(out, "[1] enabled=1: wrote count=1")) {
		TH_LOG("perf record and the sample: %s", out ? out : "");
	}
	free(out);

	pid = deploy_spawn(script, "deploy.perf.script");
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, deploy_wait_exit(pid, 120000));
	out = ue_read_file("deploy.perf.script");
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "count=1 msg=hello #1")) {
		TH_LOG("perf script: %.500s", out);
	}
	free(out);

	ASSERT_EQ(0, ue_dyn_write("-:" EV_SAMPLE " " SAMPLE_FIELDS));
	ASSERT_FALSE(ue_event_exists(EV_SAMPLE));
}

/* Did inotify instance @in report the creation of @name? Drains it. */
static bool deploy_inotify_saw(int in, const char *name)
{
	struct inotify_event evs[64];
	char *buf = (char *)evs;
	bool found = false;
	ssize_t len;

	while ((len = read(in, evs, sizeof(evs))) > 0) {
		char *p = buf;

		while (p < buf + len) {
			struct inotify_event *ev = (void *)p;

			if ((ev->mask & IN_CREATE) && ev->len &&
			    !strcmp(ev->name, name))
				found = true;
			p += sizeof(*ev) + ev->len;
		}
	}

	return found;
}

static bool deploy_dir_lists(const char *dir, const char *name)
{
	struct dirent *d;
	bool found = false;
	DIR *dp = opendir(dir);

	if (!dp)
		return false;
	while ((d = readdir(dp)))
		found |= !strcmp(d->d_name, name);
	closedir(dp);

	return found;
}

/*
 * events/user_events/ exists only while a user event does: it comes with
 * the first one and goes with the last. A collector waits for it with
 * inotify on events/, then watches it and lists it once.
 */
TEST_F(deploy, system_dir_comes_with_first_event) {
	int *word = deploy_word();
	int in, fd_a, fd_b;

	ASSERT_NE(NULL, word);
	/* Events of earlier tests may still wait for their auto-delete */
	if (!ue_wait_auto_delete(EVENTS_DIR))
		SKIP(return, "other user events exist: %s is there already",
		     EVENTS_DIR);

	/* The sysctls of inotify come with it */
	if (access("/proc/sys/fs/inotify", F_OK))
		SKIP(return, "no inotify in this kernel (CONFIG_INOTIFY_USER)");
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	ASSERT_LE(0, inotify_add_watch(in, TRACEFS_DIR "/events", IN_CREATE));

	fd_a = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd_a);
	ASSERT_EQ(0, ue_reg_fd(fd_a, EV_DIR_A " u32 a", word, 0, 4, 0, NULL));
	ASSERT_TRUE(deploy_inotify_saw(in, USER_EVENTS_SYSTEM));

	/* Events made before the watch are not reported: list them */
	ASSERT_LE(0, inotify_add_watch(in, EVENTS_DIR, IN_CREATE));
	ASSERT_TRUE(deploy_dir_lists(EVENTS_DIR, EV_DIR_A));
	fd_b = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd_b);
	ASSERT_EQ(0, ue_reg_fd(fd_b, EV_DIR_B " u32 b", word, 1, 4, 0, NULL));
	ASSERT_TRUE(deploy_inotify_saw(in, EV_DIR_B));

	/* The directory stays while an event is left, and goes with it */
	ASSERT_EQ(0, ue_unreg_fd(fd_a, word, 0));
	close(fd_a);
	ASSERT_TRUE(ue_del_unreferenced(EV_DIR_A));
	ASSERT_TRUE(ue_exists(EVENTS_DIR));
	ASSERT_EQ(0, ue_unreg_fd(fd_b, word, 1));
	close(fd_b);
	ASSERT_TRUE(ue_del_unreferenced(EV_DIR_B));
	ASSERT_FALSE(ue_exists(EVENTS_DIR));
	close(in);
}

/*
 * The runtime's side of the handoff: it gets user_events_data from the
 * tracer, registers into its own memory and writes whenever its bit
 * says so, long after the tracer closed its copy.
 */
static int deploy_receiver(int sock, const char *unused)
{
	int *word = deploy_word();
	int fd, index, ret;

	if (!word)
		return S_MAP;
	fd = ue_recv_fd(sock, NULL, -1);
	if (fd < 0)
		return S_RECV_FD;
	if (ue_reg_fd(fd, EV_HAND " " FIELDS, word, 0, 4, 0, &index))
		return S_REGISTER;
	if (ue_load(word) != 0)
		return S_BIT_AT_REGISTER;

	/* ftrace attaches and detaches, then perf */
	ret = deploy_follow_write(sock, fd, word, index, 1, "ftrace") ?:
	      deploy_follow(sock, word, 0) ?:
	      deploy_follow_write(sock, fd, word, index, 2, "perf") ?:
	      deploy_follow(sock, word, 0);
	if (ret)
		return ret;
	if (ue_unreg_fd(fd, word, 0))
		return S_UNREGISTER;
	close(fd);

	return S_OK;
}

/*
 * fd handoff: the tracer opens user_events_data and passes it over a
 * Unix socket (SCM_RIGHTS); the receiver registers its own events and
 * bits, which follow ftrace and perf, and writes after the tracer closed
 * its copy of the fd.
 */
TEST_F_TIMEOUT(deploy, fd_handoff_over_scm_rights, 60) {
	void *ring = NULL;
	int sock, fd, pfd = -1, id;
	pid_t pid;

	pid = deploy_start(&sock, deploy_receiver, NULL);
	ASSERT_LE(0, pid);
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_send_fd(sock, fd, 0));
	close(fd);
	DEPLOY_ASSERT(deploy_wait(sock), pid, "receiver");

	ASSERT_EQ(0, ue_enable(EV_HAND, 1));
	DEPLOY_ASSERT(deploy_go(sock), pid, "receiver");
	ASSERT_TRUE(ue_trace_has(EV_HAND ": count=1 msg=ftrace"));

	ASSERT_EQ(0, ue_enable(EV_HAND, 0));
	DEPLOY_ASSERT(deploy_go(sock), pid, "receiver");

	if (ue_have_perf()) {
		/* The tracer records the runtime it handed the fd to */
		id = ue_event_id(EV_HAND);
		ASSERT_LT(0, id);
		pfd = deploy_perf_open(id, pid, -1);
		ASSERT_NE(-1, pfd);
		ring = deploy_perf_ring(pfd);
		ASSERT_NE(NULL, ring);
	} else {
		/* Without perf, ftrace stands in for it */
		TH_LOG("%s: ftrace instead", UE_NO_PERF);
		ASSERT_EQ(0, ue_enable(EV_HAND, 1));
	}
	DEPLOY_ASSERT(deploy_go(sock), pid, "receiver");
	if (ring) {
		ASSERT_TRUE(deploy_perf_has(ring, EV_HAND, 2, "perf"));
		munmap(ring, 2 * getpagesize());
		close(pfd);
	} else {
		ASSERT_TRUE(ue_trace_has(EV_HAND ": count=2 msg=perf"));
		ASSERT_EQ(0, ue_enable(EV_HAND, 0));
	}
	ASSERT_EQ(S_OK, deploy_finish(sock, pid));
}

/* A dup()ed fd is the same open file: same write indexes */
TEST_F(deploy, dup_fd_writes_with_same_index) {
	int *word = deploy_word();
	int fd, dupfd, index;

	ASSERT_NE(NULL, word);
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EV_DUP " " FIELDS, word, 0, 4, 0, &index));
	dupfd = dup(fd);
	ASSERT_NE(-1, dupfd);
	close(fd);

	ASSERT_EQ(0, ue_enable(EV_DUP, 1));
	ASSERT_EQ(1, ue_load(word));
	ASSERT_EQ(0, deploy_emit(dupfd, index, 3, "dup"));
	ASSERT_TRUE(ue_trace_has(EV_DUP ": count=3 msg=dup"));
	ASSERT_EQ(0, ue_enable(EV_DUP, 0));
	ASSERT_EQ(0, ue_load(word));
	ASSERT_EQ(0, ue_unreg_fd(dupfd, word, 0));
	close(dupfd);
}

/*
 * A fork child inherits the fd and a copy of each registration: with
 * the parent's write index and its own copy of the bit it writes, after
 * the parent closed its fd.
 */
TEST_F(deploy, inherited_fd_child_writes_after_parent_closed) {
	int *word = deploy_word();
	int sv[2], fd, index;
	pid_t pid;

	ASSERT_NE(NULL, word);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EV_FORK " " FIELDS, word, 0, 4, 0, &index));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sv[0]);
		/* Own the page now: no copy-on-write when the bit comes */
		word[1] = 1;
		_exit(deploy_follow_write(sv[1], fd, word, index, 4, "child"));
	}
	close(sv[1]);
	close(fd);

	DEPLOY_ASSERT(deploy_wait(sv[0]), pid, "child");
	ASSERT_EQ(0, ue_enable(EV_FORK, 1));
	ASSERT_EQ(S_OK, deploy_finish(sv[0], pid));
	ASSERT_TRUE(ue_trace_has(EV_FORK ": count=4 msg=child"));
	ASSERT_EQ(0, ue_enable(EV_FORK, 0));
	/* The registration is the process's: any fd of it unregisters */
	ASSERT_EQ(0, ue_unreg(word, 0));
}

/*
 * Where is user_events_data, from /proc/mounts: in a directory tracefs
 * is mounted on, or the mount point itself when the file alone is
 * bind-mounted. The same lookup as the sample's. 0 or -1.
 */
static int deploy_find_data_file(char *path, size_t len)
{
	FILE *mounts = setmntent("/proc/mounts", "r");
	struct mntent *m;
	struct stat st;
	int ret = -1;

	if (!mounts)
		return -1;
	while (ret && (m = getmntent(mounts))) {
		if (strcmp(m->mnt_type, "tracefs"))
			continue;
		if (!stat(m->mnt_dir, &st) && S_ISREG(st.st_mode))
			snprintf(path, len, "%s", m->mnt_dir);
		else
			snprintf(path, len, "%s/user_events_data", m->mnt_dir);
		ret = access(path, W_OK);
	}
	endmntent(mounts);

	return ret;
}

/* A mount namespace of its own in which tracefs is out of sight */
static int deploy_private_mounts_without_tracefs(void)
{
	if (unshare(CLONE_NEWNS))
		return S_UNSHARE;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return S_MOUNT;
	if (umount2(TRACEFS_DIR, MNT_DETACH))
		return S_MOUNT;
	/* Its automount under debugfs, if debugfs is mounted */
	umount2("/sys/kernel/debug", MNT_DETACH);
	if (ue_exists(DATA_FILE))
		return S_TRACEFS_VISIBLE;

	return S_OK;
}

/* The container: user_events_data alone, bind-mounted into @dir */
static int deploy_container(int sock, const char *dir)
{
	char target[128], found[PATH_MAX];
	int *word = deploy_word();
	int fd, index, ret;

	if (!word)
		return S_MAP;

	/* What the container runtime does before the application starts */
	snprintf(target, sizeof(target), "%s/user_events_data", dir);
	if (unshare(CLONE_NEWNS))
		return S_UNSHARE;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", dir, "tmpfs", 0, NULL))
		return S_MOUNT;
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	if (fd < 0)
		return S_MOUNT;
	close(fd);
	if (mount(DATA_FILE, target, NULL, MS_BIND, NULL))
		return S_MOUNT;
	ret = deploy_private_mounts_without_tracefs();
	if (ret)
		return ret;

	/* The application */
	if (deploy_find_data_file(found, sizeof(found)) ||
	    strcmp(found, target))
		return S_FIND;
	fd = open(found, O_RDWR);
	if (fd < 0)
		return S_OPEN;
	if (ue_reg_fd(fd, EV_CTR " " FIELDS, word, 0, 4, 0, &index))
		return S_REGISTER;
	ret = deploy_follow_write(sock, fd, word, index, 5, "ctr") ?:
	      deploy_follow(sock, word, 0);
	if (ret)
		return ret;
	if (ue_unreg_fd(fd, word, 0))
		return S_UNREGISTER;
	close(fd);

	return S_OK;
}

/*
 * Containers: the application sees only user_events_data, bind-mounted
 * into its private mount namespace, and no tracefs; the tracer outside
 * enables its event.
 */
TEST_F(deploy, container_lone_bind_mounted_data_file) {
	int sock;
	pid_t pid;

	snprintf(self->dir, sizeof(self->dir), "/tmp/deploy.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));

	pid = deploy_start(&sock, deploy_container, self->dir);
	ASSERT_LE(0, pid);
	DEPLOY_ASSERT(deploy_wait(sock), pid, "container");
	ASSERT_EQ(0, ue_enable(EV_CTR, 1));
	DEPLOY_ASSERT(deploy_go(sock), pid, "container");
	ASSERT_TRUE(ue_trace_has(EV_CTR ": count=5 msg=ctr"));
	ASSERT_EQ(0, ue_enable(EV_CTR, 0));
	ASSERT_EQ(S_OK, deploy_finish(sock, pid));
}

/* Write @text to file @file of directory @dir */
static int deploy_put(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);

	return ue_write_str(path, text, 0);
}

/*
 * tracefs mounted elsewhere, alone: the client finds it through
 * /proc/mounts and uses it; the tracer uses the same mount.
 */
static int deploy_other_mount_point(const char *dir)
{
	char tracing[64], found[PATH_MAX], want[128], enable[128];
	int *word = deploy_word();
	int fd, index, ret;
	char *trace;

	if (!word)
		return S_MAP;
	snprintf(tracing, sizeof(tracing), "%s/tracing", dir);
	if (unshare(CLONE_NEWNS))
		return S_UNSHARE;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mkdir(tracing, 0700) ||
	    mount("nodev", tracing, "tracefs", 0, NULL))
		return S_MOUNT;
	ret = deploy_private_mounts_without_tracefs();
	if (ret)
		return ret;

	snprintf(want, sizeof(want), "%s/user_events_data", tracing);
	if (deploy_find_data_file(found, sizeof(found)) || strcmp(found, want))
		return S_FIND;
	fd = open(found, O_RDWR);
	if (fd < 0)
		return S_OPEN;
	if (ue_reg_fd(fd, EV_CTR " " FIELDS, word, 0, 4, 0, &index))
		return S_REGISTER;

	snprintf(enable, sizeof(enable), "events/user_events/%s/enable",
		 EV_CTR);
	if (deploy_put(tracing, enable, "1"))
		return S_ENABLE;
	if (ue_load(word) != 1)
		return S_BIT_SET;
	if (deploy_emit(fd, index, 6, "mnt"))
		return S_WRITE;
	snprintf(found, sizeof(found), "%s/trace", tracing);
	trace = ue_read_file(found);
	if (!trace || !strstr(trace, EV_CTR ": count=6 msg=mnt"))
		return S_TRACE;
	free(trace);
	if (deploy_put(tracing, enable, "0"))
		return S_ENABLE;
	if (ue_load(word) != 0)
		return S_BIT_CLEAR;
	if (ue_unreg_fd(fd, word, 0))
		return S_UNREGISTER;
	close(fd);

	return S_OK;
}

TEST_F(deploy, container_tracefs_found_through_proc_mounts) {
	pid_t pid;
	int ret;

	snprintf(self->dir, sizeof(self->dir), "/tmp/deploy.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(deploy_other_mount_point(self->dir));
	ret = ue_wait_child(pid);
	ASSERT_EQ(S_OK, ret) {
		TH_LOG("client: %s", deploy_step_name(ret));
	}
}

/* The probe word of the feature probes: never registered */
static __u32 probe_word;

/*
 * The feature probes of the sample (samples/user_events/example.c):
 * 1 the kernel has it, 0 it has not, -1 cannot tell.
 */
static int deploy_probe_abi(int fd)
{
	struct user_unreg unreg = {0};

	unreg.size = sizeof(unreg);
	unreg.disable_addr = (__u64)(unsigned long)&probe_word;
	if (ioctl(fd, DIAG_IOCSUNREG, &unreg) == 0 || errno == ENOENT)
		return 1;

	return errno == ENOTTY ? 0 : -1;
}

static int deploy_probe_flag(int fd, __u16 flag)
{
	struct user_reg reg = {0};

	reg.size = sizeof(reg);
	reg.enable_size = sizeof(probe_word);
	reg.enable_addr = (__u64)(unsigned long)&probe_word;
	reg.flags = flag;
	reg.name_args = 0;
	if (ioctl(fd, DIAG_IOCSREG, &reg) == 0)
		return -1;

	return errno == EFAULT ? 1 : errno == EINVAL ? 0 : -1;
}

/*
 * Feature probing: the bit-enable ABI is there when DIAG_IOCSUNREG of a
 * bit never registered gives ENOENT (the earlier ABI has no such ioctl);
 * the status page of that earlier ABI is gone. The probe needs the fd
 * opened for writing, like everything else.
 */
TEST_F(deploy, probe_bit_enable_abi) {
	void *page;
	int fd;

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(1, deploy_probe_abi(fd));
	close(fd);

	fd = open(DATA_FILE, O_RDONLY);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(-1, deploy_probe_abi(fd));
	ASSERT_EQ(EBADF, errno);
	close(fd);

	fd = open(STATUS_FILE, O_RDONLY);
	ASSERT_NE(-1, fd);
	page = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_EQ(MAP_FAILED, page);
	ASSERT_EQ(ENODEV, errno);
	close(fd);
}

/*
 * Each flag this kernel knows passes the flag check and fails on the
 * NULL command (EFAULT); an unknown flag is EINVAL, as PERSIST is on
 * 6.4-6.6 and MULTI_FORMAT before 6.9. Nothing is created or registered.
 */
TEST_F(deploy, probe_flags_known_efault_unknown_einval) {
	int fd, active = ue_active_count();

	ASSERT_LE(0, active);
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(1, deploy_probe_flag(fd, USER_EVENT_REG_PERSIST));
	ASSERT_EQ(1, deploy_probe_flag(fd, USER_EVENT_REG_MULTI_FORMAT));
	ASSERT_EQ(1, deploy_probe_flag(fd, USER_EVENT_REG_PERSIST |
					   USER_EVENT_REG_MULTI_FORMAT));
	ASSERT_EQ(0, deploy_probe_flag(fd, USER_EVENT_REG_MAX));
	ASSERT_EQ(0, deploy_probe_flag(fd, 1 << 15));

	ASSERT_EQ(0, probe_word);
	ASSERT_EQ(-1, ue_unreg_fd(fd, &probe_word, 0));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(active, ue_active_count());
	close(fd);
}

/* The sample's -f prints what the probes found */
TEST_F_TIMEOUT(deploy, sample_prints_features, 60) {
	const char *sample = getenv("UE_SAMPLE");
	char *const argv[] = { (char *)sample, "-f", NULL };
	char *out;
	pid_t pid;

	if (!sample || access(sample, X_OK))
		SKIP(return, "no sample binary: set UE_SAMPLE to samples/user_events/example");

	pid = deploy_spawn(argv, "deploy.sample.out");
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, deploy_wait_exit(pid, 50000));
	out = ue_read_file("deploy.sample.out");
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "bit-enable ABI: yes\n"));
	EXPECT_NE(NULL, strstr(out, "USER_EVENT_REG_PERSIST: yes\n"));
	EXPECT_NE(NULL, strstr(out, "USER_EVENT_REG_MULTI_FORMAT: yes\n")) {
		TH_LOG("example -f: %s", out);
	}
	free(out);
}

/*
 * The permission model: tracefs mounted with gid= (here a remount, as
 * tracefs has one superblock) gives every file to the group, mode= opens
 * the root directory to it, and user_events_data needs group write.
 */
FIXTURE(perm) {
	bool umount;
	struct stat root;
};

static int perm_remount(gid_t gid, mode_t mode)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "gid=%u,mode=%o", gid, mode & 07777);

	return mount(NULL, TRACEFS_DIR, NULL, MS_REMOUNT, opts);
}

FIXTURE_SETUP(perm) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_cleanup_event(EV_PERM);
	ASSERT_EQ(0, stat(TRACEFS_DIR, &self->root));
	ASSERT_EQ(0, ue_clear_trace());

	ASSERT_EQ(0, perm_remount(TRACING_GID, 0750));
}

FIXTURE_TEARDOWN(perm) {
	chmod(DATA_FILE, 0640);
	chmod(STATUS_FILE, 0440);
	perm_remount(self->root.st_gid, self->root.st_mode);
	ue_enable(EV_PERM, 0);
	ue_cleanup_event(EV_PERM);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Become uid/gid NOBODY, in the tracing group or not: no capabilities */
static bool perm_drop(bool member)
{
	gid_t groups[] = { TRACING_GID };

	return !setgroups(member ? 1 : 0, groups) && !setgid(NOBODY) &&
	       !setuid(NOBODY) && geteuid() == NOBODY;
}

static int perm_member_producer(int sock, const char *unused)
{
	int *word = deploy_word();
	int fd, index, ret;

	if (!perm_drop(true))
		return S_DROP;
	if (!word)
		return S_MAP;
	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0)
		return S_OPEN;
	if (ue_reg_fd(fd, EV_PERM " " FIELDS, word, 0, 4, 0, &index))
		return S_REGISTER;
	ret = deploy_follow_write(sock, fd, word, index, 8, "member");
	if (ret)
		return ret;
	if (ue_unreg_fd(fd, word, 0) || ue_load(word) != 0)
		return S_UNREGISTER;
	close(fd);

	return S_OK;
}

/* gid= gives every file of tracefs to the group; modes stay */
TEST_F(perm, gid_mount_gives_files_to_group) {
	struct stat st;

	ASSERT_EQ(0, stat(TRACEFS_DIR, &st));
	ASSERT_EQ(TRACING_GID, st.st_gid);
	ASSERT_EQ(0750, st.st_mode & 07777);
	ASSERT_EQ(0, stat(DATA_FILE, &st));
	ASSERT_EQ(TRACING_GID, st.st_gid);
	ASSERT_EQ(0640, st.st_mode & 07777);
	ASSERT_EQ(0, stat(STATUS_FILE, &st));
	ASSERT_EQ(TRACING_GID, st.st_gid);
	ASSERT_EQ(0440, st.st_mode & 07777);
}

/* Row: a member of the group, with group write on user_events_data */
TEST_F(perm, member_registers_and_writes) {
	int sock;
	pid_t pid;

	ASSERT_EQ(0, chmod(DATA_FILE, 0660));
	pid = deploy_start(&sock, perm_member_producer, NULL);
	ASSERT_LE(0, pid);
	DEPLOY_ASSERT(deploy_wait(sock), pid, "member");
	ASSERT_EQ(0, ue_enable(EV_PERM, 1));
	ASSERT_EQ(S_OK, deploy_finish(sock, pid));
	ASSERT_TRUE(ue_trace_has(EV_PERM ": count=8 msg=member"));
	ASSERT_EQ(0, ue_enable(EV_PERM, 0));
}

/* Run @fn in a child that became NOBODY (@member of the group or not) */
static int perm_run(bool member, int (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		if (!perm_drop(member))
			_exit(S_DROP);
		_exit(fn());
	}

	return pid < 0 ? -1 : ue_wait_child(pid);
}

static int perm_open_eacces(void)
{
	return open(DATA_FILE, O_RDWR) == -1 && errno == EACCES ?
	       S_OK : S_OPEN_EACCES;
}

static int perm_rdonly_ebadf(void)
{
	int word = 0, fd;

	if (open(DATA_FILE, O_RDWR) != -1 || errno != EACCES)
		return S_OPEN_EACCES;
	fd = open(DATA_FILE, O_RDONLY);
	if (fd < 0)
		return S_OPEN_RDONLY;
	if (ue_reg_fd(fd, EV_PERM " " FIELDS, &word, 0, 4, 0, NULL) != -1 ||
	    errno != EBADF)
		return S_REG_EBADF;

	return S_OK;
}

/* Row: a member, user_events_data left at 0640: read-only, EBADF */
TEST_F(perm, member_without_group_write_cannot_register) {
	int ret = perm_run(true, perm_rdonly_ebadf);

	ASSERT_EQ(S_OK, ret) {
		TH_LOG("member: %s", deploy_step_name(ret));
	}
	ASSERT_FALSE(ue_event_exists(EV_PERM));
}

/* Row: not a member of the group: EACCES at open */
TEST_F(perm, non_member_open_eacces) {
	int ret;

	ASSERT_EQ(0, chmod(DATA_FILE, 0660));
	ret = perm_run(false, perm_open_eacces);
	ASSERT_EQ(S_OK, ret) {
		TH_LOG("non-member: %s", deploy_step_name(ret));
	}
}

static int perm_persist(void)
{
	int *word = deploy_word();
	int fd;

	if (!word)
		return S_MAP;
	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0)
		return S_OPEN;
	/* The kernel knows the flag, whoever asks ... */
	if (deploy_probe_flag(fd, USER_EVENT_REG_PERSIST) != 1)
		return S_PROBE;
	/* ... but only CAP_PERFMON may use it */
	if (ue_reg_fd(fd, EV_PERM " " FIELDS, word, 0, 4,
		      USER_EVENT_REG_PERSIST, NULL) != -1 || errno != EPERM)
		return S_PERSIST_EPERM;
	close(fd);

	return S_OK;
}

/* Row: PERSIST without CAP_PERFMON is EPERM (the probe still works) */
TEST_F(perm, member_persist_eperm) {
	int ret;

	ASSERT_EQ(0, chmod(DATA_FILE, 0660));
	ret = perm_run(true, perm_persist);
	ASSERT_EQ(S_OK, ret) {
		TH_LOG("member: %s", deploy_step_name(ret));
	}
	ASSERT_FALSE(ue_event_exists(EV_PERM));
}

static int perm_read_status(void)
{
	char *text = ue_read_file(STATUS_FILE);
	bool ok = text && strstr(text, "Active: ");

	free(text);
	return ok ? S_OK : S_READ_STATUS;
}

static int perm_status_eacces(void)
{
	return open(STATUS_FILE, O_RDONLY) == -1 && errno == EACCES ?
	       S_OK : S_STATUS_EACCES;
}

/* Row: user_events_status is readable as its mode and group say */
TEST_F(perm, status_readable_as_mode_says) {
	int ret;

	ret = perm_run(true, perm_read_status);
	ASSERT_EQ(S_OK, ret) {
		TH_LOG("member, 0440: %s", deploy_step_name(ret));
	}
	ret = perm_run(false, perm_status_eacces);
	ASSERT_EQ(S_OK, ret) {
		TH_LOG("non-member, 0440: %s", deploy_step_name(ret));
	}
	ASSERT_EQ(0, chmod(STATUS_FILE, 0400));
	ret = perm_run(true, perm_status_eacces);
	ASSERT_EQ(S_OK, ret) {
		TH_LOG("member, 0400: %s", deploy_step_name(ret));
	}
}

/*
 * BPF: a program attached to a user event would never run,
 * since writes call the ftrace and perf probes themselves; the attach
 * fails. Kernel tracepoints and uprobes take programs as before.
 */
static int bpf_prog_load(int type, int retval)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = retval },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.insns = (__u64)(unsigned long)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (__u64)(unsigned long)"GPL";

	return syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

static int bpf_link_perf(int prog, int perf_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog;
	attr.link_create.target_fd = perf_fd;
	attr.link_create.attach_type = BPF_PERF_EVENT;

	return syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
}

/*
 * Whether this kernel has bpf(2): with CONFIG_BPF_SYSCALL, an attr
 * that cannot be read is EFAULT; without it, the call does not exist.
 */
static bool ue_have_bpf(void)
{
	return syscall(__NR_bpf, BPF_PROG_LOAD, NULL,
		       sizeof(union bpf_attr)) == -1 && errno == EFAULT;
}

/* A raw tracepoint of that name for program @prog, or -1 */
static int bpf_raw_tp_open(int prog, const char *name)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = (__u64)(unsigned long)name;
	attr.raw_tracepoint.prog_fd = prog;

	return syscall(__NR_bpf, BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr));
}

#define NO_BPF "no bpf(2): a kernel without CONFIG_BPF_SYSCALL"
#define BPFTRACE_ATTACH_ERROR \
	"ERROR: Error attaching probe: tracepoint:user_events:" EV_BPFTRACE

TEST_F(deploy, bpf_attach_to_user_event_fails) {
	int *word = deploy_word();
	int fd, pfd, prog, raw, index, id;
	void *ring;

	ASSERT_NE(NULL, word);
	if (!ue_have_perf())
		SKIP(return, UE_NO_PERF);
	if (!ue_have_bpf())
		SKIP(return, NO_BPF);
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, 1);
	ASSERT_LE(0, prog) {
		TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	}

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EV_BPF " " FIELDS, word, 0, 4, 0, &index));
	id = ue_event_id(EV_BPF);
	ASSERT_LT(0, id);
	pfd = ue_perf_open(id);
	ASSERT_NE(-1, pfd);
	ring = deploy_perf_ring(pfd);
	ASSERT_NE(NULL, ring);
	ASSERT_EQ(1, ue_load(word));

	/* What bpftrace and BCC do: refused at once */
	ASSERT_EQ(-1, ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog));
	ASSERT_EQ(EINVAL, errno);
	/* The same through a BPF link */
	ASSERT_EQ(-1, bpf_link_perf(prog, pfd));
	ASSERT_EQ(EINVAL, errno);
	/* Raw tracepoints are the kernel's own: no user event among them */
	raw = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0);
	ASSERT_LE(0, raw) {
		TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	}
	ASSERT_EQ(-1, bpf_raw_tp_open(raw, EV_BPF));
	ASSERT_EQ(ENOENT, errno);
	close(raw);

	/* perf recording of the event is unaffected */
	ASSERT_EQ(1, ue_load(word));
	ASSERT_EQ(0, deploy_emit(fd, index, 10, "bpf"));
	ASSERT_TRUE(deploy_perf_has(ring, EV_BPF, 10, "bpf"));

	munmap(ring, 2 * getpagesize());
	close(pfd);
	ASSERT_EQ(0, ue_load(word));
	ASSERT_EQ(0, ue_unreg_fd(fd, word, 0));
	close(fd);
	close(prog);
}

/* A counting perf event of this task on PMU @type with @config */
static int bpf_perf_count(__u32 type, __u64 config, __u64 config1,
			  __u64 config2)
{
	struct perf_event_attr pe = {0};

	pe.type = type;
	pe.size = sizeof(pe);
	pe.config = config;
	pe.config1 = config1;
	pe.config2 = config2;
	pe.sample_period = 1;

	return syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
}

static long long bpf_perf_read(int fd)
{
	long long count;

	return read(fd, &count, sizeof(count)) == sizeof(count) ? count : -1;
}

/*
 * A kernel tracepoint (task:task_rename, fired by prctl(PR_SET_NAME) in
 * this task) takes a program, and the program runs: returning 0, it
 * drops the samples of every perf event of the tracepoint (the programs
 * belong to the tracepoint), until the event it came with is closed.
 */
TEST_F(deploy, bpf_attach_to_kernel_tracepoint_runs) {
	char name[16] = {0};
	int prog, filtered, control, id;
	char *text;

	if (!ue_have_perf())
		SKIP(return, UE_NO_PERF);
	text = ue_read_file(TRACEFS_DIR "/events/task/task_rename/id");
	if (!text)
		SKIP(return, "no task:task_rename tracepoint");
	id = atoi(text);
	free(text);
	if (!ue_have_bpf())
		SKIP(return, NO_BPF);
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, 0);
	ASSERT_LE(0, prog) {
		TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	}

	ASSERT_EQ(0, prctl(PR_GET_NAME, name));
	control = bpf_perf_count(PERF_TYPE_TRACEPOINT, id, 0, 0);
	ASSERT_NE(-1, control);
	ASSERT_EQ(0, prctl(PR_SET_NAME, "deploy_bpf"));
	ASSERT_EQ(1, bpf_perf_read(control));

	filtered = bpf_perf_count(PERF_TYPE_TRACEPOINT, id, 0, 0);
	ASSERT_NE(-1, filtered);
	ASSERT_EQ(0, ioctl(filtered, PERF_EVENT_IOC_SET_BPF, prog)) {
		TH_LOG("PERF_EVENT_IOC_SET_BPF: %s", strerror(errno));
	}
	ASSERT_EQ(0, prctl(PR_SET_NAME, name));
	ASSERT_EQ(1, bpf_perf_read(control));
	ASSERT_EQ(0, bpf_perf_read(filtered));

	close(filtered);
	ASSERT_EQ(0, prctl(PR_SET_NAME, name));
	ASSERT_EQ(2, bpf_perf_read(control));
	close(control);
	close(prog);
}

/*
 * Where the uprobe test puts its probe. 32-bit ARM probes only ARM code,
 * not Thumb-2 (which Debian's armhf compiler makes by default)
 */
#ifdef __thumb__
__attribute__((target("arm")))
#endif
static int bpf_uprobe_target(int x)
{
	__asm__ __volatile__("" : "+r"(x) : : "memory");
	return x + 1;
}

/* File and offset of the code at @addr, from /proc/self/maps */
static int deploy_file_offset(const void *addr, char *path, size_t len,
			      __u64 *offset)
{
	unsigned long start, end, off, a = (unsigned long)addr;
	char line[PATH_MAX + 128], perms[8], file[PATH_MAX];
	FILE *maps = fopen("/proc/self/maps", "r");
	int ret = -1;

	if (!maps)
		return -1;
	while (ret && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end,
			   perms, &off, file) != 5)
			continue;
		if (a < start || a >= end || perms[2] != 'x')
			continue;
		snprintf(path, len, "%s", file);
		*offset = a - start + off;
		ret = 0;
	}
	fclose(maps);

	return ret;
}

/*
 * A uprobe on a function of this program takes a program of the kprobe
 * type (the check the perf core makes for kprobes and uprobes alike),
 * and the program runs. Each uprobe perf event is a probe of its own:
 * the program drops the samples of its event only.
 */
TEST_F(deploy, bpf_attach_to_uprobe_runs) {
	int (*target)(int) = bpf_uprobe_target;
	int prog, filtered, control, type;
	char path[PATH_MAX];
	__u64 offset;
	char *text;

	if (!ue_have_perf())
		SKIP(return, UE_NO_PERF);
	text = ue_read_file("/sys/bus/event_source/devices/uprobe/type");
	if (!text)
		SKIP(return, "no uprobe PMU: a kernel without CONFIG_UPROBE_EVENTS");
	type = atoi(text);
	free(text);
	if (!ue_have_bpf())
		SKIP(return, NO_BPF);
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, 0);
	ASSERT_LE(0, prog) {
		TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	}
	ASSERT_EQ(0, deploy_file_offset((void *)bpf_uprobe_target, path,
					sizeof(path), &offset));

	filtered = bpf_perf_count(type, 0, (__u64)(unsigned long)path, offset);
	ASSERT_NE(-1, filtered) {
		TH_LOG("uprobe on %s+%#llx: %s", path,
		       (unsigned long long)offset, strerror(errno));
	}
	control = bpf_perf_count(type, 0, (__u64)(unsigned long)path, offset);
	ASSERT_NE(-1, control);
	ASSERT_EQ(0, ioctl(filtered, PERF_EVENT_IOC_SET_BPF, prog)) {
		TH_LOG("PERF_EVENT_IOC_SET_BPF: %s", strerror(errno));
	}

	/* A call the compiler cannot inline: it cannot see the target */
	__asm__ __volatile__("" : "+r"(target));
	ASSERT_EQ(2, target(1));
	ASSERT_EQ(1, bpf_perf_read(control));
	ASSERT_EQ(0, bpf_perf_read(filtered));

	close(filtered);
	close(control);
	close(prog);
}

/*
 * bpftrace, where it is installed and runs: a user event probe fails to
 * attach, and bpftrace says so and exits; a kernel tracepoint works.
 */
TEST_F_TIMEOUT(deploy, bpftrace_user_event_probe_fails, 400) {
	char bpftrace[256], *out;
	char *const works[] = { bpftrace, "-e",
			  "tracepoint:task:task_rename { printf(\"renamed\\n\"); exit(); }",
			  "-c", "/bin/true", NULL };
	char *const fails[] = { bpftrace, "-e",
			  "tracepoint:user_events:" EV_BPFTRACE
			  " { printf(\"%d\\n\", args->count); }",
			  NULL };
	int *word = deploy_word();
	pid_t pid;
	int ret;

	ASSERT_NE(NULL, word);
	if (!deploy_which("bpftrace", bpftrace, sizeof(bpftrace)))
		SKIP(return, "bpftrace is not installed");
	if (!ue_have_perf())
		SKIP(return, UE_NO_PERF);
	if (!ue_have_bpf())
		SKIP(return, NO_BPF);

	pid = deploy_spawn(works, "deploy.bpftrace.works");
	ASSERT_LT(0, pid);
	ret = deploy_wait_exit(pid, 170000);
	out = ue_read_file("deploy.bpftrace.works");
	if (ret || !out || !strstr(out, "renamed")) {
		TH_LOG("bpftrace on task:task_rename: %d: %.300s", ret,
		       out ? out : "");
		free(out);
		SKIP(return, "bpftrace does not run on this kernel");
	}
	free(out);

	/*
	 * Types bpftrace knows without kernel headers or BTF (it does not
	 * know u32): the probe compiles, and the attach is what fails.
	 */
	ASSERT_EQ(0, ue_reg(EV_BPFTRACE " int count", word, 0, 4, 0));
	pid = deploy_spawn(fails, "deploy.bpftrace.fails");
	ASSERT_LT(0, pid);
	ret = deploy_wait_exit(pid, 170000);
	out = ue_read_file("deploy.bpftrace.fails");
	/* -2: still running, i.e. attached */
	EXPECT_NE(-2, ret);
	EXPECT_EQ(255, ret);
	EXPECT_TRUE(out && strstr(out, BPFTRACE_ATTACH_ERROR));
	TH_LOG("bpftrace on user_events:%s: exit %d: %.400s", EV_BPFTRACE,
	       ret, out ? out : "");
	free(out);
	/* It left nothing attached */
	EXPECT_EQ(0, ue_load(word));
	ASSERT_EQ(0, ue_unreg(word, 0));
}

/* The id of the newest "name.<id>" directory of multi-format @name */
static long long deploy_multi_id(const char *name)
{
	char pattern[512];
	long long id = -1;
	unsigned int i;
	glob_t g;

	snprintf(pattern, sizeof(pattern), MULTI_DIR "/%s.*", name);
	if (glob(pattern, 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		long long v = strtoll(strrchr(g.gl_pathv[i], '.') + 1, NULL, 16);

		if (v > id)
			id = v;
	}
	globfree(&g);

	return id;
}

static int deploy_hex_len(long long v)
{
	return snprintf(NULL, 0, "%llx", v);
}

/*
 * A multi-format name whose "name.<id>" would be longer than 255 bytes
 * is refused with EINVAL, and error_log says why, with a caret at the
 * first byte of the name that does not fit; one byte less fits.
 */
TEST_F(deploy, multi_format_name_too_long_with_id_logged) {
	char name[300], cmd[320], expect[700], *log, *at, *line;
	int *word = deploy_word();
	long long id;
	int fd, len, pos;

	ASSERT_NE(NULL, word);
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EV_MULTI " u32 a", word, 0, 4,
			       USER_EVENT_REG_MULTI_FORMAT, NULL));
	id = deploy_multi_id(EV_MULTI);
	ASSERT_LE(0, id);

	/* The next id fits in 255 bytes exactly */
	len = 255 - 1 - deploy_hex_len(id + 1);
	memset(name, 'm', len);
	name[len] = '\0';
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ASSERT_EQ(0, ue_reg_fd(fd, cmd, word, 1, 4,
			       USER_EVENT_REG_MULTI_FORMAT, NULL));
	ASSERT_EQ(id + 1, deploy_multi_id(name));

	/* One more byte, and the one after that is one too many */
	ASSERT_EQ(0, ue_write_str(ERROR_LOG, "", O_TRUNC));
	len = 255 - 1 - deploy_hex_len(id + 2) + 1;
	memset(name, 'm', len);
	name[len] = '\0';
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ASSERT_EQ(-1, ue_reg_fd(fd, cmd, word, 2, 4,
				USER_EVENT_REG_MULTI_FORMAT, NULL));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, deploy_multi_id(name));

	log = ue_read_file(ERROR_LOG);
	ASSERT_NE(NULL, log);
	at = strstr(log, "user_events: error: ");
	ASSERT_NE(NULL, at) {
		TH_LOG("error_log: %s", log);
	}
	line = strchr(at, '\n');
	ASSERT_NE(NULL, line);
	*line++ = '\0';
	EXPECT_STREQ("user_events: error: Event name with its .<id> longer than 255 bytes",
		     at);
	/* The name, then the caret under the first byte that does not fit */
	pos = 255 - 1 - deploy_hex_len(id + 2);
	snprintf(expect, sizeof(expect), "  Command: %s\n%*s^\n", name,
		 (int)strlen("  Command: ") + pos, "");
	EXPECT_STREQ(expect, line);
	free(log);

	ASSERT_EQ(0, ue_unreg_fd(fd, word, 0));
	ASSERT_EQ(0, ue_unreg_fd(fd, word, 1));
	close(fd);
}

TEST_HARNESS_MAIN
