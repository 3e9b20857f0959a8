// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of user_events: the command parser and its canonical form,
 * event names, and the decoded text output of a record.
 *
 * Included at the end of trace_events_user.c, so that its static
 * functions can be tested without creating events. Everything a case
 * allocates is a KUnit resource: a failed assertion leaks nothing.
 */

#include <kunit/resource.h>
#include <kunit/test.h>

/* ------------------------------------------------------------------ */
/* Test-managed allocations                                            */
/* ------------------------------------------------------------------ */

static int user_kunit_desc_init(struct kunit_resource *res, void *context)
{
	struct user_fields *desc = kzalloc(sizeof(*desc), GFP_KERNEL);

	res->data = desc;

	return desc ? 0 : -ENOMEM;
}

static void user_kunit_desc_free(struct kunit_resource *res)
{
	user_fields_free(res->data);
	kfree(res->data);
}

/* Parses @args into a field list freed when the case ends */
static struct user_fields *user_kunit_parse(struct kunit *test,
					    const char *args, int *ret)
{
	struct user_fields *desc;

	desc = kunit_alloc_resource(test, user_kunit_desc_init,
				    user_kunit_desc_free, GFP_KERNEL, NULL);
	KUNIT_ASSERT_NOT_NULL(test, desc);
	*ret = user_fields_parse(args, desc, NULL);

	return desc;
}

static int user_kunit_ptr_init(struct kunit_resource *res, void *context)
{
	res->data = context;

	return 0;
}

static void user_kunit_kfree(struct kunit_resource *res)
{
	kfree(res->data);
}

/* A string from user_fields_sprint(), freed when the case ends */
static const char *user_kunit_sprint(struct kunit *test,
				     const struct user_fields *desc,
				     int (*print)(const struct user_fields *,
						  char *, int))
{
	char *s = user_fields_sprint(desc, print);

	KUNIT_ASSERT_NOT_NULL(test, s);
	if (!kunit_alloc_resource(test, user_kunit_ptr_init, user_kunit_kfree,
				  GFP_KERNEL, s)) {
		kfree(s);
		KUNIT_ASSERT_FAILURE(test, "out of memory");
	}

	return s;
}

static void user_kunit_str_desc(const char * const *s, char *desc)
{
	strscpy(desc, *s, KUNIT_PARAM_DESC_SIZE);
}

/* ------------------------------------------------------------------ */
/* Suite user_events_parse: field lists                                */
/* ------------------------------------------------------------------ */

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
	{ "char[024] data", 20, true, 20, "\"data=%s\", REC->data" },
	{ "unsigned char[20] data", 20, false, 20, "\"data=%s\", REC->data" },
	{ "char[1] data", 1, true, 1, "\"data=%s\", REC->data" },
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
	{ "struct custom data 1", 1, true, 0, "\"data=%llu\", REC->data" },
};

static void user_type_case_desc(const struct user_type_case *c, char *desc)
{
	strscpy(desc, c->args, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(user_type, user_type_cases, user_type_case_desc);

static void user_field_parse_test(struct kunit *test)
{
	const struct user_type_case *c = test->param_value;
	struct user_fields *desc;
	int ret;

	desc = user_kunit_parse(test, c->args, &ret);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "\"%s\"", c->args);
	KUNIT_ASSERT_EQ(test, desc->count, 1);
	KUNIT_EXPECT_STREQ(test, desc->fields[0].name, "data");
	KUNIT_EXPECT_EQ(test, desc->fields[0].offset,
			(u32)sizeof(struct trace_entry));
	KUNIT_EXPECT_EQ(test, desc->fields[0].size, c->size);
	KUNIT_EXPECT_EQ(test, desc->fields[0].is_signed, c->is_signed);
	KUNIT_EXPECT_EQ(test, desc->fields[0].len, c->len);
	KUNIT_EXPECT_EQ(test, desc->min_size, c->size);
	KUNIT_EXPECT_STREQ(test, user_kunit_sprint(test, desc,
						   user_fields_print_fmt),
			   c->print_fmt);
}

/* Rejected field lists: all -EINVAL */
static const char * const user_reject_cases[] = {
	"char[aa] data",
	"char[9999] data",
	"char[1025] data",
	"char[0x0000000000001] data",
	"char[] data",
	"char[0] data",
	"char[4 data",
	"u32[4] data",
	"long data",
	"unsigned long data",
	"bool data",
	"char *data",
	"u32",
	"unsigned",
	"u32 a b",
	"u32 1a",
	"u32 a-b",
	"char data 20",
	"struct custom data",
	"struct custom data 0",
	"struct custom data 0x14",
	"struct custom data -1",
	"struct custom data 2147483648",
	"struct custom data 4294967295",
	"struct custom data 4294967296",
	"struct custom data 65536",
	"struct custom a 40000; struct custom b 40000",
	"struct custom data 20 x",
	"u32 a; bogus b",
	"__data_loc a",
};

KUNIT_ARRAY_PARAM(user_reject, user_reject_cases, user_kunit_str_desc);

static void user_field_reject_test(struct kunit *test)
{
	const char * const *args = test->param_value;
	struct user_fields *desc;
	int ret;

	desc = user_kunit_parse(test, *args, &ret);
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "\"%s\"", *args);
	KUNIT_EXPECT_EQ(test, desc->count, 0);
	KUNIT_EXPECT_NULL(test, desc->fields);
}

