// SPDX-License-Identifier: GPL-2.0
/*
 * user_events with ftrace: registration and matching, the write path and
 * its errors, dynamic-location validators, format and trace output,
 * deletion and the status file.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <sched.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "user_events_selftests.h"

#define EVENT		"__test_event"
#define FIELDS		"u32 field1; u32 field2"
#define EVENT_CMD	EVENT " " FIELDS
#define ENABLE_FILE	EVENTS_DIR "/" EVENT "/enable"
#define FORMAT_FILE	EVENTS_DIR "/" EVENT "/format"
#define TRACING_ON	TRACEFS_DIR "/tracing_on"

/* Extra names: EVENT "_b" and those of the status tests */
#define NR_STATUS	30
#define STATUS_FMT	EVENT "_s%02d"

FIXTURE(user) {
	int status_fd;
	int data_fd;
	int check;
	bool umount;
};

static void ftrace_cleanup(void)
{
	char name[64];
	int i;

	ue_write_str(EVENTS_DIR "/" EVENT "/trigger", "", O_TRUNC);
	ue_write_str(TRACING_ON, "1", 0);
	ue_enable(EVENT, 0);
	ue_enable(EVENT "_b", 0);
	ue_cleanup_event(EVENT);
	ue_cleanup_event(EVENT "_b");
	for (i = 0; i < NR_STATUS; i++) {
		snprintf(name, sizeof(name), STATUS_FMT, i);
		if (ue_event_exists(name))
			ue_cleanup_event(name);
	}
}

FIXTURE_SETUP(user) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ftrace_cleanup();

	self->status_fd = open(STATUS_FILE, O_RDONLY);
	ASSERT_NE(-1, self->status_fd);
	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(user) {
	/* Unregister what a test may have left; ENOENT is fine. */
	for (int bit = 24; bit < 32; bit++)
		ue_unreg(&self->check, bit);
	if (self->data_fd != -1)
		close(self->data_fd);
	close(self->status_fd);
	ftrace_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Write [index][payload] in one write(); returns what write() returned. */
static ssize_t write_event(int fd, int index, const void *payload,
			   size_t len)
{
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ (void *)payload, len },
	};

	return writev(fd, io, len ? 2 : 1);
}

TEST_F(user, register_same_event_same_index) {
	int index = -1;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, &index));
	ASSERT_EQ(0, index);

	/* The same event on the same fd keeps its index. */
	index = -1;
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 30,
			       4, 0, &index));
	ASSERT_EQ(0, index);

	index = -1;
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 field1;u32 field2",
			       &self->check, 29, 4, 0, &index));
	ASSERT_EQ(0, index);

	/* Another event gets the next one. */
	index = -1;
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT "_b", &self->check, 28,
			       4, 0, &index));
	ASSERT_EQ(1, index);

	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 30));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 29));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 28));
}

TEST_F(user, reregister_keeps_nonzero_index) {
	int index = -1, fd;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, &index));
	ASSERT_EQ(0, index);
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT "_b u32 x", &self->check,
			       30, 4, 0, &index));
	ASSERT_EQ(1, index);

	/*
	 * Known to this fd already: its slot again, stored over what the
	 * caller left in write_index (the helper fills it with garbage).
	 */
	index = -1;
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT "_b u32 x", &self->check,
			       29, 4, 0, &index));
	ASSERT_EQ(1, index);
	index = -1;
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 28,
			       4, 0, &index));
	ASSERT_EQ(0, index);

	/* Another fd numbers from 0 */
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	index = -1;
	ASSERT_EQ(0, ue_reg_fd(fd, EVENT "_b u32 x", &self->check, 27, 4, 0,
			       &index));
	ASSERT_EQ(0, index);
	ASSERT_EQ(0, ue_unreg_fd(fd, &self->check, 27));
	close(fd);
	for (int bit = 28; bit < 32; bit++)
		ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, bit));
}

TEST_F(user, register_same_addr_bit_eaddrinuse) {
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));

	ASSERT_EQ(-1, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
				4, 0, NULL));
	ASSERT_EQ(EADDRINUSE, errno);

	/* Only the address and bit count, not the event. */
	ASSERT_EQ(-1, ue_reg_fd(self->data_fd, EVENT "_b u32 x",
				&self->check, 31, 4, 0, NULL));
	ASSERT_EQ(EADDRINUSE, errno);
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/" EVENT "_b"));

	/* Also from another fd of the same process. */
	ASSERT_EQ(-1, ue_reg(EVENT_CMD, &self->check, 31, 4, 0));
	ASSERT_EQ(EADDRINUSE, errno);

	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
}

