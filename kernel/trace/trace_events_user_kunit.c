// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the user_events command parser and canonical matching.
 *
 * Included at the end of trace_events_user.c, so that the static parser
 * functions can be tested without creating events.
 */

#include <kunit/test.h>

struct user_type_case {
	const char	*args;
	u32		size;
	bool		is_signed;
	u32		len;
	const char	*print_fmt;
};

/* Every accepted type, as field "data", with its layout and print fmt */
static const struct user_type_case user_type_cases[] = {
	{ "s64 data", 8, true, 0, "\"data=%lld\", REC->data" },
	{ "u64 data", 8, false, 0, "\"data=%llu\", REC->data" },
	{ "s32 data", 4, true, 0, "\"data=%d\", REC->data" },
	{ "u32 data", 4, false, 0, "\"data=%u\", REC->data" },
	{ "int data", 4, true, 0, "\"data=%d\", REC->data" },
	{ "unsigned int data", 4, false, 0, "\"data=%u\", REC->data" },
	{ "s16 data", 2, true, 0, "\"data=%d\", REC->data" },
	{ "u16 data", 2, false, 0, "\"data=%u\", REC->data" },
	{ "short data", 2, true, 0, "\"data=%d\", REC->data" },
	{ "unsigned short data", 2, false, 0, "\"data=%u\", REC->data" },
	{ "s8 data", 1, true, 0, "\"data=%d\", REC->data" },
	{ "u8 data", 1, false, 0, "\"data=%u\", REC->data" },
	{ "char data", 1, true, 0, "\"data=%d\", REC->data" },
	{ "unsigned char data", 1, false, 0, "\"data=%u\", REC->data" },
	{ "char[4] data", 4, true, 4, "\"data=%s\", REC->data" },
	{ "char[20] data", 20, true, 20, "\"data=%s\", REC->data" },
	{ "char[0x14] data", 20, true, 20, "\"data=%s\", REC->data" },
	{ "unsigned char[20] data", 20, false, 20, "\"data=%s\", REC->data" },
	{ "char[1024] data", 1024, true, 1024, "\"data=%s\", REC->data" },
	{ "__data_loc char[] data", 4, true, 0,
	  "\"data=%s\", __get_str(data)" },
	{ "__data_loc unsigned char[] data", 4, true, 0,
	  "\"data=%s\", __get_str(data)" },
	{ "__rel_loc char[] data", 4, true, 0,
	  "\"data=%s\", __get_rel_str(data)" },
	{ "__rel_loc unsigned char[] data", 4, true, 0,
	  "\"data=%s\", __get_rel_str(data)" },
	{ "__data_loc u32[] data", 4, true, 0, "\"data=%llu\", REC->data" },
	{ "struct custom data 20", 20, true, 0, "\"data=%llu\", REC->data" },
};

