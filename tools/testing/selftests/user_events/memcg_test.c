// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel memory of user_events is charged to the memory cgroup of the
 * process that registers, so that a cgroup's memory.max also bounds what
 * its processes make the kernel keep for them (cgroup v2, the "kernel"
 * line of memory.stat: slab, large kmalloc and vmalloc alike):
 *
 * - the events a process creates, with their tracefs files and fields:
 *   its cgroup grows by at least the bytes of the commands, and events of
 *   64 fields cost it at least FIELD_MIN bytes per extra field more than
 *   events of one field; a sibling cgroup is not charged;
 * - the enablers a process adds to an event that a process of another
 *   cgroup created: at least ENABLER_MIN bytes each, charged to the
 *   registering process's cgroup, not to the creator's;
 * - the enablers a fork copies into the child;
 * - all of it is uncharged when it goes (events deleted, enablers
 *   unregistered or dropped by exit) within FREE_MS: memory may be freed
 *   after RCU grace periods, so the test polls for that long.
 *
 * The test makes its own cgroups under the cgroup2 root (and mounts
 * cgroup2 on /sys/fs/cgroup when nothing is mounted) and skips on a
 * kernel without the memory controller (CONFIG_MEMCG).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sys/types.h>

#include "user_events_selftests.h"

#define CG_MNT		"/sys/fs/cgroup"
#define PREFIX		"__memcg"
#define NR_EVENTS	100
#define NR_FIELDS	64
#define NR_ENABLERS	4096
/* The least one field of an event can cost: the core's field record */
#define FIELD_MIN	(4 * sizeof(long))
/* The least one enabler can cost: its address and its event */
#define ENABLER_MIN	(2 * sizeof(long))
/*
 * What may stay charged after everything went: the per-CPU charge caches
 * (up to a page each), the process's own user_events bookkeeping and the
 * buffers of the memory.stat reads.  A leak of 330 bytes per event or 16
 * per enabler exceeds it.
 */
#define SLACK		(64 * 1024L)
/* A cgroup without processes: a page of rounding at most */
#define IDLE_SLACK	4096L
#define FREE_MS		10000
/* Each test, on a debug kernel under emulation: thousands of ioctls */
#define TEST_SECONDS	120

FIXTURE(memcg) {
	char root[256];		/* the cgroup2 mount */
	char dir[300];		/* root/ue_memcg.PID, parent of a and b */
	char a[320];
	char b[320];
	char home[PATH_MAX];	/* this process's cgroup before the test */
	bool umount;		/* tracefs mounted by the test */
	bool cg_mounted;	/* cgroup2 mounted by the test */
};

/* The mount point of cgroup2 from /proc/self/mounts, or false */
static bool cg_find_root(char *root, size_t len)
{
	char *text = ue_read_file("/proc/self/mounts");
	char *line, *save = NULL;
	bool found = false;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[64], mnt[256], type[64];

		if (sscanf(line, "%63s %255s %63s", dev, mnt, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(root, len, "%s", mnt);
			found = true;
		}
	}
	free(text);

	return found;
}

/* Whether the space-separated list in @path has the word @word */
static bool cg_has_word(const char *path, const char *word)
{
	char *text = ue_read_file(path);
	char *tok, *save = NULL;
	bool found = false;

	if (!text)
		return false;
	for (tok = strtok_r(text, "\n ", &save); tok && !found;
	     tok = strtok_r(NULL, "\n ", &save))
		found = !strcmp(tok, word);
	free(text);

	return found;
}

/* Move the calling process into the cgroup @dir */
static int cg_enter(const char *dir)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);

	return ue_write_str(path, "0\n", 0);
}

/* memory.stat @key of the cgroup @dir in bytes, -1 if it has none */
static long cg_stat(const char *dir, const char *key)
{
	char path[PATH_MAX + 16], *text, *at;
	size_t klen = strlen(key);
	long val = -1;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	text = ue_read_file(path);
	if (!text)
		return -1;
	for (at = text; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL) {
		if (!strncmp(at, key, klen) && at[klen] == ' ') {
			val = atol(at + klen + 1);
			break;
		}
	}
	free(text);

	return val;
}

/* The kernel memory charged to the cgroup @dir */
static long cg_kernel(const char *dir)
{
	return cg_stat(dir, "kernel");
}

