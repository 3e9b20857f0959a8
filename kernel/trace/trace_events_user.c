// SPDX-License-Identifier: GPL-2.0-only
/*
 * User-space trace events (user_events).
 *
 * A process describes an event with a command "name field;field..." and
 * registers it with DIAG_IOCSREG on tracefs user_events_data, together
 * with a user address and a bit number. The event becomes a dynamic trace
 * event under events/user_events/ (or events/user_events_multi/ for
 * multi-format events). While a tracer (ftrace, perf) is attached, the
 * kernel keeps the bit set in the memory of every process that registered
 * it, so that the process emits the event, with write() on the same file,
 * only when somebody listens.
 *
 * Enable bits belong to a process (its mm): every thread shares them,
 * fork() copies them, execve() and the exit of the process drop them.
 *
 * Locking, outermost first:
 *   group->reg_mutex: the three ioctls, fd release, dynamic_events
 *     creation and the status file; protects the per-fd index arrays and
 *     the multi-format id.
 *   event_mutex: the event hash, event status, refcount transitions to
 *     and from the pending-delete list, creation and removal of events,
 *     and the enabler lists (writers). The tracing core already holds it
 *     when it calls class->reg and the dyn_event callbacks.
 *   mmap_lock (read): around every bit write and fault-in.
 *   user_event_mms_lock (spinlock): the global list of user_event_mm.
 * RCU protects the enabler and user_event_mm lists for the lockless
 * readers (fork, fan-out collection); RCU-sched protects the per-fd index
 * array and the tracepoint probes on the write path. Enablers and
 * user_event_mm objects are freed, and their event references dropped,
 * only after a grace period.
 */

#include <linux/bitmap.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/hashtable.h>
#include <linux/highmem.h>
#include <linux/ioctl.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sysctl.h>
#include <linux/tracefs.h>
#include <linux/tracepoint.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/user_events.h>
#include <linux/workqueue.h>

#include <asm/unaligned.h>

#include "trace.h"
#include "trace_dynevent.h"
#include "trace_output.h"

/* ------------------------------------------------------------------ */
/* Types and limits                                                    */
/* ------------------------------------------------------------------ */

#define USER_EVENTS_HASH_BITS		8
#define MAX_EVENT_DESC			512
#define MAX_EVENT_NAME			255
#define MAX_STATIC_STRING		1024
#define MAX_STATIC_SIZE			65535
#define MAX_FIELD_TOKENS		4
#define MAX_FAULT_ATTEMPTS		10

/* Status bits of an event, recomputed from the tracepoint's probes */
#define EVENT_STATUS_FTRACE		BIT(0)
#define EVENT_STATUS_PERF		BIT(1)
#define EVENT_STATUS_OTHER		BIT(7)

/*
 * A record must fit one ring buffer sub-buffer (a page in 6.1): the page
 * header (16 bytes), the reserve margin (8), the event header with its
 * length word (8) and an absolute time stamp (8) come out of it.
 */
#define USER_EVENT_FTRACE_MAX_RECORD	(PAGE_SIZE - 40)

/* The 32-bit encodings of the ioctls (the number encodes a pointer) */
#define COMPAT_DIAG_IOCSREG	_IOWR(DIAG_IOC_MAGIC, 0, compat_uptr_t)
#define COMPAT_DIAG_IOCSDEL	_IOW(DIAG_IOC_MAGIC, 1, compat_uptr_t)
#define COMPAT_DIAG_IOCSUNREG	_IOW(DIAG_IOC_MAGIC, 2, compat_uptr_t)

/**
 * struct user_event_group - The events of one tracing namespace
 * @system_name: System of single-format events
 * @system_multi_name: System of multi-format events
 * @reg_mutex: Serialises registrations, see the lock order above
 * @register_table: Events hashed by their register name (event_mutex)
 * @multi_id: Next id of a multi-format event (reg_mutex)
 *
 * Only the init group exists; the structure keeps the door open for
 * namespaces.
 */
struct user_event_group {
	const char		*system_name;
	const char		*system_multi_name;
	struct mutex		reg_mutex;	/* see the lock order above */
	DECLARE_HASHTABLE(register_table, USER_EVENTS_HASH_BITS);
	u64			multi_id;
};

enum user_field_kind {
	USER_FIELD_PLAIN,
	USER_FIELD_STRING,	/* char[N], unsigned char[N] */
	USER_FIELD_DATA_LOC,	/* offset from the start of the record */
	USER_FIELD_REL_LOC,	/* offset from the end of the location word */
	USER_FIELD_STRUCT,	/* struct X name SIZE: opaque bytes */
};

/**
 * struct user_field - One parsed field of a command
 * @type: Type in canonical spelling (single spaces)
 * @name: Field name
 * @fmt: printf conversion of the print fmt
 * @offset: Offset in the record, including the common header
 * @size: Size in the record (4 for __data_loc and __rel_loc)
 * @len: Array length of char[N], 0 otherwise
 * @kind: One of enum user_field_kind
 * @is_signed: Signedness reported in the format file
 * @is_char: The type mentions char (strings are NUL checked and printed)
 */
struct user_field {
	char		*type;
	char		*name;
	const char	*fmt;
	u32		offset;
	u32		size;
	u32		len;
	u8		kind;
	bool		is_signed;
	bool		is_char;
};

/**
 * struct user_fields - Parsed field list of a command
 * @buf: Tokenised copy of the arguments, @fields[].name point into it
 * @fields: The fields in declaration order
 * @count: Number of fields
 * @min_size: Sum of the static sizes: the smallest valid payload
 */
struct user_fields {
	char			*buf;
	struct user_field	*fields;
	int			count;
	u32			min_size;
};

/**
 * struct user_event_validator - Check of a dynamic location on write
 * @offset: Offset of the location word in the record
 * @kind: USER_FIELD_DATA_LOC or USER_FIELD_REL_LOC
 * @nul: The data must end with a NUL byte
 */
struct user_event_validator {
	u32	offset;
	u8	kind;
	bool	nul;
};

/**
 * struct user_event - One user event
 * @group: Group the event belongs to
 * @reg_name: The name given at registration
 * @args: Canonical field list, "" when there are no fields
 * @desc: Parsed fields
 * @validators: Checks of the dynamic locations, in field order
 * @nr_validators: Number of @validators
 * @tp: The tracepoint; its name is @reg_name or "name.id"
 * @call: The trace event
 * @class: Class of @call, owned by this event alone
 * @devent: Entry of the dynamic_events list
 * @node: Entry of the group hash
 * @fields: ftrace fields of @call, newest first as the core expects
 * @pending_link: Entry of the pending-delete list
 * @refcnt: References: fds, enablers, tracers, lookups, PERSIST self
 * @min_size: Smallest valid payload of a write
 * @reg_flags: USER_EVENT_REG_* given at creation
 * @status: EVENT_STATUS_* bits
 */
struct user_event {
	struct user_event_group		*group;
	char				*reg_name;
	char				*args;
	struct user_fields		desc;
	struct user_event_validator	*validators;
	int				nr_validators;
	struct tracepoint		tp;
	struct trace_event_call		call;
	struct trace_event_class	class;
	struct dyn_event		devent;
	struct hlist_node		node;
	struct list_head		fields;
	struct list_head		pending_link;
	refcount_t			refcnt;
	u32				min_size;
	u16				reg_flags;
	u8				status;
};

/*
 * Enabler values: the bit number in bits 0-5, then flags. Only the bit
 * number and COMPAT survive a fork.
 */
#define ENABLE_VAL_BIT_MASK		0x3fUL
#define ENABLE_VAL_FAULTING_BIT		6
#define ENABLE_VAL_FREEING_BIT		7
#define ENABLE_VAL_COMPAT_BIT		8
#define ENABLE_VAL_DUP_MASK		(ENABLE_VAL_BIT_MASK | \
					 BIT(ENABLE_VAL_COMPAT_BIT))

/**
 * struct user_event_enabler - A bit kept up to date in a process
 * @mm_link: Entry of user_event_mm.enablers
 * @hash_link: Entry of user_event_enabler_table, by process, address and bit
 * @uem: Process of this enabler
 * @event: Event whose state the bit reflects (holds a reference)
 * @addr: User address given at registration
 * @values: Bit number and ENABLE_VAL_* flags
 * @free_work: Drops @event and frees this after a grace period
 */
struct user_event_enabler {
	struct list_head		mm_link;
	struct hlist_node		hash_link;
	struct user_event_mm		*uem;
	struct user_event		*event;
	unsigned long			addr;
	unsigned long			values;
	struct rcu_work			free_work;
};

/**
 * struct user_event_enabler_fault - Deferred fault-in of an enable bit
 * @work: The work item
 * @uem: Process of the enabler; its mm is referenced with mmget()
 * @enabler: Enabler to rewrite, kept alive by ENABLE_VAL_FAULTING_BIT
 * @attempt: Number of fault-ins done for this write
 */
struct user_event_enabler_fault {
	struct work_struct		work;
	struct user_event_mm		*uem;
	struct user_event_enabler	*enabler;
	int				attempt;
};

/**
 * struct user_event_refs - Per-fd array of registered events
 * @rcu: Frees a replaced array after a grace period
 * @count: Used slots, published with release semantics
 * @capacity: Allocated slots
 * @events: Events by write index, each holding a reference
 */
struct user_event_refs {
	struct rcu_head		rcu;
	u32			count;
	u32			capacity;
	struct user_event	*events[];
};

/**
 * struct user_event_file_info - Private data of a user_events_data fd
 * @group: Group of the fd
 * @refs: Registered events, NULL before the first registration
 */
struct user_event_file_info {
	struct user_event_group		*group;
	struct user_event_refs __rcu	*refs;
};

/* The type table: every plain type the command accepts */
struct user_field_type {
	const char	*type;
	u8		size;
	bool		is_signed;
	const char	*fmt;
};

static const struct user_field_type user_field_types[] = {
	{ "s64",		8, true,  "%lld" },
	{ "u64",		8, false, "%llu" },
	{ "s32",		4, true,  "%d" },
	{ "u32",		4, false, "%u" },
	{ "int",		4, true,  "%d" },
	{ "unsigned int",	4, false, "%u" },
	{ "s16",		2, true,  "%d" },
	{ "u16",		2, false, "%u" },
	{ "short",		2, true,  "%d" },
	{ "unsigned short",	2, false, "%u" },
	{ "s8",			1, true,  "%d" },
	{ "u8",			1, false, "%u" },
	{ "char",		1, true,  "%d" },
	{ "unsigned char",	1, false, "%u" },
};

static struct user_event_group init_group = {
	.system_name		= USER_EVENTS_SYSTEM,
	.system_multi_name	= USER_EVENTS_MULTI_SYSTEM,
	.reg_mutex		= __MUTEX_INITIALIZER(init_group.reg_mutex),
};

/* Number of events and its limit, both under event_mutex */
static unsigned int current_user_events;
static unsigned int max_user_events = 32768;

/* Unreferenced non-persistent events waiting for destruction */
static LIST_HEAD(user_event_pending);
static void user_event_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(user_event_reap_work, user_event_reap);

/* Every user_event_mm with enablers, for the tracer fan-out */
static LIST_HEAD(user_event_mms);
static DEFINE_SPINLOCK(user_event_mms_lock);

/*
 * Every linked enabler by process, address and bit: the duplicate check
 * of a registration must not walk a list of thousands of enablers.
 * RCU for readers, the spinlock for writers.
 */