TEST_F(user, register_different_args_eaddrinuse) {
	static const char * const others[] = {
		EVENT,
		EVENT " u32 field1",
		EVENT " u32 field2; u32 field1",
		EVENT " u64 field1; u64 field2",
		EVENT " u32 field1; u32 field2; u32 field3",
		EVENT " u32 field1; u32 other",
	};
	unsigned int i;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));

	for (i = 0; i < ARRAY_SIZE(others); i++) {
		int ret = ue_reg_fd(self->data_fd, others[i], &self->check,
				    30, 4, 0, NULL);
		int err = errno;

		EXPECT_EQ(-1, ret) {
			TH_LOG("\"%s\": %d", others[i], ret);
		}
		EXPECT_EQ(EADDRINUSE, err) {
			TH_LOG("\"%s\": %s", others[i], strerror(err));
		}
	}

	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
}

TEST_F(user, register_whitespace_spellings_match) {
	static const char * const spellings[] = {
		EVENT " u32 field1;u32 field2",
		EVENT " u32 field1 ;u32 field2",
		EVENT " u32 field1 ; u32 field2",
		EVENT " u32 field1;\tu32 field2",
		EVENT "  u32   field1;  u32\tfield2  ",
		EVENT "\tu32 field1; u32 field2",
		EVENT " u32 field1; u32 field2;",
		EVENT " u32 field1;; u32 field2",
	};
	unsigned int i;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));

	for (i = 0; i < ARRAY_SIZE(spellings); i++) {
		int index = -1;
		int ret = ue_reg_fd(self->data_fd, spellings[i], &self->check,
				    30, 4, 0, &index);
		int err = errno;

		EXPECT_EQ(0, ret) {
			TH_LOG("\"%s\": %s", spellings[i], strerror(err));
		}
		EXPECT_EQ(0, index);
		if (ret == 0)
			EXPECT_EQ(0, ue_unreg_fd(self->data_fd, &self->check,
						 30));
	}

	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
}

TEST_F(user, write_bad_index_enoent) {
	__u32 payload[2] = { 1, 2 };
	int index = -1;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, &index));
	ASSERT_EQ(0, index);
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	ASSERT_EQ(-1, write_event(self->data_fd, 1, payload, sizeof(payload)));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(-1, write_event(self->data_fd, INT_MAX, payload,
				  sizeof(payload)));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(user, write_other_fd_enoent) {
	__u32 payload[2] = { 1, 2 };
	int fd;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	/* Indexes belong to the fd that registered. */
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(-1, write_event(fd, 0, payload, sizeof(payload)));
	ASSERT_EQ(ENOENT, errno);
	close(fd);
}

TEST_F(user, write_disabled_ebadf) {
	__u32 payload[2] = { 1, 2 };
	int index = -1;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, &index));
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(-1, write_event(self->data_fd, index, payload,
				  sizeof(payload)));
	ASSERT_EQ(EBADF, errno);

	/* Also after having been enabled once. */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(-1, write_event(self->data_fd, index, payload,
				  sizeof(payload)));
	ASSERT_EQ(EBADF, errno);
}

TEST_F(user, write_negative_index_einval) {
	__u32 payload[2] = { 1, 2 };

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	ASSERT_EQ(-1, write_event(self->data_fd, -1, payload,
				  sizeof(payload)));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, write_event(self->data_fd, INT_MIN, payload,
				  sizeof(payload)));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(user, write_short_payload_einval) {
	__u32 payload[2] = { 1, 2 };
	int index = -1;

	/* min_size is checked before the enabled state. */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, &index));
	ASSERT_EQ(-1, write_event(self->data_fd, index, payload, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, write_event(self->data_fd, index, payload, 7));
	ASSERT_EQ(EINVAL, errno);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(-1, write_event(self->data_fd, index, payload, 4));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(user, write_records_event) {
	__u32 payload[4] = { 0xc001, 0xc01a, 3, 4 };
	long before;
	int index = -1;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, &index));
	ASSERT_EQ(0, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 31, self->check);

	ASSERT_EQ(0, ue_clear_trace());
	before = ue_trace_size();
	ASSERT_NE(-1, before);

	/* The whole length, index included, is reported. */
	ASSERT_WRITE(12, write_event(self->data_fd, index, payload, 8));
	ASSERT_LT(before, ue_trace_size());

	/* Trailing bytes past min_size are accepted. */
	ASSERT_WRITE(4 + 16, write_event(self->data_fd, index, payload, 16));

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);
}

TEST_F(user, write_empty_event) {
	long before;
	int index = -1;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT, &self->check, 31, 4, 0,
			       &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 31, self->check);

	ASSERT_EQ(0, ue_clear_trace());
	before = ue_trace_size();
	ASSERT_WRITE(4, write_event(self->data_fd, index, NULL, 0));
	ASSERT_LT(before, ue_trace_size());
}

/*
 * A write that no tracer records (tracing_on is 0) still returns its
 * length, with a payload or without one, through write() and writev().
 */