/*
 * Poll until the kernel memory of @dir is at most @limit, for FREE_MS;
 * returns the last value read.
 */
static long cg_wait_kernel_at_most(const char *dir, long limit)
{
	long end = ue_now_ms() + FREE_MS, now;

	for (;;) {
		now = cg_kernel(dir);
		if (now <= limit || ue_now_ms() > end)
			return now;
		ue_sleep_ms(50);
	}
}

/* The name of event @i of @set (one: one field, many: NR_FIELDS) */
static void mcg_name(char *buf, size_t len, const char *set, int i)
{
	snprintf(buf, len, PREFIX "_%s_%03d", set, i);
}

/* Command of event @i of @set with @nr u8 fields; returns its length */
static size_t mcg_cmd(char *buf, size_t len, const char *set, int i, int nr)
{
	size_t at;
	int f;

	mcg_name(buf, len, set, i);
	at = strlen(buf);
	for (f = 0; f < nr && at < len; f++)
		at += snprintf(buf + at, len - at, "%su8 f%02d",
			       f ? ";" : " ", f);

	return strlen(buf);
}

static void mcg_cleanup(void)
{
	char name[64];
	int i;

	for (i = 0; i < NR_EVENTS; i++) {
		mcg_name(name, sizeof(name), "one", i);
		if (ue_event_exists(name))
			ue_cleanup_event(name);
		mcg_name(name, sizeof(name), "many", i);
		if (ue_event_exists(name))
			ue_cleanup_event(name);
	}
	ue_cleanup_event(PREFIX "_enablers");
	ue_cleanup_event(PREFIX "_fork");
}