#define USER_EVENT_ENABLER_HASH_BITS 12
static DEFINE_HASHTABLE(user_event_enabler_table, USER_EVENT_ENABLER_HASH_BITS);
static DEFINE_SPINLOCK(user_event_enabler_table_lock);

static struct kmem_cache *user_event_enabler_cache;

static int user_event_create(const char *raw_command);
static int user_event_show(struct seq_file *m, struct dyn_event *ev);
static bool user_event_is_busy(struct dyn_event *ev);
static int user_event_free(struct dyn_event *ev);
static bool user_event_match(const char *system, const char *event,
			     int argc, const char **argv, struct dyn_event *ev);

static struct dyn_event_operations user_event_dops = {
	.create		= user_event_create,
	.show		= user_event_show,
	.is_busy	= user_event_is_busy,
	.free		= user_event_free,
	.match		= user_event_match,
};

/* ------------------------------------------------------------------ */
/* Command parsing and canonical matching                              */
/* ------------------------------------------------------------------ */

/*
 * These helpers are pure: they work on a struct user_fields and touch no
 * global state, so the KUnit suite can call them without events.
 */

static bool user_field_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* D5: reject names that cannot be a tracefs directory or a dyn_event key */
static int user_event_name_check(const char *name)
{
	size_t len = strlen(name);
	const char *p;

	if (!len || len > MAX_EVENT_NAME)
		return -EINVAL;

	/* The name becomes a tracefs directory */
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;

	for (p = name; *p; p++) {
		if (*p == '/' || *p == ':' || isspace(*p) || iscntrl(*p))
			return -EINVAL;
	}

	return 0;
}

/* Field names end up in the print fmt: C identifiers only */
static bool user_field_name_valid(const char *name)
{
	const char *p;

	if (!isalpha(name[0]) && name[0] != '_')
		return false;

	for (p = name + 1; *p; p++) {
		if (!isalnum(*p) && *p != '_')
			return false;
	}

	return true;
}

/* char[N]: N in 1..1024, base 0, and "N]" must fit in 7 characters */
static int user_field_array_len(const char *bracket, u32 *len)
{
	char buf[8];
	const char *end;
	unsigned int n;

	bracket++;
	if (strlen(bracket) > sizeof(buf) - 1)
		return -EINVAL;

	end = strchr(bracket, ']');
	if (!end)
		return -EINVAL;

	memcpy(buf, bracket, end - bracket);
	buf[end - bracket] = '\0';

	if (kstrtouint(buf, 0, &n) || !n || n > MAX_STATIC_STRING)
		return -EINVAL;

	*len = n;
	return 0;
}

/* Fills kind, size, signedness and print spec of a field from its type */
static int user_field_set_type(struct user_field *field)
{
	const char *type = field->type;
	const char *bracket;
	int i, ret;

	field->is_signed = type[0] != 'u';
	field->is_char = strstr(type, "char");

	if (str_has_prefix(type, "__data_loc ") ||
	    str_has_prefix(type, "__rel_loc ")) {
		field->kind = type[2] == 'd' ? USER_FIELD_DATA_LOC :
					       USER_FIELD_REL_LOC;
		field->size = sizeof(u32);
		field->fmt = strstr(type, "char[") ? "%s" : "%llu";
		return 0;
	}

	if (str_has_prefix(type, "struct ")) {
		field->kind = USER_FIELD_STRUCT;
		field->fmt = "%llu";
		return 0;
	}

	bracket = strchr(type, '[');
	if (bracket) {
		size_t base = bracket - type;

		if (!(base == 4 && !strncmp(type, "char", 4)) &&
		    !(base == 13 && !strncmp(type, "unsigned char", 13)))
			return -EINVAL;

		ret = user_field_array_len(bracket, &field->len);
		if (ret)
			return ret;

		field->kind = USER_FIELD_STRING;
		field->size = field->len;
		field->fmt = "%s";
		return 0;
	}

	for (i = 0; i < ARRAY_SIZE(user_field_types); i++) {
		if (strcmp(type, user_field_types[i].type))
			continue;

		field->kind = USER_FIELD_PLAIN;
		field->size = user_field_types[i].size;
		field->is_signed = user_field_types[i].is_signed;
		field->fmt = user_field_types[i].fmt;
		return 0;
	}

	return -EINVAL;
}

/* How many tokens the type of a field spans */
static int user_field_type_tokens(char **tok, int n)
{
	if (!strcmp(tok[0], "unsigned") || !strcmp(tok[0], "struct"))
		return 2;

	if (!strcmp(tok[0], "__data_loc") || !strcmp(tok[0], "__rel_loc"))
		return n > 1 && !strcmp(tok[1], "unsigned") ? 3 : 2;

	return 1;
}

/* TYPE NAME, or struct X NAME SIZE; the tokens are already split */
static int user_field_parse(char **tok, int n, struct user_field *field)
{
	int type_tokens = user_field_type_tokens(tok, n);
	int i, ret, len = 0;
	u32 size;

	if (n < type_tokens + 1)
		return -EINVAL;

	for (i = 0; i < type_tokens; i++)
		len += strlen(tok[i]) + 1;

	field->type = kmalloc(len, GFP_KERNEL);
	if (!field->type)
		return -ENOMEM;

	field->type[0] = '\0';
	for (i = 0; i < type_tokens; i++) {
		if (i)
			strcat(field->type, " ");
		strcat(field->type, tok[i]);
	}

	field->name = tok[type_tokens];
	if (!user_field_name_valid(field->name))
		return -EINVAL;

	ret = user_field_set_type(field);
	if (ret)
		return ret;

	n -= type_tokens + 1;
	if (field->kind != USER_FIELD_STRUCT)
		return n ? -EINVAL : 0;

	/* D4: a size that could never fit a record is an error */
	if (n != 1 || kstrtou32(tok[type_tokens + 1], 10, &size) ||
	    !size || size > MAX_STATIC_SIZE)
		return -EINVAL;

	field->size = size;
	return 0;
}

/**
 * user_fields_free - Free what user_fields_parse() allocated
 * @desc: Parsed fields, zeroed on return
 */
static void user_fields_free(struct user_fields *desc)
{
	int i;

	if (desc->fields) {
		for (i = 0; i < desc->count; i++)
			kfree(desc->fields[i].type);
	}

	kfree(desc->fields);
	kfree(desc->buf);
	memset(desc, 0, sizeof(*desc));
}

/**
 * user_fields_parse - Parse the field list of a command
 * @args: "field;field...", may be NULL or empty
 * @desc: Output, to be released with user_fields_free()
 *
 * Any run of spaces or tabs separates tokens, a ';' separates fields and
 * empty fields are ignored (D6). Fields are packed after the common
 * header.
 *
 * Return: 0, -EINVAL for a syntax or type error, or -ENOMEM.
 */
static int user_fields_parse(const char *args, struct user_fields *desc)
{
	char *cur, *field, *tok[MAX_FIELD_TOKENS], *p;
	u32 offset = sizeof(struct trace_entry);
	int ret, n, max = 1;

	memset(desc, 0, sizeof(*desc));
	if (!args || !*args)
		return 0;

	for (p = (char *)args; *p; p++)
		max += *p == ';';

	desc->buf = kstrdup(args, GFP_KERNEL);
	desc->fields = kcalloc(max, sizeof(*desc->fields), GFP_KERNEL);
	if (!desc->buf || !desc->fields) {
		ret = -ENOMEM;
		goto fail;
	}

	cur = desc->buf;
	while ((field = strsep(&cur, ";"))) {
		struct user_field *f = &desc->fields[desc->count];

		n = 0;
		while ((p = strsep(&field, " \t"))) {
			if (!*p)
				continue;
			if (n == MAX_FIELD_TOKENS) {
				ret = -EINVAL;
				goto fail;
			}
			tok[n++] = p;
		}

		if (!n)
			continue;

		/* Counted first so that user_fields_free() sees the type */
		desc->count++;
		ret = user_field_parse(tok, n, f);
		if (ret)
			goto fail;

		f->offset = offset;
		offset += f->size;
		if (offset - sizeof(struct trace_entry) > MAX_STATIC_SIZE) {
			ret = -EINVAL;
			goto fail;
		}
	}

	desc->min_size = offset - sizeof(struct trace_entry);
	return 0;
fail:
	user_fields_free(desc);
	return ret;
}

/**
 * user_fields_canon - Print the canonical form of a field list
 * @desc: Parsed fields
 * @buf: Output buffer, may be NULL when @len is 0
 * @len: Size of @buf
 *
 * The canonical form is "TYPE NAME[ SIZE]" per field, joined by "; ". It
 * is what dynamic_events shows and what matching compares, so that every
 * spelling of the same fields matches (D6).
 *
 * Return: the length of the whole form, as snprintf().
 */
static int user_fields_canon(const struct user_fields *desc, char *buf,
			     int len)
{
	const struct user_field *f;
	int i, pos = 0;

#define LEN_OR_ZERO (len ? len - pos : 0)
	if (len)
		buf[0] = '\0';

	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];
		pos += snprintf(buf + pos, LEN_OR_ZERO, "%s%s %s",
				i ? "; " : "", f->type, f->name);
		if (f->kind == USER_FIELD_STRUCT)
			pos += snprintf(buf + pos, LEN_OR_ZERO, " %u", f->size);
	}
#undef LEN_OR_ZERO

	return pos;
}

/* Two-pass helper: allocate and fill the result of a print function */
static char *user_fields_sprint(const struct user_fields *desc,
				int (*print)(const struct user_fields *,
					     char *, int))
{
	int len = print(desc, NULL, 0);
	char *buf;

	buf = kmalloc(len + 1, GFP_KERNEL);
	if (buf)
		print(desc, buf, len + 1);

	return buf;
}

/**
 * user_fields_print_fmt - Print the "print fmt" of a field list
 * @desc: Parsed fields
 * @buf: Output buffer, may be NULL when @len is 0
 * @len: Size of @buf
 *
 * Return: the length of the whole string, as snprintf().
 */
static int user_fields_print_fmt(const struct user_fields *desc, char *buf,
				 int len)
{
	const struct user_field *f;
	int i, pos = 0;

#define LEN_OR_ZERO (len ? len - pos : 0)
	pos += snprintf(buf + pos, LEN_OR_ZERO, "\"");
	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];
		pos += snprintf(buf + pos, LEN_OR_ZERO, "%s%s=%s",
				i ? " " : "", f->name, f->fmt);
	}
	pos += snprintf(buf + pos, LEN_OR_ZERO, "\"");

	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];
		if (f->kind == USER_FIELD_DATA_LOC && f->is_char)
			pos += snprintf(buf + pos, LEN_OR_ZERO,
					", __get_str(%s)", f->name);
		else if (f->kind == USER_FIELD_REL_LOC && f->is_char)
			pos += snprintf(buf + pos, LEN_OR_ZERO,
					", __get_rel_str(%s)", f->name);
		else
			pos += snprintf(buf + pos, LEN_OR_ZERO,
					", REC->%s", f->name);
	}
#undef LEN_OR_ZERO

	return pos;
}

/* Canonical form of an argv (dynamic_events delete), NULL if invalid */
static char *user_fields_argv_canon(int argc, const char * const *argv)
{
	struct user_fields desc;
	char *args, *canon = NULL;
	int i, len = 1;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;

	args = kzalloc(len, GFP_KERNEL);
	if (!args)
		return NULL;

	for (i = 0; i < argc; i++) {
		strcat(args, argv[i]);
		strcat(args, " ");
	}

	if (!user_fields_parse(args, &desc)) {
		canon = user_fields_sprint(&desc, user_fields_canon);
		user_fields_free(&desc);
	}

	kfree(args);
	return canon;
}

