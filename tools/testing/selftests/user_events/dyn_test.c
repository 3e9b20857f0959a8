// SPDX-License-Identifier: GPL-2.0
/*
 * user_events command parsing and matching, through DIAG_IOCSREG and
 * through the dynamic_events "u:" interface, which must agree.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sys/wait.h>

#include "user_events_selftests.h"

#define EVENT		"__dyn_event"
#define EVENT_NF	"__dyn_event_nf"
#define ENABLE_FILE	EVENTS_DIR "/" EVENT "/enable"
#define ENABLE_NF	EVENTS_DIR "/" EVENT_NF "/enable"
#define TRIGGER_NF	EVENTS_DIR "/" EVENT_NF "/trigger"
#define ENABLE_NF	EVENTS_DIR "/" EVENT_NF "/enable"
#define UPROBE_FILE	TRACEFS_DIR "/uprobe_events"

FIXTURE(user) {
	int check;
	bool umount;
};

static void dyn_cleanup(void)
{
	if (ue_exists(UPROBE_FILE))
		ue_write_str(UPROBE_FILE, "-:" USER_EVENTS_SYSTEM "/" EVENT,
			     O_APPEND);
	if (ue_exists(TRIGGER_NF))
		ue_write_str(TRIGGER_NF, "!enable_event:" USER_EVENTS_SYSTEM
			     ":" EVENT, 0);
	ue_cleanup_event(EVENT);
	ue_cleanup_event(EVENT_NF);
	ue_cleanup_event("enable");
	ue_cleanup_event("filter");
}

FIXTURE_SETUP(user) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	dyn_cleanup();
}

FIXTURE_TEARDOWN(user) {
	dyn_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * Register "EVENT fields" through the ioctl and clean it up again:
 * 0 or the errno. The event is gone again when this returns 0.
 */
static int parse_abi(const char *fields, int *check)
{
	char cmd[600];
	int fd, ret = 0;

	snprintf(cmd, sizeof(cmd), EVENT " %s", fields);
	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0)
		return -1;

	if (ue_reg_fd(fd, cmd, check, 31, 4, 0, NULL) != 0)
		ret = errno;
	else if (ue_unreg_fd(fd, check, 31) != 0)
		ret = -1;
	close(fd);

	if (ret == 0 && !ue_wait_auto_delete(ENABLE_FILE))
		ret = -1;

	return ret;
}

/* The same through dynamic_events: 0 or the errno. */
static int parse_dyn(const char *fields)
{
	char cmd[600];
	int ret;

	snprintf(cmd, sizeof(cmd), "u:" EVENT " %s", fields);
	ret = ue_dyn_write(cmd);
	if (ret == 0) {
		/* u: events persist until deleted. */
		if (!ue_exists(ENABLE_FILE) || ue_del(EVENT) != 0)
			ret = -1;
	}

	return ret;
}

struct parse_case {
	const char *fields;
	int err;
};

static void check_parse(struct __test_metadata *_metadata, int *check,
			const struct parse_case *cases, int count)
{
	int i;

	for (i = 0; i < count; i++) {
		int abi = parse_abi(cases[i].fields, check);
		int dyn = parse_dyn(cases[i].fields);

		EXPECT_EQ(cases[i].err, abi) {
			TH_LOG("\"%s\": ioctl %d, want %d", cases[i].fields,
			       abi, cases[i].err);
		}
		EXPECT_EQ(cases[i].err, dyn) {
			TH_LOG("\"%s\": dynamic_events %d, want %d",
			       cases[i].fields, dyn, cases[i].err);
		}
	}
}

TEST_F(user, basic_types_accepted) {
	static const struct parse_case cases[] = {
		{ "s64 a", 0 }, { "u64 a", 0 },
		{ "s32 a", 0 }, { "u32 a", 0 },
		{ "int a", 0 }, { "unsigned int a", 0 },
		{ "s16 a", 0 }, { "u16 a", 0 },
		{ "short a", 0 }, { "unsigned short a", 0 },
		{ "s8 a", 0 }, { "u8 a", 0 },
		{ "char a", 0 }, { "unsigned char a", 0 },
		{ "u64 a; u32 b; u16 c; u8 d", 0 },
		{ "u32 a;", 0 },
	};

	check_parse(_metadata, &self->check, cases, ARRAY_SIZE(cases));
}