FIXTURE_SETUP(memcg) {
	char path[PATH_MAX + 32], *text;
	const char *reason = NULL;

	USER_EVENT_FIXTURE_SETUP(self->umount);

	if (!cg_find_root(self->root, sizeof(self->root))) {
		text = ue_read_file("/proc/filesystems");
		if (!text || !strstr(text, "\tcgroup2\n"))
			reason = "kernel without cgroup2 (CONFIG_CGROUPS)";
		free(text);
		if (reason)
			SKIP(longjmp(_metadata->env, 1), "%s", reason);
		ASSERT_EQ(0, mount("cgroup2", CG_MNT, "cgroup2", 0, NULL)) {
			TH_LOG("mount cgroup2 on %s: %s", CG_MNT, strerror(errno));
		}
		self->cg_mounted = true;
		snprintf(self->root, sizeof(self->root), "%s", CG_MNT);
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", self->root);
	if (!cg_has_word(path, "memory"))
		SKIP(longjmp(_metadata->env, 1),
		     "no memory controller: a kernel without CONFIG_MEMCG");

	/* Where this process was, to go back there in the teardown */
	text = ue_read_file("/proc/self/cgroup");
	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, strstr(text, "0::/")) {
		TH_LOG("/proc/self/cgroup has no cgroup2 line: %s", text);
	}
	snprintf(self->home, sizeof(self->home), "%s%s", self->root,
		 strstr(text, "0::/") + 3);
	free(text);
	self->home[strcspn(self->home, "\n")] = '\0';

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", self->root);
	if (!cg_has_word(path, "memory"))
		ASSERT_EQ(0, ue_write_str(path, "+memory\n", 0)) {
			TH_LOG("enable the memory controller: %s", strerror(errno));
		}
	snprintf(self->dir, sizeof(self->dir), "%s/ue_memcg.%d", self->root,
		 getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755)) {
		TH_LOG("mkdir %s: %s", self->dir, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", self->dir);
	ASSERT_EQ(0, ue_write_str(path, "+memory\n", 0));
	snprintf(self->a, sizeof(self->a), "%s/a", self->dir);
	snprintf(self->b, sizeof(self->b), "%s/b", self->dir);
	ASSERT_EQ(0, mkdir(self->a, 0755));
	ASSERT_EQ(0, mkdir(self->b, 0755));
	ASSERT_LE(0, cg_kernel(self->a)) {
		TH_LOG("no \"kernel\" line in %s/memory.stat", self->a);
	}
	mcg_cleanup();
}

FIXTURE_TEARDOWN(memcg) {
	if (self->home[0])
		cg_enter(self->home);
	mcg_cleanup();
	if (self->dir[0]) {
		rmdir(self->a);
		rmdir(self->b);
		rmdir(self->dir);
	}
	if (self->cg_mounted)
		umount(CG_MNT);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * Register NR_EVENTS new events of @nr fields each on @fd, enable words
 * in @words; returns the number registered, the bytes of their commands
 * in *@bytes
 */
static int mcg_reg_set(int fd, const char *set, int nr, int *words,
		       long *bytes)
{
	char cmd[512];
	int i;

	*bytes = 0;
	for (i = 0; i < NR_EVENTS; i++) {
		*bytes += mcg_cmd(cmd, sizeof(cmd), set, i, nr);
		if (ue_reg_fd(fd, cmd, &words[i], 0, 4, 0, NULL)) {
			fprintf(stderr, "# %s: %s\n", cmd, strerror(errno));
			break;
		}
	}

	return i;
}

/* Unregister the enablers of a set; returns the calls that failed */
static int mcg_unreg_set(int fd, int *words)
{
	int i, bad = 0;

	for (i = 0; i < NR_EVENTS; i++)
		bad += ue_unreg_fd(fd, &words[i], 0) != 0;

	return bad;
}

/* Delete the events of @set; returns those that are still there */
static int mcg_del_set(const char *set)
{
	char name[64];
	int i, bad = 0;

	for (i = 0; i < NR_EVENTS; i++) {
		mcg_name(name, sizeof(name), set, i);
		bad += !ue_del_unreferenced(name);
	}

	return bad;
}

TEST_F_TIMEOUT(memcg, events_charged_to_registering_cgroup, TEST_SECONDS)
{
	static int one[NR_EVENTS], many[NR_EVENTS];
	long base_a, base_b, after_one, after_many, left, cmd_one, cmd_many;
	long one_cost, many_cost;
	int fd, n;

	ASSERT_EQ(0, cg_enter(self->a));
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, fd);
	base_a = cg_kernel(self->a);
	base_b = cg_kernel(self->b);

	n = mcg_reg_set(fd, "one", 1, one, &cmd_one);
	ASSERT_EQ(NR_EVENTS, n);
	after_one = cg_kernel(self->a);
	n = mcg_reg_set(fd, "many", NR_FIELDS, many, &cmd_many);
	ASSERT_EQ(NR_EVENTS, n);
	after_many = cg_kernel(self->a);
	one_cost = after_one - base_a;
	many_cost = after_many - after_one;
	TH_LOG("%d events of 1 field: %ld bytes charged, of %d fields: %ld",
	       NR_EVENTS, one_cost, NR_FIELDS, many_cost);

	ASSERT_GE(one_cost, cmd_one) {
		TH_LOG("%d new events: %ld bytes charged, less than their commands' %ld",
		       NR_EVENTS, one_cost, cmd_one);
	}
	ASSERT_GE(many_cost - one_cost,
		  (long)(NR_EVENTS * (NR_FIELDS - 1) * FIELD_MIN)) {
		TH_LOG("%d more fields per event: %ld bytes charged, less than %zu each",
		       NR_FIELDS - 1, many_cost - one_cost, FIELD_MIN);
	}
	ASSERT_LE(labs(cg_kernel(self->b) - base_b), IDLE_SLACK) {
		TH_LOG("a sibling cgroup was charged %ld bytes",
		       cg_kernel(self->b) - base_b);
	}

	/* Unreferenced once unregistered and closed: deleted at once */
	ASSERT_EQ(0, mcg_unreg_set(fd, one));
	ASSERT_EQ(0, mcg_unreg_set(fd, many));
	close(fd);
	ASSERT_EQ(0, mcg_del_set("one"));
	ASSERT_EQ(0, mcg_del_set("many"));
	left = cg_wait_kernel_at_most(self->a, base_a + SLACK) - base_a;
	ASSERT_LE(left, SLACK) {
		TH_LOG("%ld of %ld bytes still charged %d ms after the events were deleted",
		       left, after_many - base_a, FREE_MS);
	}
}

/* Register enablers [0, @nr) of @cmd on @fd: bit i % 32 of words[i / 32] */
static int mcg_reg_enablers(int fd, const char *cmd, int *words, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (ue_reg_fd(fd, cmd, &words[i / 32], i % 32, 4, 0, NULL)) {
			fprintf(stderr, "# enabler %d: %s\n", i, strerror(errno));
			break;
		}
	}

	return i;
}