/* ------------------------------------------------------------------ */
/* Event lifetime: create, find, get/put, auto-delete, destroy         */
/* ------------------------------------------------------------------ */

static bool user_event_is_persist(struct user_event *user)
{
	return user->reg_flags & USER_EVENT_REG_PERSIST;
}

static bool user_event_is_multi(struct user_event *user)
{
	return user->reg_flags & USER_EVENT_REG_MULTI_FORMAT;
}

static u32 user_event_key(const char *name)
{
	return jhash(name, strlen(name), 0);
}

/* Takes a reference under event_mutex, reviving a pending event */
static void user_event_get_locked(struct user_event *user)
{
	lockdep_assert_held(&event_mutex);

	/* The count of 1 that kept it alive becomes the caller's */
	if (!list_empty(&user->pending_link))
		list_del_init(&user->pending_link);
	else
		refcount_inc(&user->refcnt);
}

static void user_event_get(struct user_event *user)
{
	refcount_inc(&user->refcnt);
}

/**
 * user_event_put - Drop a reference of an event
 * @user: The event
 * @locked: The caller holds event_mutex
 *
 * The last reference of a non-persistent event keeps the count at 1 and
 * queues the event for destruction: the put may come from class->reg,
 * where an event call cannot be removed. Nothing embedded in the event is
 * queued, so the event can be destroyed by anyone meanwhile.
 */
static void user_event_put(struct user_event *user, bool locked)
{
	if (locked) {
		lockdep_assert_held(&event_mutex);
		if (!refcount_dec_and_test(&user->refcnt))
			return;
	} else if (!refcount_dec_and_mutex_lock(&user->refcnt, &event_mutex)) {
		return;
	}

	refcount_set(&user->refcnt, 1);

	if (WARN_ON_ONCE(user_event_is_persist(user))) {
		pr_alert("BUG: Auto-delete engaged on persistent event\n");
	} else {
		list_add_tail(&user->pending_link, &user_event_pending);
		mod_delayed_work(system_wq, &user_event_reap_work, 0);
	}

	if (!locked)
		mutex_unlock(&event_mutex);
}

/* Nothing but the pending list (or PERSIST's self reference) holds it */
static bool user_event_last_ref(struct user_event *user)
{
	lockdep_assert_held(&event_mutex);

	if (user_event_is_persist(user))
		return refcount_read(&user->refcnt) == 1;

	return !list_empty(&user->pending_link);
}

static struct list_head *user_event_get_fields(struct trace_event_call *call)
{
	struct user_event *user = call->data;

	return &user->fields;
}

static void user_event_free_fields(struct list_head *head)
{
	struct ftrace_event_field *field, *next;

	list_for_each_entry_safe(field, next, head, link) {
		list_del(&field->link);
		kfree(field);
	}
}

/* ftrace fields (newest first, as the core walks them backwards) */
static int user_event_build_fields(struct user_event *user)
{
	struct user_fields *desc = &user->desc;
	struct ftrace_event_field *field;
	struct user_field *f;
	int i, v = 0;

	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];

		field = kzalloc(sizeof(*field), GFP_KERNEL_ACCOUNT);
		if (!field)
			return -ENOMEM;

		field->type = f->type;
		field->name = f->name;
		field->offset = f->offset;
		field->size = f->size;
		field->is_signed = f->is_signed;
		field->filter_type = filter_assign_type(f->type);
		field->len = f->len;
		list_add(&field->link, &user->fields);

		if (f->kind == USER_FIELD_DATA_LOC ||
		    f->kind == USER_FIELD_REL_LOC)
			user->nr_validators++;
	}

	if (!user->nr_validators)
		return 0;

	user->validators = kcalloc(user->nr_validators,
				   sizeof(*user->validators),
				   GFP_KERNEL_ACCOUNT);
	if (!user->validators)
		return -ENOMEM;

	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];
		if (f->kind != USER_FIELD_DATA_LOC &&
		    f->kind != USER_FIELD_REL_LOC)
			continue;

		user->validators[v].offset = f->offset;
		user->validators[v].kind = f->kind;
		user->validators[v].nul = f->is_char;
		v++;
	}

	return 0;
}

static void user_event_release_mem(struct user_event *user)
{
	user_event_free_fields(&user->fields);
	if (user->tp.name != user->reg_name)
		kfree(user->tp.name);
	kfree(user->call.print_fmt);
	kfree(user->validators);
	kfree(user->args);
	user_fields_free(&user->desc);
	kfree(user->reg_name);
	kfree(user);
}

/* Events are owned by root whoever registered them first */
static int user_event_set_call_visible(struct user_event *user, bool visible)
{
	const struct cred *old_cred;
	struct cred *cred;
	int ret;

	cred = prepare_creds();
	if (!cred)
		return -ENOMEM;

	cred->fsuid = GLOBAL_ROOT_UID;
	old_cred = override_creds(cred);

	if (visible)
		ret = trace_add_event_call(&user->call);
	else
		ret = trace_remove_event_call(&user->call);

	revert_creds(old_cred);
	put_cred(cred);

	return ret;
}

/**
 * user_event_destroy - Remove an unreferenced event
 * @user: The event
 *
 * Context: event_mutex held.
 * Return: 0, or -EBUSY while a tracefs file of the event is in use.
 */
static int user_event_destroy(struct user_event *user)
{
	LIST_HEAD(fields);
	int ret;

	lockdep_assert_held(&event_mutex);

	if (trace_event_dyn_busy(&user->call))
		return -EBUSY;

	/*
	 * The core frees the fields of a removed call into its own cache;
	 * ours are kmalloc'ed, so hide them and put them back on failure.
	 */
	list_splice_init(&user->fields, &fields);
	ret = user_event_set_call_visible(user, false);
	if (ret) {
		list_splice(&fields, &user->fields);
		return ret;
	}
	user_event_free_fields(&fields);

	dyn_event_remove(&user->devent);
	hash_del(&user->node);
	list_del(&user->pending_link);

	if (WARN_ON_ONCE(!current_user_events))
		pr_alert("BUG: Bad current_user_events\n");
	else
		current_user_events--;

	user_event_release_mem(user);
	return 0;
}

static void user_event_reap(struct work_struct *work)
{
	struct user_event *user, *next;
	bool retry = false;
	int ret;

	mutex_lock(&event_mutex);
	list_for_each_entry_safe(user, next, &user_event_pending,
				 pending_link) {
		ret = user_event_destroy(user);
		if (!ret)
			continue;

		/* An open file of the event delays it, so try again later */
		if (ret != -EBUSY)
			pr_warn("user_events: Unable to delete event\n");
		retry = true;
	}

	if (retry)
		mod_delayed_work(system_wq, &user_event_reap_work, HZ / 10);
	mutex_unlock(&event_mutex);
}

static void user_event_update_status(struct user_event *user);
static void user_event_enabler_update(struct user_event *user);
static void user_event_ftrace(struct user_event *user,
			      const struct iov_iter *i, void *tpdata,
			      unsigned int *outcome);
static void user_event_perf(struct user_event *user,
			    const struct iov_iter *i, void *tpdata,
			    unsigned int *outcome);

/* Probe attach and detach: keep the enable bits and references in step */
static int user_event_reg(struct trace_event_call *call,
			  enum trace_reg type, void *data)
{
	struct user_event *user = call->data;
	int ret = 0;

	if (!user)
		return -ENOENT;

	switch (type) {
	case TRACE_REG_REGISTER:
		ret = tracepoint_probe_register(call->tp, call->class->probe,
						data);
		if (ret)
			return ret;
		goto inc;

	case TRACE_REG_UNREGISTER:
		tracepoint_probe_unregister(call->tp, call->class->probe, data);
		goto dec;

#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		ret = tracepoint_probe_register(call->tp,
						call->class->perf_probe, call);
		if (ret)
			return ret;
		goto inc;

	case TRACE_REG_PERF_UNREGISTER:
		tracepoint_probe_unregister(call->tp, call->class->perf_probe,
					    call);
		goto dec;

	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		break;
#endif
	}

	return 0;
inc:
	user_event_get_locked(user);
	user_event_update_status(user);
	user_event_enabler_update(user);
	return 0;
dec:
	user_event_update_status(user);
	user_event_enabler_update(user);
	user_event_put(user, true);
	return 0;
}

static enum print_line_t user_event_print_trace(struct trace_iterator *iter,
						int flags,
						struct trace_event *event);

static struct trace_event_functions user_event_funcs = {
	.trace = user_event_print_trace,
};

/* The fields come from get_fields, the core must not define any */
static struct trace_event_fields user_event_fields_array[1];

/* Registers the event with the tracing core; event_mutex held */
static int user_event_register(struct user_event *user)
{
	struct trace_event_call *call = &user->call;
	int ret;

	INIT_LIST_HEAD(&user->class.fields);
	user->class.system = user_event_is_multi(user) ?
			     user->group->system_multi_name :
			     user->group->system_name;
	user->class.fields_array = user_event_fields_array;
	user->class.get_fields = user_event_get_fields;
	user->class.reg = user_event_reg;
	user->class.probe = user_event_ftrace;
#ifdef CONFIG_PERF_EVENTS
	user->class.perf_probe = user_event_perf;
#endif

	call->class = &user->class;
	call->tp = &user->tp;
	call->flags = TRACE_EVENT_FL_TRACEPOINT;
	call->data = user;
	call->event.funcs = &user_event_funcs;

	if (!register_trace_event(&call->event))
		return -ENODEV;

	ret = user_event_set_call_visible(user, true);
	if (ret) {
		unregister_trace_event(&call->event);
		return ret;
	}

	dyn_event_init(&user->devent, &user_event_dops);
	dyn_event_add(&user->devent, call);
	return 0;
}

/**
 * user_event_new - Create an event
 * @group: Group of the event
 * @name: Register name, validated
 * @desc: Parsed fields, moved into the event on success
 * @args: Canonical form of @desc, moved into the event on success
 * @flags: USER_EVENT_REG_* flags
 * @newuser: Output, with one reference for the caller
 *
 * Context: event_mutex held.
 * Return: 0, -EMFILE over kernel.user_events_max, or another errno.
 */
static int user_event_new(struct user_event_group *group, const char *name,
			  struct user_fields *desc, char **args, u16 flags,
			  struct user_event **newuser)
{
	struct user_event *user;
	u64 multi_id = 0;
	int ret = -ENOMEM;

	lockdep_assert_held(&event_mutex);

	/* Failed creations use up ids too, like upstream */
	if (flags & USER_EVENT_REG_MULTI_FORMAT)
		multi_id = group->multi_id++;

	if (current_user_events >= max_user_events)
		return -EMFILE;

	user = kzalloc(sizeof(*user), GFP_KERNEL_ACCOUNT);
	if (!user)
		return -ENOMEM;

	user->group = group;
	user->reg_flags = flags;
	INIT_LIST_HEAD(&user->fields);
	INIT_LIST_HEAD(&user->pending_link);

	user->reg_name = kstrdup(name, GFP_KERNEL_ACCOUNT);
	if (!user->reg_name)
		goto free;