TEST_F(user, array_types) {
	static const struct parse_case cases[] = {
		{ "char[20] a", 0 },
		{ "unsigned char[20] a", 0 },
		{ "char[0x14] a", 0 },
		{ "unsigned char[0x14] a", 0 },
		{ "char[024] a", 0 },
		{ "char[1] a", 0 },
		{ "char[1024] a", 0 },
		{ "char[1025] a", EINVAL },
		{ "char[9999] a", EINVAL },
		{ "char[0] a", EINVAL },
		{ "char[] a", EINVAL },
		{ "char[aa] a", EINVAL },
		{ "char[0x0000000000001] a", EINVAL },
		{ "char[20 a", EINVAL },
		{ "u32[4] a", EINVAL },
	};

	check_parse(_metadata, &self->check, cases, ARRAY_SIZE(cases));
}

TEST_F(user, loc_types) {
	static const struct parse_case cases[] = {
		{ "__data_loc char[] a", 0 },
		{ "__data_loc unsigned char[] a", 0 },
		{ "__rel_loc char[] a", 0 },
		{ "__rel_loc unsigned char[] a", 0 },
		{ "__data_loc char[] a; __rel_loc char[] b; u32 c", 0 },
	};

	check_parse(_metadata, &self->check, cases, ARRAY_SIZE(cases));
}

TEST_F(user, size_types) {
	static const struct parse_case cases[] = {
		{ "struct custom a 20", 0 },
		{ "struct custom a 1", 0 },
		{ "struct custom a", EINVAL },
		{ "struct custom a 0", EINVAL },
		{ "struct custom a 0x14", EINVAL },
		{ "struct custom a 20 b", EINVAL },
		{ "char a 20", EINVAL },
		{ "u32 a 4", EINVAL },
		/* Sizes that can never fit a record */
		{ "struct custom a 2147483648", EINVAL },
		{ "struct custom a 4294967295", EINVAL },
		{ "struct custom a 65536", EINVAL },
		{ "struct custom a 40000; struct custom b 30000", EINVAL },
	};

	check_parse(_metadata, &self->check, cases, ARRAY_SIZE(cases));
}

TEST_F(user, rejected_types) {
	static const struct parse_case cases[] = {
		{ "long a", EINVAL },
		{ "unsigned long a", EINVAL },
		{ "bool a", EINVAL },
		{ "u32 *a", EINVAL },
		{ "void *a", EINVAL },
		{ "u128 a", EINVAL },
		{ "u32", EINVAL },
		{ "u32 a b", EINVAL },
		{ "u32 a; u64", EINVAL },
	};

	check_parse(_metadata, &self->check, cases, ARRAY_SIZE(cases));
}

/*
 * Register @a at bit 31 and @b at bit 30 of the same fd: true when @b
 * reused @a's event, false when it got EADDRINUSE.
 */
static int match(const char *a, const char *b, int *check)
{
	char cmd_a[256], cmd_b[256];
	int fd, ret;

	snprintf(cmd_a, sizeof(cmd_a), EVENT " %s", a);
	snprintf(cmd_b, sizeof(cmd_b), EVENT " %s", b);

	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0)
		return -1;

	if (ue_reg_fd(fd, cmd_a, check, 31, 4, 0, NULL) != 0) {
		close(fd);
		return -1;
	}

	ret = ue_reg_fd(fd, cmd_b, check, 30, 4, 0, NULL);
	if (ret == 0)
		ret = 1;
	else
		ret = errno == EADDRINUSE ? 0 : -1;

	ue_unreg_fd(fd, check, 31);
	ue_unreg_fd(fd, check, 30);
	close(fd);
	ue_wait_auto_delete(ENABLE_FILE);

	return ret;
}