TEST_F(user, write_not_recorded_tracing_off) {
	__u32 payload[2] = { 1, 2 };
	int index = -1, empty = -1;
	__u32 buf[3];
	long before;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT, &self->check, 31, 4, 0,
			       &empty));
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT "_b " FIELDS,
			       &self->check, 30, 4, 0, &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_enable(EVENT "_b", 1));
	ASSERT_EQ(0, ue_clear_trace());
	before = ue_trace_size();
	ASSERT_LT(0, before);
	ASSERT_EQ(0, ue_write_str(TRACING_ON, "0", 0));

	EXPECT_EQ(4, write_event(self->data_fd, empty, NULL, 0));
	EXPECT_EQ(4, write(self->data_fd, &empty, sizeof(empty)));
	EXPECT_EQ(12, write_event(self->data_fd, index, payload,
				  sizeof(payload)));
	buf[0] = index;
	memcpy(&buf[1], payload, sizeof(payload));
	EXPECT_EQ(12, write(self->data_fd, buf, sizeof(buf)));
	/* An unreadable payload is still refused */
	EXPECT_EQ(-1, write_event(self->data_fd, index, (void *)8, 8));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_EQ(0, ue_write_str(TRACING_ON, "1", 0));
	EXPECT_EQ(before, ue_trace_size());
}

TEST_F(user, write_from_dontneed_page) {
	long page_size = sysconf(_SC_PAGESIZE);
	int index = -1;
	char *page;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u64 anon",
			       &self->check, 31, 4, 0, &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	page = mmap(NULL, page_size, PROT_READ,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)page);

	ASSERT_WRITE(12, write_event(self->data_fd, index, page, 8));

	/* The zero page comes back on the next touch. */
	ASSERT_EQ(0, madvise(page, page_size, MADV_DONTNEED));
	ASSERT_WRITE(12, write_event(self->data_fd, index, page, 8));

	munmap(page, page_size);
}

/* Payload of a single __rel_loc/__data_loc string field (no padding). */
struct loc_payload {
	__u32 loc;
	char data[8];
};

static_assert(sizeof(struct loc_payload) == 12, "loc_payload is padded");

static ssize_t write_loc(int fd, int index, __u32 loc, const char *data,
			 size_t len)
{
	struct loc_payload p = { .loc = loc };

	memcpy(p.data, data, len);

	return write_event(fd, index, &p, sizeof(p.loc) + len);
}

TEST_F(user, rel_loc_validator) {
	int index = -1;
	long before;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " __rel_loc char[] data",
			       &self->check, 31, 4, 0, &index));

	/* The loc word itself is the minimum payload. */
	ASSERT_EQ(-1, write_event(self->data_fd, index, NULL, 0));
	ASSERT_EQ(EINVAL, errno);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_clear_trace());
	before = ue_trace_size();

	/* Offsets count from the end of the loc word. */
	ASSERT_WRITE(13, write_loc(self->data_fd, index, DYN_LOC(0, 5),
				   "Test", 5));
	ASSERT_LT(before, ue_trace_size());

	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(1024, 5),
				"Test", 5));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(1, 5),
				"Test", 5));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(0, 1029),
				"Test", 5));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(0, 6),
				"Test", 5));
	ASSERT_EQ(EFAULT, errno);
	/* Not NUL-terminated. */
	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(0, 5),
				"Testx", 5));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(user, data_loc_validator) {
	int index = -1;
	int start;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " __data_loc char[] data",
			       &self->check, 31, 4, 0, &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	/*
	 * Offsets count from the record start, common header included:
	 * the string follows the loc word, which starts the payload.
	 */
	start = ue_payload_offset(EVENT);
	ASSERT_LT(0, start) TH_LOG("no payload offset in %s", FORMAT_FILE);
	start += 4;
	ASSERT_WRITE(13, write_loc(self->data_fd, index, DYN_LOC(start, 5),
				   "Test", 5));

	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(start + 1, 5),
				"Test", 5));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(start, 6),
				"Test", 5));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(1024, 5),
				"Test", 5));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, write_loc(self->data_fd, index, DYN_LOC(start, 5),
				"Testx", 5));
	ASSERT_EQ(EFAULT, errno);
}

/* The "print fmt: " line of the event's format file, without newline. */
static char *print_fmt(const char *path)
{
	char *text = ue_read_file(path);
	char *line, *end, *ret = NULL;

	if (!text)
		return NULL;

	line = strstr(text, "print fmt: ");
	if (line) {
		line += strlen("print fmt: ");
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		ret = strdup(line);
	}
	free(text);

	return ret;
}