	if (flags & USER_EVENT_REG_MULTI_FORMAT)
		user->tp.name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx",
					  name, multi_id);
	else
		user->tp.name = user->reg_name;
	if (!user->tp.name)
		goto free;

	/* The ".<id>" suffix must still fit a tracefs directory name */
	ret = -EINVAL;
	if (strlen(user->tp.name) > MAX_EVENT_NAME)
		goto free;

	user->desc = *desc;
	memset(desc, 0, sizeof(*desc));
	user->args = *args;
	*args = NULL;
	user->min_size = user->desc.min_size;

	ret = user_event_build_fields(user);
	if (ret)
		goto free;

	ret = -ENOMEM;
	user->call.print_fmt = user_fields_sprint(&user->desc,
						  user_fields_print_fmt);
	if (!user->call.print_fmt)
		goto free;

	ret = user_event_register(user);
	if (ret)
		goto free;

	/* PERSIST holds a self reference besides the caller's */
	refcount_set(&user->refcnt, user_event_is_persist(user) ? 2 : 1);
	hash_add(group->register_table, &user->node,
		 user_event_key(user->reg_name));
	current_user_events++;

	*newuser = user;
	return 0;
free:
	user_event_release_mem(user);
	return ret;
}

/**
 * user_event_find_or_create - Look up an event by command, or create it
 * @group: Group of the event
 * @cmd: "name[ field[;field]...]", not modified
 * @flags: USER_EVENT_REG_* flags
 * @out: Output, with one reference for the caller
 * @created: Output, true when the event is new (may be NULL)
 *
 * The same name and fields reuse the event. Different fields give
 * -EADDRINUSE for single-format events and a new event for multi-format
 * ones.
 *
 * Context: group->reg_mutex held.
 * Return: 0 or a negative errno.
 */
static int user_event_find_or_create(struct user_event_group *group,
				     const char *cmd, u16 flags,
				     struct user_event **out, bool *created)
{
	bool multi = flags & USER_EVENT_REG_MULTI_FORMAT;
	struct user_fields desc;
	struct user_event *user;
	char *name, *args = NULL, *canon = NULL;
	int ret, parse_ret;

	lockdep_assert_held(&group->reg_mutex);

	name = kstrdup(cmd, GFP_KERNEL);
	if (!name)
		return -ENOMEM;

	for (args = name; *args && !user_field_is_space(*args); args++)
		;
	if (*args)
		*args++ = '\0';

	/* No text flags exist: "name:anything" is always refused */
	ret = -EINVAL;
	if (strchr(name, ':') || user_event_name_check(name))
		goto out;

	ret = -EPERM;
	if ((flags & USER_EVENT_REG_PERSIST) && !perfmon_capable())
		goto out;

	parse_ret = user_fields_parse(args, &desc);
	if (!parse_ret) {
		canon = user_fields_sprint(&desc, user_fields_canon);
		if (!canon) {
			user_fields_free(&desc);
			parse_ret = -ENOMEM;
		}
	}

	mutex_lock(&event_mutex);
	ret = -ENOENT;
	hash_for_each_possible(group->register_table, user, node,
			       user_event_key(name)) {
		if (strcmp(user->reg_name, name) ||
		    user_event_is_multi(user) != multi)
			continue;

		if (!parse_ret && !strcmp(user->args, canon)) {
			user_event_get_locked(user);
			*out = user;
			ret = 0;
			break;
		}

		if (!multi) {
			ret = -EADDRINUSE;
			break;
		}
	}

	if (ret == -ENOENT) {
		if (parse_ret) {
			if (multi)
				group->multi_id++;
			ret = parse_ret;
		} else {
			ret = user_event_new(group, name, &desc, &canon, flags,
					     out);
			if (!ret && created)
				*created = true;
		}
	}
	mutex_unlock(&event_mutex);

	if (!parse_ret)
		user_fields_free(&desc);
	kfree(canon);
out:
	kfree(name);
	return ret;
}

/*
 * Undoes a registration step that took a reference: a new event goes away
 * at once (D1) unless something else has attached to it meanwhile.
 */
static void user_event_put_undo(struct user_event *user, bool created)
{
	unsigned int initial = user_event_is_persist(user) ? 2 : 1;

	mutex_lock(&event_mutex);
	if (!created || refcount_read(&user->refcnt) != initial ||
	    user_event_destroy(user))
		user_event_put(user, true);
	mutex_unlock(&event_mutex);
}

/* ------------------------------------------------------------------ */
/* Enablers: per-process bit lists, bit writes, faults, fork and exit  */
/* ------------------------------------------------------------------ */

#define ENABLE_BITOPS(e) (&(e)->values)
#define ENABLE_BIT(e) ((int)((e)->values & ENABLE_VAL_BIT_MASK))

/*
 * Bit operations work on an aligned long. A 32-bit value on a 64-bit
 * kernel is the low or the high half of one, depending on its address
 * and on the byte order.
 */
static void user_event_bit_location(unsigned long *addr, int *bit,
				    bool compat)
{
#if BITS_PER_LONG == 64
	unsigned long misalign = *addr & (sizeof(long) - 1);

	if (!compat)
		return;

	*addr -= misalign;
#ifdef __LITTLE_ENDIAN
	if (misalign)
		*bit += 32;
#else
	if (!misalign)
		*bit += 32;
#endif
#endif
}

/* Sets or clears a bit in a process without faulting; mmap_lock held */
static int user_event_mm_write_bit(struct mm_struct *mm, unsigned long addr,
				   int bit, bool compat, bool set)
{
	unsigned long *ptr;
	struct page *page;
	void *kaddr;
	long ret;

	mmap_assert_locked(mm);
	user_event_bit_location(&addr, &bit, compat);

	ret = pin_user_pages_remote(mm, addr, 1, FOLL_WRITE | FOLL_NOFAULT,
				    &page, NULL, NULL);
	if (ret <= 0)
		return -EFAULT;

	kaddr = kmap_local_page(page);
	ptr = kaddr + (addr & ~PAGE_MASK);

	/* The process updates the same word: atomics only */
	if (set)
		set_bit(bit, ptr);
	else
		clear_bit(bit, ptr);

	kunmap_local(kaddr);
	unpin_user_pages_dirty_lock(&page, 1, true);
	return 0;
}

/* Makes the page of an enable value present and writable */
static int user_event_mm_fault_in(struct mm_struct *mm, unsigned long addr,
				  int attempt)
{
	bool unlocked;
	int ret;

	/* A process that keeps write-protecting the page must not livelock */
	if (attempt > MAX_FAULT_ATTEMPTS)
		return -EFAULT;

	mmap_read_lock(mm);
	ret = fixup_user_fault(mm, addr, FAULT_FLAG_WRITE | FAULT_FLAG_REMOTE,
			       &unlocked);
	mmap_read_unlock(mm);

	return ret;
}

static bool user_event_enabler_compat(struct user_event_enabler *enabler)
{
	return test_bit(ENABLE_VAL_COMPAT_BIT, ENABLE_BITOPS(enabler));
}

static void user_event_enabler_free_work(struct work_struct *work)
{
	struct user_event_enabler *enabler =
		container_of(to_rcu_work(work), struct user_event_enabler,
			     free_work);

	user_event_put(enabler->event, false);
	kmem_cache_free(user_event_enabler_cache, enabler);
}

/*
 * Fork copies enablers under RCU alone, so an enabler and its event
 * reference may only go away after a grace period (D13).
 */
static void user_event_enabler_destroy(struct user_event_enabler *enabler)
{
	lockdep_assert_held(&event_mutex);

	list_del_rcu(&enabler->mm_link);
	spin_lock(&user_event_enabler_table_lock);
	hash_del_rcu(&enabler->hash_link);
	spin_unlock(&user_event_enabler_table_lock);
	INIT_RCU_WORK(&enabler->free_work, user_event_enabler_free_work);
	queue_rcu_work(system_wq, &enabler->free_work);
}

static int user_event_enabler_write(struct user_event_mm *uem,
				    struct user_event_enabler *enabler,
				    bool fixup_fault, int *attempt);

static void user_event_enabler_fault_fixup(struct work_struct *work)
{
	struct user_event_enabler_fault *fault =
		container_of(work, struct user_event_enabler_fault, work);
	struct user_event_enabler *enabler = fault->enabler;
	struct user_event_mm *uem = fault->uem;
	struct mm_struct *mm = uem->mm;
	unsigned long addr = enabler->addr;
	int bit = ENABLE_BIT(enabler);
	int attempt = fault->attempt;
	int ret;

	user_event_bit_location(&addr, &bit, user_event_enabler_compat(enabler));
	ret = user_event_mm_fault_in(mm, addr, attempt);
	/* Any process can cause this: keep it from flooding the log */
	if (ret)
		pr_warn_ratelimited("user_events: Fault for mm: 0x%p @ 0x%llx event: %s\n",
				    mm, (unsigned long long)enabler->addr,
				    enabler->event->tp.name);

	mutex_lock(&event_mutex);

	/* Unregistered while faulting: it was left for us to free */
	if (test_bit(ENABLE_VAL_FREEING_BIT, ENABLE_BITOPS(enabler))) {
		user_event_enabler_destroy(enabler);
		goto out;
	}

	clear_bit(ENABLE_VAL_FAULTING_BIT, ENABLE_BITOPS(enabler));

	/*
	 * Write the current state even if the fault-in failed: updates were
	 * skipped while this ran, and the page may have become writable
	 * since. Only a write after a successful fault-in queues another.
	 */
	mmap_read_lock(mm);
	user_event_enabler_write(uem, enabler, !ret, &attempt);
	mmap_read_unlock(mm);
out:
	mutex_unlock(&event_mutex);

	mmput(mm);
	kfree(fault);
}

/* Hands a bit write that needs a fault to a worker; event_mutex held */
static bool user_event_enabler_queue_fault(struct user_event_mm *uem,
					   struct user_event_enabler *enabler,
					   int attempt)
{
	struct user_event_enabler_fault *fault;

	fault = kmalloc(sizeof(*fault), GFP_NOWAIT | __GFP_NOWARN);
	if (!fault)
		return false;

	INIT_WORK(&fault->work, user_event_enabler_fault_fixup);
	fault->uem = uem;
	fault->enabler = enabler;
	fault->attempt = attempt;

	/* The caller holds an mm user: the mm, uem and enabler stay */
	mmget(uem->mm);
	set_bit(ENABLE_VAL_FAULTING_BIT, ENABLE_BITOPS(enabler));
	schedule_work(&fault->work);

	return true;
}

/*
 * Writes the event state to the bit of an enabler. Pages that are not
 * present or are COW-shared are faulted in asynchronously when
 * @fixup_fault is set.
 */
static int user_event_enabler_write(struct user_event_mm *uem,
				    struct user_event_enabler *enabler,
				    bool fixup_fault, int *attempt)
{
	int ret;

	lockdep_assert_held(&event_mutex);

	if (test_bit(ENABLE_VAL_FAULTING_BIT, ENABLE_BITOPS(enabler)) ||
	    test_bit(ENABLE_VAL_FREEING_BIT, ENABLE_BITOPS(enabler)))
		return -EBUSY;

	ret = user_event_mm_write_bit(uem->mm, enabler->addr,
				      ENABLE_BIT(enabler),
				      user_event_enabler_compat(enabler),
				      enabler->event->status);

	if (ret && fixup_fault) {
		(*attempt)++;
		if (!user_event_enabler_queue_fault(uem, enabler, *attempt))
			pr_warn("user_events: Unable to queue fault handler\n");
	}

	return ret;
}

