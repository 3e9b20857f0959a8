// SPDX-License-Identifier: GPL-2.0
/*
 * user_events sample: a program that traces itself.
 *
 * The program registers the event
 *
 *	test u32 count; char[16] msg
 *
 * and asks the kernel to keep bit 31 of the variable "enabled" set while
 * a tracer (ftrace, perf, ...) is attached to user_events:test. Checking
 * that bit is all the program does when nobody listens; only while it is
 * set does it build the payload and writev() it to user_events_data.
 *
 * Usage: example [-n COUNT] [-i INTERVAL_MS] [-w] [-q] | -f
 *   -n COUNT        run COUNT iterations, then exit (default: until killed)
 *   -i INTERVAL_MS  pause between iterations (default: 1000)
 *   -w              wait until the event is enabled before the first one
 *   -q              print only the iterations that wrote an event
 *   -f              print what this kernel's user_events offers, and exit
 *
 * user_events_data is looked up at the usual tracefs mount points, then
 * at any tracefs mount that /proc/mounts lists: tracefs mounted elsewhere,
 * or the file alone bind-mounted into a container.
 *
 * Build: make headers_install && make -C samples/user_events
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/user_events.h>

#define EVENT_CMD	"test u32 count; char[16] msg"
#define ENABLE_BIT	31
#define MSG_LEN		16

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char * const data_files[] = {
	"/sys/kernel/tracing/user_events_data",
	"/sys/kernel/debug/tracing/user_events_data",
};

/*
 * The kernel flips ENABLE_BIT here with atomic bit operations on the
 * naturally aligned long that contains it, from any CPU, at any time.
 */
static __u32 enabled;

/* Set by SIGINT/SIGTERM: leave the loop and unregister cleanly */
static int stop;

static void on_signal(int sig)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static int stopping(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

static int event_enabled(void)
{
	return (__atomic_load_n(&enabled, __ATOMIC_RELAXED) >> ENABLE_BIT) & 1;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	/* A signal cuts the pause short; the caller then sees stopping() */
	nanosleep(&ts, NULL);
}

/*
 * user_events_data of a tracefs mount listed in /proc/mounts: in the
 * directory tracefs is mounted on, or the mount point itself when the
 * file alone is bind-mounted (its mount is listed as tracefs too).
 */
static int open_mounted_data_file(void)
{
	char path[PATH_MAX];
	struct mntent *m;
	struct stat st;
	int fd = -1;
	FILE *mounts;

	mounts = setmntent("/proc/mounts", "r");
	if (!mounts)
		return -1;

	while (fd < 0 && (m = getmntent(mounts))) {
		if (strcmp(m->mnt_type, "tracefs"))
			continue;

		if (!stat(m->mnt_dir, &st) && S_ISREG(st.st_mode))
			snprintf(path, sizeof(path), "%s", m->mnt_dir);
		else
			snprintf(path, sizeof(path), "%s/user_events_data",
				 m->mnt_dir);
		fd = open(path, O_RDWR);
	}
	endmntent(mounts);

	if (fd < 0)
		errno = ENOENT;
	return fd;
}

static int open_data_file(void)
{
	unsigned int i;
	int fd = -1;

	for (i = 0; i < ARRAY_SIZE(data_files); i++) {
		fd = open(data_files[i], O_RDWR);
		if (fd >= 0 || errno != ENOENT)
			return fd;
	}

	return open_mounted_data_file();
}

/*
 * Feature probes: ask the kernel, not its version number, since
 * distribution kernels carry features of later releases. Each returns 1
 * (the kernel has it), 0 (it has not) or -1 (cannot tell: errno says
 * why). None of them creates or registers anything.
 */

/* A word nothing is registered at: the probes point the kernel to it */
static __u32 probe_word;

/*
 * The bit-enable ABI: DIAG_IOCSUNREG exists. Unregistering a bit that
 * was never registered gives ENOENT; the earlier ABI (a status page
 * mapped from user_events_status) has no such ioctl: ENOTTY.
 */
static int probe_bit_enable_abi(int fd)
{
	struct user_unreg unreg = {0};

	unreg.size = sizeof(unreg);
	unreg.disable_bit = 0;
	unreg.disable_addr = (__u64)(unsigned long)&probe_word;

	if (ioctl(fd, DIAG_IOCSUNREG, &unreg) == 0)
		return 1;
	if (errno == ENOENT)
		return 1;
	if (errno == ENOTTY)
		return 0;
	return -1;
}

/*
 * A registration flag (USER_EVENT_REG_*): a kernel that knows the flag
 * gets past the flag check and then fails to read the command from the
 * NULL name_args (EFAULT); a kernel that does not know it refuses the
 * flag (EINVAL). Nothing is registered either way. Only meaningful when
 * probe_bit_enable_abi() found the ABI.
 */
static int probe_reg_flag(int fd, __u16 flag)
{
	struct user_reg reg = {0};

	reg.size = sizeof(reg);
	reg.enable_bit = 0;
	reg.enable_size = sizeof(probe_word);
	reg.enable_addr = (__u64)(unsigned long)&probe_word;
	reg.flags = flag;
	reg.name_args = 0;

	if (ioctl(fd, DIAG_IOCSREG, &reg) == 0)
		return -1;
	if (errno == EFAULT)
		return 1;
	if (errno == EINVAL)
		return 0;
	return -1;
}

static const char *probe_text(int ret)
{
	return ret > 0 ? "yes" : ret == 0 ? "no" : strerror(errno);
}

/* -f: one line per feature, "NAME: yes|no|error" */
static int print_features(int fd)
{
	int abi = probe_bit_enable_abi(fd);

	printf("bit-enable ABI: %s\n", probe_text(abi));
	if (abi <= 0)
		return 1;

	printf("USER_EVENT_REG_PERSIST: %s\n",
	       probe_text(probe_reg_flag(fd, USER_EVENT_REG_PERSIST)));
	printf("USER_EVENT_REG_MULTI_FORMAT: %s\n",
	       probe_text(probe_reg_flag(fd, USER_EVENT_REG_MULTI_FORMAT)));
	return 0;
}

static int register_event(int fd, int *write_index)
{
	struct user_reg reg = {0};

	reg.size = sizeof(reg);
	reg.enable_bit = ENABLE_BIT;
	reg.enable_size = sizeof(enabled);
	reg.enable_addr = (__u64)(unsigned long)&enabled;
	reg.name_args = (__u64)(unsigned long)EVENT_CMD;

	if (ioctl(fd, DIAG_IOCSREG, &reg) == -1)
		return -1;

	*write_index = reg.write_index;
	return 0;
}

static int unregister_event(int fd)
{
	struct user_unreg unreg = {0};

	unreg.size = sizeof(unreg);
	unreg.disable_bit = ENABLE_BIT;
	unreg.disable_addr = (__u64)(unsigned long)&enabled;

	return ioctl(fd, DIAG_IOCSUNREG, &unreg);
}

/*
 * One record: the write_index first, then the fields in the order they
 * were registered, packed without padding.
 */
static ssize_t emit_event(int fd, int write_index, __u32 count)
{
	char msg[MSG_LEN] = {0};
	struct iovec io[3];

	snprintf(msg, sizeof(msg), "hello #%u", count);

	io[0].iov_base = &write_index;
	io[0].iov_len = sizeof(write_index);
	io[1].iov_base = &count;
	io[1].iov_len = sizeof(count);
	io[2].iov_base = msg;
	io[2].iov_len = sizeof(msg);

	return writev(fd, io, 3);
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-n COUNT] [-i INTERVAL_MS] [-w] [-q] | -f\n",
		prog);
	exit(2);
}