TEST_F(user, print_fmt) {
	static const struct {
		const char *type;
		const char *fmt;
	} cases[] = {
		{ "__rel_loc char[]", "\"data=%s\", __get_rel_str(data)" },
		{ "__data_loc char[]", "\"data=%s\", __get_str(data)" },
		{ "s64", "\"data=%lld\", REC->data" },
		{ "u64", "\"data=%llu\", REC->data" },
		{ "s32", "\"data=%d\", REC->data" },
		{ "u32", "\"data=%u\", REC->data" },
		{ "int", "\"data=%d\", REC->data" },
		{ "unsigned int", "\"data=%u\", REC->data" },
		{ "s16", "\"data=%d\", REC->data" },
		{ "u16", "\"data=%u\", REC->data" },
		{ "short", "\"data=%d\", REC->data" },
		{ "unsigned short", "\"data=%u\", REC->data" },
		{ "s8", "\"data=%d\", REC->data" },
		{ "u8", "\"data=%u\", REC->data" },
		{ "char", "\"data=%d\", REC->data" },
		{ "unsigned char", "\"data=%u\", REC->data" },
		{ "char[4]", "\"data=%s\", REC->data" },
		{ "unsigned char[4]", "\"data=%s\", REC->data" },
		{ "struct my_struct", "\"data=%llu\", REC->data" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *size = "";
		char cmd[128];
		char *fmt;
		int fd;

		/* struct fields take a size */
		if (!strncmp(cases[i].type, "struct", 6))
			size = " 8";

		snprintf(cmd, sizeof(cmd), EVENT " %s data%s", cases[i].type,
			 size);
		fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, fd);
		EXPECT_EQ(0, ue_reg_fd(fd, cmd, &self->check, 31, 4, 0,
				       NULL));
		fmt = print_fmt(FORMAT_FILE);
		EXPECT_NE(0, (uintptr_t)fmt);
		if (fmt) {
			EXPECT_STREQ(cases[i].fmt, fmt) {
				TH_LOG("%s", cmd);
			}
		}
		free(fmt);
		ue_unreg_fd(fd, &self->check, 31);
		close(fd);
		ASSERT_TRUE(ue_del_unreferenced(EVENT));
	}

	/* Several fields, in declaration order; none gives "". */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 a; char[2] b; s64 c",
			       &self->check, 31, 4, 0, NULL));
	{
		char *fmt = print_fmt(FORMAT_FILE);

		ASSERT_NE(0, (uintptr_t)fmt);
		EXPECT_STREQ("\"a=%u b=%s c=%lld\", REC->a, REC->b, REC->c",
			     fmt);
		free(fmt);
	}
}

TEST_F(user, print_fmt_no_fields) {
	char *fmt;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT, &self->check, 31, 4, 0,
			       NULL));
	fmt = print_fmt(FORMAT_FILE);
	ASSERT_NE(0, (uintptr_t)fmt);
	EXPECT_STREQ("\"\"", fmt);
	free(fmt);
}

TEST_F(user, format_fields) {
	/* Each field's declaration, offset in the payload, size, sign */
	static const struct {
		const char *decl;
		int at, size, sign;
	} fields[] = {
		{ "char data[20]", 0, 20, 1 },
		{ "unsigned char udata[20]", 20, 20, 0 },
		{ "u16 small", 40, 2, 0 },
		{ "s64 big", 42, 8, 1 },
		{ "__data_loc char[] str", 50, 4, 1 },
		{ "struct foo blob", 54, 3, 1 },
	};
	unsigned int i;
	char *format, *user, line[128];
	int hdr;

	/*
	 * Packed layout after the common header, whatever size this kernel
	 * gives it (as its own common fields describe it); char[N] shows N.
	 */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " char[20] data; "
			       "unsigned char[0x14] udata; u16 small; s64 big; "
			       "__data_loc char[] str; struct foo blob 3",
			       &self->check, 31, 4, 0, NULL));
	hdr = ue_payload_offset(EVENT);
	ASSERT_EQ(ue_header_size(), hdr) {
		TH_LOG("the payload starts at %d, the common fields make a %d-byte header",
		       hdr, ue_header_size());
	}
	/* At least type, flags, preempt count and pid */
	ASSERT_LE(8, hdr);
	format = ue_read_file(FORMAT_FILE);
	ASSERT_NE(0, (uintptr_t)format);

	/* The user fields follow the blank line after the common ones. */
	user = strstr(format, "\n\n");
	ASSERT_NE(0, (uintptr_t)user);
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		char *at;

		snprintf(line, sizeof(line),
			 "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n",
			 fields[i].decl, hdr + fields[i].at, fields[i].size,
			 fields[i].sign);
		at = strstr(user, line);
		EXPECT_NE(0, (uintptr_t)at) {
			TH_LOG("missing %s in:\n%s", line, format);
		}
		if (at)
			user = at;
	}
	free(format);
}