static bool user_event_mm_has_event(struct user_event_mm *uem,
				    struct user_event *user)
{
	struct user_event_enabler *enabler;

	list_for_each_entry_rcu(enabler, &uem->enablers, mm_link) {
		if (enabler->event == user)
			return true;
	}

	return false;
}

/*
 * Collects, as a one-shot list through uem->next, every process with an
 * enabler of @user, each with an mm user reference. Writing needs to
 * sleep, which RCU does not allow, so it happens after this.
 */
static struct user_event_mm *user_event_mm_get_all(struct user_event *user)
{
	struct user_event_mm *uem, *found = NULL;

	lockdep_assert_held(&event_mutex);

	rcu_read_lock();
	list_for_each_entry_rcu(uem, &user_event_mms, mms_link) {
		if (!user_event_mm_has_event(uem, user))
			continue;

		if (!mmget_not_zero(uem->mm))
			continue;

		uem->next = found;
		found = uem;
	}
	rcu_read_unlock();

	return found;
}

/* Writes the state of @user to every process that registered it */
static void user_event_enabler_update(struct user_event *user)
{
	struct user_event_enabler *enabler;
	struct user_event_mm *uem, *next;
	struct mm_struct *mm;
	int attempt;

	lockdep_assert_held(&event_mutex);

	next = user_event_mm_get_all(user);
	while (next) {
		uem = next;
		next = uem->next;
		mm = uem->mm;

		mmap_read_lock(mm);
		list_for_each_entry(enabler, &uem->enablers, mm_link) {
			if (enabler->event != user)
				continue;

			attempt = 0;
			user_event_enabler_write(uem, enabler, true, &attempt);
		}
		mmap_read_unlock(mm);

		/* The last mmput() tears the mm down: not under event_mutex */
		mmput_async(mm);
	}
}

/* The status is what is attached to the tracepoint right now */
static void user_event_update_status(struct user_event *user)
{
	struct tracepoint_func *probe_func_ptr;
	struct tracepoint *tp = &user->tp;
	u8 status = 0;

	lockdep_assert_held(&event_mutex);

	if (static_key_enabled(&tp->key)) {
		rcu_read_lock_sched();
		probe_func_ptr = rcu_dereference_sched(tp->funcs);
		if (probe_func_ptr) {
			do {
				if (probe_func_ptr->func == user_event_ftrace)
					status |= EVENT_STATUS_FTRACE;
#ifdef CONFIG_PERF_EVENTS
				else if (probe_func_ptr->func == user_event_perf)
					status |= EVENT_STATUS_PERF;
#endif
				else
					status |= EVENT_STATUS_OTHER;
			} while ((++probe_func_ptr)->func);
		}
		rcu_read_unlock_sched();
	}

	WRITE_ONCE(user->status, status);
}

static unsigned long user_event_enabler_key(struct user_event_mm *uem,
					    unsigned long addr, int bit)
{
	return (unsigned long)uem ^ (addr << 6 | bit);
}

/* Makes enablers of @uem findable by address and bit; caller holds the lock */
static void user_event_enabler_hash(struct user_event_enabler *enabler)
{
	lockdep_assert_held(&user_event_enabler_table_lock);

	hash_add_rcu(user_event_enabler_table, &enabler->hash_link,
		     user_event_enabler_key(enabler->uem, enabler->addr,
					    ENABLE_BIT(enabler)));
}

static struct user_event_mm *user_event_mm_alloc(struct mm_struct *mm,
						 gfp_t gfp)
{
	struct user_event_mm *uem;

	uem = kzalloc(sizeof(*uem), gfp);
	if (!uem)
		return NULL;

	INIT_LIST_HEAD(&uem->enablers);
	uem->mm = mm;
	mmgrab(mm);

	return uem;
}

/* Publishes a filled user_event_mm to the fan-out and to @mm */
static void user_event_mm_attach(struct user_event_mm *uem,
				 struct mm_struct *mm)
{
	unsigned long flags;

	spin_lock_irqsave(&user_event_mms_lock, flags);
	list_add_rcu(&uem->mms_link, &user_event_mms);
	spin_unlock_irqrestore(&user_event_mms_lock, flags);

	/* Pairs with smp_load_acquire() in user_events_dup_mm() */
	smp_store_release(&mm->user_event_mm, uem);
}

/* Enablers a fork allocates, or an exit frees, at a time */
#define USER_EVENT_ENABLER_BATCH 16

/*
 * Drops @count references of @user, which the caller holds. Only the
 * last one can be the final put.
 */
static void user_event_put_many(struct user_event *user, unsigned int count)
{
	if (!count)
		return;

	if (count > 1)
		WARN_ON_ONCE(refcount_sub_and_test(count - 1, &user->refcnt));

	user_event_put(user, false);
}

/* After a grace period: drop the enablers, their events and the mm */
static void user_event_mm_free_work(struct work_struct *work)
{
	struct user_event_mm *uem =
		container_of(to_rcu_work(work), struct user_event_mm, put_work);
	struct user_event_enabler *enabler, *next;
	void *batch[USER_EVENT_ENABLER_BATCH];
	struct user_event *run_event = NULL;
	unsigned int run = 0, n = 0;

	/* Exit cost matters too: runs of one event, frees in bulk */
	list_for_each_entry_safe(enabler, next, &uem->enablers, mm_link) {
		if (enabler->event != run_event) {
			user_event_put_many(run_event, run);
			run_event = enabler->event;
			run = 0;
		}
		run++;

		batch[n++] = enabler;
		if (n == ARRAY_SIZE(batch)) {
			kmem_cache_free_bulk(user_event_enabler_cache, n, batch);
			n = 0;
		}
	}
	user_event_put_many(run_event, run);
	if (n)
		kmem_cache_free_bulk(user_event_enabler_cache, n, batch);

	mmdrop(uem->mm);
	kfree(uem);
}

/**
 * user_events_mm_init - Initialise the user_events state of a new mm
 * @mm: The mm, possibly a copy of its parent's
 */
void user_events_mm_init(struct mm_struct *mm)
{
	mm->user_event_mm = NULL;
}

/* Takes @count references of @user for the copies of a fork */
static void user_event_dup_ref(struct user_event *user, unsigned int count)
{
	if (count)
		refcount_add(count, &user->refcnt);
}

/**
 * user_events_dup_mm - Copy the enablers of a process to its fork child
 * @oldmm: The parent's mm
 * @mm: The child's mm, not yet visible to anybody
 *
 * The child gets the same addresses and bits, each with its own event
 * reference. Memory is not written: the child's copy already holds the
 * parent's bits. If memory is short the child silently gets no enablers.
 * A failure of the fork after this is cleaned up by the mmput() of @mm.
 */
void user_events_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm)
{
	struct user_event_enabler *enabler, *copy, *next;
	struct user_event *run_event = NULL;
	void *batch[USER_EVENT_ENABLER_BATCH];
	struct user_event_mm *old, *uem;
	unsigned int run = 0, avail = 0;

	/* Pairs with smp_store_release() in user_event_mm_attach() */
	old = smp_load_acquire(&oldmm->user_event_mm);
	if (!old)
		return;

	uem = user_event_mm_alloc(mm, GFP_KERNEL_ACCOUNT);
	if (!uem)
		return;

	/*
	 * Another thread may unregister meanwhile: the enabler we see and
	 * its event reference stay valid until the grace period ends.
	 */
	rcu_read_lock();
	list_for_each_entry_rcu(enabler, &old->enablers, mm_link) {
		if (test_bit(ENABLE_VAL_FREEING_BIT, ENABLE_BITOPS(enabler)))
			continue;

		/* Fork cost matters: allocate in bulk, not one by one */
		if (!avail) {
			avail = kmem_cache_alloc_bulk(user_event_enabler_cache,
						      GFP_NOWAIT | __GFP_NOWARN,
						      ARRAY_SIZE(batch), batch);
			if (!avail)
				goto fail;
		}
		copy = batch[--avail];

		/*
		 * The parent's enablers keep their events alive meanwhile:
		 * the references of a run of copies are taken at once.
		 */
		if (enabler->event != run_event) {
			user_event_dup_ref(run_event, run);
			run_event = enabler->event;
			run = 0;
		}
		run++;

		copy->uem = uem;
		copy->event = enabler->event;
		copy->addr = enabler->addr;
		copy->values = READ_ONCE(enabler->values) & ENABLE_VAL_DUP_MASK;
		list_add_tail(&copy->mm_link, &uem->enablers);
	}
	user_event_dup_ref(run_event, run);
	rcu_read_unlock();

	if (avail)
		kmem_cache_free_bulk(user_event_enabler_cache, avail, batch);

	spin_lock(&user_event_enabler_table_lock);
	list_for_each_entry(copy, &uem->enablers, mm_link)
		user_event_enabler_hash(copy);
	spin_unlock(&user_event_enabler_table_lock);

	user_event_mm_attach(uem, mm);
	return;
fail:
	user_event_dup_ref(run_event, run);
	rcu_read_unlock();
	list_for_each_entry_safe(copy, next, &uem->enablers, mm_link) {
		user_event_put(copy->event, false);
		kmem_cache_free(user_event_enabler_cache, copy);
	}
	mmdrop(mm);
	kfree(uem);
}

/**
 * user_events_mm_release - Drop the enablers of an mm without users
 * @mm: The mm, called from __mmput()
 *
 * execve() and the exit of the last task of a process end up here. The
 * bits are not written, the memory is going away. Freeing is deferred to
 * after a grace period, for the RCU readers, and to a worker: dropping
 * event references may need event_mutex, and mmput() callers may hold
 * locks that nest inside it.
 */
void user_events_mm_release(struct mm_struct *mm)
{
	struct user_event_mm *uem = mm->user_event_mm;
	struct user_event_enabler *enabler;
	unsigned long flags;

	if (!uem)
		return;

	mm->user_event_mm = NULL;

	spin_lock_irqsave(&user_event_mms_lock, flags);
	list_del_rcu(&uem->mms_link);
	spin_unlock_irqrestore(&user_event_mms_lock, flags);

	/* Nobody adds or destroys enablers of an mm without users */
	spin_lock(&user_event_enabler_table_lock);
	list_for_each_entry(enabler, &uem->enablers, mm_link)
		hash_del_rcu(&enabler->hash_link);
	spin_unlock(&user_event_enabler_table_lock);

	INIT_RCU_WORK(&uem->put_work, user_event_mm_free_work);
	queue_rcu_work(system_wq, &uem->put_work);
}

/* The user_event_mm of the calling process, created on demand */
static struct user_event_mm *user_event_mm_get_current(void)
{
	struct mm_struct *mm = current->mm;
	struct user_event_mm *uem;

	if (!mm)
		return NULL;

	uem = mm->user_event_mm;
	if (uem)
		return uem;

	uem = user_event_mm_alloc(mm, GFP_KERNEL_ACCOUNT);
	if (uem)
		user_event_mm_attach(uem, mm);

	return uem;
}

