// SPDX-License-Identifier: GPL-2.0
/*
 * user_events with ftrace: registration and matching, the write path and
 * its errors, dynamic-location validators, format and trace output,
 * deletion and the status file.
 */
#define _GNU_SOURCE
#include <assert.h>
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

/* Extra names used by the status test. */
static const char * const other_events[] = {
	EVENT "_c", EVENT "_b",
};

FIXTURE(user) {
	int status_fd;
	int data_fd;
	int check;
	bool umount;
};

static void ftrace_cleanup(void)
{
	unsigned int i;

	ue_enable(EVENT, 0);
	ue_delete_wait(EVENT, 1000);
	for (i = 0; i < ARRAY_SIZE(other_events); i++)
		ue_delete_wait(other_events[i], 1000);
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

		if (ret != -1 || errno != EADDRINUSE)
			TH_LOG("\"%s\": %d (%s)", others[i], ret,
			       strerror(errno));
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EADDRINUSE, errno);
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

		if (ret != 0)
			TH_LOG("\"%s\": %s", spellings[i], strerror(errno));
		EXPECT_EQ(0, ret);
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

TEST_F(user, write_from_dontneed_page) {
	long page_size = sysconf(_SC_PAGESIZE);
	int index = -1;
	char *page;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u64 anon",
			       &self->check, 31, 4, 0, &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	page = mmap(NULL, page_size, PROT_READ,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);

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

	/* Offsets count from the record start (common header included). */
	start = 8 + 4;
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
		EXPECT_NE(NULL, fmt);
		if (fmt) {
			if (strcmp(cases[i].fmt, fmt))
				TH_LOG("%s", cmd);
			EXPECT_STREQ(cases[i].fmt, fmt);
		}
		free(fmt);
		ue_unreg_fd(fd, &self->check, 31);
		close(fd);
		ASSERT_TRUE(ue_delete_wait(EVENT, 1000));
	}

	/* Several fields, in declaration order; none gives "". */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 a; char[2] b; s64 c",
			       &self->check, 31, 4, 0, NULL));
	{
		char *fmt = print_fmt(FORMAT_FILE);

		ASSERT_NE(NULL, fmt);
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
	ASSERT_NE(NULL, fmt);
	EXPECT_STREQ("\"\"", fmt);
	free(fmt);
}

TEST_F(user, format_fields) {
	static const char * const lines[] = {
		"\tfield:char data[20];\toffset:8;\tsize:20;\tsigned:1;\n",
		"\tfield:unsigned char udata[20];\toffset:28;\tsize:20;\tsigned:0;\n",
		"\tfield:u16 small;\toffset:48;\tsize:2;\tsigned:0;\n",
		"\tfield:s64 big;\toffset:50;\tsize:8;\tsigned:1;\n",
		"\tfield:__data_loc char[] str;\toffset:58;\tsize:4;\tsigned:1;\n",
		"\tfield:struct foo blob;\toffset:62;\tsize:3;\tsigned:1;\n",
	};
	unsigned int i;
	char *format, *user;

	/* Packed layout after the 8-byte common header; char[N] shows N. */
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " char[20] data; "
			       "unsigned char[0x14] udata; u16 small; s64 big; "
			       "__data_loc char[] str; struct foo blob 3",
			       &self->check, 31, 4, 0, NULL));
	format = ue_read_file(FORMAT_FILE);
	ASSERT_NE(NULL, format);

	/* The user fields follow the blank line after the common ones. */
	user = strstr(format, "\n\n");
	ASSERT_NE(NULL, user);
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		char *at = strstr(user, lines[i]);

		if (!at)
			TH_LOG("missing %s in:\n%s", lines[i], format);
		EXPECT_NE(NULL, at);
		if (at)
			user = at;
	}
	free(format);
}

/* Whether the trace file contains @text. */
static bool trace_has(const char *text)
{
	char *trace = ue_read_file(TRACE_FILE);
	bool found = trace && strstr(trace, text);

	free(trace);

	return found;
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
	if (!trace_has(EVENT ": a=5 b=-3 s=hello c=4000000000")) {
		char *trace = ue_read_file(TRACE_FILE);

		TH_LOG("trace:\n%s", trace);
		free(trace);
	}
	ASSERT_TRUE(trace_has(EVENT ": a=5 b=-3 s=hello c=4000000000"));
}

