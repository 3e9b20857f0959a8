// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the foreign-architecture guests of harness/arch.sh (arm64,
 * s390x, i386).  Those guests cannot run the host's binaries, so this
 * program, the statically linked kselftests and a static /bin/true live
 * in an initramfs.  It mounts what the user_events tests need, runs
 * every program of /kselftest/kselftest-list.txt under its timeout,
 * copies the KUnit results and the kernel log to the 9p share "results"
 * and reboots (QEMU runs with -no-reboot, so that ends the guest).
 *
 * The results share gets the layout harness/results.sh reads:
 * kselftest/PROG.tap and PROG.rc, kunit/SUITE.ktap, dmesg.txt, tainted,
 * meminfo.txt, script.rc and, last, done.
 *
 * Environment (from the kernel command line, passed on to the tests):
 *   UE_T=prog[,prog]      run only these programs
 *   UE_TIMEOUT_FACTOR=N   multiplies each "settings" timeout (default 3)
 *   UE_ARCH_NAME=NAME     the architecture, for messages
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KST	"/kselftest"
#define RES	"/results"

static volatile sig_atomic_t alarmed;

static double seconds_up(void)
{
	double up = 0;
	FILE *f = fopen("/proc/uptime", "r");

	if (f) {
		if (fscanf(f, "%lf", &up) != 1)
			up = 0;
		fclose(f);
	}
	return up;
}

static void say(const char *fmt, ...)
{
	va_list ap;

	printf("[guest] %.1fs ", seconds_up());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void mnt(const char *src, const char *dst, const char *type,
		const char *opts)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, opts))
		say("mount %s on %s: %s", type, dst, strerror(errno));
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		say("cannot write %s: %s", path, strerror(errno));
		return;
	}
	fputs(text, f);
	fclose(f);
}