/* Registering the same address and bit twice makes no sense */
static bool user_event_mm_has_bit(struct user_event_mm *uem,
				  unsigned long addr, int bit)
{
	unsigned long key = user_event_enabler_key(uem, addr, bit);
	struct user_event_enabler *enabler;
	bool found = false;

	rcu_read_lock();
	hash_for_each_possible_rcu(user_event_enabler_table, enabler,
				   hash_link, key) {
		if (enabler->uem == uem && enabler->addr == addr &&
		    ENABLE_BIT(enabler) == bit &&
		    !test_bit(ENABLE_VAL_FREEING_BIT, ENABLE_BITOPS(enabler))) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();

	return found;
}

/* Writes a bit of the calling process, faulting the page in if needed */
static int user_event_mm_write_current(unsigned long addr, int bit,
				       bool compat, bool set)
{
	struct mm_struct *mm = current->mm;
	unsigned long fault_addr = addr;
	int fault_bit = bit;
	int attempt = 0;
	int ret;

	user_event_bit_location(&fault_addr, &fault_bit, compat);

	for (;;) {
		mmap_read_lock(mm);
		ret = user_event_mm_write_bit(mm, addr, bit, compat, set);
		mmap_read_unlock(mm);
		if (!ret)
			return 0;

		if (user_event_mm_fault_in(mm, fault_addr, ++attempt))
			return -EFAULT;
	}
}

/**
 * user_event_enabler_create - Add a registered bit to the caller
 * @reg: The validated registration
 * @user: The event, its reference passes to the enabler on success
 * @uem: The calling process
 *
 * The current state is written synchronously; an address that cannot be
 * made writable fails the registration (D1).
 *
 * Return: 0, -ENOMEM, or -EFAULT.
 */
static int user_event_enabler_create(struct user_reg *reg,
				     struct user_event *user,
				     struct user_event_mm *uem)
{
	struct user_event_enabler *enabler;
	struct mm_struct *mm = uem->mm;
	unsigned long fault_addr;
	int bit = reg->enable_bit;
	int attempt = 0;
	int ret;

	enabler = kmem_cache_zalloc(user_event_enabler_cache, GFP_KERNEL);
	if (!enabler)
		return -ENOMEM;

	enabler->uem = uem;
	enabler->event = user;
	enabler->addr = (unsigned long)reg->enable_addr;
	enabler->values = reg->enable_bit;
#if BITS_PER_LONG == 64
	if (reg->enable_size == 4)
		set_bit(ENABLE_VAL_COMPAT_BIT, ENABLE_BITOPS(enabler));
#endif

	fault_addr = enabler->addr;
	user_event_bit_location(&fault_addr, &bit,
				user_event_enabler_compat(enabler));

	for (;;) {
		/* Write and link under event_mutex: no tracer change is lost */
		mutex_lock(&event_mutex);
		mmap_read_lock(mm);
		ret = user_event_enabler_write(uem, enabler, false, NULL);
		mmap_read_unlock(mm);
		if (!ret) {
			list_add_rcu(&enabler->mm_link, &uem->enablers);
			spin_lock(&user_event_enabler_table_lock);
			user_event_enabler_hash(enabler);
			spin_unlock(&user_event_enabler_table_lock);
		}
		mutex_unlock(&event_mutex);

		if (!ret)
			return 0;

		if (user_event_mm_fault_in(mm, fault_addr, ++attempt)) {
			kmem_cache_free(user_event_enabler_cache, enabler);
			return -EFAULT;
		}
	}
}

/* ------------------------------------------------------------------ */
/* The write path: ftrace and perf                                     */
/* ------------------------------------------------------------------ */

/* Copies an iovec payload on a copy of @i, which the copy consumes */
static noinline bool copy_payload_iovec(void *dst, const struct iov_iter *i)
{
	struct iov_iter copy = *i;
	size_t ret;

	pagefault_disable();
	ret = copy_from_iter(dst, i->count, &copy);
	pagefault_enable();

	return ret == i->count;
}

/*
 * Copies all of @i to @dst and leaves @i as it is, for the next probe.
 * Probes run with preemption off: no faults in the copy.
 */
static __always_inline bool copy_payload(void *dst, const struct iov_iter *i)
{
	if (!i->count)
		return true;

	/* write(): one user buffer, copied as trace_marker_raw does */
	if (iter_is_ubuf(i))
		return !copy_from_user_nofault(dst, i->ubuf + i->iov_offset,
					       i->count);

	return copy_payload_iovec(dst, i);
}

/* Checks the dynamic locations of a record copy; @data is the record */
static int user_event_validate(struct user_event *user, void *data,
			       size_t len)
{
	struct user_event_validator *v;
	void *pos, *end = data + len;
	u32 loc, offset, size;
	int i;

	for (i = 0; i < user->nr_validators; i++) {
		v = &user->validators[i];
		pos = data + v->offset;

		loc = get_unaligned((u32 *)pos);
		offset = loc & 0xffff;
		size = loc >> 16;

		if (v->kind == USER_FIELD_REL_LOC)
			pos += sizeof(loc) + offset;
		else
			pos = data + offset;

		pos += size;
		if (unlikely(pos > end))
			return -EFAULT;

		if (v->nul && unlikely(!size || *(char *)(pos - 1) != '\0'))
			return -EFAULT;
	}

	return 0;
}

/* What the probes did with one write, in user_events_write_core() */
#define USER_EVENT_WRITE_FAULTED	BIT(0)
#define USER_EVENT_WRITE_RECORDED	BIT(1)

static void user_event_ftrace(struct user_event *user,
			      const struct iov_iter *i, void *tpdata,
			      unsigned int *outcome)
{
	struct trace_event_file *file = tpdata;
	struct trace_event_buffer event_buffer;
	size_t size = sizeof(struct trace_entry) + i->count;
	struct trace_entry *entry;

	if (unlikely(!file || !(file->flags & EVENT_FILE_FL_ENABLED) ||
		     trace_trigger_soft_disabled(file)))
		return;

	/* A reserve failure (tracing off, filtered pid) is no error */
	entry = trace_event_buffer_reserve(&event_buffer, file, size);
	if (unlikely(!entry))
		return;

	if (unlikely(!copy_payload(entry + 1, i)))
		goto discard;

	if (user->nr_validators &&
	    unlikely(user_event_validate(user, entry, size)))
		goto discard;

	trace_event_buffer_commit(&event_buffer);
	*outcome |= USER_EVENT_WRITE_RECORDED;
	return;
discard:
	*outcome |= USER_EVENT_WRITE_FAULTED;
	__trace_event_discard_commit(event_buffer.buffer, event_buffer.event);
}

/* The size perf submits for a record of @size bytes */
static size_t user_event_perf_size(size_t size)
{
	return ALIGN(size + sizeof(u32), sizeof(u64)) - sizeof(u32);
}

#ifdef CONFIG_PERF_EVENTS
static void user_event_perf(struct user_event *user,
			    const struct iov_iter *i, void *tpdata,
			    unsigned int *outcome)
{
	size_t len = sizeof(struct trace_entry) + i->count;
	struct trace_entry *perf_entry;
	struct hlist_head *perf_head;
	size_t size;
	struct pt_regs *regs;
	int context;

	if (unlikely(!user->call.perf_events))
		return;

	perf_head = this_cpu_ptr(user->call.perf_events);
	if (hlist_empty(perf_head))
		return;

	/* Only a perf attach racing with the size check gets here */
	size = user_event_perf_size(len);
	if (unlikely(size > PERF_MAX_TRACE_SIZE))
		return;

	perf_entry = perf_trace_buf_alloc(size, &regs, &context);
	if (unlikely(!perf_entry))
		return;

	perf_fetch_caller_regs(regs);

	if (unlikely(!copy_payload(perf_entry + 1, i)))
		goto fail;

	if (user->nr_validators &&
	    unlikely(user_event_validate(user, perf_entry, len)))
		goto fail;

	perf_trace_buf_submit(perf_entry, size, context,
			      user->call.event.type, 1, regs, perf_head, NULL);
	*outcome |= USER_EVENT_WRITE_RECORDED;
	return;
fail:
	*outcome |= USER_EVENT_WRITE_FAULTED;
	perf_swevent_put_recursion_context(context);
}
#endif

/* D11: refuse what a tracer would have to drop */
static bool user_event_too_big(struct user_event *user, size_t count)
{
	size_t size = sizeof(struct trace_entry) + count;
	u8 status = READ_ONCE(user->status);

	if ((status & EVENT_STATUS_FTRACE) &&
	    size > USER_EVENT_FTRACE_MAX_RECORD)
		return true;

	if ((status & EVENT_STATUS_PERF) &&
	    user_event_perf_size(size) > PERF_MAX_TRACE_SIZE)
		return true;

	return false;
}

/* Runs each attached probe on @i, which they leave as it is */
static unsigned int user_event_probes(struct user_event *user,
				      const struct iov_iter *i)
{
	struct tracepoint_func *probe_func_ptr;
	unsigned int outcome = 0;

	rcu_read_lock_sched();
	probe_func_ptr = rcu_dereference_sched(user->tp.funcs);
	if (probe_func_ptr) {
		do {
			void *func = probe_func_ptr->func;
			void *tpdata = probe_func_ptr->data;

			/* Other probes expect another prototype: skip them */
			if (func == user_event_ftrace)
				user_event_ftrace(user, i, tpdata, &outcome);
#ifdef CONFIG_PERF_EVENTS
			else if (func == user_event_perf)
				user_event_perf(user, i, tpdata, &outcome);
#endif
		} while ((++probe_func_ptr)->func);
	}
	rcu_read_unlock_sched();

	return outcome;
}

/* @i is the payload after the index @idx */
static ssize_t user_events_write_core(struct file *file, int idx,
				      struct iov_iter *i)
{
	struct user_event_file_info *info = file->private_data;
	struct user_event *user = NULL;
	struct user_event_refs *refs;
	unsigned int outcome;

	if (unlikely(idx < 0))
		return -EINVAL;

	/* The fd's reference keeps the event while the file is in use */
	rcu_read_lock_sched();
	refs = rcu_dereference_sched(info->refs);
	/* Pairs with smp_store_release() in user_events_ref_add() */
	if (likely(refs && idx < smp_load_acquire(&refs->count)))
		user = refs->events[idx];
	rcu_read_unlock_sched();

	if (unlikely(!user))
		return -ENOENT;

	if (unlikely(i->count < user->min_size))
		return -EINVAL;

	if (unlikely(!static_key_enabled(&user->tp.key)))
		return -EBADF;

	if (unlikely(user_event_too_big(user, i->count)))
		return -E2BIG;

	/*
	 * The probes copy with page faults off.  Rather than pre-faulting
	 * every write, fault the payload in only when nothing was recorded:
	 * an unreadable payload still gives -EFAULT whether or not a probe
	 * copied it, and a copy that failed is tried once more.
	 */
	outcome = user_event_probes(user, i);
	if (unlikely(!(outcome & USER_EVENT_WRITE_RECORDED))) {
		if (fault_in_iov_iter_readable(i, i->count))
			return -EFAULT;
		if (outcome & USER_EVENT_WRITE_FAULTED)
			outcome = user_event_probes(user, i);
	}

	if (unlikely(outcome & USER_EVENT_WRITE_FAULTED))
		return -EFAULT;

	return i->count + sizeof(idx);
}

static ssize_t user_events_write_iter(struct kiocb *kp, struct iov_iter *i)
{
	const struct iovec *iov = i->iov;
	struct iov_iter payload;
	int idx;

	/*
	 * writev() callers mostly give the index a segment of its own and
	 * the payload one more: read the index directly and hand the probes
	 * the payload as a single user buffer, as write() does.
	 */
	if (iter_is_iovec(i) && i->nr_segs <= 2 && !i->iov_offset &&
	    iov->iov_len == sizeof(idx)) {
		if (unlikely(get_user(idx, (int __user *)iov->iov_base)))
			return -EFAULT;
		iov_iter_ubuf(&payload, ITER_SOURCE,
			      i->nr_segs == 2 ? iov[1].iov_base : NULL,
			      i->count - sizeof(idx));
		return user_events_write_core(kp->ki_filp, idx, &payload);
	}

	if (unlikely(copy_from_iter(&idx, sizeof(idx), i) != sizeof(idx)))
		return -EFAULT;

	return user_events_write_core(kp->ki_filp, idx, i);
}

/* write() without the kiocb and iovec set-up of ->write_iter() */
static ssize_t user_events_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct iov_iter i;
	int idx;

	if (unlikely(count < sizeof(idx) ||
		     get_user(idx, (int __user *)ubuf)))
		return -EFAULT;

	iov_iter_ubuf(&i, ITER_SOURCE, (char __user *)ubuf + sizeof(idx),
		      count - sizeof(idx));

	return user_events_write_core(file, idx, &i);
}