TEST_F(user, trace_text_dynamic_strings) {
	struct {
		__u32 msg;
		__u32 rel;
		char msg_data[6];
		char rel_data[6];
	} payload = {
		/* data_loc: from the record start, 8-byte header included */
		.msg = DYN_LOC(8 + 8, 6),
		/* rel_loc: from the end of its own loc word */
		.rel = DYN_LOC(6, 3),
		.msg_data = "world",
		.rel_data = "hi",
	};
	int index = -1;

	ASSERT_EQ(20, sizeof(payload));
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " __data_loc char[] msg; "
			       "__rel_loc char[] rel",
			       &self->check, 31, 4, 0, &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_clear_trace());

	ASSERT_WRITE(4 + (int)sizeof(payload),
		     write_event(self->data_fd, index, &payload,
				 sizeof(payload)));
	if (!trace_has(EVENT ": msg=world rel=hi")) {
		char *trace = ue_read_file(TRACE_FILE);

		TH_LOG("trace:\n%s", trace);
		free(trace);
	}
	ASSERT_TRUE(trace_has(EVENT ": msg=world rel=hi"));
}

TEST_F(user, write_too_big_e2big) {
	const size_t big = 64 * 1024;
	char *payload = calloc(1, big);
	int index = -1;

	ASSERT_NE(NULL, payload);
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 a", &self->check,
			       31, 4, 0, &index));
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	/* Fits a ring-buffer page. */
	ASSERT_WRITE(4 + 1000, write_event(self->data_fd, index, payload, 1000));

	/* Cannot fit: an error, not a silent drop. */
	ASSERT_EQ(-1, write_event(self->data_fd, index, payload, big));
	ASSERT_EQ(E2BIG, errno);
	free(payload);
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

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_TRUE(ue_delete_wait(EVENT, 1000));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

TEST_F(user, auto_delete_after_close) {
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));

	close(self->data_fd);
	self->data_fd = -1;
	ASSERT_TRUE(ue_wait_path(ENABLE_FILE, false, 1000));
}

TEST_F(user, enabler_keeps_event_after_close) {
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	close(self->data_fd);
	self->data_fd = -1;

	/* Closing does not unregister: the bit still follows the event. */
	ue_sleep_ms(100);
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 31, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));

	ASSERT_EQ(0, ue_unreg(&self->check, 31));
	ASSERT_TRUE(ue_wait_path(ENABLE_FILE, false, 1000));
}

TEST_F(user, delete_unreferenced_event) {
	int ret;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
	close(self->data_fd);
	self->data_fd = -1;

	/*
	 * Nothing references the event any more: deleting it succeeds
	 * (or finds it already auto-deleted); EBUSY may only last while
	 * the last reference is still being dropped.
	 */
	ret = ue_del(EVENT);
	if (ret == -1 && errno != ENOENT) {
		ASSERT_EQ(EBUSY, errno);
		ASSERT_TRUE(ue_delete_wait(EVENT, 1000));
	}
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

/* Check user_events_status: sorted lines, then Active and Busy counts. */
TEST_F(user, status_sorted_format) {
	char *text, *line, *next, *tail;
	char prev[256] = "";
	int lines = 0, busy = 0, active = -1, busy_seen = -1, n;
	bool seen_main = false, seen_b = false;
	unsigned int i;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->check, 31,
			       4, 0, NULL));
	for (i = 0; i < ARRAY_SIZE(other_events); i++)
		ASSERT_EQ(0, ue_reg_fd(self->data_fd, other_events[i],
				       &self->check, 30 - i, 4, 0, NULL));
	ASSERT_EQ(0, ue_enable(EVENT, 1));

	text = ue_read_file(STATUS_FILE);
	ASSERT_NE(NULL, text);

	for (line = text; *line && *line != '\n'; line = next) {
		char name[256];

		next = strchr(line, '\n');
		ASSERT_NE(NULL, next);
		*next++ = '\0';

		snprintf(name, sizeof(name), "%s", line);
		if (strchr(name, ' '))
			*strchr(name, ' ') = '\0';
		if (strcmp(prev, name) >= 0)
			TH_LOG("\"%s\" listed after \"%s\"", name, prev);
		EXPECT_LT(strcmp(prev, name), 0);
		snprintf(prev, sizeof(prev), "%s", name);
		lines++;

		if (strstr(line, " # Used by"))
			busy++;
		if (!strcmp(name, EVENT)) {
			seen_main = true;
			EXPECT_STREQ(EVENT " # Used by ftrace", line);
		}
		if (!strcmp(name, EVENT "_b")) {
			seen_b = true;
			EXPECT_STREQ(EVENT "_b", line);
		}
	}
	EXPECT_TRUE(seen_main);
	EXPECT_TRUE(seen_b);

	/* A blank line, then the counts. */
	ASSERT_EQ('\n', *line);
	tail = line + 1;
	n = sscanf(tail, "Active: %d\nBusy: %d\n", &active, &busy_seen);
	ASSERT_EQ(2, n);
	EXPECT_EQ(lines, active);
	EXPECT_EQ(busy, busy_seen);
	free(text);
}

TEST_HARNESS_MAIN