TEST_F(user, matching) {
	static const struct {
		const char *a, *b;
		int match;
	} cases[] = {
		{ "u32 a", "u32 a", 1 },
		{ "u32 a; u32 b", "u32 a; u32 b", 1 },
		{ "u32 a; u32 b", "u32 a;u32 b", 1 },
		{ "u32 a; u32 b", "u32 a; u32 b;", 1 },
		{ "u32 a; u32 b", "u32 a;\tu32 b", 1 },
		{ "u32 a; u32 b", "u32 a ;u32 b", 1 },
		{ "u32 a; u32 b", " u32  a ;  u32\tb ", 1 },
		{ "struct my_struct a 20", "struct my_struct a 20", 1 },
		{ "char[20] a", "char[20] a", 1 },
		{ "u32 a", "u32 b", 0 },
		{ "u32 a", "u64 a", 0 },
		{ "u32 a", "s32 a", 0 },
		{ "u32 a", "", 0 },
		{ "u32 a; u32 b", "u32 b; u32 a", 0 },
		{ "u32 a; u32 b", "u32 a", 0 },
		{ "u32 a", "u32 a; u32 b", 0 },
		{ "u64 a; u64 b", "u32 a; u32 b", 0 },
		{ "struct my_struct a 20", "struct my_struct b 20", 0 },
		{ "struct my_struct a 20", "struct my_struct a 21", 0 },
		{ "struct my_struct a 20", "struct other a 20", 0 },
		{ "char[20] a", "char[0x14] a", 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int got = match(cases[i].a, cases[i].b, &self->check);

		EXPECT_EQ(cases[i].match, got) {
			TH_LOG("\"%s\" vs \"%s\": %d, want %d", cases[i].a,
			       cases[i].b, got, cases[i].match);
		}
	}
}

TEST_F(user, matching_no_fields) {
	/* Field-less events match only field-less registrations. */
	EXPECT_EQ(1, match("", "", &self->check));
}

/* The lines of dynamic_events that belong to @name. */
static int dyn_lines(const char *name, char *line, size_t len)
{
	char *text = ue_read_file(DYN_FILE);
	char prefix[128];
	char *at;
	int count = 0;

	if (!text)
		return -1;

	snprintf(prefix, sizeof(prefix), "u:%s", name);
	for (at = strtok(text, "\n"); at; at = strtok(NULL, "\n")) {
		if (strncmp(at, prefix, strlen(prefix)) ||
		    (at[strlen(prefix)] != ' ' && at[strlen(prefix)] != '\0'))
			continue;
		if (line)
			snprintf(line, len, "%s", at);
		count++;
	}
	free(text);

	return count;
}

TEST_F(user, dyn_create_show_delete) {
	char line[256] = "";

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a;u32\tb"));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(1, dyn_lines(EVENT, line, sizeof(line)));
	ASSERT_STREQ("u:" EVENT " u32 a; u32 b", line);

	/* The same again is accepted and changes nothing. */
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a; u32 b"));
	ASSERT_EQ(1, dyn_lines(EVENT, NULL, 0));

	/*
	 * Persistent: no user, still there, and not merely waiting for an
	 * auto-delete (that would not stop other fields from registering).
	 */
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(-1, ue_reg(EVENT " u64 other", &self->check, 31, 4, 0));
	ASSERT_EQ(EADDRINUSE, errno);

	ASSERT_EQ(0, ue_dyn_write("-:" EVENT " u32 a; u32 b"));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(0, dyn_lines(EVENT, NULL, 0));
}

TEST_F(user, dyn_show_struct_size) {
	char line[256] = "";

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " struct foo a 20; char[4] b"));
	ASSERT_EQ(1, dyn_lines(EVENT, line, sizeof(line)));
	ASSERT_STREQ("u:" EVENT " struct foo a 20; char[4] b", line);
	ASSERT_EQ(0, ue_dyn_write("-:" EVENT " struct foo a 20; char[4] b"));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