/* ------------------------------------------------------------------ */
/* Decoded text output (D10)                                           */
/* ------------------------------------------------------------------ */

static void user_event_print_hex(struct trace_seq *s, const u8 *data,
				 u32 size)
{
	u32 i;

	for (i = 0; i < size; i++)
		trace_seq_printf(s, "%02x", data[i]);
}

/* Prints the data a __data_loc or __rel_loc field points to */
static void user_event_print_loc(struct trace_seq *s,
				 const struct user_field *f,
				 void *rec, int rec_size)
{
	u32 loc = get_unaligned((u32 *)(rec + f->offset));
	u32 offset = loc & 0xffff, size = loc >> 16;
	u32 start = offset;

	if (f->kind == USER_FIELD_REL_LOC)
		start += f->offset + sizeof(loc);

	if ((u64)start + size > rec_size) {
		trace_seq_puts(s, "<bad>");
		return;
	}

	if (f->is_char)
		trace_seq_printf(s, "%.*s", size, (char *)rec + start);
	else
		user_event_print_hex(s, rec + start, size);
}

static void user_event_print_number(struct trace_seq *s,
				    const struct user_field *f, void *pos)
{
	u64 val;

	switch (f->size) {
	case 1:
		val = *(u8 *)pos;
		if (f->is_signed) {
			trace_seq_printf(s, "%d", *(s8 *)pos);
			return;
		}
		break;
	case 2:
		val = get_unaligned((u16 *)pos);
		if (f->is_signed) {
			trace_seq_printf(s, "%d", (s16)val);
			return;
		}
		break;
	case 4:
		val = get_unaligned((u32 *)pos);
		if (f->is_signed) {
			trace_seq_printf(s, "%d", (s32)val);
			return;
		}
		break;
	default:
		val = get_unaligned((u64 *)pos);
		if (f->is_signed) {
			trace_seq_printf(s, "%lld", (s64)val);
			return;
		}
		break;
	}

	trace_seq_printf(s, "%llu", val);
}

static enum print_line_t user_event_print_trace(struct trace_iterator *iter,
						int flags,
						struct trace_event *event)
{
	struct user_event *user = container_of(event, struct user_event,
					       call.event);
	struct trace_seq *s = &iter->seq;
	const struct user_field *f;
	void *rec = iter->ent;
	int i;

	trace_seq_printf(s, "%s:", user->tp.name);

	for (i = 0; i < user->desc.count; i++) {
		f = &user->desc.fields[i];

		trace_seq_printf(s, " %s=", f->name);
		if (f->offset + f->size > iter->ent_size) {
			trace_seq_puts(s, "<short>");
			continue;
		}

		switch (f->kind) {
		case USER_FIELD_PLAIN:
			user_event_print_number(s, f, rec + f->offset);
			break;
		case USER_FIELD_STRING:
			trace_seq_printf(s, "%.*s", f->size,
					 (char *)rec + f->offset);
			break;
		case USER_FIELD_DATA_LOC:
		case USER_FIELD_REL_LOC:
			user_event_print_loc(s, f, rec, iter->ent_size);
			break;
		default:
			user_event_print_hex(s, rec + f->offset, f->size);
			break;
		}
	}

	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

/* ------------------------------------------------------------------ */
/* ioctls and file operations                                          */
/* ------------------------------------------------------------------ */

static struct user_event_refs *
user_events_refs(struct user_event_file_info *info)
{
	return rcu_dereference_protected(info->refs,
			lockdep_is_held(&info->group->reg_mutex));
}

static int user_events_ref_find(struct user_event_file_info *info,
				struct user_event *user)
{
	struct user_event_refs *refs = user_events_refs(info);
	u32 i;

	if (!refs)
		return -ENOENT;

	for (i = 0; i < refs->count; i++) {
		if (refs->events[i] == user)
			return i;
	}

	return -ENOENT;
}

/*
 * Makes room for one more index. Growth doubles the array, so that
 * registering many events on one fd costs amortised constant time.
 *
 * Return: the index the next event gets, or -ENOMEM.
 */
static int user_events_ref_reserve(struct user_event_file_info *info)
{
	struct user_event_refs *refs = user_events_refs(info), *new_refs;
	u32 capacity;

	if (refs && refs->count < refs->capacity)
		return refs->count;

	capacity = refs ? refs->capacity * 2 : 8;
	if (capacity > INT_MAX / sizeof(void *))
		return -ENOMEM;

	new_refs = kzalloc(struct_size(new_refs, events, capacity),
			   GFP_KERNEL_ACCOUNT);
	if (!new_refs)
		return -ENOMEM;

	new_refs->capacity = capacity;
	if (refs) {
		memcpy(new_refs->events, refs->events,
		       refs->count * sizeof(refs->events[0]));
		new_refs->count = refs->count;
	}

	rcu_assign_pointer(info->refs, new_refs);
	if (refs)
		kfree_rcu(refs, rcu);

	return new_refs->count;
}

/* Publishes a reserved index; the store of the slot comes first */
static void user_events_ref_add(struct user_event_file_info *info,
				struct user_event *user)
{
	struct user_event_refs *refs = user_events_refs(info);

	refs->events[refs->count] = user;
	/* Pairs with smp_load_acquire() in user_events_write_core() */
	smp_store_release(&refs->count, refs->count + 1);
}

/* Steps 1-9 of DIAG_IOCSREG: copy and validate the argument */
static long user_reg_get(struct user_reg __user *ureg, struct user_reg *kreg)
{
	u32 size;
	long ret;

	if (get_user(size, &ureg->size))
		return -EFAULT;

	if (size > PAGE_SIZE)
		return -E2BIG;

	if (size < offsetofend(struct user_reg, write_index))
		return -EINVAL;

	ret = copy_struct_from_user(kreg, sizeof(*kreg), ureg, size);
	if (ret)
		return ret;

	if (kreg->flags & ~(USER_EVENT_REG_MAX - 1))
		return -EINVAL;

	switch (kreg->enable_size) {
	case 4:
		break;
#if BITS_PER_LONG >= 64
	case 8:
		break;
#endif
	default:
		return -EINVAL;
	}

	if (kreg->enable_addr % kreg->enable_size)
		return -EINVAL;

	if (kreg->enable_bit > (kreg->enable_size * BITS_PER_BYTE) - 1)
		return -EINVAL;

	if (kreg->enable_addr != (unsigned long)kreg->enable_addr ||
	    !access_ok((void __user *)(unsigned long)kreg->enable_addr,
		       kreg->enable_size))
		return -EFAULT;

	kreg->size = size;
	return 0;
}

static void __user *user_events_uptr(u64 addr, bool compat)
{
#ifdef CONFIG_COMPAT
	if (compat)
		return compat_ptr((compat_uptr_t)addr);
#endif
	return u64_to_user_ptr(addr);
}

/* DIAG_IOCSREG: all or nothing (D1, D2); reg_mutex held */
static long user_events_ioctl_reg(struct user_event_file_info *info,
				  struct user_reg __user *ureg, bool compat)
{
	struct user_reg reg = {};
	struct user_event_mm *uem;
	struct user_event *user;
	bool created = false;
	char *name;
	u32 index;
	long ret;
	int idx;

	ret = user_reg_get(ureg, &reg);
	if (ret)
		return ret;

	uem = user_event_mm_get_current();
	if (!uem)
		return -ENOMEM;

	if (user_event_mm_has_bit(uem, reg.enable_addr, reg.enable_bit))
		return -EADDRINUSE;

	name = strndup_user(user_events_uptr(reg.name_args, compat),
			    MAX_EVENT_DESC);
	if (IS_ERR(name))
		return PTR_ERR(name);

	ret = user_event_find_or_create(info->group, name, reg.flags, &user,
					&created);
	kfree(name);
	if (ret)
		return ret;

	/* A new event is in no fd yet: spare the walk of this fd's events */
	idx = created ? -ENOENT : user_events_ref_find(info, user);
	if (idx < 0) {
		ret = user_events_ref_reserve(info);
		if (ret < 0)
			goto undo;
		index = ret;
	} else {
		index = idx;
	}

	/* Stored before the enabler exists, so a failure leaves no trace */
	if (copy_to_user(&ureg->write_index, &index, sizeof(index))) {
		ret = -EFAULT;
		goto undo;
	}

	ret = user_event_enabler_create(&reg, user, uem);
	if (ret)
		goto undo;

	/* The enabler holds the lookup reference, the slot takes its own */
	if (idx < 0) {
		user_event_get(user);
		user_events_ref_add(info, user);
	}

	return 0;
undo:
	user_event_put_undo(user, created);
	return ret;
}

/* DIAG_IOCSDEL: deletes every event of the name; reg_mutex held */
static long user_events_ioctl_del(struct user_event_file_info *info,
				  char __user *uname)
{
	struct user_event_group *group = info->group;
	struct hlist_node *tmp;
	struct user_event *user;
	long ret = -ENOENT;
	char *name;

	name = strndup_user(uname, MAX_EVENT_DESC);
	if (IS_ERR(name))
		return PTR_ERR(name);

	mutex_lock(&event_mutex);
	hash_for_each_possible_safe(group->register_table, user, tmp, node,
				    user_event_key(name)) {
		if (strcmp(user->reg_name, name))
			continue;

		if (!user_event_last_ref(user)) {
			ret = -EBUSY;
			break;
		}

		if (user_event_is_persist(user) && !perfmon_capable()) {
			ret = -EPERM;
			break;
		}

		ret = user_event_destroy(user);
		if (ret)
			break;
	}
	mutex_unlock(&event_mutex);

	kfree(name);
	return ret;
}

/* Step 1-2 of DIAG_IOCSUNREG */
static long user_unreg_get(struct user_unreg __user *ureg,
			   struct user_unreg *kreg)
{
	u32 size;
	long ret;

	if (get_user(size, &ureg->size))
		return -EFAULT;

	if (size > PAGE_SIZE)
		return -E2BIG;

	if (size < offsetofend(struct user_unreg, disable_addr))
		return -EINVAL;

	ret = copy_struct_from_user(kreg, sizeof(*kreg), ureg, size);

	/* Reserved fields win over the copy result, like upstream */
	if (kreg->__reserved || kreg->__reserved2)
		return -EINVAL;