TEST_F_TIMEOUT(memcg, enablers_charged_to_registering_cgroup, TEST_SECONDS)
{
	static int words[NR_ENABLERS / 32];
	const char *cmd = PREFIX "_enablers u32 a";
	long base_a, base_b, cost, left;
	int creator_word = 0;
	int fd_b, fd_a, i, bad = 0;

	/* The event is made, and its memory charged, in b */
	ASSERT_EQ(0, cg_enter(self->b));
	fd_b = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, fd_b);
	ASSERT_EQ(0, ue_reg_fd(fd_b, cmd, &creator_word, 0, 4, 0, NULL));

	ASSERT_EQ(0, cg_enter(self->a));
	fd_a = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, fd_a);
	base_a = cg_kernel(self->a);
	base_b = cg_kernel(self->b);
	ASSERT_EQ(NR_ENABLERS, mcg_reg_enablers(fd_a, cmd, words, NR_ENABLERS));
	cost = cg_kernel(self->a) - base_a;
	TH_LOG("%d enablers: %ld bytes charged", NR_ENABLERS, cost);

	ASSERT_GE(cost, (long)(NR_ENABLERS * ENABLER_MIN)) {
		TH_LOG("%d enablers: %ld bytes charged, less than %zu each",
		       NR_ENABLERS, cost, ENABLER_MIN);
	}
	ASSERT_LE(labs(cg_kernel(self->b) - base_b), IDLE_SLACK) {
		TH_LOG("the event creator's cgroup was charged %ld bytes",
		       cg_kernel(self->b) - base_b);
	}

	for (i = 0; i < NR_ENABLERS; i++)
		bad += ue_unreg_fd(fd_a, &words[i / 32], i % 32) != 0;
	ASSERT_EQ(0, bad);
	left = cg_wait_kernel_at_most(self->a, base_a + SLACK) - base_a;
	ASSERT_LE(left, SLACK) {
		TH_LOG("%ld of %ld bytes still charged %d ms after the unregistrations",
		       left, cost, FREE_MS);
	}
	close(fd_a);
	ASSERT_EQ(0, ue_unreg_fd(fd_b, &creator_word, 0));
	close(fd_b);
}

/*
 * Fork a child that registers @nr enablers of @cmd (none when 0), says
 * so on the pipe @ready and exits, without unregistering, when the
 * parent closes its end of the pipe @go.  The parent gets the pid and
 * keeps ready[0] and go[1].
 */
static pid_t mcg_holder(const char *cmd, int nr, int ready[2], int go[2])
{
	static int words[NR_ENABLERS / 32];
	pid_t pid = fork();
	char c = 0;
	int fd;

	if (pid) {
		close(ready[1]);
		close(go[0]);
		return pid;
	}
	close(ready[0]);
	close(go[1]);
	if (nr) {
		fd = open(DATA_FILE, O_RDWR);
		if (fd < 0 || mcg_reg_enablers(fd, cmd, words, nr) != nr)
			_exit(1);
	}
	if (write(ready[1], &c, 1) != 1)
		_exit(1);
	while (read(go[0], &c, 1) > 0)
		;
	_exit(0);
}

TEST_F_TIMEOUT(memcg, exit_uncharges_enablers, TEST_SECONDS)
{
	const char *cmd = PREFIX "_fork u32 a";
	int ready[2], go[2], word = 0, fd, status;
	long base, cost, left;
	char c;
	pid_t pid;

	ASSERT_EQ(0, cg_enter(self->a));
	/* The event outlives the child: this fd holds it */
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, cmd, &word, 0, 4, 0, NULL));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	base = cg_kernel(self->a);

	pid = mcg_holder(cmd, NR_ENABLERS, ready, go);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(ready[0], &c, 1)) {
		TH_LOG("the child could not register %d enablers", NR_ENABLERS);
	}
	cost = cg_kernel(self->a) - base;
	TH_LOG("a child with %d enablers: %ld bytes charged", NR_ENABLERS, cost);
	ASSERT_GE(cost, (long)(NR_ENABLERS * ENABLER_MIN));

	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	left = cg_wait_kernel_at_most(self->a, base + SLACK) - base;
	ASSERT_LE(left, SLACK) {
		TH_LOG("%ld of %ld bytes still charged %d ms after the exit",
		       left, cost, FREE_MS);
	}
	ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
	close(fd);
	close(ready[0]);
}