TEST_F(user, dyn_delete_with_system) {
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a; u32 b"));
	ASSERT_EQ(0, ue_dyn_write("-:" USER_EVENTS_SYSTEM "/" EVENT
			       " u32 a; u32 b"));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

TEST_F(user, dyn_delete_bang) {
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a; u32 b"));
	ASSERT_EQ(0, ue_dyn_write("!u:" EVENT " u32 a; u32 b"));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

TEST_F(user, dyn_delete_needs_matching_fields) {
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a; u32 b"));

	/* A bare name only matches an event without fields. */
	ASSERT_EQ(ENOENT, ue_dyn_write("-:" EVENT));
	ASSERT_EQ(ENOENT, ue_dyn_write("-:" EVENT " u32 a"));
	ASSERT_EQ(ENOENT, ue_dyn_write("-:" EVENT " u32 b; u32 a"));
	ASSERT_EQ(ENOENT, ue_dyn_write("-:other_system/" EVENT " u32 a; u32 b"));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT_NF));
	ASSERT_EQ(0, ue_dyn_write("-:" EVENT_NF));
	ASSERT_FALSE(ue_exists(ENABLE_NF));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
}

TEST_F(user, dyn_delete_busy) {
	int fd;

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a"));

	/* An open fd that registered the event holds it. */
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EVENT " u32 a", &self->check, 31, 4, 0,
			       NULL));
	ASSERT_EQ(0, ue_unreg_fd(fd, &self->check, 31));
	ASSERT_EQ(EBUSY, ue_dyn_write("-:" EVENT " u32 a"));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));

	/* The fd's reference goes with the close, at once */
	close(fd);
	ASSERT_EQ(0, ue_dyn_write("-:" EVENT " u32 a"));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

/*
 * Truncating dynamic_events deletes every dynamic event, or none: while
 * one user event is busy, the open fails with EBUSY and both live on.
 */
TEST_F(user, dyn_truncate_busy) {
	int fd, dyn;

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a"));
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT_NF));
	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EVENT " u32 a", &self->check, 31, 4, 0,
			       NULL));
	ASSERT_EQ(0, ue_unreg_fd(fd, &self->check, 31));

	dyn = open(DYN_FILE, O_WRONLY | O_TRUNC);
	if (dyn >= 0)
		close(dyn);
	ASSERT_EQ(-1, dyn);
	ASSERT_EQ(EBUSY, errno);
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_TRUE(ue_exists(ENABLE_NF));

	close(fd);
	dyn = open(DYN_FILE, O_WRONLY | O_TRUNC);
	ASSERT_NE(-1, dyn) {
		TH_LOG("truncating open after the close: %s", strerror(errno));
	}
	close(dyn);
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
	ASSERT_FALSE(ue_exists(ENABLE_NF));
}

/*
 * An enable_event trigger of another event holds the event it enables:
 * neither DIAG_IOCSDEL nor "-:" may remove it while the trigger exists
 * (the trigger would point at a freed event), and both work at once
 * when it is gone.
 */
TEST_F(user, trigger_of_other_event_holds_it) {
	const char *trigger = "enable_event:" USER_EVENTS_SYSTEM ":" EVENT;
	char undo[128];

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a"));
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT_NF));
	ASSERT_EQ(0, ue_write_str(TRIGGER_NF, trigger, 0)) {
		TH_LOG("%s > %s: %s", trigger, TRIGGER_NF, strerror(errno));
	}

	ASSERT_EQ(-1, ue_del(EVENT));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(EBUSY, ue_dyn_write("-:" EVENT " u32 a"));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));

	snprintf(undo, sizeof(undo), "!%s", trigger);
	ASSERT_EQ(0, ue_write_str(TRIGGER_NF, undo, 0));
	ASSERT_EQ(0, ue_del(EVENT)) {
		TH_LOG("DIAG_IOCSDEL after the trigger went: %s",
		       strerror(errno));
	}
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(0, ue_dyn_write("-:" EVENT_NF));
}