	return ret;
}

/* DIAG_IOCSUNREG: stop updating a bit and clear it; reg_mutex held */
static long user_events_ioctl_unreg(struct user_unreg __user *ureg)
{
	struct user_event_enabler *enabler;
	struct user_unreg reg = {};
	struct user_event_mm *uem;
	bool found = false, compat = false;
	unsigned long *values, key;
	long ret;

	ret = user_unreg_get(ureg, &reg);
	if (ret)
		return ret;

	uem = current->mm ? current->mm->user_event_mm : NULL;
	if (!uem)
		return -ENOENT;

	key = user_event_enabler_key(uem, reg.disable_addr, reg.disable_bit);
	mutex_lock(&event_mutex);
	/* RCU: other processes change the table meanwhile */
	rcu_read_lock();
	hash_for_each_possible_rcu(user_event_enabler_table, enabler,
				   hash_link, key) {
		values = ENABLE_BITOPS(enabler);

		if (enabler->uem != uem || enabler->addr != reg.disable_addr ||
		    ENABLE_BIT(enabler) != reg.disable_bit ||
		    test_bit(ENABLE_VAL_FREEING_BIT, values))
			continue;

		set_bit(ENABLE_VAL_FREEING_BIT, values);
		compat = test_bit(ENABLE_VAL_COMPAT_BIT, values);
		found = true;

		/* A pending fault worker frees it when it is done */
		if (!test_bit(ENABLE_VAL_FAULTING_BIT, values))
			user_event_enabler_destroy(enabler);
	}
	rcu_read_unlock();
	mutex_unlock(&event_mutex);

	if (!found)
		return -ENOENT;

	/* Nothing updates the bit any more: leave it cleared */
	return user_event_mm_write_current(reg.disable_addr, reg.disable_bit,
					   compat, false);
}

static long user_events_ioctl_common(struct file *file, unsigned int cmd,
				     void __user *uarg, bool compat)
{
	struct user_event_file_info *info = file->private_data;
	struct user_event_group *group = info->group;
	long ret;

	switch (cmd) {
	case DIAG_IOCSREG:
		mutex_lock(&group->reg_mutex);
		ret = user_events_ioctl_reg(info, uarg, compat);
		mutex_unlock(&group->reg_mutex);
		break;

	case DIAG_IOCSDEL:
		mutex_lock(&group->reg_mutex);
		ret = user_events_ioctl_del(info, uarg);
		mutex_unlock(&group->reg_mutex);
		break;

	case DIAG_IOCSUNREG:
		mutex_lock(&group->reg_mutex);
		ret = user_events_ioctl_unreg(uarg);
		mutex_unlock(&group->reg_mutex);
		break;

	default:
		ret = -ENOTTY;
		break;
	}

	return ret;
}

static long user_events_ioctl(struct file *file, unsigned int cmd,
			      unsigned long uarg)
{
	return user_events_ioctl_common(file, cmd, (void __user *)uarg, false);
}

#ifdef CONFIG_COMPAT
/* D8: 32-bit processes encode a 4-byte pointer in the ioctl numbers */
static long user_events_compat_ioctl(struct file *file, unsigned int cmd,
				     unsigned long uarg)
{
	switch (cmd) {
	case COMPAT_DIAG_IOCSREG:
		cmd = DIAG_IOCSREG;
		break;
	case COMPAT_DIAG_IOCSDEL:
		cmd = DIAG_IOCSDEL;
		break;
	case COMPAT_DIAG_IOCSUNREG:
		cmd = DIAG_IOCSUNREG;
		break;
	}

	return user_events_ioctl_common(file, cmd, compat_ptr(uarg), true);
}
#endif

static int user_events_open(struct inode *node, struct file *file)
{
	struct user_event_file_info *info;
	int ret;

	ret = tracing_check_open_get_tr(NULL);
	if (ret)
		return ret;

	info = kzalloc(sizeof(*info), GFP_KERNEL_ACCOUNT);
	if (!info)
		return -ENOMEM;

	info->group = &init_group;
	file->private_data = info;

	return 0;
}

/* Closing drops the fd's indexes; enablers stay until unregister/exit */
static int user_events_release(struct inode *node, struct file *file)
{
	struct user_event_file_info *info = file->private_data;
	struct user_event_group *group = info->group;
	struct user_event_refs *refs;
	u32 i;

	mutex_lock(&group->reg_mutex);
	refs = user_events_refs(info);
	if (refs) {
		for (i = 0; i < refs->count; i++)
			user_event_put(refs->events[i], false);
	}
	RCU_INIT_POINTER(info->refs, NULL);
	mutex_unlock(&group->reg_mutex);

	/* No writer is left on this file */
	kfree(refs);
	kfree(info);

	return 0;
}

static const struct file_operations user_data_fops = {
	.open		= user_events_open,
	.write		= user_events_write,
	.write_iter	= user_events_write_iter,
	.unlocked_ioctl	= user_events_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= user_events_compat_ioctl,
#endif
	.release	= user_events_release,
};

/* ------------------------------------------------------------------ */
/* dynamic_events: u:NAME fields                                       */
/* ------------------------------------------------------------------ */

static struct user_event *to_user_event(struct dyn_event *ev)
{
	return container_of(ev, struct user_event, devent);
}

/* Creates a persistent event; an existing matching one is left alone */
static int user_event_create(const char *raw_command)
{
	struct user_event_group *group = &init_group;
	struct user_event *user;
	int ret;

	if (!str_has_prefix(raw_command, USER_EVENTS_PREFIX))
		return -ECANCELED;

	raw_command += strlen(USER_EVENTS_PREFIX);
	raw_command = skip_spaces(raw_command);

	mutex_lock(&group->reg_mutex);
	ret = user_event_find_or_create(group, raw_command,
					USER_EVENT_REG_PERSIST, &user, NULL);
	if (!ret)
		user_event_put(user, false);
	mutex_unlock(&group->reg_mutex);

	return ret;
}

static int user_event_show(struct seq_file *m, struct dyn_event *ev)
{
	struct user_event *user = to_user_event(ev);

	seq_printf(m, "%s%s", USER_EVENTS_PREFIX, user->reg_name);
	if (user->args[0])
		seq_printf(m, " %s", user->args);
	seq_putc(m, '\n');

	return 0;
}

/* A non-persistent event always belongs to somebody else */
static bool user_event_is_busy(struct dyn_event *ev)
{
	struct user_event *user = to_user_event(ev);

	if (!user_event_is_persist(user))
		return true;

	return !user_event_last_ref(user) ||
	       trace_event_dyn_busy(&user->call);
}

static int user_event_free(struct dyn_event *ev)
{
	struct user_event *user = to_user_event(ev);

	if (!user_event_last_ref(user))
		return -EBUSY;

	if (user_event_is_persist(user) && !perfmon_capable())
		return -EPERM;

	return user_event_destroy(user);
}

/* Exact fields: a bare name only matches an event without fields */
static bool user_event_match(const char *system, const char *event,
			     int argc, const char **argv, struct dyn_event *ev)
{
	struct user_event *user = to_user_event(ev);
	bool match;
	char *canon;

	if (strcmp(event, user->reg_name))
		return false;

	if (system && strcmp(system, USER_EVENTS_SYSTEM) &&
	    strcmp(system, USER_EVENTS_MULTI_SYSTEM))
		return false;

	if (!argc)
		return !user->args[0];

	canon = user_fields_argv_canon(argc, argv);
	match = canon && !strcmp(canon, user->args);
	kfree(canon);

	return match;
}

/* ------------------------------------------------------------------ */
/* user_events_status                                                  */
/* ------------------------------------------------------------------ */

static int user_event_cmp_name(const void *a, const void *b)
{
	const struct user_event *ua = *(const struct user_event **)a;
	const struct user_event *ub = *(const struct user_event **)b;

	return strcmp(ua->tp.name, ub->tp.name);
}

static int user_seq_show(struct seq_file *m, void *p)
{
	struct user_event_group *group = m->private;
	struct user_event **events, *user;
	unsigned int i, count = 0, busy = 0;
	int bkt;

	mutex_lock(&group->reg_mutex);
	mutex_lock(&event_mutex);

	events = kvmalloc_array(max(current_user_events, 1U), sizeof(*events),
				GFP_KERNEL);
	if (!events) {
		mutex_unlock(&event_mutex);
		mutex_unlock(&group->reg_mutex);
		return -ENOMEM;
	}

	hash_for_each(group->register_table, bkt, user, node) {
		if (!WARN_ON_ONCE(count >= current_user_events))
			events[count++] = user;
	}

	/* D12: a stable order that readers can diff */
	sort(events, count, sizeof(*events), user_event_cmp_name, NULL);

	for (i = 0; i < count; i++) {
		user = events[i];
		seq_puts(m, user->tp.name);

		if (user->status) {
			busy++;
			seq_puts(m, " # Used by");
			if (user->status & EVENT_STATUS_FTRACE)
				seq_puts(m, " ftrace");
			if (user->status & EVENT_STATUS_PERF)
				seq_puts(m, " perf");
			if (user->status & EVENT_STATUS_OTHER)
				seq_puts(m, " other");
		}

		seq_putc(m, '\n');
	}

	mutex_unlock(&event_mutex);
	mutex_unlock(&group->reg_mutex);
	kvfree(events);

	seq_puts(m, "\n");
	seq_printf(m, "Active: %u\n", count);
	seq_printf(m, "Busy: %u\n", busy);

	return 0;
}

static int user_status_open(struct inode *node, struct file *file)
{
	int ret;

	ret = tracing_check_open_get_tr(NULL);
	if (ret)
		return ret;

	return single_open(file, user_seq_show, &init_group);
}

/* No mmap: the 6.1 status page is gone (D14) */
static const struct file_operations user_status_fops = {
	.open		= user_status_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* ------------------------------------------------------------------ */
/* sysctl and init                                                     */
/* ------------------------------------------------------------------ */

static int set_max_user_events_sysctl(struct ctl_table *table, int write,
				      void *buffer, size_t *lenp,
				      loff_t *ppos)
{
	int ret;

	mutex_lock(&event_mutex);
	ret = proc_douintvec(table, write, buffer, lenp, ppos);
	mutex_unlock(&event_mutex);

	return ret;
}

static struct ctl_table user_event_sysctls[] = {
	{
		.procname	= "user_events_max",
		.data		= &max_user_events,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= set_max_user_events_sysctl,
	},
	{}
};

static int __init trace_events_user_init(void)
{
	struct dentry *edata;
	int ret;

	hash_init(init_group.register_table);

	user_event_enabler_cache = KMEM_CACHE(user_event_enabler, SLAB_ACCOUNT |
					      SLAB_PANIC);

	ret = tracing_init_dentry();
	if (ret)
		return 0;

	edata = tracefs_create_file("user_events_data", TRACE_MODE_WRITE,
				    NULL, NULL, &user_data_fops);
	if (!edata) {
		pr_warn("Could not create tracefs 'user_events_data' entry\n");
		goto err;
	}

	if (!tracefs_create_file("user_events_status", TRACE_MODE_READ,
				 NULL, &init_group, &user_status_fops)) {
		pr_warn("Could not create tracefs 'user_events_status' entry\n");
		tracefs_remove(edata);
		goto err;
	}

	ret = dyn_event_register(&user_event_dops);
	if (ret)
		pr_warn("user_events could not register with dyn_events\n");

	register_sysctl_init("kernel", user_event_sysctls);

	return 0;
err:
	pr_warn("user_events could not register with tracefs\n");
	return -ENODEV;
}

fs_initcall(trace_events_user_init);

#ifdef CONFIG_USER_EVENTS_KUNIT_TEST
#include "trace_events_user_kunit.c"
#endif