/*
 * The kernel memory that a fork of this process charges to @cg, measured
 * while the child lives; -1 on an error
 */
static long mcg_fork_cost(const char *cg)
{
	int ready[2], go[2], status;
	long base, cost = -1;
	char c;
	pid_t pid;

	if (pipe(ready) || pipe(go))
		return -1;
	base = cg_kernel(cg);
	pid = mcg_holder(NULL, 0, ready, go);
	if (pid > 0 && read(ready[0], &c, 1) == 1)
		cost = cg_kernel(cg) - base;
	close(go[1]);
	close(ready[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);

	return cost;
}

TEST_F_TIMEOUT(memcg, fork_charges_copied_enablers, TEST_SECONDS)
{
	static int words[NR_ENABLERS / 32];
	const char *cmd = PREFIX "_fork u32 a";
	long plain, with, left, base;
	int fd, i, bad = 0;

	ASSERT_EQ(0, cg_enter(self->a));
	plain = mcg_fork_cost(self->a);
	ASSERT_LE(0, plain);

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(NR_ENABLERS, mcg_reg_enablers(fd, cmd, words, NR_ENABLERS));
	base = cg_kernel(self->a);
	with = mcg_fork_cost(self->a);
	ASSERT_LE(0, with);
	TH_LOG("fork: %ld bytes charged, %ld with %d enablers to copy",
	       plain, with, NR_ENABLERS);
	ASSERT_GE(with - plain, (long)(NR_ENABLERS * ENABLER_MIN)) {
		TH_LOG("the child's %d copied enablers charged %ld bytes, less than %zu each",
		       NR_ENABLERS, with - plain, ENABLER_MIN);
	}
	left = cg_wait_kernel_at_most(self->a, base + SLACK) - base;
	ASSERT_LE(left, SLACK) {
		TH_LOG("%ld bytes still charged %d ms after the child exited",
		       left, FREE_MS);
	}
	for (i = 0; i < NR_ENABLERS; i++)
		bad += ue_unreg_fd(fd, &words[i / 32], i % 32) != 0;
	ASSERT_EQ(0, bad);
	close(fd);
}

/*
 * Enablers in MADV_DONTFORK memory are not copied (the child has no such
 * memory): a fork charges nothing for them, however many the parent has.
 */
TEST_F_TIMEOUT(memcg, fork_charges_nothing_for_dontfork_enablers, TEST_SECONDS)
{
	const char *cmd = PREFIX "_fork u32 a";
	long page = sysconf(_SC_PAGESIZE), one, many;
	static int word;
	int fd, i, bad = 0;
	int *words;

	words = mmap(NULL, page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, words);
	ASSERT_EQ(0, madvise(words, page, MADV_DONTFORK));
	ASSERT_EQ(0, cg_enter(self->a));

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_LE(0, fd);
	/* One enabler the child gets */
	ASSERT_EQ(0, ue_reg_fd(fd, cmd, &word, 0, 4, 0, NULL));
	one = mcg_fork_cost(self->a);
	ASSERT_LE(0, one);

	ASSERT_EQ(NR_ENABLERS, mcg_reg_enablers(fd, cmd, words, NR_ENABLERS));
	many = mcg_fork_cost(self->a);
	ASSERT_LE(0, many);
	TH_LOG("fork charges %ld bytes for one copy, %ld with %d enablers in DONTFORK memory",
	       one, many, NR_ENABLERS);
	ASSERT_LE(many - one, SLACK) {
		TH_LOG("%d enablers the child does not get cost it %ld bytes",
		       NR_ENABLERS, many - one);
	}
	for (i = 0; i < NR_ENABLERS; i++)
		bad += ue_unreg_fd(fd, &words[i / 32], i % 32) != 0;
	ASSERT_EQ(0, bad);
	ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
	close(fd);
	munmap(words, page);
}

TEST_HARNESS_MAIN