TEST_F(user, dyn_create_rejects_bad_commands) {
	ASSERT_EQ(EINVAL, ue_dyn_write("u:" EVENT " u32"));
	ASSERT_EQ(EINVAL, ue_dyn_write("u:" EVENT ":flag u32 a"));
	ASSERT_EQ(EINVAL, ue_dyn_write("u:" EVENT " long a"));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

/* Names a system directory holds as files, and control characters */
TEST_F(user, dyn_create_rejects_bad_names) {
	static const char * const lines[] = {
		"u:enable u32 a", "u:filter u32 a", "u:enable", "u:filter",
		"u:__dyn\revent u32 a", "u:__dyn\vevent u32 a",
		"u:__dyn\fevent u32 a", "u:__dyn\177event u32 a",
		"u:__dyn\001event",
	};
	unsigned int i;
	int active = ue_active_count();

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		int err = ue_dyn_write(lines[i]);

		EXPECT_EQ(EINVAL, err) {
			TH_LOG("line %u: %s", i, strerror(err));
		}
	}
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/enable/format"));
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/filter/format"));
	ASSERT_EQ(active, ue_active_count());
}

TEST_F(user, dyn_create_spaces_after_prefix) {
	char line[256] = "";

	ASSERT_EQ(0, ue_dyn_write("u:   " EVENT " u32 a"));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(1, dyn_lines(EVENT, line, sizeof(line)));
	ASSERT_STREQ("u:" EVENT " u32 a", line);
	ASSERT_EQ(0, ue_dyn_write("u:\t" EVENT " u32 a"));
	ASSERT_EQ(1, dyn_lines(EVENT, NULL, 0));
	ASSERT_EQ(0, ue_dyn_write("-:" EVENT " u32 a"));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

/* The ioctl's 511 character limit does not apply to dynamic_events */
TEST_F(user, dyn_create_longer_than_512) {
	char cmd[1024], canon[1024], line[1024] = "";
	int i, len, clen;

	len = snprintf(cmd, sizeof(cmd), "u:" EVENT " u32 f00");
	clen = snprintf(canon, sizeof(canon), "u:" EVENT " u32 f00");
	for (i = 1; len < 700; i++) {
		len += snprintf(cmd + len, sizeof(cmd) - len, "; u32 f%02d", i);
		clen += snprintf(canon + clen, sizeof(canon) - clen,
				 "; u32 f%02d", i);
	}
	ASSERT_LT(600, (int)strlen(cmd));

	ASSERT_EQ(0, ue_dyn_write(cmd));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(1, dyn_lines(EVENT, line, sizeof(line)));
	ASSERT_STREQ(canon, line);

	/* The same fields through the ioctl are too long a command there */
	ASSERT_EQ(-1, ue_reg(cmd + 2, &self->check, 31, 4, 0));
	ASSERT_EQ(EINVAL, errno);

	cmd[0] = '-';
	ASSERT_EQ(0, ue_dyn_write(cmd));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

/*
 * "u:" on an event registered through the ioctl matches it and leaves
 * it as it is: non-persistent, so it goes with its last reference.
 */
TEST_F(user, dyn_create_keeps_existing_non_persistent) {
	int fd = open(DATA_FILE, O_RDWR);

	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, EVENT " u32 a", &self->check, 31, 4, 0,
			       NULL));
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a"));
	ASSERT_EQ(1, dyn_lines(EVENT, NULL, 0));

	ASSERT_EQ(0, ue_unreg_fd(fd, &self->check, 31));
	close(fd);
	ASSERT_TRUE(ue_wait_auto_delete(ENABLE_FILE));
	ASSERT_EQ(0, dyn_lines(EVENT, NULL, 0));
}

/*
 * Once the last user of a non-persistent event left (unregister and
 * close), "u:" does not find it any more: it creates a persistent event,
 * whatever the old one's auto-delete is doing.
 */