TEST_F(user, trace_text_decoded) {
	/* Laid out without padding, as the fields are in the record */
	struct {
		int a;
		int b;
		char s[8];
		__u32 c;
	} payload = { 5, -3, "hello", 4000000000U };
	int index = -1;

	ASSERT_EQ(20, sizeof(payload));
	ASSERT_EQ(0, ue_reg_fd(self->data_fd,
			       EVENT " int a; int b; char[8] s; u32 c",
			       &self->check, 31, 4, 0, &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_clear_trace());

	ASSERT_WRITE(4 + (int)sizeof(payload),
		     write_event(self->data_fd, index, &payload,
				 sizeof(payload)));
	ASSERT_TRUE(ue_trace_has(EVENT ": a=5 b=-3 s=hello c=4000000000")) {
		char *trace = ue_read_file(TRACE_FILE);

		TH_LOG("trace:\n%s", trace);
		free(trace);
	}
}

TEST_F(user, trace_text_dynamic_strings) {
	struct {
		__u32 msg;
		__u32 rel;
		char msg_data[6];
		char rel_data[6];
	} payload = {
		/* rel_loc: from the end of its own loc word */
		.rel = DYN_LOC(6, 3),
		.msg_data = "world",
		.rel_data = "hi",
	};
	int index = -1, hdr;

	ASSERT_EQ(20, sizeof(payload));
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " __data_loc char[] msg; "
			       "__rel_loc char[] rel",
			       &self->check, 31, 4, 0, &index));
	/* data_loc: from the record start, common header included */
	hdr = ue_payload_offset(EVENT);
	ASSERT_LT(0, hdr) TH_LOG("no payload offset in %s", FORMAT_FILE);
	payload.msg = DYN_LOC(hdr + 8, 6);
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_clear_trace());

	ASSERT_WRITE(4 + (int)sizeof(payload),
		     write_event(self->data_fd, index, &payload,
				 sizeof(payload)));
	ASSERT_TRUE(ue_trace_has(EVENT ": msg=world rel=hi")) {
		char *trace = ue_read_file(TRACE_FILE);

		TH_LOG("trace:\n%s", trace);
		free(trace);
	}
}

/*
 * A payload of @len bytes for EVENT " u32 n; __data_loc char[] tail",
 * whose records have a @hdr-byte common header: n = @len, then the
 * string "end<len>" at the very end of the record, so that the decoded
 * line shows whether the whole record was kept.
 */
static char *big_payload(int hdr, size_t len, char *tail, size_t tail_len)
{
	char *p = calloc(1, len);
	__u32 n = len, loc;
	size_t slen;

	if (!p)
		return NULL;
	snprintf(tail, tail_len, "end%zu", len);
	slen = strlen(tail) + 1;
	/* __data_loc: from the record start, the @hdr-byte header included */
	loc = DYN_LOC(hdr + len - slen, slen);
	memcpy(p, &n, 4);
	memcpy(p + 4, &loc, 4);
	memcpy(p + len - slen, tail, slen);

	return p;
}

TEST_F(user, write_largest_ftrace_record) {
	struct ue_limits l;
	char tail[32], line[96];
	char *payload;
	int index = -1, hdr;

	ue_get_limits(&l);
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 n; __data_loc char[] tail",
			       &self->check, 31, 4, 0, &index));
	hdr = ue_payload_offset(EVENT);
	/* The limits count the header the kernel's records have */
	ASSERT_EQ(hdr, l.header);
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_clear_trace());

	/* The largest payload a ring buffer page holds is recorded whole */
	payload = big_payload(hdr, l.ftrace, tail, sizeof(tail));
	ASSERT_NE(0, (uintptr_t)payload);
	ASSERT_WRITE(4 + l.ftrace, write_event(self->data_fd, index, payload,
					       l.ftrace));
	free(payload);
	snprintf(line, sizeof(line), EVENT ": n=%ld tail=%s", l.ftrace, tail);
	ASSERT_EQ(1, ue_trace_count(line)) {
		TH_LOG("no \"%s\" in the trace (page size %ld)", line,
		       l.page);
	}

	/* One byte more cannot be recorded: an error, not a silent drop */
	payload = big_payload(hdr, l.ftrace + 1, tail, sizeof(tail));
	ASSERT_NE(0, (uintptr_t)payload);
	ASSERT_EQ(-1, write_event(self->data_fd, index, payload,
				  l.ftrace + 1));
	ASSERT_EQ(E2BIG, errno);
	free(payload);
	ASSERT_EQ(0, ue_trace_count(tail));

	payload = calloc(1, 64 * 1024);
	ASSERT_NE(0, (uintptr_t)payload);
	ASSERT_EQ(-1, write_event(self->data_fd, index, payload, 64 * 1024));
	ASSERT_EQ(E2BIG, errno);
	free(payload);
	ASSERT_EQ(1, ue_trace_count(EVENT ": n="));
}

/*
 * An unconditional trigger runs once per write, also when the payload
 * was not resident and the write had to fault it in and copy again.
 * stacktrace fires on every hit and leaves one "<stack trace>" entry.
 */