static void user_type_case_desc(const struct user_type_case *c, char *desc)
{
	strscpy(desc, c->args, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(user_type, user_type_cases, user_type_case_desc);

static void user_parse_type_test(struct kunit *test)
{
	const struct user_type_case *c = test->param_value;
	struct user_fields desc;
	char *fmt;

	KUNIT_ASSERT_EQ(test, user_fields_parse(c->args, &desc, NULL), 0);
	KUNIT_ASSERT_EQ(test, desc.count, 1);
	KUNIT_EXPECT_STREQ(test, desc.fields[0].name, "data");
	KUNIT_EXPECT_EQ(test, desc.fields[0].offset,
			(u32)sizeof(struct trace_entry));
	KUNIT_EXPECT_EQ(test, desc.fields[0].size, c->size);
	KUNIT_EXPECT_EQ(test, desc.fields[0].is_signed, c->is_signed);
	KUNIT_EXPECT_EQ(test, desc.fields[0].len, c->len);
	KUNIT_EXPECT_EQ(test, desc.min_size, c->size);

	fmt = user_fields_sprint(&desc, user_fields_print_fmt);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_EXPECT_STREQ(test, fmt, c->print_fmt);

	kfree(fmt);
	user_fields_free(&desc);
}

struct user_reject_case {
	const char	*args;
	int		err;
};

/* Rejected field lists and their errno */
static const struct user_reject_case user_reject_cases[] = {
	{ "char[aa] data", -EINVAL },
	{ "char[9999] data", -EINVAL },
	{ "char[1025] data", -EINVAL },
	{ "char[0x0000000000001] data", -EINVAL },
	{ "char[] data", -EINVAL },
	{ "char[0] data", -EINVAL },
	{ "char[4 data", -EINVAL },
	{ "u32[4] data", -EINVAL },
	{ "long data", -EINVAL },
	{ "unsigned long data", -EINVAL },
	{ "bool data", -EINVAL },
	{ "char *data", -EINVAL },
	{ "u32", -EINVAL },
	{ "unsigned", -EINVAL },
	{ "u32 a b", -EINVAL },
	{ "char data 20", -EINVAL },
	{ "struct custom data", -EINVAL },
	{ "struct custom data 0", -EINVAL },
	{ "struct custom data 0x14", -EINVAL },
	{ "struct custom data 2147483648", -EINVAL },
	{ "struct custom data 4294967295", -EINVAL },
	{ "struct custom data 65536", -EINVAL },
	{ "struct custom a 40000; struct custom b 40000", -EINVAL },
	{ "struct custom data 20 x", -EINVAL },
	{ "u32 a; bogus b", -EINVAL },
};

static void user_reject_case_desc(const struct user_reject_case *c,
				  char *desc)
{
	strscpy(desc, c->args, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(user_reject, user_reject_cases, user_reject_case_desc);

static void user_parse_reject_test(struct kunit *test)
{
	const struct user_reject_case *c = test->param_value;
	struct user_fields desc;

	KUNIT_EXPECT_EQ(test, user_fields_parse(c->args, &desc, NULL), c->err);
	KUNIT_EXPECT_EQ(test, desc.count, 0);
	KUNIT_EXPECT_NULL(test, desc.fields);
}

/* D6: every spelling of the same two fields has one canonical form */
static const char * const user_space_cases[] = {
	"u32 a; u32 b",
	"u32 a;u32 b",
	"u32 a ;u32 b",
	"u32 a;\tu32 b",
	"u32 a; u32 b;",
	"  u32   a ;; u32\tb  ",
	"\tu32 a;u32 b;;",
};

static void user_space_case_desc(const char * const *c, char *desc)
{
	strscpy(desc, *c, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(user_space, user_space_cases, user_space_case_desc);

static void user_canon_space_test(struct kunit *test)
{
	const char * const *args = test->param_value;
	struct user_fields desc;
	char *canon;

	KUNIT_ASSERT_EQ(test, user_fields_parse(*args, &desc, NULL), 0);
	canon = user_fields_sprint(&desc, user_fields_canon);
	KUNIT_ASSERT_NOT_NULL(test, canon);
	KUNIT_EXPECT_STREQ(test, canon, "u32 a; u32 b");
	KUNIT_EXPECT_EQ(test, desc.fields[1].offset,
			(u32)sizeof(struct trace_entry) + 4);
	KUNIT_EXPECT_EQ(test, desc.min_size, 8U);

	kfree(canon);
	user_fields_free(&desc);
}

/* Spellings that must not match "u32 a; u32 b" */
static void user_canon_mismatch_test(struct kunit *test)
{
	static const char * const others[] = {
		"u32 b; u32 a", "u64 a; u64 b", "u32 a", "u32 a; u32 c",
		"unsigned int a; u32 b",
	};
	struct user_fields desc;
	char *canon;
	int i;

	for (i = 0; i < ARRAY_SIZE(others); i++) {
		KUNIT_ASSERT_EQ(test, user_fields_parse(others[i], &desc, NULL), 0);
		canon = user_fields_sprint(&desc, user_fields_canon);
		KUNIT_ASSERT_NOT_NULL(test, canon);
		KUNIT_EXPECT_STRNEQ(test, canon, "u32 a; u32 b");
		kfree(canon);
		user_fields_free(&desc);
	}
}

/* Struct sizes are part of the canonical form; char[N] keeps its text */
static void user_canon_struct_test(struct kunit *test)
{
	struct user_fields desc;
	char *canon;

	KUNIT_ASSERT_EQ(test, user_fields_parse("struct my_struct  a 20;",
						&desc, NULL), 0);
	canon = user_fields_sprint(&desc, user_fields_canon);
	KUNIT_ASSERT_NOT_NULL(test, canon);
	KUNIT_EXPECT_STREQ(test, canon, "struct my_struct a 20");
	kfree(canon);
	user_fields_free(&desc);

	KUNIT_ASSERT_EQ(test, user_fields_parse("char[0x14] s", &desc, NULL), 0);
	canon = user_fields_sprint(&desc, user_fields_canon);
	KUNIT_ASSERT_NOT_NULL(test, canon);
	KUNIT_EXPECT_STREQ(test, canon, "char[0x14] s");
	kfree(canon);
	user_fields_free(&desc);
}

/* Packed offsets, min_size and the print fmt of several fields */
static void user_layout_test(struct kunit *test)
{
	static const char *args =
		"u8 a; u64 b; __rel_loc char[] c; struct x d 3; short e";
	struct user_fields desc;
	char *fmt;

	KUNIT_ASSERT_EQ(test, user_fields_parse(args, &desc, NULL), 0);
	KUNIT_ASSERT_EQ(test, desc.count, 5);
	KUNIT_EXPECT_EQ(test, desc.fields[0].offset, 8U);
	KUNIT_EXPECT_EQ(test, desc.fields[1].offset, 9U);
	KUNIT_EXPECT_EQ(test, desc.fields[2].offset, 17U);
	KUNIT_EXPECT_EQ(test, desc.fields[3].offset, 21U);
	KUNIT_EXPECT_EQ(test, desc.fields[4].offset, 24U);
	KUNIT_EXPECT_EQ(test, desc.min_size, 18U);

	fmt = user_fields_sprint(&desc, user_fields_print_fmt);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_EXPECT_STREQ(test, fmt,
			   "\"a=%u b=%llu c=%s d=%llu e=%d\", REC->a, REC->b, __get_rel_str(c), REC->d, REC->e");
	kfree(fmt);
	user_fields_free(&desc);
}

/* No fields: empty print fmt, empty canonical form */
static void user_empty_test(struct kunit *test)
{
	static const char * const empties[] = { NULL, "", " ", ";", " ; ;" };
	struct user_fields desc;
	char *s;
	int i;

	for (i = 0; i < ARRAY_SIZE(empties); i++) {
		KUNIT_ASSERT_EQ(test, user_fields_parse(empties[i], &desc, NULL), 0);
		KUNIT_EXPECT_EQ(test, desc.count, 0);
		KUNIT_EXPECT_EQ(test, desc.min_size, 0U);

		s = user_fields_sprint(&desc, user_fields_print_fmt);
		KUNIT_ASSERT_NOT_NULL(test, s);
		KUNIT_EXPECT_STREQ(test, s, "\"\"");
		kfree(s);

		s = user_fields_sprint(&desc, user_fields_canon);
		KUNIT_ASSERT_NOT_NULL(test, s);
		KUNIT_EXPECT_STREQ(test, s, "");
		kfree(s);
		user_fields_free(&desc);
	}
}

/* D5: event names */
static void user_name_test(struct kunit *test)
{
	char long_name[MAX_EVENT_NAME + 2];

	KUNIT_EXPECT_EQ(test, user_event_name_check("__test_event", NULL), 0);
	KUNIT_EXPECT_EQ(test, user_event_name_check("a.b-c", NULL), 0);
	KUNIT_EXPECT_EQ(test, user_event_name_check("", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, user_event_name_check("a/b", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, user_event_name_check("a:b", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, user_event_name_check("a\tb", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, user_event_name_check("a\x01", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, user_event_name_check(".", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, user_event_name_check("..", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, user_event_name_check("...", NULL), 0);

	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	KUNIT_EXPECT_EQ(test, user_event_name_check(long_name, NULL), -EINVAL);
	long_name[MAX_EVENT_NAME] = '\0';
	KUNIT_EXPECT_EQ(test, user_event_name_check(long_name, NULL), 0);
}

/* dynamic_events hands over argv tokens */
static void user_argv_canon_test(struct kunit *test)
{
	static const char * const argv[] = { "u32", "a;", "u32", "b" };
	char *canon;

	canon = user_fields_argv_canon(ARRAY_SIZE(argv), argv);
	KUNIT_ASSERT_NOT_NULL(test, canon);
	KUNIT_EXPECT_STREQ(test, canon, "u32 a; u32 b");
	kfree(canon);

	KUNIT_EXPECT_NULL(test, user_fields_argv_canon(1, argv));
}

static struct kunit_case user_events_kunit_cases[] = {
	KUNIT_CASE_PARAM(user_parse_type_test, user_type_gen_params),
	KUNIT_CASE_PARAM(user_parse_reject_test, user_reject_gen_params),
	KUNIT_CASE_PARAM(user_canon_space_test, user_space_gen_params),
	KUNIT_CASE(user_canon_mismatch_test),
	KUNIT_CASE(user_canon_struct_test),
	KUNIT_CASE(user_layout_test),
	KUNIT_CASE(user_empty_test),
	KUNIT_CASE(user_name_test),
	KUNIT_CASE(user_argv_canon_test),
	{}
};

static struct kunit_suite user_events_kunit_suite = {
	.name = "user_events_kunit",
	.test_cases = user_events_kunit_cases,
};

kunit_test_suite(user_events_kunit_suite);