TEST_F(user, dyn_create_after_last_user_left) {
	int fd, i;

	for (i = 0; i < 5; i++) {
		fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, fd);
		ASSERT_EQ(0, ue_reg_fd(fd, EVENT " u32 a", &self->check, 31,
				       4, 0, NULL));
		ASSERT_EQ(0, ue_unreg_fd(fd, &self->check, 31));
		close(fd);

		ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a"));
		ASSERT_TRUE(ue_exists(ENABLE_FILE));
		ASSERT_EQ(1, dyn_lines(EVENT, NULL, 0));
		/* A live persistent event: other fields are refused */
		ASSERT_EQ(-1, ue_reg(EVENT " u64 other", &self->check, 30, 4,
				     0));
		ASSERT_EQ(EADDRINUSE, errno);
		ASSERT_EQ(0, ue_dyn_write("-:" EVENT " u32 a"));
		ASSERT_FALSE(ue_exists(ENABLE_FILE));
	}
}

/* One name, a single-format and a multi-format event: independent */
TEST_F(user, single_and_multi_format_side_by_side) {
	char line[256] = "";

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a"));
	ASSERT_EQ(0, ue_reg(EVENT " u64 b", &self->check, 31, 4,
			    USER_EVENT_REG_MULTI_FORMAT |
			    USER_EVENT_REG_PERSIST));
	ASSERT_EQ(0, ue_unreg(&self->check, 31));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_TRUE(ue_multi_exists(EVENT));

	/* dynamic_events shows both under the register name */
	ASSERT_EQ(2, dyn_lines(EVENT, NULL, 0));

	/* The single-format one keeps its own fields */
	ASSERT_EQ(-1, ue_reg(EVENT " u64 b", &self->check, 31, 4, 0));
	ASSERT_EQ(EADDRINUSE, errno);

	/* "-:user_events_multi/" removes the multi-format version only */
	ASSERT_EQ(0, ue_dyn_write("-:" USER_EVENTS_MULTI_SYSTEM "/" EVENT " u64 b"));
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(1, dyn_lines(EVENT, line, sizeof(line)));
	ASSERT_STREQ("u:" EVENT " u32 a", line);

	/* DIAG_IOCSDEL removes every event of the name */
	ASSERT_EQ(0, ue_reg(EVENT " u64 b", &self->check, 31, 4,
			    USER_EVENT_REG_MULTI_FORMAT |
			    USER_EVENT_REG_PERSIST));
	ASSERT_EQ(0, ue_unreg(&self->check, 31));
	ASSERT_TRUE(ue_multi_exists(EVENT));
	ASSERT_EQ(0, ue_del(EVENT));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
	ASSERT_FALSE(ue_multi_exists(EVENT));
	ASSERT_EQ(0, dyn_lines(EVENT, NULL, 0));
}

TEST_F(user, dyn_create_needs_privilege) {
	int fd = open(DYN_FILE, O_WRONLY | O_APPEND);
	pid_t pid;

	ASSERT_NE(-1, fd);

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		static const char cmd[] = "u:" EVENT " u32 a";

		/* Leaving uid 0 drops every capability. */
		UE_CHILD_EQ(0, setgid(65534));
		UE_CHILD_EQ(0, setuid(65534));
		UE_CHILD_EQ(-1, write(fd, cmd, strlen(cmd)));
		UE_CHILD_EQ(EPERM, errno);
		_exit(0);
	}
	close(fd);

	ASSERT_CHILD_OK(pid);
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

/*
 * Another kind of dynamic event, a uprobe here, may take a name in the
 * user_events system. A user event of that name then fails with EEXIST,
 * through the ioctl and through "u:", and leaves nothing behind; a
 * uprobe given the name of a user event fails the same way.
 */