/* Where and why a field list is refused: error_log's caret and text */
struct user_err_case {
	const char *args;
	u8 type;
	u16 pos;
};

static const struct user_err_case user_err_cases[] = {
	{ "u32 a; unsigned int b c d", USER_EVENT_ERR_FIELD_WORDS, 24 },
	{ "u32\ta;;\tunsigned  int b\tc d e", USER_EVENT_ERR_FIELD_WORDS, 26 },
	{ " ;u32 a b", USER_EVENT_ERR_FIELD_SIZE, 8 },
	{ "u32 a;\tbogus b", USER_EVENT_ERR_FIELD_TYPE, 7 },
	{ "u32 a ; u32", USER_EVENT_ERR_FIELD_NO_NAME, 8 },
	{ "u32 a;u32 1a", USER_EVENT_ERR_FIELD_NAME, 10 },
	{ "char[0] s", USER_EVENT_ERR_ARRAY_SIZE, 0 },
	{ "u32 a; struct x b 0", USER_EVENT_ERR_STRUCT_SIZE, 18 },
	{ "struct x b 0 1", USER_EVENT_ERR_FIELD_WORDS, 13 },
	{ "u32 a b c d e;", USER_EVENT_ERR_FIELD_WORDS, 10 },
	{ "\t u32 a b c d", USER_EVENT_ERR_FIELD_WORDS, 12 },
	{ "__data_loc unsigned char[] s x", USER_EVENT_ERR_FIELD_WORDS, 29 },
	{ "u32 a;unsigned", USER_EVENT_ERR_FIELD_TYPE, 6 },
	{ ";; ;\tu32", USER_EVENT_ERR_FIELD_NO_NAME, 5 },
	{ "struct x b", USER_EVENT_ERR_STRUCT_SIZE, 9 },
	{ "__data_loc char[] s 1", USER_EVENT_ERR_FIELD_SIZE, 20 },
};

static void user_err_case_desc(const struct user_err_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->args);
}

KUNIT_ARRAY_PARAM(user_err, user_err_cases, user_err_case_desc);

static void user_field_err_test(struct kunit *test)
{
	const struct user_err_case *c = test->param_value;
	struct user_event_err err = {};
	struct user_fields desc;
	int ret;

	ret = user_fields_parse(c->args, &desc, &err);
	user_fields_free(&desc);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, err.type, c->type);
	KUNIT_EXPECT_EQ(test, err.pos, c->pos);
}

/*
 * The largest static size an event may have: the largest payload any
 * tracer of this kernel records. ftrace keeps a record (the common
 * header, 8 bytes on most kernels and 12 on PREEMPT_RT, and the payload)
 * in one ring buffer page, less 40 bytes of page and event headers;
 * perf's raw sample, ALIGN(header + payload + 4, 8) - 4 bytes, must fit
 * PERF_MAX_TRACE_SIZE. Location words keep 16-bit offsets: 65535 at
 * most.
 */