TEST_F(user, trigger_fires_once_nonresident_payload) {
	long page_size = sysconf(_SC_PAGESIZE);
	__u32 *payload;
	int index = -1, i;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 n", &self->check,
			       31, 4, 0, &index));
	ASSERT_EQ(0, ue_write_str(EVENTS_DIR "/" EVENT "/trigger",
				  "stacktrace", 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_clear_trace());

	payload = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)payload);
	for (i = 0; i < 5; i++) {
		/* Not resident: the copy without page faults fails first */
		ASSERT_EQ(0, madvise(payload, page_size, MADV_DONTNEED));
		ASSERT_WRITE(8, write_event(self->data_fd, index, payload, 4));
	}
	/* And resident */
	payload[0] = 7;
	ASSERT_WRITE(8, write_event(self->data_fd, index, payload, 4));
	munmap(payload, page_size);

	ASSERT_EQ(6, ue_trace_count("<stack trace>"));
	ASSERT_EQ(5, ue_trace_count(EVENT ": n=0"));
	ASSERT_EQ(1, ue_trace_count(EVENT ": n=7"));
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_write_str(EVENTS_DIR "/" EVENT "/trigger",
				  "!stacktrace", 0));
}

TEST_F(user, delete_while_open_ebusy) {
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));

	/* The fd still holds the event. */
	ASSERT_EQ(-1, ioctl(self->data_fd, DIAG_IOCSDEL, EVENT));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
}

TEST_F(user, delete_while_enabled_ebusy) {
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
	close(self->data_fd);
	self->data_fd = -1;

	/* A tracer holds the persistent event. */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(-1, ue_del(EVENT));
	ASSERT_EQ(EBUSY, errno);

	/* Its reference goes with the disable, at once */
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_del(EVENT));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

TEST_F(user, auto_delete_after_close) {
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));

	close(self->data_fd);
	self->data_fd = -1;
	ASSERT_TRUE(ue_wait_auto_delete(ENABLE_FILE));
}

TEST_F(user, enabler_keeps_event_after_close) {
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	close(self->data_fd);
	self->data_fd = -1;

	/* Closing does not unregister: the enabler alone holds the event */
	ASSERT_EQ(-1, ue_del(EVENT));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_TRUE(ue_exists(ENABLE_FILE));

	/* ...and the bit still follows it */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 31, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);

	ASSERT_EQ(0, ue_unreg(&self->check, 31));
	ASSERT_TRUE(ue_wait_auto_delete(ENABLE_FILE));
}

/*
 * DIAG_IOCSDEL of an event that nothing references any more deletes it at
 * once. The kernel destroys such an event by itself too, from a work item
 * queued on the CPU of the last put: pinned to one CPU at a real-time
 * priority, this task runs on until it sleeps, so its DIAG_IOCSDEL comes
 * first and must find the event unreferenced, not busy. Each round
 * starts with a sleep that lets the work of the round before run out.
 */
TEST_F(user, delete_unreferenced_event) {
	struct sched_param rt = { .sched_priority = 1 }, normal = {0};
	const char *failed = NULL;
	cpu_set_t cpus, old_cpus;
	int i, fd = -1, del_fd, err = 0;

	close(self->data_fd);
	self->data_fd = -1;
	del_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, del_fd);

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old_cpus), &old_cpus));
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	if (sched_setscheduler(0, SCHED_FIFO, &rt)) {
		err = errno;
		sched_setaffinity(0, sizeof(old_cpus), &old_cpus);
		close(del_fd);
		SKIP(return, "no real-time priority: %s", strerror(err));
	}

	for (i = 0; i < 10; i++) {
		ue_sleep_ms(1);
		fd = open(DATA_FILE, O_RDWR);
		if (fd < 0)
			failed = "open";
		else if (ue_reg_fd(fd, EVENT_CMD, &self->check, 31, 4, 0, NULL))
			failed = "DIAG_IOCSREG";
		else if (ue_unreg_fd(fd, &self->check, 31))
			failed = "DIAG_IOCSUNREG";
		err = errno;
		if (failed)
			break;
		close(fd);
		fd = -1;

		if (ioctl(del_fd, DIAG_IOCSDEL, EVENT))
			failed = "DIAG_IOCSDEL";
		else if (ue_exists(ENABLE_FILE))
			failed = "deleted, but the enable file is there";
		err = errno;
		if (failed)
			break;
	}

	sched_setscheduler(0, SCHED_OTHER, &normal);
	sched_setaffinity(0, sizeof(old_cpus), &old_cpus);
	if (fd >= 0)
		close(fd);
	close(del_fd);

	EXPECT_TRUE(!failed) {
		TH_LOG("round %d: %s: %s", i, failed, strerror(err));
	}
}

/*
 * Check user_events_status: one line per event, sorted by name (with 30
 * names, a hash order would pass by chance only once in 30! runs), then
 * a blank line, "Active:" with the number of events that exist (counted
 * from their tracefs directories), "Busy:" with the traced ones and
 * "Kept:" with deleted events kept for their records.
 */