/* Copy a (pseudo) file whose size is not known in advance */
static void copy_file(const char *from, const char *to)
{
	char buf[4096];
	ssize_t n;
	int in = open(from, O_RDONLY);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

static bool wanted(const char *prog)
{
	const char *only = getenv("UE_T");
	size_t len = strlen(prog);
	const char *p;

	if (!only || !*only)
		return true;
	for (p = only; *p; p += strcspn(p, ","), p += *p == ',')
		if (strncmp(p, prog, len) == 0 && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

static int settings_timeout(const char *coll)
{
	char path[PATH_MAX], line[128];
	int timeout = 45;
	FILE *f;

	snprintf(path, sizeof(path), KST "/%s/settings", coll);
	f = fopen(path, "r");
	if (!f)
		return timeout;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "timeout=", 8) == 0)
			timeout = atoi(line + 8);
	fclose(f);
	return timeout;
}

static void on_alarm(int sig)
{
	alarmed = 1;
}

static void child(const char *coll, const char *prog, const char *tap)
{
	char path[PATH_MAX], cwd[PATH_MAX];
	int fd;

	setpgid(0, 0);
	/* A writable working directory of its own */
	snprintf(cwd, sizeof(cwd), "/tmp/kselftest/%s", prog);
	mkdir("/tmp/kselftest", 0755);
	mkdir(cwd, 0755);
	if (chdir(cwd))
		_exit(126);
	fd = open(tap, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		_exit(126);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	snprintf(path, sizeof(path), KST "/%s/%s", coll, prog);
	execl(path, path, (char *)NULL);
	fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
	_exit(127);
}

/*
 * Run one program with its output in RES/kselftest/PROG.tap.  Returns
 * its exit status, 128 + signal when killed, 124 after a timeout (then
 * SIGTERM to its process group, SIGKILL 5 s later), 4 (skip) for a
 * shell script.
 */
static int run_prog(const char *coll, const char *prog, int timeout)
{
	const char *arch = getenv("UE_ARCH_NAME");
	bool timed_out = false;
	char tap[PATH_MAX];
	size_t len = strlen(prog);
	int status;
	pid_t pid;

	snprintf(tap, sizeof(tap), RES "/kselftest/%s.tap", prog);
	if (len > 3 && strcmp(prog + len - 3, ".sh") == 0) {
		char msg[256];

		snprintf(msg, sizeof(msg),
			 "Skipped on %s: %s needs bash, perf and trace-cmd built for this architecture; the guest has only the static C test programs\n",
			 arch ? arch : "this architecture", prog);
		put_file(tap, msg);
		return 4;
	}

	pid = fork();
	if (pid < 0) {
		say("fork: %s", strerror(errno));
		return 127;
	}
	if (pid == 0)
		child(coll, prog, tap);
	setpgid(pid, pid);

	alarmed = 0;
	alarm(timeout);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 127 << 8;
			break;
		}
		if (!alarmed)
			continue;
		alarmed = 0;
		if (!timed_out) {
			timed_out = true;
			kill(-pid, SIGTERM);
			alarm(5);
		} else {
			kill(-pid, SIGKILL);
		}
	}
	alarm(0);
	/* Leftover processes of the test, then orphans reparented to us */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (timed_out)
		return 124;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void run_list(void)
{
	char line[512], rcpath[PATH_MAX], rc[16];
	int factor = 3;
	FILE *list;

	if (getenv("UE_TIMEOUT_FACTOR"))
		factor = atoi(getenv("UE_TIMEOUT_FACTOR"));
	list = fopen(KST "/kselftest-list.txt", "r");
	if (!list) {
		say("no " KST "/kselftest-list.txt");
		return;
	}
	while (fgets(line, sizeof(line), list)) {
		char *prog = strchr(line, ':');
		int timeout;

		line[strcspn(line, "\n")] = 0;
		if (!prog || !prog[1])
			continue;
		*prog++ = 0;
		if (!wanted(prog))
			continue;
		timeout = settings_timeout(line) * factor;
		say("%s:%s (timeout %ds)", line, prog, timeout);
		snprintf(rc, sizeof(rc), "%d\n", run_prog(line, prog, timeout));
		snprintf(rcpath, sizeof(rcpath), RES "/kselftest/%s.rc", prog);
		put_file(rcpath, rc);
	}
	fclose(list);
}

static void save_kunit(void)
{
	const char *dir = "/sys/kernel/debug/kunit";
	char from[PATH_MAX], to[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(from, sizeof(from), "%s/%s/results", dir, e->d_name);
		snprintf(to, sizeof(to), RES "/kunit/%s.ktap", e->d_name);
		if (access(from, R_OK) == 0)
			copy_file(from, to);
	}
	if (d)
		closedir(d);
}

/* The kernel log without the "<level>" prefixes, like dmesg prints it */
static void save_dmesg(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *log, *p, *end;
	FILE *out;
	int len;

	if (size <= 0)
		size = 1 << 20;
	log = malloc(size + 1);
	if (!log)
		return;
	len = klogctl(3, log, size);		/* SYSLOG_ACTION_READ_ALL */
	out = fopen(RES "/dmesg.txt", "w");
	if (len < 0 || !out) {
		say("saving the kernel log failed: %s", strerror(errno));
		if (out)
			fclose(out);
		free(log);
		return;
	}
	log[len] = 0;
	for (p = log; p < log + len; p = end + 1) {
		end = strchr(p, '\n');
		if (!end)
			end = log + len;
		if (*p == '<' && strchr(p, '>') && strchr(p, '>') < end)
			p = strchr(p, '>') + 1;
		fwrite(p, 1, end - p, out);
		fputc('\n', out);
	}
	fclose(out);
	free(log);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int fd;

	mnt("devtmpfs", "/dev", "devtmpfs", NULL);
	/* No /dev/console in the initramfs: use the one devtmpfs has */
	if (fcntl(1, F_GETFD) < 0) {
		fd = open("/dev/console", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
	}
	mnt("proc", "/proc", "proc", NULL);
	mnt("sysfs", "/sys", "sysfs", NULL);
	mnt("tmpfs", "/tmp", "tmpfs", "mode=1777");
	mnt("tmpfs", "/run", "tmpfs", NULL);
	mnt("tmpfs", "/dev/shm", "tmpfs", "mode=1777");
	mnt("tracefs", "/sys/kernel/tracing", "tracefs", NULL);
	mnt("debugfs", "/sys/kernel/debug", "debugfs", NULL);
	mnt("results", RES, "9p", "trans=virtio,version=9p2000.L");
	mkdir(RES "/kselftest", 0755);
	mkdir(RES "/kunit", 0755);
	setenv("PATH", "/bin", 1);
	setenv("HOME", "/tmp", 1);
	setenv("TMPDIR", "/tmp", 1);
	sigaction(SIGALRM, &sa, NULL);
	if (chdir("/tmp"))
		say("chdir /tmp: %s", strerror(errno));

	say("running the user_events kselftests on %s",
	    getenv("UE_ARCH_NAME") ? getenv("UE_ARCH_NAME") : "?");
	run_list();
	save_kunit();
	copy_file("/proc/sys/kernel/tainted", RES "/tainted");
	/* HighTotal: whether a 32-bit guest has high memory (arch.sh) */
	copy_file("/proc/meminfo", RES "/meminfo.txt");
	say("saving dmesg");
	save_dmesg();
	put_file(RES "/script.rc", "0\n");
	put_file(RES "/done", "");
	sync();
	umount(RES);
	say("done, powering off");
	reboot(RB_AUTOBOOT);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