static u32 user_kunit_static_max(void)
{
	u32 hdr = sizeof(struct trace_entry);
	u32 most = PAGE_SIZE - 40 - hdr;

	if (IS_ENABLED(CONFIG_PERF_EVENTS))
		most = max_t(u32, most, PERF_MAX_TRACE_SIZE - 4 - hdr);

	return min_t(u32, most, 65535);
}

struct user_static_case {
	const char	*fmt;		/* fields, %u: the bound + @delta */
	int		delta;
	u32		fixed;		/* size of the other fields */
	int		err;
};

static const struct user_static_case user_static_cases[] = {
	{ "struct x a %u", 0, 0, 0 },
	{ "struct x a %u", 1, 0, -EINVAL },
	{ "u32 a; __data_loc char[] b; struct x c %u", -8, 8, 0 },
	{ "u32 a; __data_loc char[] b; struct x c %u", -7, 8, -EINVAL },
	{ "char[1024] a; struct x b %u", -1024, 1024, 0 },
	{ "char[1024] a; struct x b %u", -1023, 1024, -EINVAL },
	{ "struct x b %u; u8 c", -1, 1, 0 },
	{ "struct x b %u; u8 c", 0, 1, -EINVAL },
};

static void user_static_case_desc(const struct user_static_case *c,
				  char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, c->fmt,
		 user_kunit_static_max() + c->delta);
}

KUNIT_ARRAY_PARAM(user_static, user_static_cases, user_static_case_desc);

static void user_fields_static_size_test(struct kunit *test)
{
	const struct user_static_case *c = test->param_value;
	struct user_fields *desc;
	char args[KUNIT_PARAM_DESC_SIZE];
	int ret;

	user_static_case_desc(c, args);
	desc = user_kunit_parse(test, args, &ret);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->err, "\"%s\" (bound %u)", args,
			    user_kunit_static_max());
	if (!ret)
		KUNIT_EXPECT_EQ(test, desc->min_size,
				user_kunit_static_max() + c->delta + c->fixed);
}

/* Every spelling of the same two fields has one canonical form */
static const char * const user_space_cases[] = {
	"u32 a; u32 b",
	"u32 a;u32 b",
	"u32 a ;u32 b",
	"u32 a;\tu32 b",
	"u32 a; u32 b;",
	"  u32   a ;; u32\tb  ",
	"\tu32 a;u32 b;;",
};

KUNIT_ARRAY_PARAM(user_space, user_space_cases, user_kunit_str_desc);