TEST_F(user, name_taken_by_uprobe_eexist) {
	char exe[PATH_MAX], probe[PATH_MAX + 64];
	int active;
	ssize_t n;

	if (!ue_exists(UPROBE_FILE))
		SKIP(return, "no uprobe_events: CONFIG_UPROBE_EVENTS is off");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = '\0';
	snprintf(probe, sizeof(probe), "p:%s/%s %s:0x0", USER_EVENTS_SYSTEM,
		 EVENT, exe);
	active = ue_active_count();

	ASSERT_EQ(0, ue_write_str(UPROBE_FILE, probe, O_APPEND)) {
		TH_LOG("%s: %s", probe, strerror(errno));
	}
	EXPECT_EQ(-1, ue_reg(EVENT " u32 a", &self->check, 31, 4, 0));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(EEXIST, ue_dyn_write("u:" EVENT " u32 a"));
	EXPECT_EQ(0, self->check);
	EXPECT_EQ(active, ue_active_count());
	ASSERT_EQ(0, ue_write_str(UPROBE_FILE, "-:" USER_EVENTS_SYSTEM "/"
				  EVENT, O_APPEND));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));

	/* The other way round */
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a"));
	EXPECT_EQ(-1, ue_write_str(UPROBE_FILE, probe, O_APPEND));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(0, ue_dyn_write("-:" EVENT " u32 a"));
	EXPECT_FALSE(ue_exists(ENABLE_FILE));
}

/*
 * error_log: a refused command is logged by the word that was refused,
 * alone, with the caret under its first byte, whatever stands before it:
 * a name of any length, the "u:" of dynamic_events and spaces after it,
 * other fields. (The log is global: nobody's whole command goes there;
 * records_test checks the escaping of bytes that are not printable.)
 */
#define ERROR_LOG	TRACEFS_DIR "/error_log"
#define CMD_PREFIX	"  Command: "

struct logged_error {
	char text[128];		/* what follows "user_events: error: " */
	char cmd[1024];		/* what the log quotes of the command */
	int caret;		/* column of the caret, 0 under cmd[0] */
};

/*
 * The last entry of error_log: "[time] LOC: error: TEXT", then
 * "  Command: CMD", then a line of spaces and a caret. False when there
 * is none or it is not in that form.
 */
static bool last_error(struct logged_error *e)
{
	char *log = ue_read_file(ERROR_LOG);
	char *line, *next, *prev = NULL, *cmd = NULL, *err = NULL;
	char *caret = NULL, *at;
	bool ok = false;

	if (!log)
		return false;

	/* Cut into lines; remember the last command and its neighbours */
	for (line = log; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, CMD_PREFIX, strlen(CMD_PREFIX))) {
			cmd = line + strlen(CMD_PREFIX);
			err = prev;
			caret = next;
		}
		prev = line;
	}

	if (cmd && err && caret) {
		at = strchr(caret, '\n');
		if (at)
			*at = '\0';
		at = strstr(err, "user_events: error: ");
		if (at && caret[strspn(caret, " ")] == '^' &&
		    !caret[strspn(caret, " ") + 1]) {
			snprintf(e->text, sizeof(e->text), "%s",
				 at + strlen("user_events: error: "));
			snprintf(e->cmd, sizeof(e->cmd), "%s", cmd);
			e->caret = strspn(caret, " ") - strlen(CMD_PREFIX);
			ok = true;
		}
	}
	free(log);

	return ok;
}

static int clear_error_log(void)
{
	return ue_write_str(ERROR_LOG, "", O_TRUNC);
}

/* Names of several lengths (1, 11, 200); none of them is ever created */
#define NR_CARET_NAMES	3

static const char *caret_name(unsigned int n)
{
	static char long_name[201];

	if (n == 0)
		return "q";
	if (n == 1)
		return "__dyn_caret";

	memset(long_name, 'n', sizeof(long_name) - 1);
	memcpy(long_name, "__dyn_caret_", strlen("__dyn_caret_"));
	long_name[sizeof(long_name) - 1] = '\0';

	return long_name;
}