TEST_F(user, status_sorted_format) {
	char *text, *line, *next, *tail;
	char prev[256] = "", name[64];
	int words[NR_STATUS] = {0};
	int lines = 0, busy = 0, active = -1, busy_seen = -1, kept = -1, n, i;
	bool seen_main = false, seen_s = false;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	/* Registered in an order that is neither sorted nor reversed */
	for (i = 0; i < NR_STATUS; i++) {
		snprintf(name, sizeof(name), STATUS_FMT, (i * 7 + 3) % NR_STATUS);
		ASSERT_EQ(0, ue_reg_fd(self->data_fd, name, &words[i], 0, 4, 0,
				       NULL));
	}
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	text = ue_read_file(STATUS_FILE);
	ASSERT_NE(0, (uintptr_t)text);

	for (line = text; *line && *line != '\n'; line = next) {
		next = strchr(line, '\n');
		ASSERT_NE(0, (uintptr_t)next);
		*next++ = '\0';

		snprintf(name, sizeof(name), "%s", line);
		if (strchr(name, ' '))
			*strchr(name, ' ') = '\0';
		EXPECT_LT(strcmp(prev, name), 0) {
			TH_LOG("\"%s\" listed after \"%s\"", name, prev);
		}
		snprintf(prev, sizeof(prev), "%s", name);
		lines++;

		if (strstr(line, " # Used by"))
			busy++;
		if (!strcmp(name, EVENT)) {
			seen_main = true;
			EXPECT_STREQ(EVENT " # Used by ftrace", line);
		}
		if (!strcmp(name, EVENT "_s17")) {
			seen_s = true;
			EXPECT_STREQ(EVENT "_s17", line);
		}
	}
	EXPECT_TRUE(seen_main);
	EXPECT_TRUE(seen_s);

	/* A blank line, then the counts. */
	ASSERT_EQ('\n', *line);
	tail = line + 1;
	n = sscanf(tail, "Active: %d\nBusy: %d\nKept: %d\n", &active, &busy_seen,
		   &kept);
	ASSERT_EQ(3, n);
	EXPECT_LE(0, kept);
	EXPECT_EQ(lines, active);
	EXPECT_EQ(ue_count_event_dirs(), active);
	EXPECT_LE(NR_STATUS + 1, active);
	EXPECT_EQ(busy, busy_seen);
	EXPECT_LE(1, busy_seen);
	free(text);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	for (i = 0; i < NR_STATUS; i++)
		ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &words[i], 0));
}

/* A multi-format event is listed under its tracepoint name, name.<id> */
TEST_F(user, status_multi_format_line) {
	char *text, *at, *end;
	int word = 0;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 a", &word, 0, 4,
			       USER_EVENT_REG_MULTI_FORMAT, NULL));
	text = ue_read_file(STATUS_FILE);
	ASSERT_NE(0, (uintptr_t)text);

	at = strstr(text, EVENT ".");
	ASSERT_NE(0, (uintptr_t)at) {
		TH_LOG("no " EVENT ".<id> line in:\n%s", text);
	}
	ASSERT_TRUE(at == text || at[-1] == '\n');
	at += strlen(EVENT ".");
	end = strchr(at, '\n');
	ASSERT_NE(0, (uintptr_t)end);
	*end = '\0';
	/* Lower-case hex, nothing else on the line (not traced) */
	ASSERT_LT(0, (int)strlen(at));
	ASSERT_EQ(strlen(at), strspn(at, "0123456789abcdef"));
	free(text);

	/* Not a single-format event of the name */
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/" EVENT));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &word, 0));
}