static void user_canon_space_test(struct kunit *test)
{
	const char * const *args = test->param_value;
	struct user_fields *desc, *ref;
	int ret;

	ref = user_kunit_parse(test, "u32 a; u32 b", &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	desc = user_kunit_parse(test, *args, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_STREQ(test, user_kunit_sprint(test, desc,
						   user_fields_canon),
			   "u32 a; u32 b");
	KUNIT_EXPECT_TRUE(test, user_fields_equal(desc, ref));
	KUNIT_ASSERT_EQ(test, desc->count, 2);
	KUNIT_EXPECT_EQ(test, desc->fields[1].offset,
			(u32)sizeof(struct trace_entry) + 4);
	KUNIT_EXPECT_EQ(test, desc->min_size, 8U);
}

/* Field lists that must not match "u32 a; u32 b" */
static const char * const user_mismatch_cases[] = {
	"u32 b; u32 a",
	"u64 a; u64 b",
	"u32 a",
	"u32 a; u32 c",
	"unsigned int a; u32 b",
	"u32 a; u32 b; u32 c",
	"s32 a; u32 b",
	"",
};

KUNIT_ARRAY_PARAM(user_mismatch, user_mismatch_cases, user_kunit_str_desc);

static void user_canon_mismatch_test(struct kunit *test)
{
	const char * const *args = test->param_value;
	struct user_fields *desc, *ref;
	int ret;

	ref = user_kunit_parse(test, "u32 a; u32 b", &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	desc = user_kunit_parse(test, *args, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_STRNEQ(test, user_kunit_sprint(test, desc,
						    user_fields_canon),
			    "u32 a; u32 b");
	KUNIT_EXPECT_FALSE(test, user_fields_equal(desc, ref));
	KUNIT_EXPECT_FALSE(test, user_fields_equal(ref, desc));
}

/**
 * struct user_canon_case - A field list and its canonical form
 * @args: The list as given
 * @canon: Its canonical form
 * @other: A list that differs from it in one type, name or size
 */
struct user_canon_case {
	const char	*args;
	const char	*canon;
	const char	*other;
};

/* Struct sizes belong to the canonical form; char[N] keeps its text */
static const struct user_canon_case user_canon_cases[] = {
	{ "struct my_struct  a 20;", "struct my_struct a 20",
	  "struct my_struct a 21" },
	{ "struct my_struct a +20", "struct my_struct a 20",
	  "struct other a 20" },
	{ "char[0x14] s", "char[0x14] s", "char[20] s" },
	{ "unsigned  char[8]  s", "unsigned char[8] s", "char[8] s" },
	{ "__data_loc  unsigned\tchar[] s", "__data_loc unsigned char[] s",
	  "__rel_loc unsigned char[] s" },
	{ "__rel_loc char[] r;u8 x", "__rel_loc char[] r; u8 x",
	  "__rel_loc char[] r; u8 y" },
};

static void user_canon_case_desc(const struct user_canon_case *c,
				 char *desc)
{
	strscpy(desc, c->args, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(user_canon, user_canon_cases, user_canon_case_desc);

/*
 * A lookup compares parsed lists: they match exactly when the canonical
 * forms do, and a list matches its own canonical form
 */
static void user_canon_form_test(struct kunit *test)
{
	const struct user_canon_case *c = test->param_value;
	struct user_fields *desc, *canon, *other;
	int ret;

	desc = user_kunit_parse(test, c->args, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_STREQ(test, user_kunit_sprint(test, desc,
						   user_fields_canon),
			   c->canon);

	canon = user_kunit_parse(test, c->canon, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, user_fields_equal(desc, canon));

	other = user_kunit_parse(test, c->other, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, user_fields_equal(desc, other));
}

/* Packed offsets, min_size and the print fmt of several fields */
static void user_layout_test(struct kunit *test)
{
	static const char *args =
		"u8 a; u64 b; __rel_loc char[] c; struct x d 3; short e";
	struct user_fields *desc;
	int ret;

	desc = user_kunit_parse(test, args, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, desc->count, 5);
	KUNIT_EXPECT_EQ(test, desc->fields[0].offset, 8U);
	KUNIT_EXPECT_EQ(test, desc->fields[1].offset, 9U);
	KUNIT_EXPECT_EQ(test, desc->fields[2].offset, 17U);
	KUNIT_EXPECT_EQ(test, desc->fields[3].offset, 21U);
	KUNIT_EXPECT_EQ(test, desc->fields[4].offset, 24U);
	KUNIT_EXPECT_EQ(test, desc->min_size, 18U);
	KUNIT_EXPECT_STREQ(test, user_kunit_sprint(test, desc,
						   user_fields_print_fmt),
			   "\"a=%u b=%llu c=%s d=%llu e=%d\", REC->a, REC->b, __get_rel_str(c), REC->d, REC->e");
}

/* No fields: empty print fmt, empty canonical form */
static const char * const user_empty_cases[] = {
	"", " ", ";", " ; ;", "\t;\t",
};

KUNIT_ARRAY_PARAM(user_empty, user_empty_cases, user_kunit_str_desc);

static void user_fields_empty_test(struct kunit *test)
{
	const char * const *args = test->param_value;
	struct user_fields *desc;
	int ret;

	desc = user_kunit_parse(test, *args, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, desc->count, 0);
	KUNIT_EXPECT_EQ(test, desc->min_size, 0U);
	KUNIT_EXPECT_STREQ(test, user_kunit_sprint(test, desc,
						   user_fields_print_fmt),
			   "\"\"");
	KUNIT_EXPECT_STREQ(test, user_kunit_sprint(test, desc,
						   user_fields_canon), "");
}

/* Empty fields take no room in the list an event keeps */
static void user_fields_sized_test(struct kunit *test)
{
	struct user_fields *desc;
	char *args;
	size_t len;
	int ret;

	args = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, args);
	memset(args, ';', 200);
	strcpy(args + 200, "u32 a; ;");
	len = strlen(args) + 1;

	desc = user_kunit_parse(test, args, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, desc->count, 1);
	KUNIT_EXPECT_STREQ(test, desc->fields[0].name, "a");
	KUNIT_EXPECT_LE(test, ksize(desc->fields),
			kmalloc_size_roundup(sizeof(*desc->fields) + 2 * len));
}

static void user_fields_null_test(struct kunit *test)
{
	struct user_fields *desc;
	int ret;

	desc = user_kunit_parse(test, NULL, &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, desc->count, 0);
}

/* dynamic_events hands over argv tokens */
static void user_argv_canon_test(struct kunit *test)
{
	static const char * const argv[] = { "u32", "a;", "u32", "b" };
	char *canon;

	canon = user_fields_argv_canon(ARRAY_SIZE(argv), argv);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, canon);
	if (!kunit_alloc_resource(test, user_kunit_ptr_init, user_kunit_kfree,
				  GFP_KERNEL, canon)) {
		kfree(canon);
		KUNIT_ASSERT_FAILURE(test, "out of memory");
	}
	KUNIT_EXPECT_STREQ(test, canon, "u32 a; u32 b");

	/* "u32" alone is not a field: the parse error, nothing allocated */
	KUNIT_EXPECT_PTR_EQ(test, user_fields_argv_canon(1, argv),
			    ERR_PTR(-EINVAL));
}

static struct kunit_case user_events_parse_cases[] = {
	KUNIT_CASE_PARAM(user_field_parse_test, user_type_gen_params),
	KUNIT_CASE_PARAM(user_field_reject_test, user_reject_gen_params),
	KUNIT_CASE_PARAM(user_field_err_test, user_err_gen_params),
	KUNIT_CASE_PARAM(user_fields_static_size_test,
			 user_static_gen_params),
	KUNIT_CASE_PARAM(user_canon_space_test, user_space_gen_params),
	KUNIT_CASE_PARAM(user_canon_mismatch_test, user_mismatch_gen_params),
	KUNIT_CASE_PARAM(user_canon_form_test, user_canon_gen_params),
	KUNIT_CASE(user_layout_test),
	KUNIT_CASE_PARAM(user_fields_empty_test, user_empty_gen_params),
	KUNIT_CASE(user_fields_sized_test),
	KUNIT_CASE(user_fields_null_test),
	KUNIT_CASE(user_argv_canon_test),
	{}
};

static struct kunit_suite user_events_parse_suite = {
	.name = "user_events_parse",
	.test_cases = user_events_parse_cases,
};

/* ------------------------------------------------------------------ */
/* Suite user_events_name: event names                                 */
/* ------------------------------------------------------------------ */

struct user_name_case {
	const char	*name;
	const char	*what;
	int		err;
};

static const struct user_name_case user_name_cases[] = {
	{ "__test_event", "identifier", 0 },
	{ "a.b-c", "dot and dash", 0 },
	{ "...", "three dots", 0 },
	{ "enable_x", "enable_x", 0 },
	{ "", "empty", -EINVAL },
	{ ".", "dot", -EINVAL },
	{ "..", "dot dot", -EINVAL },
	{ "a/b", "slash", -EINVAL },
	{ "a:b", "colon", -EINVAL },
	{ "a b", "space", -EINVAL },
	{ "a\tb", "tab", -EINVAL },
	{ "a\nb", "newline", -EINVAL },
	{ "a\rb", "carriage return", -EINVAL },
	{ "a\vb", "vertical tab", -EINVAL },
	{ "a\fb", "form feed", -EINVAL },
	{ "a\x7f", "DEL", -EINVAL },
	{ "a\x01", "control character", -EINVAL },
	{ "enable", "system file enable", -EINVAL },
	{ "filter", "system file filter", -EINVAL },
};

static void user_name_case_desc(const struct user_name_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(user_name, user_name_cases, user_name_case_desc);

static void user_event_name_test(struct kunit *test)
{
	const struct user_name_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, user_event_name_check(c->name, NULL), c->err,
			    "name of %zu bytes, %s", strlen(c->name), c->what);
}

/* 255 bytes fit a tracefs directory name, 256 do not */
static void user_event_name_length_test(struct kunit *test)
{
	char *name = kunit_kzalloc(test, MAX_EVENT_NAME + 2, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, name);
	memset(name, 'a', MAX_EVENT_NAME + 1);
	KUNIT_EXPECT_EQ(test, user_event_name_check(name, NULL), -EINVAL);
	name[MAX_EVENT_NAME] = '\0';
	KUNIT_EXPECT_EQ(test, user_event_name_check(name, NULL), 0);
}

static struct kunit_case user_events_name_cases[] = {
	KUNIT_CASE_PARAM(user_event_name_test, user_name_gen_params),
	KUNIT_CASE(user_event_name_length_test),
	{}
};

static struct kunit_suite user_events_name_suite = {
	.name = "user_events_name",
	.test_cases = user_events_name_cases,
};

/* ------------------------------------------------------------------ */
/* Suite user_events_print: decoded text output of a record            */
/* ------------------------------------------------------------------ */

struct user_print_case {
	const char	*what;
	const char	*args;
	const void	*payload;
	u32		len;
	const char	*line;
	const char	*nosize;	/* without the record's size, if other */
};

/* Records in the writer's byte order, as user space writes them */
static const struct {
	u32	a;
	s16	b;
	char	s[8];
	s64	c;
} __packed user_print_numbers = { 5, -3, "hello", -1 };

/* A location word: the data's length in the high 16 bits */
#define USER_KUNIT_LOC(off, len)	((u32)(len) << 16 | (off))

static const struct {
	u32	d;	/* __data_loc: offset from the record's start */
	u32	r;	/* __rel_loc: offset from the end of its word */
	char	data[9];
} __packed user_print_strings = {
	USER_KUNIT_LOC(sizeof(struct trace_entry) + 8, 6),
	USER_KUNIT_LOC(6, 3), "world\0hi",
};

static const struct {
	u8	blob[3];
	u64	n;
} __packed user_print_struct = { { 0x01, 0x2a, 0xff }, 7 };

/* Locations that end one byte beyond the record, and one that fits */
static const struct {
	u32	d;
	u32	r;
	u32	ok;
	char	data[4];
} __packed user_print_outside = {
	USER_KUNIT_LOC(sizeof(struct trace_entry) + 12, 5),
	USER_KUNIT_LOC(4, 5),
	USER_KUNIT_LOC(sizeof(struct trace_entry) + 12, 4), "abc",
};

static const struct user_print_case user_print_cases[] = {
	{ "numbers and char[N]", "u32 a; s16 b; char[8] s; s64 c",
	  &user_print_numbers, sizeof(user_print_numbers),
	  "kunit_event: a=5 b=-3 s=hello c=-1\n" },
	{ "__data_loc and __rel_loc strings",
	  "__data_loc char[] d; __rel_loc char[] r",
	  &user_print_strings, sizeof(user_print_strings),
	  "kunit_event: d=world r=hi\n",
	  "kunit_event: d=<bad> r=<bad>\n" },
	{ "struct as hex", "struct x blob 3; u64 n",
	  &user_print_struct, sizeof(user_print_struct),
	  "kunit_event: blob=012aff n=7\n" },
	{ "locations beyond the record",
	  "__data_loc char[] d; __rel_loc char[] r; __data_loc char[] ok",
	  &user_print_outside, sizeof(user_print_outside),
	  "kunit_event: d=<bad> r=<bad> ok=abc\n",
	  "kunit_event: d=<bad> r=<bad> ok=<bad>\n" },
};

static void user_print_case_desc(const struct user_print_case *c,
				 char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(user_print, user_print_cases, user_print_case_desc);

/*
 * Print the record of @c through the event's trace() output function,
 * with an iterator whose ent_size is @ent_size: the record size as the
 * trace file and tp_printk give it, or 0 for none.
 */
static const char *user_kunit_print(struct kunit *test,
				    const struct user_print_case *c,
				    int ent_size)
{
	static const char name[] = "kunit_event";
	struct trace_iterator *iter;
	struct user_event_fmt *fmt;
	struct user_fields *desc;
	u8 *rec;
	char *line;
	int ret;

	desc = user_kunit_parse(test, c->args, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_LE(test, desc->min_size, c->len);

	fmt = kunit_kzalloc(test, struct_size(fmt, name, sizeof(name)), GFP_KERNEL);
	iter = kunit_kzalloc(test, sizeof(*iter), GFP_KERNEL);
	rec = kunit_kzalloc(test, sizeof(struct trace_entry) + c->len,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_ASSERT_NOT_NULL(test, iter);
	KUNIT_ASSERT_NOT_NULL(test, rec);

	/* Borrowed: the resource of desc frees the fields */
	fmt->desc = *desc;
	memcpy(fmt->name, name, sizeof(name));
	memcpy(rec + sizeof(struct trace_entry), c->payload, c->len);

	trace_seq_init(&iter->seq);
	iter->ent = (struct trace_entry *)rec;
	iter->ent_size = ent_size;
	KUNIT_EXPECT_EQ(test, user_event_print_trace(iter, 0, &fmt->call.event),
			TRACE_TYPE_HANDLED);

	line = kunit_kzalloc(test, trace_seq_used(&iter->seq) + 1,
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);
	memcpy(line, iter->seq.buffer, trace_seq_used(&iter->seq));

	return line;
}

static void user_event_print_test(struct kunit *test)
{
	const struct user_print_case *c = test->param_value;
	int size = sizeof(struct trace_entry) + c->len;

	KUNIT_EXPECT_STREQ_MSG(test, user_kunit_print(test, c, size), c->line,
			       "%s, record size given", c->what);
}

/*
 * Without the record's size (ent_size 0) only the static fields are
 * known to be there: data behind them is not read.
 */
static void user_event_print_nosize_test(struct kunit *test)
{
	const struct user_print_case *c = test->param_value;

	KUNIT_EXPECT_STREQ_MSG(test, user_kunit_print(test, c, 0),
			       c->nosize ?: c->line, "%s, ent_size 0",
			       c->what);
}

static struct kunit_case user_events_print_cases[] = {
	KUNIT_CASE_PARAM(user_event_print_test, user_print_gen_params),
	KUNIT_CASE_PARAM(user_event_print_nosize_test, user_print_gen_params),
	{}
};

static struct kunit_suite user_events_print_suite = {
	.name = "user_events_print",
	.test_cases = user_events_print_cases,
};

/* ------------------------------------------------------------------ */
/* Suite user_events_ids: the core reuses the type ids of removed events */
/* ------------------------------------------------------------------ */

static enum print_line_t user_kunit_print_nothing(struct trace_iterator *iter,
						  int flags,
						  struct trace_event *event)
{
	return TRACE_TYPE_HANDLED;
}

static struct trace_event_functions user_kunit_ids_funcs = {
	.trace = user_kunit_print_nothing,
};

/*
 * Type ids are handed out in order until the 16-bit space is used up;
 * from then on, the lowest free one goes to the next event. That is why
 * a removed event keeps its type id while buffers hold its records: the
 * next event would decode them. The test registers and removes an event
 * until its id comes back, and so leaves the id space wrapped: every
 * event created in the rest of this boot (the kselftests' among them)
 * reuses an id.
 */
static void user_event_ids_wrap_test(struct kunit *test)
{
	struct trace_event ev = { .funcs = &user_kunit_ids_funcs };
	int type, first, last = 0, n;

	for (n = 0; n <= TRACE_EVENT_TYPE_MAX; n++) {
		ev.type = 0;
		type = register_trace_event(&ev);
		KUNIT_ASSERT_NE_MSG(test, type, 0, "no free type id");
		unregister_trace_event(&ev);
		if (type <= last)
			break;
		last = type;
	}
	KUNIT_ASSERT_LE_MSG(test, type, last, "type ids did not wrap");

	/* Now the id of an event that is removed is the next one's */
	first = type;
	ev.type = 0;
	type = register_trace_event(&ev);
	unregister_trace_event(&ev);
	KUNIT_EXPECT_EQ(test, type, first);
}

static struct kunit_case user_events_ids_cases[] = {
	KUNIT_CASE(user_event_ids_wrap_test),
	{}
};

static struct kunit_suite user_events_ids_suite = {
	.name = "user_events_ids",
	.test_cases = user_events_ids_cases,
};

kunit_test_suites(&user_events_parse_suite, &user_events_name_suite,
		  &user_events_print_suite, &user_events_ids_suite);
