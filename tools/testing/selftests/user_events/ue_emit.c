// SPDX-License-Identifier: GPL-2.0
/*
 * ue_emit: user event emitter driven by tools_test.sh.
 *
 * It registers two events on user_events_data:
 *
 *	ue_tools_a u32 count; char[16] msg; __data_loc char[] dmsg;
 *		   __rel_loc char[] rmsg
 *	ue_tools_b u32 count
 *
 * each with bit 0 of its own enable word, and then either
 *
 *	ue_emit			reads commands from stdin, one per line, and
 *				answers each with one line on stdout:
 *	  bit			"A B": the two enable bits
 *	  emit a|b FIRST K MSG DMSG RMSG
 *				K records with count FIRST..FIRST+K-1 and the
 *				given strings, each written only while the
 *				event's bit is set: "wrote N" (N records written)
 *	  pid			its pid
 *	  quit			exits
 *
 *	ue_emit once FIRST K MSG DMSG RMSG
 *				waits (10 s at most) for ue_tools_a's bit, emits
 *				K records of ue_tools_a and exits (0 when all
 *				were written); for perf/trace-cmd workloads,
 *				which attach to the event at a time of their
 *				own, hence the wait.
 *
 * The loops are here rather than in the shell script: every exec in the
 * debug guest costs seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <linux/types.h>
#include <linux/user_events.h>

#define CMD_A	"ue_tools_a u32 count; char[16] msg; __data_loc char[] dmsg; " \
		"__rel_loc char[] rmsg"
#define CMD_B	"ue_tools_b u32 count"
#define MSG_LEN	16

#define A_FORMAT	"/sys/kernel/tracing/events/user_events/ue_tools_a/format"

/*
 * Static part of ue_tools_a after the write index: naturally aligned, so
 * without padding, as the kernel expects
 */
struct a_fixed {
	__u32 count;
	char msg[MSG_LEN];
	__u32 dloc;
	__u32 rloc;
};

/*
 * Record offset of ue_tools_a's dynamic data, for its __data_loc word,
 * which counts from the record start: the common header (its size is the
 * kernel's: 8 bytes on most, 12 on PREEMPT_RT kernels), then the static
 * part
 */
static size_t a_dyn_start;

static __u32 enabled[2];
static int write_index[2];
static int data_fd;

static int bit(int ev)
{
	return __atomic_load_n(&enabled[ev], __ATOMIC_RELAXED) & 1;
}

static int reg_event(int ev, const char *cmd)
{
	struct user_reg reg = {0};

	reg.size = sizeof(reg);
	reg.enable_bit = 0;
	reg.enable_size = sizeof(enabled[ev]);
	reg.enable_addr = (__u64)(unsigned long)&enabled[ev];
	reg.name_args = (__u64)(unsigned long)cmd;
	if (ioctl(data_fd, DIAG_IOCSREG, &reg) == -1)
		return -1;
	write_index[ev] = reg.write_index;
	return 0;
}

/*
 * Where the payload of ue_tools_a starts in its records: the offset of
 * its first field in its format file, or -1
 */
static int a_payload_offset(void)
{
	FILE *f = fopen(A_FORMAT, "r");
	char line[256], *at;
	int offset = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "field:u32 count;"))
			continue;
		at = strstr(line, "offset:");
		if (at)
			offset = atoi(at + strlen("offset:"));
		break;
	}
	fclose(f);

	return offset;
}

static int wait_bit(int ev, int val)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 1000; i++) {
		if (bit(ev) == val)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

static int emit_a(__u32 count, const char *msg, const char *dmsg,
		  const char *rmsg)
{
	size_t dlen = strlen(dmsg) + 1, rlen = strlen(rmsg) + 1;
	struct a_fixed f = {0};
	struct iovec io[4];

	f.count = count;
	strncpy(f.msg, msg, MSG_LEN - 1);
	f.dloc = DYN_LOC(a_dyn_start, dlen);
	/* __rel_loc counts from the end of its own location word */
	f.rloc = DYN_LOC(dlen, rlen);
	io[0].iov_base = &write_index[0];
	io[0].iov_len = sizeof(int);
	io[1].iov_base = &f;
	io[1].iov_len = sizeof(f);
	io[2].iov_base = (void *)dmsg;
	io[2].iov_len = dlen;
	io[3].iov_base = (void *)rmsg;
	io[3].iov_len = rlen;
	return writev(data_fd, io, 4) == -1 ? -1 : 0;
}

static int emit_b(__u32 count)
{
	struct iovec io[2];

	io[0].iov_base = &write_index[1];
	io[0].iov_len = sizeof(int);
	io[1].iov_base = &count;
	io[1].iov_len = sizeof(count);
	return writev(data_fd, io, 2) == -1 ? -1 : 0;
}

/* Records FIRST..FIRST+K-1, each only while the bit is set */
static unsigned long emit(int ev, unsigned long first, unsigned long k,
			  const char *msg, const char *dmsg, const char *rmsg)
{
	unsigned long i, n = 0;
	int ret;

	for (i = first; i < first + k; i++) {
		if (!bit(ev))
			continue;
		ret = ev ? emit_b(i) : emit_a(i, msg, dmsg, rmsg);
		if (ret)
			fprintf(stderr, "ue_emit: write: %s\n", strerror(errno));
		else
			n++;
	}
	return n;
}

static int event_arg(const char *s)
{
	return s[0] == 'b';
}

static void serve(void)
{
	char line[512], a1[16], msg[128], dmsg[128], rmsg[128];
	unsigned long first, k;

	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "bit", 3)) {
			printf("%d %d\n", bit(0), bit(1));
		} else if (!strncmp(line, "pid", 3)) {
			printf("%d\n", getpid());
		} else if (!strncmp(line, "quit", 4)) {
			break;
		} else if (sscanf(line, "emit %15s %lu %lu %127s %127s %127s",
				  a1, &first, &k, msg, dmsg, rmsg) == 6) {
			printf("wrote %lu\n",
			       emit(event_arg(a1), first, k, msg, dmsg, rmsg));
		} else {
			printf("error: bad command\n");
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long first, k, n;
	int offset;

	setvbuf(stdout, NULL, _IOLBF, 0);
	data_fd = open("/sys/kernel/tracing/user_events_data", O_RDWR);
	if (data_fd == -1) {
		perror("ue_emit: user_events_data");
		return 1;
	}
	if (reg_event(0, CMD_A) || reg_event(1, CMD_B)) {
		perror("ue_emit: DIAG_IOCSREG");
		return 1;
	}
	offset = a_payload_offset();
	if (offset <= 0) {
		fprintf(stderr, "ue_emit: no offset of count in %s\n",
			A_FORMAT);
		return 1;
	}
	a_dyn_start = offset + sizeof(struct a_fixed);

	if (argc == 1) {
		serve();
		return 0;
	}
	if (argc != 7 || strcmp(argv[1], "once")) {
		fprintf(stderr, "usage: %s [once FIRST K MSG DMSG RMSG]\n",
			argv[0]);
		return 2;
	}
	first = strtoul(argv[2], NULL, 0);
	k = strtoul(argv[3], NULL, 0);
	if (wait_bit(0, 1)) {
		fprintf(stderr, "ue_emit: ue_tools_a never enabled\n");
		return 1;
	}
	n = emit(0, first, k, argv[4], argv[5], argv[6]);
	printf("wrote %lu\n", n);
	return n == k ? 0 : 1;
}