static unsigned long parse_number(const char *arg, const char *prog)
{
	unsigned long val;
	char *end;

	errno = 0;
	val = strtoul(arg, &end, 0);
	if (errno || end == arg || *end || val > UINT_MAX)
		print_usage(prog);

	return val;
}

int main(int argc, char **argv)
{
	unsigned long iterations = 0, interval = 1000, i;
	int wait_enabled = 0, quiet = 0, features = 0;
	struct sigaction sa = {0};
	int fd, write_index, opt;
	__u32 count = 0;

	while ((opt = getopt(argc, argv, "n:i:wqfh")) != -1) {
		switch (opt) {
		case 'n':
			iterations = parse_number(optarg, argv[0]);
			break;
		case 'i':
			interval = parse_number(optarg, argv[0]);
			break;
		case 'w':
			wait_enabled = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'f':
			features = 1;
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (optind != argc)
		print_usage(argv[0]);

	/* Line-buffered, so the output can be followed through a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	fd = open_data_file();
	if (fd == -1) {
		perror("open user_events_data");
		return 1;
	}

	if (features)
		return print_features(fd);

	if (register_event(fd, &write_index) == -1) {
		perror("DIAG_IOCSREG");
		return 1;
	}

	printf("registered \"%s\": write_index=%d enabled=%d\n",
	       EVENT_CMD, write_index, event_enabled());

	if (wait_enabled) {
		printf("waiting for user_events:test to be enabled...\n");
		while (!stopping() && !event_enabled())
			sleep_ms(10);
	}

	for (i = 1; !stopping() && (!iterations || i <= iterations); i++) {
		if (i > 1)
			sleep_ms(interval);
		if (stopping())
			break;

		/* The cheap check that makes an idle event almost free */
		if (!event_enabled()) {
			if (!quiet)
				printf("[%lu] enabled=0: nothing written\n", i);
			continue;
		}

		/*
		 * The last tracer may detach between the check and the
		 * write; the kernel then answers EBADF, harmlessly.
		 */
		if (emit_event(fd, write_index, count + 1) == -1) {
			printf("[%lu] enabled=1: write failed: %s\n", i,
			       strerror(errno));
			continue;
		}

		count++;
		printf("[%lu] enabled=1: wrote count=%u msg=\"hello #%u\"\n",
		       i, count, count);
	}

	if (unregister_event(fd) == -1)
		perror("DIAG_IOCSUNREG");

	printf("unregistered: enabled=%d, %u event(s) written\n",
	       event_enabled(), count);

	close(fd);
	return 0;
}