/* struct fields are shown as hex bytes, in memory order */
TEST_F(user, trace_text_struct_hex) {
	static const __u8 blob[5] = { 0x01, 0x2a, 0x00, 0xff, 0x80 };
	__u8 payload[sizeof(blob) + sizeof(__u16)];
	__u16 after = 513;
	int index = -1;

	/* The u16 right after the 5 bytes, unaligned as in the record */
	memcpy(payload, blob, sizeof(blob));
	memcpy(payload + sizeof(blob), &after, sizeof(after));

	ASSERT_EQ(0, ue_reg_fd(self->data_fd,
			       EVENT " struct foo blob 5; u16 after",
			       &self->check, 31, 4, 0, &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_clear_trace());

	ASSERT_WRITE(4 + (int)sizeof(payload),
		     write_event(self->data_fd, index, &payload,
				 sizeof(payload)));
	ASSERT_TRUE(ue_trace_has(EVENT ": blob=012a00ff80 after=513")) {
		char *trace = ue_read_file(TRACE_FILE);

		TH_LOG("trace:\n%s", trace);
		free(trace);
	}
}

/*
 * A struct whose hex is longer than a page cannot be printed: the line
 * ends "[LINE TOO BIG]" where the field would start, and the next
 * record still gets a line of its own.
 */
TEST_F(user, trace_text_struct_too_big) {
	int size = sysconf(_SC_PAGESIZE) / 2 + 16, index = -1, index_b = -1;
	__u8 *blob = malloc(size);
	char cmd[128], *trace, *line;
	__u32 n = 7;

	/* Its hex is longer than the page of a line */
	ASSERT_NE(NULL, blob);
	memset(blob, 0xab, size);
	snprintf(cmd, sizeof(cmd), EVENT " struct foo blob %d", size);
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, cmd, &self->check, 31, 4, 0,
			       &index));
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT "_b u32 n", &self->check,
			       30, 4, 0, &index_b));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_enable(EVENT "_b", 1));
	ASSERT_EQ(0, ue_clear_trace());

	ASSERT_WRITE(4 + size, write_event(self->data_fd, index, blob, size));
	ASSERT_WRITE(4 + (int)sizeof(n),
		     write_event(self->data_fd, index_b, &n, sizeof(n)));
	free(blob);

	trace = ue_read_file(TRACE_FILE);
	ASSERT_NE(NULL, trace);
	EXPECT_NE(NULL, strstr(trace, EVENT ":[LINE TOO BIG]\n"));
	line = strstr(trace, EVENT "_b: n=7\n");
	EXPECT_NE(NULL, line);
	/* Not glued to the end of the first record's line */
	while (line && line > trace && line[-1] != '\n')
		line--;
	EXPECT_TRUE(line && !memmem(line, strcspn(line, "\n"), "blob", 4)) {
		TH_LOG("trace:\n%.600s", trace);
	}
	free(trace);
}

/*
 * Lines that end around the end of their page: hex of 21 lengths about
 * the one that fills the page, from the prefix a first record got, each
 * record followed by a small one. Every line is whole or ends
 * "[LINE TOO BIG]", and the small records each have a line of their own.
 */
TEST_F(user, trace_text_lines_at_the_page_end) {
	int page = sysconf(_SC_PAGESIZE), index = -1, index_b = -1;
	int len, first, nr = 21, whole = 0, cut = 0, alone = 0, plen;
	__u8 *payload = malloc(8 + page / 2);
	char *trace, *line, *save = NULL;
	__u32 loc, n = 7;

	ASSERT_NE(NULL, payload);
	memset(payload, 0xcd, 8 + page / 2);
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " __rel_loc u16 d; u32 n",
			       &self->check, 31, 4, 0, &index));
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT "_b u32 n", &self->check,
			       30, 4, 0, &index_b));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_enable(EVENT "_b", 1));
	ASSERT_EQ(0, ue_clear_trace());

	/* The prefix of a line: task, pid, CPU, flags, time */
	ASSERT_WRITE(4 + (int)sizeof(n),
		     write_event(self->data_fd, index_b, &n, sizeof(n)));
	trace = ue_read_file(TRACE_FILE);
	ASSERT_NE(NULL, trace);
	line = strstr(trace, EVENT "_b: n=7");
	ASSERT_NE(NULL, line);
	for (plen = 0; line > trace && line[-1] != '\n'; line--)
		plen++;
	free(trace);
	ASSERT_EQ(0, ue_clear_trace());

	/* plen + "EVENT: d=" + hex + " n=7" + newline: a page at len */
	len = (page - plen - (int)strlen(EVENT ": d= n=7") - 1) / 2;
	first = len - nr / 2;
	for (len = first; len < first + nr; len++) {
		/* d: after n, from the end of its own loc word */
		loc = DYN_LOC(4, len);
		memcpy(payload, &loc, 4);
		memcpy(payload + 4, &n, 4);
		ASSERT_WRITE(4 + 8 + len,
			     write_event(self->data_fd, index, payload, 8 + len));
		ASSERT_WRITE(4 + (int)sizeof(n),
			     write_event(self->data_fd, index_b, &n, sizeof(n)));
	}
	free(payload);

	trace = ue_read_file(TRACE_FILE);
	ASSERT_NE(NULL, trace);
	for (line = strtok_r(trace, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *mark = strstr(line, "[LINE TOO BIG]");

		if (line[0] == '#')
			continue;
		if (strstr(line, EVENT ": d=") && !mark &&
		    !strcmp(line + strlen(line) - 4, " n=7"))
			whole++;
		else if (strstr(line, EVENT ":") && mark &&
			 !strcmp(mark, "[LINE TOO BIG]"))
			cut++;
		else if (strstr(line, EVENT "_b: n=7") && !strstr(line, " d="))
			alone++;
		else
			TH_LOG("a line neither whole nor cut: %.100s ... %s", line,
			       line + strlen(line) - (strlen(line) > 60 ? 60 : 0));
	}
	free(trace);
	EXPECT_EQ(nr, whole + cut);
	EXPECT_EQ(nr, alone);
	/* Lengths on both sides of the page's end */
	EXPECT_LT(0, whole);
	EXPECT_LT(0, cut);
}

TEST_HARNESS_MAIN