/* A field list and the word of it that the parser refuses */
static const struct {
	const char *fields;
	const char *refused;
} caret_cases[] = {
	{ "bogus a; u32 b; u32 c", "bogus" },		/* first field */
	{ "u32 a; u32 1b; u32 c", "1b" },		/* a middle one */
	{ "u32 a; u32 b extra; u32 c", "extra" },	/* ditto, a word */
	{ "u32 a; u32 b; char[0] c", "char[0]" },	/* the last one */
	{ "u32 a;\tu64  b ;  s99 c", "s99" },		/* tabs, runs */
	{ "u32 a; struct x b 0", "0" },			/* the last word */
};

static void caret_cleanup(void)
{
	unsigned int i;

	for (i = 0; i < NR_CARET_NAMES; i++)
		ue_cleanup_event(caret_name(i));
}

/*
 * After a refused @cmd, error_log's last entry quotes @word, the word of
 * @cmd that was refused, with the caret under its first byte.
 */
static void check_caret(struct __test_metadata *_metadata, const char *cmd,
			const char *word)
{
	struct logged_error e;

	ASSERT_TRUE(last_error(&e)) {
		TH_LOG("no entry in error_log after \"%s\"", cmd);
	}
	EXPECT_STREQ(word, e.cmd) {
		TH_LOG("\"%s\" (%s)", cmd, e.text);
	}
	EXPECT_EQ(0, e.caret) {
		TH_LOG("\"%s\" (%s): caret at %d of \"%s\"", cmd, e.text,
		       e.caret, e.cmd);
	}
}

TEST_F(user, error_log_caret_ioctl) {
	unsigned int n, c;
	char cmd[512];

	caret_cleanup();
	for (n = 0; n < NR_CARET_NAMES; n++) {
		for (c = 0; c < ARRAY_SIZE(caret_cases); c++) {
			snprintf(cmd, sizeof(cmd), "%s %s", caret_name(n),
				 caret_cases[c].fields);

			ASSERT_EQ(0, clear_error_log());
			ASSERT_EQ(-1, ue_reg(cmd, &self->check, 31, 4, 0)) {
				TH_LOG("\"%s\" registered", cmd);
			}
			ASSERT_EQ(EINVAL, errno);
			check_caret(_metadata, cmd, caret_cases[c].refused);
		}
	}
	caret_cleanup();
}

TEST_F(user, error_log_caret_dyn) {
	/* Spaces after "u:" are skipped, and part of the logged line */
	static const char * const gaps[] = { "", "   " };
	unsigned int n, c, g;
	char cmd[600];

	caret_cleanup();
	for (g = 0; g < ARRAY_SIZE(gaps); g++) {
		for (n = 0; n < NR_CARET_NAMES; n++) {
			for (c = 0; c < ARRAY_SIZE(caret_cases); c++) {
				snprintf(cmd, sizeof(cmd), "u:%s%s %s", gaps[g],
					 caret_name(n), caret_cases[c].fields);

				ASSERT_EQ(0, clear_error_log());
				ASSERT_EQ(EINVAL, ue_dyn_write(cmd)) {
					TH_LOG("\"%s\" not refused", cmd);
				}
				check_caret(_metadata, cmd,
					    caret_cases[c].refused);
			}
		}
	}
	caret_cleanup();
}

/*
 * A name that exists with other fields: the caret is under the start of
 * the field list that differs, its first word.
 */
TEST_F(user, error_log_caret_fields_differ) {
	static const char ioctl_cmd[] = EVENT " u64 b";
	static const char dyn_cmd[] = "u:  " EVENT " u64 b";

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT " u32 a"));

	ASSERT_EQ(0, clear_error_log());
	ASSERT_EQ(-1, ue_reg(ioctl_cmd, &self->check, 31, 4, 0));
	ASSERT_EQ(EADDRINUSE, errno);
	check_caret(_metadata, ioctl_cmd, "u64");

	ASSERT_EQ(0, clear_error_log());
	ASSERT_EQ(EADDRINUSE, ue_dyn_write(dyn_cmd));
	check_caret(_metadata, dyn_cmd, "u64");

	ASSERT_EQ(0, ue_dyn_write("-:" EVENT " u32 a"));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

TEST_HARNESS_MAIN
