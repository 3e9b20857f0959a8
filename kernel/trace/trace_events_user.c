// SPDX-License-Identifier: GPL-2.0-only
/*
 * User-space trace events (user_events).
 *
 * A command "name field;field..." describes an event, which becomes a
 * dynamic trace event under events/user_events/ (or
 * events/user_events_multi/ for multi-format events). dynamic_events
 * creates persistent ones with "u:name field;field...".
 *
 * A process registers an event with DIAG_IOCSREG on tracefs
 * user_events_data, together with a user address and a bit number. While
 * a tracer (ftrace, perf) is attached, the kernel keeps the bit set in the
 * memory of every process that registered it, so that the process emits
 * the event, with write() on the same file, only when somebody listens.
 *
 * Enable bits belong to a process (its mm): every thread shares them,
 * fork() copies them, execve() and the exit of the process drop them.
 *
 * References to an event are dropped as soon as their holder goes away
 * (an unregistered bit, a closed file, the last task of a process, a
 * detached tracer), so that a deletion or a re-registration that follows
 * sees the event unused at once.
 *
 * Nothing that a user controls is waited for under a lock that another
 * process needs: a status change only trylocks a process's locks, leaving
 * a busy process, and a bit whose page needs a fault, to the process's
 * worker. A registering thread faults its page in under the locks of its
 * fd and process only where no file system is involved (anonymous
 * memory, shmem, hugetlbfs) and without waiting for a userfaultfd
 * monitor; any other fault happens with no lock of ours held (but for
 * hugetlb pages, which 6.1's gup faults in despite FOLL_NOFAULT).
 *
 * Locks, outermost first:
 *   user_event_file_info.lock (per fd): the fd's array of write indexes.
 *   event_mutex: the event hash and counts, creation and removal of
 *     events, the multi-format id, event status and the fan-out of a
 *     status change. The tracing core already holds it when it calls
 *     class->reg and the dyn_event callbacks; removal takes the core's
 *     trace_types_lock inside it.
 *   user_event_mm.lock (per process): the process's enabler list and
 *     every write of its bits. Under event_mutex only with a trylock.
 *   mmap_lock (read): around bit writes and changes of a process's
 *     enablers; a trylock under event_mutex.
 *   user_event.enablers_lock (per event): the enablers of the event, in
 *     every process; what a status change walks.
 *   user_event_enabler_table_lock (spinlock, no interrupt takes it): the
 *     enabler hash.
 *   user_event_pending_lock (spinlock, no interrupt takes it): the
 *     unreferenced events awaiting destruction. The final put of an event
 *     takes only this lock, so it needs no mutex.
 * RCU-sched protects the per-fd index array and the tracepoint probes on
 * the write path.
 */

#define pr_fmt(fmt) "user_events: " fmt

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
#include <linux/pagemap.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string_helpers.h>
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

/* ---- Types and limits ---- */

#define USER_EVENTS_HASH_BITS		8
#define MAX_EVENT_DESC			512
#define MAX_EVENT_NAME			255
#define MAX_STATIC_STRING		1024
#define MAX_FIELD_TOKENS		4
#define MAX_FAULT_ATTEMPTS		10
/* The worker tries a busy process at every tick for about a second */
#define MAX_BUSY_TICKS			HZ

/* Dynamic locations are 16-bit offsets: static fields end below that */
#define MAX_STATIC_SIZE			65535

/* Status bits of an event, recomputed from the tracepoint's probes */
#define EVENT_STATUS_FTRACE		BIT(0)
#define EVENT_STATUS_PERF		BIT(1)
#define EVENT_STATUS_OTHER		BIT(7)

/*
 * The largest record (header and payload) that an ftrace ring buffer can
 * hold in every time stamp mode: a sub-buffer page less its header (16
 * bytes on 64-bit) and the 8 bytes the ring buffer keeps free, the event
 * header with its length word (8), and the absolute time stamp that some
 * buffers put in front of every event (8).
 */
#define USER_EVENT_FTRACE_MAX_RECORD	(PAGE_SIZE - 40)
#define USER_EVENT_FTRACE_MAX_PAYLOAD	(USER_EVENT_FTRACE_MAX_RECORD - \
					 sizeof(struct trace_entry))

/*
 * perf submits a record of header and payload padded so that, with its
 * 4-byte size word, it ends 8-byte aligned; that is at most
 * PERF_MAX_TRACE_SIZE.
 */
#define USER_EVENT_PERF_MAX_PAYLOAD	(PERF_MAX_TRACE_SIZE - sizeof(u32) - \
					 sizeof(struct trace_entry))

/* The 32-bit encodings of the ioctls (the number encodes a pointer) */
#define COMPAT_DIAG_IOCSREG	_IOWR(DIAG_IOC_MAGIC, 0, compat_uptr_t)
#define COMPAT_DIAG_IOCSDEL	_IOW(DIAG_IOC_MAGIC, 1, compat_uptr_t)
#define COMPAT_DIAG_IOCSUNREG	_IOW(DIAG_IOC_MAGIC, 2, compat_uptr_t)

/**
 * struct user_event_group - The events of one tracing namespace
 * @register_table: Events hashed by their register name (event_mutex)
 * @multi_id: Next id of a multi-format event (event_mutex)
 * @class: The class of its single-format events, with their system
 * @multi_class: The class of its multi-format events, with their system
 *
 * The events of a class differ only in their fields, which the class
 * finds through the event call. Only the init group exists; the
 * structure keeps the door open for namespaces.
 */
struct user_event_group {
	DECLARE_HASHTABLE(register_table, USER_EVENTS_HASH_BITS);
	u64			multi_id;
	struct trace_event_class	class;
	struct trace_event_class	multi_class;
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
 * @fields: The fields in declaration order, at the start of the one
 *	allocation that also holds the tokenised copy of the arguments
 *	(which @fields[].name point into) and the joined types
 * @count: Number of fields
 * @min_size: Sum of the static sizes: the smallest valid payload
 */
struct user_fields {
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
 * struct user_event_fmt - The layout of an event's records, and their type id
 * @call: A call of the format's own, which the core never lists: its event
 *	is registered and holds the type id that the records carry; printing
 *	a record finds it by that id, and the core takes it for the call of
 *	the records (an eprobe names the event it probes through it)
 * @desc: The fields of the records
 * @link: Entry of user_event_kept while @waits (event_mutex)
 * @node: Entry of user_event_kept_names while no event uses it, for an event
 *	of the same name and fields to take it again (event_mutex)
 * @waits: The trace arrays that may hold records of a removed event that
 *	used the format, each with the generation its buffers must pass
 * @nr_waits: Number of @waits
 * @live: An event uses it (event_mutex)
 * @name: The name that records show: the event's tracepoint name
 *
 * An event that is removed while a trace buffer may hold its records
 * leaves its format behind: the type id is not handed to another event
 * and the records stay readable, until every buffer that recorded them
 * has let them go.
 */
struct user_event_fmt {
	struct trace_event_call		call;
	struct user_fields		desc;
	struct list_head		link;
	struct hlist_node		node;
	struct user_event_wait		*waits;
	unsigned int			nr_waits;
	bool				live;
	char				name[];
};

/**
 * struct user_event - One user event
 * @group: Group the event belongs to
 * @reg_name: The name given at registration
 * @args: Canonical field list, "" when there are no fields
 * @fmt: The layout of its records, and their type id
 * @validators: Checks of the dynamic locations, in field order
 * @nr_validators: Number of @validators
 * @tp: The tracepoint; its name is that of @fmt, @reg_name or "name.id"
 * @call: The trace event
 * @devent: Entry of the dynamic_events list
 * @node: Entry of the group hash
 * @fields: ftrace fields of @call, which the core defines and frees
 * @pending_link: Entry of user_event_pending while nothing references
 *	the event (user_event_pending_lock); empty otherwise
 * @refcnt: References: fds, enablers, tracers, lookups, PERSIST self.
 *	An unreferenced event keeps a count of 1 for the pending list.
 * @reg_flags: USER_EVENT_REG_* given at creation
 * @status: EVENT_STATUS_* bits (written under event_mutex)
 * @match_nomem: A dynamic_events delete could not compare the fields for
 *	lack of memory (event_mutex)
 * @enablers: The enablers of every process that registered the event:
 *	what a status change writes (@enablers_lock)
 * @enablers_lock: Protects @enablers; taken inside the mmap_lock of a
 *	process, and under event_mutex by the status change
 *
 * The validators and the strings follow the structure in the same
 * allocation.
 */
struct user_event {
	struct user_event_group		*group;
	char				*reg_name;
	char				*args;
	struct user_event_fmt		*fmt;
	struct user_event_validator	*validators;
	int				nr_validators;
	struct tracepoint		tp;
	struct trace_event_call		call;
	struct dyn_event		devent;
	struct hlist_node		node;
	struct list_head		fields;
	struct list_head		pending_link;
	refcount_t			refcnt;
	u16				reg_flags;
	u8				status;
	bool				match_nomem;
	struct list_head		enablers;
	struct mutex			enablers_lock;	/* see above */
};

/**
 * struct user_event_mm - The enable bits of one process
 * @enablers: The enablers, oldest first. They change under @lock and the
 *	mmap_lock of @mm held for reading, so that fork(), which holds the
 *	mmap_lock for writing while it copies the memory, sees them stable;
 *	once no task uses @mm, under @lock alone
 * @mm: The process's mm, which owns the structure
 * @lock: Serialises changes of @enablers and every write of a bit of
 *	this process, so that the last write of a bit is the current state.
 *	Nobody holds it while waiting for a fault of the process.
 * @write_work: Writes the bits marked dirty, faulting their pages in
 * @changes: Changes of its events that marked bits dirty (event_mutex):
 *	a run of @write_work that finds a new one counts anew
 * @seen: The @changes that @attempts and @busy count from (@write_work)
 * @attempts: Runs of @write_work in a row that left bits dirty
 * @busy: Runs of @write_work in a row that found @lock or the mmap_lock
 *	taken
 * @count: Number of @enablers
 * @dead: No task uses @mm any more and the enablers are gone (@lock)
 * @copies: The array of the enablers that fork() copied from the parent
 * @copies_left: Entries of @copies not freed yet; the last one frees it
 */
struct user_event_mm {
	struct list_head		enablers;
	struct mm_struct		*mm;
	struct mutex			lock;	/* see @lock above */
	struct delayed_work		write_work;
	unsigned int			changes;
	unsigned int			seen;
	unsigned int			attempts;
	unsigned int			busy;
	unsigned int			count;
	bool				dead;
	struct user_event_enabler	*copies;
	atomic_t			copies_left;
};

/*
 * Enabler values: the bit number in bits 0-5, then flags. COMPAT marks a
 * 32-bit value on a 64-bit kernel, DIRTY a bit that the process's worker
 * must write again, COPY an entry of user_event_mm.copies instead of a
 * slab object. A fork's copy takes all of them, and is a COPY.
 */
#define ENABLE_VAL_BIT_MASK		0x3fUL
#define ENABLE_VAL_COMPAT_BIT		6
#define ENABLE_VAL_DIRTY_BIT		7
#define ENABLE_VAL_COPY_BIT		8

/**
 * struct user_event_enabler - A bit kept up to date in a process
 * @mm_link: Entry of user_event_mm.enablers
 * @event_link: Entry of user_event.enablers
 * @hash_link: Entry of user_event_enabler_table, by process, address and
 *	bit
 * @uem: Process of this enabler
 * @event: Event whose state the bit reflects (holds a reference)
 * @addr: User address given at registration
 * @values: Bit number and ENABLE_VAL_* flags
 *
 * An enabler is reachable only through lists whose locks its removal
 * takes: it is freed at once.
 */
struct user_event_enabler {
	struct list_head		mm_link;
	struct list_head		event_link;
	struct hlist_node		hash_link;
	struct user_event_mm		*uem;
	struct user_event		*event;
	unsigned long			addr;
	unsigned long			values;
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
 * @lock: Serialises the registrations made through the fd
 * @refs: Registered events, NULL before the first registration
 */
struct user_event_file_info {
	struct user_event_group		*group;
	struct mutex			lock;	/* see @lock above */
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

static struct user_event_group init_group;

/*
 * Number of events, and of formats kept for the records of removed events,
 * and its limit, all under event_mutex
 */
static unsigned int current_user_events;
static unsigned int max_user_events = 32768;

/* Enablers of one process at most, beyond that -ENOSPC */
static unsigned int max_user_event_enablers = 65536;

/*
 * A removed event's format stays while a trace buffer may hold its records.
 * Each trace array that recorded such records is followed in generations:
 * formats kept from now on wait for its current generation, which is
 * closed (its buffers marked) once the one before has passed. A
 * generation passes when each per-CPU buffer of the trace array has let
 * go of what it held at the mark (overwritten, read or cleared), or the
 * trace array is gone.
 */
#define USER_EVENT_KEPT_INTERVAL	HZ

/**
 * struct user_event_mark - Where the buffers of a trace array stood on a CPU
 * @reset: For each of its two buffers (the trace and the snapshot buffer,
 *	which swap) that held records, the number of its last reset; 0: none
 * @end: The count of records that buffer had committed then
 *
 * A buffer counts the records it commits from its last reset, and lets
 * the oldest go first. It holds no record of the mark's time once it has
 * let @end of them go, or once it has another reset number: it was reset
 * again, or held nothing then. The counts are compared as distances, so
 * that they may wrap (32-bit).
 */
struct user_event_mark {
	unsigned long	reset[2];
	unsigned long	end[2];
};

/**
 * struct user_event_tr - A trace array that holds records of removed events
 * @link: Entry of user_event_trs (event_mutex)
 * @tr: The trace array; only compared once it may be gone
 * @marks: For each possible CPU, where its buffers stood at the last mark
 * @gen: The generation that formats kept from now on wait for; the one
 *	before is marked and waits, unless @passed has reached it
 * @passed: The last generation whose records its buffers all let go
 * @refs: Waits of formats on it
 * @wanted: A format waits for @gen
 * @gone: The trace array was deleted, with its buffers
 */
struct user_event_tr {
	struct list_head	link;
	struct trace_array	*tr;
	struct user_event_mark	*marks;
	unsigned long		gen;
	unsigned long		passed;
	unsigned int		refs;
	bool			wanted;
	bool			gone;
};

/**
 * struct user_event_wait - A trace array a kept format waits for
 * @utr: The trace array
 * @gen: The generation it must pass
 */
struct user_event_wait {
	struct user_event_tr	*utr;
	unsigned long		gen;
};

static LIST_HEAD(user_event_trs);
static LIST_HEAD(user_event_kept);
/* Kept formats of single-format events, by name, for the name to return */
static DEFINE_HASHTABLE(user_event_kept_names, USER_EVENTS_HASH_BITS);
static void user_event_kept_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(user_event_kept_work, user_event_kept_work_fn);

/* Unreferenced non-persistent events waiting for destruction */
static LIST_HEAD(user_event_pending);
static DEFINE_SPINLOCK(user_event_pending_lock);
static void user_event_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(user_event_reap_work, user_event_reap);

/*
 * Every enabler by process, address and bit: the duplicate check of a
 * registration must not walk a list of thousands of enablers.
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

/* ---- Command parsing and canonical matching ---- */

/* Pure helpers, on a struct user_fields: the KUnit suite calls them alone */

/*
 * Why a command is refused. The message goes to tracefs error_log with
 * the command and a caret under the offending text.
 */
enum user_event_err_type {
	USER_EVENT_ERR_NAME_EMPTY,
	USER_EVENT_ERR_NAME_LONG,
	USER_EVENT_ERR_NAME_ID_LONG,
	USER_EVENT_ERR_NAME_CHAR,
	USER_EVENT_ERR_NAME_FLAGS,
	USER_EVENT_ERR_NAME_RESERVED,
	USER_EVENT_ERR_FIELD_WORDS,
	USER_EVENT_ERR_FIELD_NO_NAME,
	USER_EVENT_ERR_FIELD_NAME,
	USER_EVENT_ERR_FIELD_TYPE,
	USER_EVENT_ERR_ARRAY_SIZE,
	USER_EVENT_ERR_FIELD_SIZE,
	USER_EVENT_ERR_STRUCT_SIZE,
	USER_EVENT_ERR_TOO_BIG,
	USER_EVENT_ERR_FIELDS_DIFFER,
	USER_EVENT_ERR_MAX
};

static const char *user_event_err_text[USER_EVENT_ERR_MAX] = {
	[USER_EVENT_ERR_NAME_EMPTY]	= "Missing event name",
	[USER_EVENT_ERR_NAME_LONG]	= "Event name longer than 255 bytes",
	[USER_EVENT_ERR_NAME_ID_LONG]	= "Event name with its .<id> longer than 255 bytes",
	[USER_EVENT_ERR_NAME_CHAR]	= "Event name with '/', a space or a control character",
	[USER_EVENT_ERR_NAME_FLAGS]	= "No flags may follow the event name",
	[USER_EVENT_ERR_NAME_RESERVED]	= "Event name taken by the system directory",
	[USER_EVENT_ERR_FIELD_WORDS]	= "Field of more than 4 words",
	[USER_EVENT_ERR_FIELD_NO_NAME]	= "Field without a name",
	[USER_EVENT_ERR_FIELD_NAME]	= "Field name must be a C identifier",
	[USER_EVENT_ERR_FIELD_TYPE]	= "Unknown field type",
	[USER_EVENT_ERR_ARRAY_SIZE]	= "Array size must be 1 to 1024",
	[USER_EVENT_ERR_FIELD_SIZE]	= "Only a struct field takes a size",
	[USER_EVENT_ERR_STRUCT_SIZE]	= "Struct size must be 1 to what a tracer can record",
	[USER_EVENT_ERR_TOO_BIG]	= "Fields larger than any tracer can record",
	[USER_EVENT_ERR_FIELDS_DIFFER]	= "Event exists with other fields",
};

/**
 * struct user_event_err - Why and where a command is refused
 * @type: USER_EVENT_ERR_*
 * @pos: Offset of the offending text in the parsed string
 */
struct user_event_err {
	u8	type;
	u16	pos;
};

/* Notes an error in @err, which may be NULL; returns -EINVAL */
static int user_event_err(struct user_event_err *err, u8 type, const char *base, const char *at)
{
	if (err) {
		err->type = type;
		err->pos = min_t(size_t, at - base, U16_MAX);
	}

	return -EINVAL;
}

static bool user_field_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Files of a system directory: an event of that name gets no directory */
static const char * const user_event_reserved_names[] = {
	".", "..", "enable", "filter",
};

/*
 * A name becomes a tracefs directory of the event's system and the key of
 * dynamic_events commands: it must be one path component that neither
 * the shell-like parsing of those commands nor the system directory
 * takes for something else. No text flags exist: "name:anything" is
 * always refused. Return: 0 or -EINVAL, with @err (may be NULL) set.
 */
static int user_event_name_check(const char *name, struct user_event_err *err)
{
	size_t len = strlen(name);
	const char *p;
	int i;

	if (!len)
		return user_event_err(err, USER_EVENT_ERR_NAME_EMPTY, name, name);

	for (p = name; *p; p++) {
		if (*p == ':')
			return user_event_err(err, USER_EVENT_ERR_NAME_FLAGS, name, p);

		if (*p == '/' || isspace(*p) || iscntrl(*p))
			return user_event_err(err, USER_EVENT_ERR_NAME_CHAR, name, p);
	}

	if (len > MAX_EVENT_NAME)
		return user_event_err(err, USER_EVENT_ERR_NAME_LONG, name, name + MAX_EVENT_NAME);

	for (i = 0; i < ARRAY_SIZE(user_event_reserved_names); i++) {
		if (!strcmp(name, user_event_reserved_names[i]))
			return user_event_err(err, USER_EVENT_ERR_NAME_RESERVED, name, name);
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

/*
 * Events whose fixed fields alone are larger than any tracer of this
 * kernel can record could never be written: refuse them. Dynamic
 * locations are 16-bit offsets, so the fixed part ends below 64 KiB too.
 */
static size_t user_event_max_static_size(void)
{
	size_t max = USER_EVENT_FTRACE_MAX_PAYLOAD;

	if (IS_ENABLED(CONFIG_PERF_EVENTS))
		max = max_t(size_t, max, USER_EVENT_PERF_MAX_PAYLOAD);

	return min_t(size_t, max, MAX_STATIC_SIZE);
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

/*
 * Fills kind, size, signedness and print spec of a field from its type.
 * Returns 0, or the USER_EVENT_ERR_* why the type is refused.
 */
static int user_field_set_type(struct user_field *field)
{
	const char *type = field->type;
	const char *bracket;
	int i;

	field->is_signed = type[0] != 'u';
	field->is_char = strstr(type, "char");

	/*
	 * The plain types first, the common ones: none of them is a
	 * location, a struct or an array, which the checks below find.
	 */
	for (i = 0; i < ARRAY_SIZE(user_field_types); i++) {
		if (strcmp(type, user_field_types[i].type))
			continue;

		field->kind = USER_FIELD_PLAIN;
		field->size = user_field_types[i].size;
		field->is_signed = user_field_types[i].is_signed;
		field->fmt = user_field_types[i].fmt;
		return 0;
	}

	if (str_has_prefix(type, "__data_loc ") || str_has_prefix(type, "__rel_loc ")) {
		field->kind = type[2] == 'd' ? USER_FIELD_DATA_LOC : USER_FIELD_REL_LOC;
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
			return USER_EVENT_ERR_FIELD_TYPE;

		if (user_field_array_len(bracket, &field->len))
			return USER_EVENT_ERR_ARRAY_SIZE;

		field->kind = USER_FIELD_STRING;
		field->size = field->len;
		field->fmt = "%s";
		return 0;
	}

	return USER_EVENT_ERR_FIELD_TYPE;
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

/*
 * Joins the tokens of a type with single spaces at *@pos, which moves
 * past the NUL. The tokens and at least one separator after each come
 * from the same command, so the joined types of all fields fit in its
 * length.
 */
static char *user_field_join_type(char **tok, int type_tokens, char **pos)
{
	char *type = *pos, *p = type;
	size_t len;
	int i;

	for (i = 0; i < type_tokens; i++) {
		if (i)
			*p++ = ' ';
		len = strlen(tok[i]);
		memcpy(p, tok[i], len);
		p += len;
	}
	*p++ = '\0';
	*pos = p;

	return type;
}

/*
 * TYPE NAME, or struct X NAME SIZE; the tokens are already split and
 * point into @base, the string whose offsets errors report. The type is
 * joined at *@types.
 */
static int user_field_parse(char **tok, int n, struct user_field *field,
			    const char *base, char **types,
			    struct user_event_err *err)
{
	int type_tokens = user_field_type_tokens(tok, n);
	int type_err;
	u32 size;

	if (n < type_tokens)
		return user_event_err(err, USER_EVENT_ERR_FIELD_TYPE, base, tok[0]);

	if (n == type_tokens)
		return user_event_err(err, USER_EVENT_ERR_FIELD_NO_NAME, base, tok[0]);

	field->type = user_field_join_type(tok, type_tokens, types);
	field->name = tok[type_tokens];
	if (!user_field_name_valid(field->name))
		return user_event_err(err, USER_EVENT_ERR_FIELD_NAME, base, field->name);

	/* A type error is in the last word of the type: "char[0]" */
	type_err = user_field_set_type(field);
	if (type_err)
		return user_event_err(err, type_err, base, tok[type_tokens - 1]);

	n -= type_tokens + 1;
	if (field->kind != USER_FIELD_STRUCT) {
		if (n)
			return user_event_err(err, USER_EVENT_ERR_FIELD_SIZE,
					      base, tok[type_tokens + 1]);
		return 0;
	}

	/* A size that could never fit a record is an error */
	if (n != 1 || kstrtou32(tok[type_tokens + 1], 10, &size) ||
	    !size || size > user_event_max_static_size())
		return user_event_err(err, USER_EVENT_ERR_STRUCT_SIZE, base,
				      n ? tok[type_tokens + 1] : field->name);

	field->size = size;
	return 0;
}

/*
 * Cuts the field at @*pos into its words: every ';', space and tab up to
 * the end of the field becomes a NUL, and @*pos moves past the field's
 * ';', or to NULL after the last field. Returns the number of words, or
 * -1 with @*extra at a word past MAX_FIELD_TOKENS: the field is then cut
 * only up to that word, and the caller must stop.
 */
static int user_field_split(char **pos, char **tok, char **extra)
{
	bool in_word = false;
	char *p = *pos;
	int n = 0;

	for (;; p++) {
		if (*p == ';' || !*p) {
			*pos = *p ? p + 1 : NULL;
			*p = '\0';
			return n;
		}

		if (user_field_is_space(*p)) {
			*p = '\0';
			in_word = false;
		} else if (!in_word) {
			in_word = true;
			if (n == MAX_FIELD_TOKENS) {
				*extra = p;
				return -1;
			}
			tok[n++] = p;
		}
	}
}

/* Frees what user_fields_parse() allocated and zeroes @desc */
static void user_fields_free(struct user_fields *desc)
{
	kfree(desc->fields);
	memset(desc, 0, sizeof(*desc));
}

/*
 * Parses "field;field..." (or NULL) into @desc, which user_fields_free()
 * releases. Any run of spaces or tabs separates tokens, a ';' separates
 * fields and empty fields are ignored. Fields are packed after the common
 * header; their static sizes must add up to a payload that some tracer
 * can record. Return: 0, -ENOMEM, or -EINVAL with @err (may be NULL) set.
 */
static int user_fields_parse(const char *args, struct user_fields *desc, struct user_event_err *err)
{
	char *buf, *cur, *tok[MAX_FIELD_TOKENS], *p, *types;
	u32 offset = sizeof(struct trace_entry);
	int ret, n, max = 0;
	bool empty = true;
	size_t len, size;

	memset(desc, 0, sizeof(*desc));
	if (!args || !*args)
		return 0;

	/* Empty fields take no room: an event keeps its list */
	for (p = (char *)args; *p; p++) {
		if (*p == ';') {
			max += !empty;
			empty = true;
		} else if (!user_field_is_space(*p)) {
			empty = false;
		}
	}
	max += !empty;
	len = p - args + 1;

	/* The fields, then the tokenised copy, then the joined types */
	size = size_add(array_size(max, sizeof(*desc->fields)), array_size(2, len));
	desc->fields = kzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!desc->fields)
		return -ENOMEM;
	buf = (char *)(desc->fields + max);
	memcpy(buf, args, len);
	types = buf + len;

	cur = buf;
	while (cur) {
		struct user_field *f = &desc->fields[desc->count];

		n = user_field_split(&cur, tok, &p);
		if (n < 0) {
			ret = user_event_err(err, USER_EVENT_ERR_FIELD_WORDS, buf, p);
			goto fail;
		}

		if (!n)
			continue;

		desc->count++;
		ret = user_field_parse(tok, n, f, buf, &types, err);
		if (ret)
			goto fail;

		f->offset = offset;
		offset += f->size;
		if (offset - sizeof(struct trace_entry) > user_event_max_static_size()) {
			ret = user_event_err(err, USER_EVENT_ERR_TOO_BIG, buf, tok[0]);
			goto fail;
		}
	}

	desc->min_size = offset - sizeof(struct trace_entry);
	return 0;
fail:
	user_fields_free(desc);
	return ret;
}

/*
 * Appends @str to @buf, of @len bytes, at @pos as far as it fits, NUL
 * terminated, and returns the position after the whole of @str: a first
 * pass with @len 0 measures, as with snprintf(), but without its cost.
 */
static int user_fields_cat(char *buf, int len, int pos, const char *str)
{
	int n = strlen(str);

	if (pos + n < len) {
		memcpy(buf + pos, str, n);
		buf[pos + n] = '\0';
	} else if (pos < len) {
		memcpy(buf + pos, str, len - pos - 1);
		buf[len - 1] = '\0';
	}

	return pos + n;
}

/*
 * Prints the canonical form of a field list into @buf (NULL when @len is
 * 0) and returns its whole length, as snprintf(). The form is "TYPE
 * NAME[ SIZE]" per field, joined by "; ": what dynamic_events shows and
 * what matching compares, so that every spelling of the same fields
 * matches.
 */
static int user_fields_canon(const struct user_fields *desc, char *buf, int len)
{
	const struct user_field *f;
	int i, pos = 0;

	if (len)
		buf[0] = '\0';

	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];
		if (i)
			pos = user_fields_cat(buf, len, pos, "; ");
		pos = user_fields_cat(buf, len, pos, f->type);
		pos = user_fields_cat(buf, len, pos, " ");
		pos = user_fields_cat(buf, len, pos, f->name);
		if (f->kind == USER_FIELD_STRUCT)
			pos += snprintf(pos < len ? buf + pos : NULL,
					pos < len ? len - pos : 0, " %u", f->size);
	}

	return pos;
}

/*
 * Whether two field lists have the same canonical form: the same types,
 * names and struct sizes in the same order.
 */
static bool user_fields_equal(const struct user_fields *a, const struct user_fields *b)
{
	const struct user_field *fa, *fb;
	int i;

	if (a->count != b->count)
		return false;

	for (i = 0; i < a->count; i++) {
		fa = &a->fields[i];
		fb = &b->fields[i];
		if (strcmp(fa->name, fb->name) || strcmp(fa->type, fb->type) ||
		    (fa->kind == USER_FIELD_STRUCT && fa->size != fb->size))
			return false;
	}

	return true;
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

/* Prints the "print fmt" of a field list, as user_fields_canon() its form */
static int user_fields_print_fmt(const struct user_fields *desc, char *buf, int len)
{
	const struct user_field *f;
	int i, pos;

	pos = user_fields_cat(buf, len, 0, "\"");
	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];
		if (i)
			pos = user_fields_cat(buf, len, pos, " ");
		pos = user_fields_cat(buf, len, pos, f->name);
		pos = user_fields_cat(buf, len, pos, "=");
		pos = user_fields_cat(buf, len, pos, f->fmt);
	}
	pos = user_fields_cat(buf, len, pos, "\"");

	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];
		if (f->kind == USER_FIELD_DATA_LOC && f->is_char) {
			pos = user_fields_cat(buf, len, pos, ", __get_str(");
		} else if (f->kind == USER_FIELD_REL_LOC && f->is_char) {
			pos = user_fields_cat(buf, len, pos, ", __get_rel_str(");
		} else {
			pos = user_fields_cat(buf, len, pos, ", REC->");
			pos = user_fields_cat(buf, len, pos, f->name);
			continue;
		}
		pos = user_fields_cat(buf, len, pos, f->name);
		pos = user_fields_cat(buf, len, pos, ")");
	}

	return pos;
}

/*
 * Canonical form of an argv (dynamic_events delete).
 * Return: the form, or an ERR_PTR(): -ENOMEM, or the parse error.
 */
static char *user_fields_argv_canon(int argc, const char * const *argv)
{
	struct user_fields desc;
	char *args, *canon;
	int i, len = 1, ret;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;

	args = kzalloc(len, GFP_KERNEL);
	if (!args)
		return ERR_PTR(-ENOMEM);

	for (i = 0; i < argc; i++) {
		strcat(args, argv[i]);
		strcat(args, " ");
	}

	ret = user_fields_parse(args, &desc, NULL);
	kfree(args);
	if (ret)
		return ERR_PTR(ret);

	canon = user_fields_sprint(&desc, user_fields_canon);
	user_fields_free(&desc);

	return canon ?: ERR_PTR(-ENOMEM);
}

/* ---- Event lifetime: create, find, get/put, auto-delete, destroy ---- */

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

/* Takes a reference of an event the caller already holds one of */
static void user_event_get(struct user_event *user)
{
	refcount_inc(&user->refcnt);
}

/*
 * Takes a reference of an event that may be unreferenced and waiting for
 * destruction: its count of 1 then becomes the caller's.
 */
static void user_event_get_revive(struct user_event *user)
{
	lockdep_assert_held(&event_mutex);

	spin_lock(&user_event_pending_lock);
	if (!list_empty(&user->pending_link))
		list_del_init(&user->pending_link);
	else
		refcount_inc(&user->refcnt);
	spin_unlock(&user_event_pending_lock);
}

/*
 * The last reference of a non-persistent event keeps the count at 1 and
 * puts the event on the pending list, from which a work item destroys it
 * (or a tracer revives it). The put itself needs no mutex: it happens in
 * class->reg(), where an event call cannot be removed, and when a process
 * exits or execs.
 */
static void user_event_put(struct user_event *user)
{
	if (refcount_dec_not_one(&user->refcnt))
		return;

	/* The last one, unless user_event_get_revive() comes first */
	spin_lock(&user_event_pending_lock);
	if (refcount_dec_not_one(&user->refcnt)) {
		spin_unlock(&user_event_pending_lock);
		return;
	}

	if (!WARN_ONCE(user_event_is_persist(user),
		       "user_events: persistent event %s unreferenced\n", user->tp.name))
		list_add_tail(&user->pending_link, &user_event_pending);
	spin_unlock(&user_event_pending_lock);

	mod_delayed_work(system_wq, &user_event_reap_work, 0);
}

/*
 * Nothing but the pending list, or the self reference of a persistent
 * event, holds it: it may be deleted.
 */
static bool user_event_unreferenced(struct user_event *user)
{
	bool pending;

	lockdep_assert_held(&event_mutex);

	if (user_event_is_persist(user))
		return refcount_read(&user->refcnt) == 1;

	spin_lock(&user_event_pending_lock);
	pending = !list_empty(&user->pending_link);
	spin_unlock(&user_event_pending_lock);

	return pending;
}

static struct list_head *user_event_get_fields(struct trace_event_call *call)
{
	struct user_event *user = call->data;

	return &user->fields;
}

/* Whether a write must check the dynamic location of a field */
static bool user_field_is_dynamic(const struct user_field *f)
{
	return f->kind == USER_FIELD_DATA_LOC || f->kind == USER_FIELD_REL_LOC;
}

static int user_fields_nr_validators(const struct user_fields *desc)
{
	int i, n = 0;

	for (i = 0; i < desc->count; i++)
		n += user_field_is_dynamic(&desc->fields[i]);

	return n;
}

/* Fills the validators of the dynamic locations at @mem. Return: the end */
static void *user_event_build_validators(struct user_event *user, void *mem)
{
	struct user_fields *desc = &user->fmt->desc;
	struct user_event_validator *v = mem;
	struct user_field *f;
	int i;

	user->validators = v;
	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];
		if (!user_field_is_dynamic(f))
			continue;

		v->offset = f->offset;
		v->kind = f->kind;
		v->nul = f->is_char;
		v++;
	}
	user->nr_validators = v - user->validators;

	return v;
}

/*
 * The core defines the fields of an event when it makes its directory,
 * and frees them when it removes the event.
 */
static int user_event_define_fields(struct trace_event_call *call)
{
	struct user_event *user = call->data;
	struct ftrace_event_field *field;
	struct user_field *f;
	int i, ret;

	for (i = 0; i < user->fmt->desc.count; i++) {
		f = &user->fmt->desc.fields[i];
		ret = trace_define_field(call, f->type, f->name, f->offset,
					 f->size, f->is_signed, FILTER_OTHER);
		if (ret)
			return ret;

		/* The helper leaves the length of a char[N] out: the newest */
		field = list_first_entry(&user->fields, struct ftrace_event_field, link);
		field->len = f->len;
	}

	return 0;
}

static void user_event_release_mem(struct user_event *user)
{
	mutex_destroy(&user->enablers_lock);
	kvfree(user);
}

/*
 * Events belong to root whoever registered them first. Adding and
 * removing the files of an event looks names up in tracefs directories
 * that only root may search: that runs with fsuid root.
 */
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

/* ---- Formats kept for the records of removed events ---- */

static enum print_line_t user_event_print_trace(struct trace_iterator *iter,
						int flags,
						struct trace_event *event);
static enum print_line_t user_event_print_call(struct trace_iterator *iter,
					       int flags,
					       struct trace_event *event);

/* Of a format's type id: the trace file prints a record through it */
static struct trace_event_functions user_event_funcs = {
	.trace = user_event_print_trace,
};

/* Of the copy of that type id in an event call, which tp_printk uses */
static struct trace_event_functions user_event_call_funcs = {
	.trace = user_event_print_call,
};

/*
 * A new format named @name, of the system of @class, with a type id; @desc
 * moves into it. Return: the format, or an ERR_PTR: -ENOMEM, or -ENODEV
 * when the tracing core has no type id left.
 */
static struct user_event_fmt *user_event_fmt_new(const char *name,
						 struct trace_event_class *class,
						 struct user_fields *desc)
{
	size_t len = strlen(name) + 1;
	struct user_event_fmt *fmt;

	fmt = kzalloc(struct_size(fmt, name, len), GFP_KERNEL_ACCOUNT);
	if (!fmt)
		return ERR_PTR(-ENOMEM);

	memcpy(fmt->name, name, len);
	INIT_LIST_HEAD(&fmt->link);
	INIT_HLIST_NODE(&fmt->node);
	fmt->desc = *desc;
	memset(desc, 0, sizeof(*desc));
	fmt->live = true;

	fmt->call.class = class;
	fmt->call.name = fmt->name;
	fmt->call.flags = TRACE_EVENT_FL_DYNAMIC;

	/* Printable once registered: complete it first */
	fmt->call.event.funcs = &user_event_funcs;
	if (!register_trace_event(&fmt->call.event)) {
		user_fields_free(&fmt->desc);
		kfree(fmt);
		return ERR_PTR(-ENODEV);
	}

	return fmt;
}

static void user_event_fmt_free(struct user_event_fmt *fmt)
{
	unregister_trace_event(&fmt->call.event);
	user_fields_free(&fmt->desc);
	kfree(fmt->waits);
	kfree(fmt);
}

static void user_event_fmts_free(struct list_head *fmts)
{
	struct user_event_fmt *fmt, *next;

	list_for_each_entry_safe(fmt, next, fmts, link) {
		user_event_fmt_free(fmt);
		cond_resched();
	}
}

/* An event, or a kept format, less; event_mutex held */
static void user_event_count_dec(void)
{
	if (!WARN_ONCE(!current_user_events, "user_events: event count underflow\n"))
		current_user_events--;
}

/* Whether @tr still exists; trace_types_lock held */
static bool user_event_tr_exists(struct trace_array *tr)
{
	struct trace_array *t;

	list_for_each_entry(t, &ftrace_trace_arrays, list) {
		if (t == tr)
			return true;
	}

	return false;
}

/* Records that @buffer let go on @cpu since its last reset */
static unsigned long user_event_buffer_gone(struct trace_buffer *buffer, int cpu)
{
	return ring_buffer_overrun_cpu(buffer, cpu) +
	       ring_buffer_read_events_cpu(buffer, cpu);
}

/*
 * Marks what @buffer holds on @cpu in slot @i of @mark; max_lock held. The
 * counts change under our feet: read so that the count marked is at least
 * that of the records it held. Its reset number is read first: a reset
 * after it holds none of them. It holds nothing older when it was reset
 * meanwhile (the count of what it let go fell). A writer overwriting the
 * ring while the counts are read can make them come out empty, but never
 * overwrites the reader page, whose unread records the mark then waits
 * for: the caller looks at that page, which takes a lock of the buffer.
 * Return: the reset number of @buffer if its reader page decides whether
 * it held anything (the mark is dropped if it holds nothing unread), or 0.
 */
static unsigned long user_event_mark_buffer(struct trace_buffer *buffer,
					    int cpu,
					    struct user_event_mark *mark, int i)
{
	unsigned long reset = ring_buffer_reset_seq_cpu(buffer, cpu);
	unsigned long gone = user_event_buffer_gone(buffer, cpu);
	unsigned long held = ring_buffer_entries_cpu(buffer, cpu);
	unsigned long later = user_event_buffer_gone(buffer, cpu);

	if ((long)(later - gone) < 0)
		return 0;

	mark->reset[i] = reset;
	if ((long)held > 0) {
		mark->end[i] = held + later;
		return 0;
	}

	mark->end[i] = later;
	return reset;
}

/*
 * Whether @buffer holds on @cpu nothing that it held at @mark, as far as
 * its counts tell; max_lock held. Records go oldest first, except that a
 * writer never overwrites the page a reader took out of the ring: what it
 * holds may be older than what was overwritten, so once the counts passed
 * the mark, *@reader is set to the reset number of @buffer, whose reader
 * page must hold nothing unread too (else it stays 0). A count that
 * reached the mark moves it up, so that the count, which may wrap on
 * 32-bit, stays past it while the reader page waits.
 */
static bool user_event_buffer_passed(struct trace_buffer *buffer, int cpu,
				     struct user_event_mark *mark,
				     unsigned long *reader)
{
	unsigned long reset = ring_buffer_reset_seq_cpu(buffer, cpu);
	unsigned long gone;
	int i;

	for (i = 0; i < ARRAY_SIZE(mark->reset); i++) {
		if (mark->reset[i] != reset)
			continue;

		gone = user_event_buffer_gone(buffer, cpu);
		if ((long)(gone - mark->end[i]) < 0)
			return false;

		mark->end[i] = gone;
		*reader = reset;
		return true;
	}

	/* Reset since the mark, or empty at it */
	return true;
}

/*
 * Whether the reader page of @buffer on @cpu may hold unread records of
 * the content whose reset number is @reset. When @buffer has another
 * number now (it was reset, or a snapshot of that CPU alone swapped the
 * per-CPU buffers) the answer is yes: the next check tells.
 */
static bool user_event_reader_unread(struct trace_buffer *buffer, int cpu,
				     unsigned long reset)
{
	unsigned long now;
	bool unread = ring_buffer_reader_unread_cpu(buffer, cpu, &now);

	return unread || now != reset;
}

/*
 * Marks, or checks against their mark, both buffers of @tr on @cpu. A
 * snapshot swaps them: max_lock keeps a swap out while their counts are
 * read, and a buffer is known by its reset number. Nothing that takes a
 * lock or fires an event runs under max_lock, whose own slow path fires
 * lock events: an event may trigger a snapshot, which would wait for ever
 * for max_lock. The reader pages are looked at after it. A CPU that
 * passed stays passed: its mark becomes empty.
 */
static bool user_event_tr_mark(struct trace_array *tr, int cpu,
			       struct user_event_mark *mark, bool check)
{
	struct trace_buffer *buffers[ARRAY_SIZE(mark->reset)];
	unsigned long reader[ARRAY_SIZE(mark->reset)] = {};
	bool passed = true;
	bool unread;
	int i;

	if (check && !mark->reset[0] && !mark->reset[1])
		return true;

	if (!check)
		*mark = (struct user_event_mark){};

	local_irq_disable();
	while (!arch_spin_trylock(&tr->max_lock))
		cpu_relax();
	/* Read under max_lock: a swap exchanges them */
	buffers[0] = tr->array_buffer.buffer;
#ifdef CONFIG_TRACER_MAX_TRACE
	buffers[1] = tr->max_buffer.buffer;
#else
	buffers[1] = NULL;
#endif
	for (i = 0; i < ARRAY_SIZE(buffers); i++) {
		if (!buffers[i])
			continue;
		if (!check)
			reader[i] = user_event_mark_buffer(buffers[i], cpu,
							   mark, i);
		else if (!user_event_buffer_passed(buffers[i], cpu, mark,
						   &reader[i]))
			passed = false;
	}
	arch_spin_unlock(&tr->max_lock);
	local_irq_enable();

	for (i = 0; i < ARRAY_SIZE(buffers) && passed; i++) {
		if (!reader[i])
			continue;
		unread = user_event_reader_unread(buffers[i], cpu, reader[i]);
		if (check) {
			passed = !unread;
		} else if (!unread) {
			mark->reset[i] = 0;
			mark->end[i] = 0;
		}
	}

	if (check && passed)
		*mark = (struct user_event_mark){};

	return passed;
}

/* Whether every CPU of @utr passed its mark; trace_types_lock held */
static bool user_event_tr_passed(struct user_event_tr *utr)
{
	bool passed = true;
	int cpu;

	for_each_possible_cpu(cpu)
		passed &= user_event_tr_mark(utr->tr, cpu, &utr->marks[cpu], true);

	return passed;
}

/*
 * Moves @utr on: a deleted trace array passes everything; a marked
 * generation passes once its buffers let go; the current one, which a
 * format waits for, is marked when nothing else waits, and may pass at
 * once (its buffers were cleared). trace_types_lock held. Return: whether
 * a generation passed.
 */
static bool user_event_tr_step(struct user_event_tr *utr)
{
	unsigned long passed = utr->passed;
	int cpu;

	if (utr->gone)
		return false;

	if (!user_event_tr_exists(utr->tr)) {
		utr->gone = true;
		utr->passed = ULONG_MAX;
		return true;
	}

	if (utr->passed + 1 < utr->gen && user_event_tr_passed(utr))
		utr->passed = utr->gen - 1;

	if (utr->passed + 1 == utr->gen && utr->wanted) {
		for_each_possible_cpu(cpu)
			user_event_tr_mark(utr->tr, cpu, &utr->marks[cpu], false);
		utr->wanted = false;
		if (user_event_tr_passed(utr))
			utr->passed = utr->gen;
		utr->gen++;
	}

	return utr->passed != passed;
}

/* Drops the waits of @fmt that are over */
static void user_event_fmt_drop_waits(struct user_event_fmt *fmt)
{
	struct user_event_wait *w = fmt->waits;
	unsigned int i, n = 0;

	for (i = 0; i < fmt->nr_waits; i++) {
		if (w[i].utr->passed >= w[i].gen)
			w[i].utr->refs--;
		else
			w[n++] = w[i];
	}

	fmt->nr_waits = n;
	if (!n) {
		kfree(fmt->waits);
		fmt->waits = NULL;
	}
}

/*
 * A generation passed: takes the kept formats that wait for nothing more
 * off to @free, for the caller to free with user_event_fmts_free().
 * event_mutex held.
 */
static void user_event_kept_drop(struct list_head *free)
{
	struct user_event_fmt *fmt, *next;

	list_for_each_entry_safe(fmt, next, &user_event_kept, link) {
		user_event_fmt_drop_waits(fmt);
		if (fmt->nr_waits)
			continue;

		list_del_init(&fmt->link);
		if (fmt->live)
			continue;

		hash_del(&fmt->node);
		list_add_tail(&fmt->link, free);
		user_event_count_dec();
	}
}

/*
 * Takes the kept formats whose records are gone off to @free, for the
 * caller to free with user_event_fmts_free(). event_mutex held. Return:
 * whether formats still wait.
 */
static bool user_event_kept_reclaim(struct list_head *free)
{
	struct user_event_tr *utr, *utr_next;
	bool passed = false;

	lockdep_assert_held(&event_mutex);

	mutex_lock(&trace_types_lock);
	list_for_each_entry(utr, &user_event_trs, link)
		passed |= user_event_tr_step(utr);
	mutex_unlock(&trace_types_lock);

	if (passed)
		user_event_kept_drop(free);

	list_for_each_entry_safe(utr, utr_next, &user_event_trs, link) {
		if (utr->refs)
			continue;
		list_del(&utr->link);
		kvfree(utr->marks);
		kfree(utr);
	}

	return !list_empty(&user_event_kept);
}

static void user_event_kept_work_fn(struct work_struct *work)
{
	LIST_HEAD(free);
	bool kept;

	mutex_lock(&event_mutex);
	kept = user_event_kept_reclaim(&free);
	mutex_unlock(&event_mutex);

	user_event_fmts_free(&free);

	if (kept)
		queue_delayed_work(system_wq, &user_event_kept_work, USER_EVENT_KEPT_INTERVAL);
}

/* The file of @user in @tr, or NULL; event_mutex held */
static struct trace_event_file *user_event_file(struct user_event *user,
						struct trace_array *tr)
{
	struct trace_event_file *file;

	list_for_each_entry(file, &tr->events, list) {
		if (file->event_call == &user->call)
			return file;
	}

	return NULL;
}

/* The trace array @tr as followed for kept formats, new if need be */
static struct user_event_tr *user_event_tr_get(struct trace_array *tr)
{
	struct user_event_tr *utr;

	list_for_each_entry(utr, &user_event_trs, link) {
		if (utr->tr == tr && !utr->gone)
			return utr;
	}

	utr = kzalloc(sizeof(*utr), GFP_KERNEL);
	if (!utr)
		return NULL;

	utr->marks = kvcalloc(nr_cpu_ids, sizeof(*utr->marks), GFP_KERNEL);
	if (!utr->marks) {
		kfree(utr);
		return NULL;
	}

	utr->tr = tr;
	utr->gen = 1;
	list_add_tail(&utr->link, &user_event_trs);

	return utr;
}

/*
 * The trace arrays whose buffers recorded @user (the core would clear
 * them when it removes the event, for its type id to go to another
 * event): room for the waits of its format, with those trace arrays in
 * the new ones. Return: their number, or -ENOMEM. event_mutex held.
 */
static int user_event_recorded(struct user_event *user,
			       struct user_event_wait **waits)
{
	unsigned int n = user->fmt->nr_waits, k = 0;
	struct trace_event_file *file;
	struct user_event_wait *w;
	struct trace_array *tr;

	list_for_each_entry(tr, &ftrace_trace_arrays, list)
		n++;

	w = kcalloc(n, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;

	list_for_each_entry(tr, &ftrace_trace_arrays, list) {
		file = user_event_file(user, tr);
		if (!file || !test_bit(EVENT_FILE_FL_WAS_ENABLED_BIT, &file->flags))
			continue;

		w[k].utr = user_event_tr_get(tr);
		if (!w[k++].utr) {
			kfree(w);
			return -ENOMEM;
		}
	}

	if (!k) {
		kfree(w);
		w = NULL;
	}
	*waits = w;

	return k;
}

/* Sets or clears the marks of the files of @user that recorded */
static void user_event_mark_recorded(struct user_event *user,
				     const struct user_event_wait *waits,
				     int nr, bool set)
{
	struct trace_event_file *file;
	int i;

	for (i = 0; i < nr; i++) {
		file = user_event_file(user, waits[i].utr->tr);
		if (set)
			set_bit(EVENT_FILE_FL_WAS_ENABLED_BIT, &file->flags);
		else
			clear_bit(EVENT_FILE_FL_WAS_ENABLED_BIT, &file->flags);
	}
}

/*
 * The event of @fmt is removed; @waits holds the @nr trace arrays that
 * recorded it, then room for the waits @fmt had (NULL when none did). The
 * format waits for the current generation of each, besides what it waited
 * for, and goes when it waits for nothing. event_mutex held.
 */
static void user_event_fmt_put(struct user_event_fmt *fmt,
			       struct user_event_wait *waits, int nr, bool multi)
{
	unsigned int i, j, n = nr;
	bool passed = false;
	LIST_HEAD(free);

	fmt->live = false;

	/* Marked now, unless an older generation still waits there */
	mutex_lock(&trace_types_lock);
	for (i = 0; i < nr; i++) {
		waits[i].gen = waits[i].utr->gen;
		waits[i].utr->wanted = true;
		waits[i].utr->refs++;
		passed |= user_event_tr_step(waits[i].utr);
	}
	mutex_unlock(&trace_types_lock);

	/* Older waits on another trace array stay; on the same, the new one will do */
	for (j = 0; nr && j < fmt->nr_waits; j++) {
		for (i = 0; i < nr && waits[i].utr != fmt->waits[j].utr; i++)
			;
		if (i < nr)
			fmt->waits[j].utr->refs--;
		else
			waits[n++] = fmt->waits[j];
	}

	if (nr) {
		kfree(fmt->waits);
		fmt->waits = waits;
		fmt->nr_waits = n;
	}

	if (!fmt->nr_waits) {
		user_event_count_dec();
		user_event_fmt_free(fmt);
	} else {
		if (list_empty(&fmt->link))
			list_add_tail(&fmt->link, &user_event_kept);

		/* Multi-format events are named after their id, never reused */
		if (!multi)
			hash_add(user_event_kept_names, &fmt->node,
				 user_event_key(fmt->name));
	}

	/*
	 * A generation that passed right now (its buffers were empty, or let
	 * go of an older one) ends waits, this format's too: nothing else
	 * would look at them before another generation passes.
	 */
	if (passed) {
		user_event_kept_drop(&free);
		user_event_fmts_free(&free);
	}

	if (!list_empty(&user_event_kept))
		queue_delayed_work(system_wq, &user_event_kept_work,
				   USER_EVENT_KEPT_INTERVAL);
}

/*
 * The kept format of a single-format event of @name with fields @desc,
 * whose records a new event of the same layout may share. event_mutex
 * held.
 */
static struct user_event_fmt *user_event_kept_find(const char *name,
						   const struct user_fields *desc)
{
	struct user_event_fmt *fmt;

	hash_for_each_possible(user_event_kept_names, fmt, node, user_event_key(name)) {
		if (!strcmp(fmt->name, name) && user_fields_equal(&fmt->desc, desc))
			return fmt;
	}

	return NULL;
}

/*
 * Removes an unreferenced event; event_mutex held. Return: 0, or -EBUSY
 * while another event or a tracer of the core holds the event call (a
 * trigger, an eprobe, a histogram variable).
 */
static int user_event_destroy(struct user_event *user)
{
	struct user_event_wait *waits;
	int nr, ret;

	lockdep_assert_held(&event_mutex);

	if (trace_event_dyn_busy(&user->call))
		return -EBUSY;

	/*
	 * The type id of the records is the format's, which stays while
	 * buffers hold them: the core must neither unregister the call's
	 * copy nor clear the buffers whose files mark that they recorded.
	 */
	nr = user_event_recorded(user, &waits);
	if (nr < 0)
		return nr;

	user_event_mark_recorded(user, waits, nr, false);
	user->call.event.funcs = NULL;
	ret = user_event_set_call_visible(user, false);
	if (ret) {
		user->call.event.funcs = &user_event_call_funcs;
		user_event_mark_recorded(user, waits, nr, true);
		kfree(waits);
		return ret;
	}

	dyn_event_remove(&user->devent);
	hash_del(&user->node);

	spin_lock(&user_event_pending_lock);
	list_del(&user->pending_link);
	spin_unlock(&user_event_pending_lock);

	user_event_fmt_put(user->fmt, waits, nr, user_event_is_multi(user));
	user_event_release_mem(user);
	return 0;
}

/* Deletes an event nobody uses; a persistent one takes CAP_PERFMON */
static int user_event_delete(struct user_event *user)
{
	if (!user_event_unreferenced(user))
		return -EBUSY;

	if (user_event_is_persist(user) && !perfmon_capable())
		return -EPERM;

	return user_event_destroy(user);
}

/*
 * Destroys the unreferenced events, one per hold of event_mutex, so that
 * a long list keeps nobody waiting; those still in use by the core wait.
 * Revivals take events off the list meanwhile, under the same spinlock.
 */
static void user_event_reap(struct work_struct *work)
{
	struct user_event *user;
	LIST_HEAD(busy);
	int ret;

	for (;;) {
		mutex_lock(&event_mutex);
		spin_lock(&user_event_pending_lock);
		user = list_first_entry_or_null(&user_event_pending, struct user_event,
						pending_link);
		spin_unlock(&user_event_pending_lock);
		if (!user) {
			mutex_unlock(&event_mutex);
			break;
		}

		ret = user_event_destroy(user);
		if (ret) {
			if (ret != -EBUSY)
				pr_warn_ratelimited("Unable to delete event %s: %d\n",
						    user->tp.name, ret);
			spin_lock(&user_event_pending_lock);
			list_move_tail(&user->pending_link, &busy);
			spin_unlock(&user_event_pending_lock);
		}
		mutex_unlock(&event_mutex);
		cond_resched();
	}

	if (list_empty(&busy))
		return;

	spin_lock(&user_event_pending_lock);
	list_splice(&busy, &user_event_pending);
	spin_unlock(&user_event_pending_lock);
	mod_delayed_work(system_wq, &user_event_reap_work, HZ / 10);
}

static void user_event_enabler_update(struct user_event *user);
struct user_event_payload;
static void user_event_ftrace(struct user_event *user,
			      const struct user_event_payload *data,
			      void *tpdata, bool *faulted);
#ifdef CONFIG_PERF_EVENTS
static void user_event_perf(struct user_event *user,
			    const struct user_event_payload *data,
			    void *tpdata, bool *faulted);
#endif

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

/* Probe attach and detach: keep the enable bits and references in step */
static int user_event_probe_reg(struct user_event *user, void *probe, void *data, bool attach)
{
	int ret;

	if (attach) {
		ret = tracepoint_probe_register(&user->tp, probe, data);
		if (ret)
			return ret;
		user_event_get_revive(user);
	} else {
		tracepoint_probe_unregister(&user->tp, probe, data);
	}

	user_event_update_status(user);
	user_event_enabler_update(user);

	if (!attach)
		user_event_put(user);

	return 0;
}

static int user_event_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct user_event *user = call->data;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		return user_event_probe_reg(user, call->class->probe, data,
					    type == TRACE_REG_REGISTER);
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		return user_event_probe_reg(user, call->class->perf_probe, call,
					    type == TRACE_REG_PERF_REGISTER);
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		break;
#endif
	}

	return 0;
}

/* The fields of each event are in its call: see user_event_get_fields() */
static struct trace_event_fields user_event_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = user_event_define_fields },
	{}
};

static void user_event_class_init(struct trace_event_class *class, const char *system)
{
	INIT_LIST_HEAD(&class->fields);
	class->system = system;
	class->fields_array = user_event_fields_array;
	class->get_fields = user_event_get_fields;
	class->reg = user_event_reg;
	class->probe = user_event_ftrace;
#ifdef CONFIG_PERF_EVENTS
	class->perf_probe = user_event_perf;
#endif
}

/* Registers the event with the tracing core; event_mutex held */
static int user_event_register(struct user_event *user)
{
	struct trace_event_call *call = &user->call;
	int ret;

	call->class = user_event_is_multi(user) ? &user->group->multi_class : &user->group->class;
	/*
	 * Not TRACE_EVENT_FL_TRACEPOINT: the perf core attaches BPF programs
	 * only to tracepoints, kprobes, uprobes and syscalls, and a program
	 * attached to a user event would never run, since writes call the
	 * ftrace and perf probes themselves. Without the flag the attach
	 * fails at once; the event names itself, and its probes are
	 * registered on the embedded tracepoint directly.
	 */
	call->name = user->tp.name;
	call->data = user;
	call->event.type = user->fmt->call.event.type;
	call->event.funcs = &user_event_call_funcs;

	ret = user_event_set_call_visible(user, true);
	if (ret)
		return ret;

	dyn_event_init(&user->devent, &user_event_dops);
	dyn_event_add(&user->devent, call);
	return 0;
}

/* Lengths of the strings of an event, each with its NUL */
struct user_event_strlen {
	size_t	name;
	size_t	args;
	size_t	fmt;
};

/*
 * The strings of an event: the register name, the canonical field list
 * and the print format. Return: their total length.
 */
static size_t user_event_strings_len(const struct user_fields *desc,
				     const char *name,
				     struct user_event_strlen *len)
{
	len->name = strlen(name) + 1;
	len->args = user_fields_canon(desc, NULL, 0) + 1;
	len->fmt = user_fields_print_fmt(desc, NULL, 0) + 1;

	return len->name + len->args + len->fmt;
}

/* Writes the strings of an event at @mem, which has room for them */
static void user_event_set_strings(struct user_event *user, void *mem,
				   const char *name,
				   const struct user_event_strlen *len)
{
	const struct user_fields *desc = &user->fmt->desc;
	char *p = mem;

	user->reg_name = memcpy(p, name, len->name);
	p += len->name;

	user_fields_canon(desc, p, len->args);
	user->args = p;
	p += len->args;

	user_fields_print_fmt(desc, p, len->fmt);
	user->call.print_fmt = p;
}

/* Makes room for an event: kept formats whose records are gone go */
static bool user_event_kept_room(void)
{
	LIST_HEAD(free);

	user_event_kept_reclaim(&free);
	user_event_fmts_free(&free);

	return current_user_events < max_user_events;
}

/*
 * Creates an event of a validated @name, with one reference for the
 * caller; @desc moves into its format when it needs a new one. A
 * single-format event takes the format kept for the records of a removed
 * event of the same name and fields: both decode alike. event_mutex held.
 * Return: 0, -EINVAL when "name.id" of a multi-format event is too long
 * (see @err), -EMFILE over kernel.user_events_max, or another errno.
 */
static int user_event_new(struct user_event_group *group, const char *name,
			  struct user_fields *desc, u16 flags, u32 key,
			  struct user_event **newuser,
			  struct user_event_err *err)
{
	bool multi = flags & USER_EVENT_REG_MULTI_FORMAT;
	char tp_name[MAX_EVENT_NAME + 1];
	struct user_event_fmt *fmt = NULL;
	struct user_event_strlen len;
	struct user_event *user;
	bool kept = false;
	u64 multi_id = 0;
	size_t size;
	int ret;

	lockdep_assert_held(&event_mutex);

	/* Every attempt uses up an id, so that ids are never reused */
	if (multi)
		multi_id = group->multi_id++;
	else
		fmt = user_event_kept_find(name, desc);

	/* A kept format counts already */
	if (fmt)
		kept = true;
	else if (current_user_events >= max_user_events && !user_event_kept_room())
		return -EMFILE;

	if (multi) {
		ret = snprintf(tp_name, sizeof(tp_name), "%s.%llx", name, multi_id);
		/* The ".<id>" suffix must still fit a tracefs directory name */
		if (ret > MAX_EVENT_NAME)
			return user_event_err(err, USER_EVENT_ERR_NAME_ID_LONG, name,
					      name + MAX_EVENT_NAME - (ret - strlen(name)));
	}

	/* Bounded by the length of the command; many fields make it large */
	size = sizeof(*user) + user_event_strings_len(desc, name, &len) +
	       user_fields_nr_validators(desc) * sizeof(struct user_event_validator);
	user = kvzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!user)
		return -ENOMEM;

	user->group = group;
	user->reg_flags = flags;
	INIT_LIST_HEAD(&user->fields);
	INIT_LIST_HEAD(&user->pending_link);
	INIT_LIST_HEAD(&user->enablers);
	mutex_init(&user->enablers_lock);

	if (!fmt) {
		fmt = user_event_fmt_new(multi ? tp_name : name,
					 multi ? &group->multi_class : &group->class, desc);
		if (IS_ERR(fmt)) {
			ret = PTR_ERR(fmt);
			goto free;
		}
	}
	user->fmt = fmt;
	user->tp.name = fmt->name;

	user_event_set_strings(user, user_event_build_validators(user, user + 1),
			       name, &len);

	ret = user_event_register(user);
	if (ret)
		goto free_fmt;

	if (kept) {
		hash_del(&fmt->node);
		fmt->live = true;
	} else {
		current_user_events++;
	}

	/* PERSIST holds a self reference besides the caller's */
	refcount_set(&user->refcnt, user_event_is_persist(user) ? 2 : 1);
	hash_add(group->register_table, &user->node, key);

	*newuser = user;
	return 0;
free_fmt:
	if (!kept)
		user_event_fmt_free(fmt);
free:
	user_event_release_mem(user);
	return ret;
}

/*
 * An unreferenced non-persistent event that only waits for its
 * destruction is gone for anybody who looks it up: destroy it now, so
 * that a new registration of the name starts afresh. Returns false when
 * the core still holds its call and it has to stay.
 */
static bool user_event_drop_unreferenced(struct user_event *user)
{
	lockdep_assert_held(&event_mutex);

	if (user_event_is_persist(user) || !user_event_unreferenced(user))
		return false;

	return !user_event_destroy(user);
}

/* Where the words of a command end: see user_field_split() */
static bool user_event_word_end(char c)
{
	return !c || c == ';' || user_field_is_space(c);
}

/*
 * Logs why a command is refused, under the user_events label. Anybody who
 * may register an event writes to this log, which root reads: it gets the
 * offending word of @parsed only, every byte but printable ASCII and the
 * backslash escaped, and the caret under the offending byte.
 */
static void user_event_log_err(const char *parsed, const struct user_event_err *err)
{
	const unsigned int flags = ESCAPE_HEX | ESCAPE_NAP | ESCAPE_APPEND;
	const char *at = parsed + err->pos, *start = at, *end = at;
	size_t size;
	char *word;
	int pos;

	while (start > parsed && !user_event_word_end(start[-1]))
		start--;
	while (!user_event_word_end(*end))
		end++;

	/* An escaped byte takes four ("\xff") */
	size = (end - start) * 4 + 1;
	word = kmalloc(size, GFP_KERNEL);
	if (!word)
		return;

	/* A backslash too, or "\\x1b" would read as an escaped byte */
	pos = string_escape_mem(start, at - start, word, size, flags, "\\");
	word[string_escape_mem(start, end - start, word, size, flags, "\\")] = '\0';

	tracing_log_err(NULL, "user_events", word, user_event_err_text, err->type, pos);
	kfree(word);
}

/*
 * Looks up the event of @cmd, "name[ field[;field]...]", or creates it
 * (then *@created, if given, becomes true), with one reference for the
 * caller. The same name and fields reuse the event. Different fields give
 * -EADDRINUSE for single-format events and a new event for multi-format
 * ones. error_log shows the word it refuses.
 */
static int user_event_find_or_create(struct user_event_group *group,
				     const char *cmd, u16 flags,
				     struct user_event **out, bool *created)
{
	bool multi = flags & USER_EVENT_REG_MULTI_FORMAT;
	char name_buf[MAX_EVENT_NAME + 1], *name = name_buf;
	struct user_event_err err = {};
	struct user_fields desc;
	struct user_event *user;
	struct hlist_node *tmp;
	const char *args;
	int ret, parse_ret;
	size_t len;
	u32 key;

	/*
	 * The name check refuses a name too long for the buffer; it gets a
	 * copy of its own so that the check can say where.
	 */
	for (args = cmd; *args && !user_field_is_space(*args); args++)
		;
	len = args - cmd;
	if (len < sizeof(name_buf)) {
		memcpy(name_buf, cmd, len);
		name_buf[len] = '\0';
	} else {
		name = kmemdup_nul(cmd, len, GFP_KERNEL);
		if (!name)
			return -ENOMEM;
	}
	if (*args)
		args++;

	ret = user_event_name_check(name, &err);
	if (ret) {
		user_event_log_err(cmd, &err);
		goto out;
	}

	ret = -EPERM;
	if ((flags & USER_EVENT_REG_PERSIST) && !perfmon_capable())
		goto out;

	parse_ret = user_fields_parse(args, &desc, &err);

	mutex_lock(&event_mutex);
	ret = -ENOENT;
	key = user_event_key(name);
	hash_for_each_possible_safe(group->register_table, user, tmp, node, key) {
		if (strcmp(user->reg_name, name) || user_event_is_multi(user) != multi)
			continue;

		if (user_event_drop_unreferenced(user))
			continue;

		/* Not knowing the fields is not a conflict with them */
		if (parse_ret == -ENOMEM) {
			ret = -ENOMEM;
			break;
		}

		if (!parse_ret && user_fields_equal(&user->fmt->desc, &desc)) {
			user_event_get_revive(user);
			*out = user;
			ret = 0;
			break;
		}

		/* A multi-format event with other fields is another event */
		if (multi)
			continue;

		ret = -EADDRINUSE;
		err.type = USER_EVENT_ERR_FIELDS_DIFFER;
		err.pos = 0;
		user_event_log_err(args, &err);
		break;
	}

	if (ret == -ENOENT) {
		if (parse_ret) {
			if (multi)
				group->multi_id++;
			ret = parse_ret;
			if (ret == -EINVAL)
				user_event_log_err(args, &err);
		} else {
			ret = user_event_new(group, name, &desc, flags, key, out, &err);
			if (ret == -EINVAL)
				user_event_log_err(cmd, &err);
			if (!ret && created)
				*created = true;
		}
	}
	mutex_unlock(&event_mutex);

	if (!parse_ret)
		user_fields_free(&desc);
out:
	if (name != name_buf)
		kfree(name);
	return ret;
}

/*
 * Undoes a registration step that took a reference: a new event goes away
 * at once unless something else has attached to it meanwhile, so that a
 * failed registration leaves nothing behind.
 */
static void user_event_put_undo(struct user_event *user, bool created)
{
	unsigned int initial = user_event_is_persist(user) ? 2 : 1;

	mutex_lock(&event_mutex);
	if (created && refcount_read(&user->refcnt) == initial && !user_event_destroy(user)) {
		mutex_unlock(&event_mutex);
		return;
	}
	mutex_unlock(&event_mutex);

	user_event_put(user);
}

/* ---- Enablers: per-process bit lists, bit writes, faults, fork and exit ---- */

static int user_event_enabler_bit(struct user_event_enabler *enabler)
{
	return READ_ONCE(enabler->values) & ENABLE_VAL_BIT_MASK;
}

static bool user_event_enabler_compat(struct user_event_enabler *enabler)
{
	return test_bit(ENABLE_VAL_COMPAT_BIT, &enabler->values);
}

/*
 * Bit operations work on an aligned long. A 32-bit value on a 64-bit
 * kernel is the low or the high half of one, depending on its address
 * and on the byte order.
 */
static void user_event_bit_location(unsigned long *addr, int *bit, bool compat)
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

/*
 * Whether a write fault in @vma involves no file system that could wait
 * for a server or a frozen mount: in anonymous memory, shmem and
 * hugetlbfs (or where nothing is mapped, which fails at once). Such a
 * fault may still wait for memory, and for a shmem page's read from
 * swap. mmap_lock held.
 */
static bool user_event_vma_fs_free(struct vm_area_struct *vma)
{
	return !vma || !vma->vm_file || vma_is_shmem(vma) || is_vm_hugetlb_page(vma);
}

/*
 * Whether a write fault at @addr waits for no file system: where it
 * involves none, or where a private file mapping maps a page already (the
 * write copies it; *@page holds that page meanwhile). A file page that is
 * not mapped needs a read, and a shared file mapping's write its
 * page_mkwrite: either may wait for I/O, a FUSE server or a frozen file
 * system whatever the fault flags ask. Holding the page does not keep it
 * mapped: a thread of the process that drops it before the fault makes
 * the fault read the file again. mmap_lock held.
 */
static bool user_event_fault_safe(struct mm_struct *mm, unsigned long addr,
				  struct page **page)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);

	*page = NULL;
	if (user_event_vma_fs_free(vma))
		return true;

	return !(vma->vm_flags & VM_SHARED) &&
	       get_user_pages_remote(mm, addr, 1, FOLL_NOFAULT, page, NULL, NULL) == 1;
}

/*
 * The gup flags of a write by a registering or unregistering thread, which
 * holds locks that other threads and processes need: it faults the page
 * in itself only where that involves no file system, since another
 * thread could unmap even a mapped file page before the fault, which
 * would then read it. mmap_lock held.
 */
static unsigned int user_event_own_gup_flags(struct mm_struct *mm, unsigned long addr)
{
	return user_event_vma_fs_free(vma_lookup(mm, addr)) ? FOLL_NOWAIT : FOLL_NOFAULT;
}

/*
 * Sets or clears a bit of a process; mmap_lock held. @gup_flags is
 * FOLL_NOFAULT (only a present, writable page will do, but 6.1's gup
 * faults a hugetlb page in all the same) or FOLL_NOWAIT (the page may be
 * faulted in, as long as that waits for no I/O of a file system, no
 * userfaultfd monitor, no FUSE server; so no file page but one a private
 * mapping maps already).
 *
 * Return: 0, -EAGAIN when the page needs a fault (that would wait), or
 * (FOLL_NOWAIT only) -EFAULT when the address is not mapped writable or
 * the fault failed otherwise.
 */
static int user_event_mm_write_bit(struct mm_struct *mm, unsigned long addr,
				   int bit, bool compat, bool set,
				   unsigned int gup_flags)
{
	struct page *page, *held = NULL;
	unsigned long *ptr;
	void *kaddr;
	long ret;

	mmap_assert_locked(mm);
	user_event_bit_location(&addr, &bit, compat);

	if ((gup_flags & FOLL_NOWAIT) && !user_event_fault_safe(mm, addr, &held))
		gup_flags = FOLL_NOFAULT;

	ret = pin_user_pages_remote(mm, addr, 1, FOLL_WRITE | gup_flags, &page, NULL, NULL);
	if (held)
		put_page(held);
	if (ret <= 0)
		return ret && !(gup_flags & FOLL_NOFAULT) ? -EFAULT : -EAGAIN;

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

/*
 * Makes the page of @addr present and writable, as a write of the process
 * would, where that involves no file system and no userfaultfd monitor. The
 * caller holds mmap_lock until it has written the page: no fork() can
 * make it copy-on-write again meanwhile. Return: whether it is writable.
 */
static bool user_event_fault_in_nowait(struct mm_struct *mm, unsigned long addr)
{
	mmap_assert_locked(mm);

	return user_event_vma_fs_free(vma_lookup(mm, addr)) &&
	       get_user_pages_remote(mm, addr, 1, FOLL_WRITE | FOLL_NOWAIT,
				     NULL, NULL, NULL) == 1;
}

/*
 * Writes the current state of the event to the bit of an enabler. Every
 * bit write of a process holds its lock, so that the last write of a bit
 * is never an outdated state.
 */
static int user_event_enabler_write(struct user_event_mm *uem,
				    struct user_event_enabler *enabler,
				    unsigned int gup_flags)
{
	lockdep_assert_held(&uem->lock);

	return user_event_mm_write_bit(uem->mm, enabler->addr,
				       user_event_enabler_bit(enabler),
				       user_event_enabler_compat(enabler),
				       READ_ONCE(enabler->event->status), gup_flags);
}

/*
 * Leaves a bit to the process's worker. The caller makes sure that the
 * structure lives meanwhile: __mmput() cancels the work before it frees it.
 */
static void user_event_enabler_mark(struct user_event_enabler *enabler)
{
	struct user_event_mm *uem = enabler->uem;

	/* A change of the event: the dirty bits get their attempts anew */
	WRITE_ONCE(uem->changes, uem->changes + 1);
	/* The change before the bit: see user_event_mm_write_dirty() */
	smp_mb__before_atomic();
	set_bit(ENABLE_VAL_DIRTY_BIT, &enabler->values);
	mod_delayed_work(system_unbound_wq, &uem->write_work, 0);
}

/*
 * Writes the bits marked dirty; the process's locks held. A bit whose
 * page is on its way stays dirty, unless the run found @attempts
 * earlier runs in a row (MAX_FAULT_ATTEMPTS or more) and no change came
 * since: then, like a bit whose address is not mapped writable, it is
 * left as it is until the next change of its event. A change counts
 * itself before it marks its bits, so a bit found marked is either one of
 * those attempts or sees the change. Return: whether bits are still dirty.
 */
static bool user_event_mm_write_dirty(struct user_event_mm *uem, unsigned int attempts)
{
	struct user_event_enabler *enabler;
	bool dirty = false;
	int ret;

	list_for_each_entry(enabler, &uem->enablers, mm_link) {
		cond_resched();
		if (!test_and_clear_bit(ENABLE_VAL_DIRTY_BIT, &enabler->values))
			continue;

		ret = user_event_enabler_write(uem, enabler, FOLL_NOWAIT);
		if (!ret)
			continue;

		if (ret == -EAGAIN && (attempts < MAX_FAULT_ATTEMPTS ||
				       READ_ONCE(uem->changes) != uem->seen)) {
			set_bit(ENABLE_VAL_DIRTY_BIT, &enabler->values);
			dirty = true;
			continue;
		}

		/* Any process can cause this: no log flood */
		pr_warn_ratelimited("Fault for mm: 0x%p @ 0x%lx event: %s\n",
				    uem->mm, enabler->addr, enabler->event->tp.name);
	}

	return dirty;
}

/*
 * Locks a process for writing its bits without waiting, under event_mutex:
 * a thread of the process may hold its locks while it waits for a fault
 * that the process itself controls.
 */
static bool user_event_mm_trylock(struct user_event_mm *uem)
{
	if (!mmget_not_zero(uem->mm))
		return false;

	if (mutex_trylock(&uem->lock)) {
		if (mmap_read_trylock(uem->mm))
			return true;
		mutex_unlock(&uem->lock);
	}

	mmput_async(uem->mm);
	return false;
}

static void user_event_mm_unlock(struct user_event_mm *uem)
{
	mmap_read_unlock(uem->mm);
	mutex_unlock(&uem->lock);
	/* The last put tears the mm down: not under event_mutex */
	mmput_async(uem->mm);
}

/*
 * The worker of a process: writes the bits that a status change or a
 * fork could not, because the process was busy or the page needed a
 * fault. It waits for nothing that a process controls, neither for its
 * locks nor for a fault (a FUSE server, a userfaultfd monitor), with two
 * exceptions: a thread that drops a private file page which
 * user_event_fault_safe() found mapped makes the fault read the file; and
 * a userfaultfd armed on the page that is being closed makes 6.1's gup
 * retry the fault for as long as no fatal signal is pending, which a
 * kworker never has, while the close waits for our mmap_lock. A busy
 * process is tried again at every tick for MAX_BUSY_TICKS, then once a
 * second, for as long as it is busy. A fault is tried again with a
 * growing delay, and after MAX_FAULT_ATTEMPTS runs in a row that left
 * bits dirty the worker leaves them until the next change.
 */
static void user_event_mm_work(struct work_struct *work)
{
	struct user_event_mm *uem =
		container_of(to_delayed_work(work), struct user_event_mm,
			     write_work);
	unsigned int changes = READ_ONCE(uem->changes);
	bool dirty;

	/* A change since the last run: its bits get their attempts anew */
	if (changes != uem->seen) {
		uem->seen = changes;
		uem->attempts = 0;
		uem->busy = 0;
	}

	if (!user_event_mm_trylock(uem)) {
		/* A process that is gone needs no bits */
		if (!atomic_read(&uem->mm->mm_users))
			return;
		uem->busy++;
		queue_delayed_work(system_unbound_wq, &uem->write_work,
				   uem->busy < MAX_BUSY_TICKS ? 1 : HZ);
		return;
	}

	uem->busy = 0;
	dirty = !uem->dead && user_event_mm_write_dirty(uem, uem->attempts);
	user_event_mm_unlock(uem);

	if (!dirty || uem->attempts >= MAX_FAULT_ATTEMPTS) {
		uem->attempts = 0;
		return;
	}

	uem->attempts++;
	queue_delayed_work(system_unbound_wq, &uem->write_work,
			   min_t(unsigned long, 1UL << uem->attempts, HZ));
}

/*
 * Writes the state of @user to the bit of every process that registered
 * it: what that event's enablers cost, whatever other events have. A busy
 * process, and a bit whose page needs a fault, is left to the process's
 * worker.
 */
static void user_event_enabler_update(struct user_event *user)
{
	struct user_event_enabler *enabler;
	struct user_event_mm *uem = NULL;
	bool locked = false;

	lockdep_assert_held(&event_mutex);

	mutex_lock(&user->enablers_lock);
	list_for_each_entry(enabler, &user->enablers, event_link) {
		cond_resched();
		if (enabler->uem != uem) {
			if (locked)
				user_event_mm_unlock(uem);
			uem = enabler->uem;
			locked = user_event_mm_trylock(uem);
		}

		if (!locked || user_event_enabler_write(uem, enabler, FOLL_NOFAULT))
			user_event_enabler_mark(enabler);
	}
	if (locked)
		user_event_mm_unlock(uem);
	mutex_unlock(&user->enablers_lock);
}

static unsigned long user_event_enabler_key(struct user_event_mm *uem, unsigned long addr, int bit)
{
	return (unsigned long)uem ^ (addr << 6 | bit);
}

/* Whether a process has an enabler at an address and bit */
static struct user_event_enabler *
user_event_mm_find(struct user_event_mm *uem, unsigned long addr, int bit)
{
	unsigned long key = user_event_enabler_key(uem, addr, bit);
	struct user_event_enabler *enabler, *found = NULL;

	spin_lock(&user_event_enabler_table_lock);
	hash_for_each_possible(user_event_enabler_table, enabler, hash_link, key) {
		if (enabler->uem == uem && enabler->addr == addr &&
		    user_event_enabler_bit(enabler) == bit) {
			found = enabler;
			break;
		}
	}
	spin_unlock(&user_event_enabler_table_lock);

	return found;
}

/*
 * Adds an enabler to the table and to its event. The caller adds it to
 * its process, whose lock (or, in a fork, the mmap_lock) it holds.
 */
static void user_event_enabler_link(struct user_event_enabler *enabler)
{
	struct user_event *user = enabler->event;

	spin_lock(&user_event_enabler_table_lock);
	hash_add(user_event_enabler_table, &enabler->hash_link,
		 user_event_enabler_key(enabler->uem, enabler->addr,
					user_event_enabler_bit(enabler)));
	spin_unlock(&user_event_enabler_table_lock);

	mutex_lock(&user->enablers_lock);
	list_add_tail(&enabler->event_link, &user->enablers);
	mutex_unlock(&user->enablers_lock);
}

/* Removes an enabler from its process, the table and its event */
static void user_event_enabler_unlink(struct user_event_enabler *enabler)
{
	struct user_event_mm *uem = enabler->uem;
	struct user_event *user = enabler->event;

	lockdep_assert_held(&uem->lock);

	list_del(&enabler->mm_link);
	WRITE_ONCE(uem->count, uem->count - 1);

	spin_lock(&user_event_enabler_table_lock);
	hash_del(&enabler->hash_link);
	spin_unlock(&user_event_enabler_table_lock);

	mutex_lock(&user->enablers_lock);
	list_del(&enabler->event_link);
	mutex_unlock(&user->enablers_lock);
}

/* Frees an unlinked enabler and drops its event reference */
static void user_event_enabler_free(struct user_event_enabler *enabler)
{
	user_event_put(enabler->event);
	if (!test_bit(ENABLE_VAL_COPY_BIT, &enabler->values))
		kmem_cache_free(user_event_enabler_cache, enabler);
	else if (atomic_dec_and_test(&enabler->uem->copies_left))
		kvfree(enabler->uem->copies);
}

static struct user_event_mm *user_event_mm_alloc(struct mm_struct *mm)
{
	struct user_event_mm *uem;

	uem = kzalloc(sizeof(*uem), GFP_KERNEL_ACCOUNT);
	if (!uem)
		return NULL;

	INIT_LIST_HEAD(&uem->enablers);
	mutex_init(&uem->lock);
	INIT_DELAYED_WORK(&uem->write_work, user_event_mm_work);
	uem->mm = mm;

	return uem;
}

/*
 * Drops every enabler of a process that no task uses any more. The bits
 * are not written, the memory is going away; the event references go at
 * once, before the exit or the execve() is reported.
 */
static void user_event_mm_drop(struct user_event_mm *uem)
{
	struct user_event_enabler *enabler, *next;

	mutex_lock(&uem->lock);
	uem->dead = true;
	list_for_each_entry_safe(enabler, next, &uem->enablers, mm_link) {
		user_event_enabler_unlink(enabler);
		user_event_enabler_free(enabler);
		cond_resched();
	}
	mutex_unlock(&uem->lock);
}

/**
 * user_events_mm_init - Initialise the user_events state of a new mm
 * @mm: The mm, possibly a copy of its parent's
 *
 * The task that gets the new mm, by fork() or execve(), is its first user.
 */
void user_events_mm_init(struct mm_struct *mm)
{
	mm->user_event_mm = NULL;
	atomic_set(&mm->user_event_tasks, 1);
}

/**
 * user_events_fork - Count a new task that shares its parent's mm
 * @p: The new task, past every failure of copy_process()
 * @clone_flags: Its clone flags
 */
void user_events_fork(struct task_struct *p, u64 clone_flags)
{
	if ((clone_flags & CLONE_VM) && p->mm)
		atomic_inc(&p->mm->user_event_tasks);
}

/*
 * Copies one enabler of the parent to the child. Under the event's lock,
 * a status change either finds the copy or has marked the original dirty
 * before it is read here: the child's worker then writes the bit.
 */
static void user_event_enabler_copy(struct user_event_mm *uem,
				    struct user_event_enabler *orig,
				    struct user_event_enabler *copy, bool wipe)
{
	struct user_event *user = orig->event;

	copy->uem = uem;
	copy->event = user;
	copy->addr = orig->addr;
	user_event_get(user);

	mutex_lock(&user->enablers_lock);
	copy->values = READ_ONCE(orig->values) | BIT(ENABLE_VAL_COPY_BIT);
	if (wipe)
		copy->values |= BIT(ENABLE_VAL_DIRTY_BIT);
	list_add_tail(&copy->event_link, &user->enablers);
	mutex_unlock(&user->enablers_lock);

	spin_lock(&user_event_enabler_table_lock);
	hash_add(user_event_enabler_table, &copy->hash_link,
		 user_event_enabler_key(uem, copy->addr,
					user_event_enabler_bit(copy)));
	spin_unlock(&user_event_enabler_table_lock);

	list_add_tail(&copy->mm_link, &uem->enablers);
	uem->count++;
	if (test_bit(ENABLE_VAL_DIRTY_BIT, &copy->values))
		mod_delayed_work(system_unbound_wq, &uem->write_work, 0);
}

/* Whether a child gets the parent's memory at @addr; *@vma: its mapping */
static bool user_event_fork_copies(struct mm_struct *oldmm, unsigned long addr,
				   struct vm_area_struct **vma)
{
	if (!*vma || addr < (*vma)->vm_start || addr >= (*vma)->vm_end)
		*vma = vma_lookup(oldmm, addr);

	return *vma && !((*vma)->vm_flags & VM_DONTCOPY);
}

/**
 * user_events_dup_mmap - Copy the enable bits of a process to its child
 * @mm: The child's mm, which no task uses yet
 * @oldmm: The parent's mm
 *
 * The child gets the same addresses and bits, each with its own event
 * reference, except where it gets no memory (MADV_DONTFORK); memory it
 * gets zeroed (MADV_WIPEONFORK) has its bits written again. Its memory,
 * copied under the same locks, holds the parent's bits. The copies share
 * one allocation, of their number: one memcg charge per fork.
 *
 * Context: dup_mmap(), both mmap_locks held for writing, which keeps the
 * parent's enablers and bits as they are.
 * Return: 0 or -ENOMEM; the put of @mm after a failed fork drops the copies.
 */
int user_events_dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct user_event_mm *parent = oldmm->user_event_mm, *uem;
	struct user_event_enabler *enabler, *copies;
	struct vm_area_struct *vma = NULL;
	unsigned int count = 0;

	mmap_assert_write_locked(oldmm);

	if (!parent)
		return 0;

	uem = user_event_mm_alloc(mm);
	if (!uem)
		return -ENOMEM;
	mm->user_event_mm = uem;

	list_for_each_entry(enabler, &parent->enablers, mm_link)
		count += user_event_fork_copies(oldmm, enabler->addr, &vma);
	if (!count)
		return 0;

	copies = kvmalloc_array(count, sizeof(*copies), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!copies)
		return -ENOMEM;

	list_for_each_entry(enabler, &parent->enablers, mm_link) {
		if (!user_event_fork_copies(oldmm, enabler->addr, &vma))
			continue;

		user_event_enabler_copy(uem, enabler, &copies[uem->count],
					vma->vm_flags & VM_WIPEONFORK);
		cond_resched();
	}

	/* No copy is freed before the child runs or its mm is put */
	uem->copies = copies;
	atomic_set(&uem->copies_left, count);

	return 0;
}

/**
 * user_events_mm_leave - A task stops using its mm
 * @mm: The mm the task leaves, in its exit or once execve() replaced it,
 *	or NULL
 *
 * The last task of a process takes its enablers' event references with
 * it: whoever else holds a user of @mm (a reader of /proc/PID/mem, a
 * status change) only delays freeing the memory.
 */
void user_events_mm_leave(struct mm_struct *mm)
{
	struct user_event_mm *uem;

	if (!mm || !atomic_dec_and_test(&mm->user_event_tasks))
		return;

	/* Pairs with cmpxchg() in user_event_mm_get_current() */
	uem = smp_load_acquire(&mm->user_event_mm);
	if (uem)
		user_event_mm_drop(uem);
}

/**
 * user_events_mm_release - Free the user_events state of an mm
 * @mm: The mm, from __mmput()
 *
 * The enablers are usually gone with the last task already; a fork that
 * failed after copying them never had a task.
 */
void user_events_mm_release(struct mm_struct *mm)
{
	struct user_event_mm *uem = mm->user_event_mm;

	if (!uem)
		return;

	mm->user_event_mm = NULL;
	user_event_mm_drop(uem);

	/* The worker takes a user of @mm: it is done, or it does nothing */
	cancel_delayed_work_sync(&uem->write_work);
	mutex_destroy(&uem->lock);
	kfree(uem);
}

/* The user_event_mm of the calling process, created on demand */
static struct user_event_mm *user_event_mm_get_current(void)
{
	struct mm_struct *mm = current->mm;
	struct user_event_mm *uem, *found;

	if (!mm)
		return NULL;

	/* Pairs with cmpxchg() below */
	uem = smp_load_acquire(&mm->user_event_mm);
	if (uem)
		return uem;

	uem = user_event_mm_alloc(mm);
	if (!uem)
		return NULL;

	/* Another thread may attach one first: it wins */
	found = cmpxchg(&mm->user_event_mm, NULL, uem);
	if (found) {
		mutex_destroy(&uem->lock);
		kfree(uem);
		return found;
	}

	return uem;
}

/*
 * Makes a word of the calling process present and writable without
 * writing it, with no lock held but the process's own mmap_lock: the
 * process may make the fault take as long as it likes (userfaultfd), and
 * is then only waiting for itself. A fatal signal ends the wait.
 */
static int user_event_fault_in_current(unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	bool unlocked = false;
	int ret;

	if (mmap_read_lock_killable(mm))
		return -EINTR;

	ret = fixup_user_fault(mm, addr, FAULT_FLAG_WRITE, &unlocked);
	mmap_read_unlock(mm);

	return ret;
}

/*
 * Adds the bit of a validated registration to the calling process; the
 * enabler takes over the caller's reference of @user. The current state
 * is written at once, the page faulted in if that involves no file system
 * and no userfaultfd monitor: a bit whose page needs more gives -EAGAIN with
 * *@fault_addr, which the caller faults in with no lock held before it
 * tries again. Or -EADDRINUSE, -ENOSPC, -ENOMEM, -EINTR.
 */
static int user_event_enabler_create(struct user_reg *reg,
				     struct user_event *user,
				     struct user_event_mm *uem,
				     unsigned long *fault_addr)
{
	struct user_event_enabler *enabler;
	unsigned long addr = reg->enable_addr;
	int bit = reg->enable_bit;
	bool compat = BITS_PER_LONG == 64 && reg->enable_size == 4;
	int ret;

	enabler = kmem_cache_zalloc(user_event_enabler_cache, GFP_KERNEL_ACCOUNT);
	if (!enabler)
		return -ENOMEM;

	enabler->uem = uem;
	enabler->event = user;
	enabler->addr = addr;
	enabler->values = bit;
	if (compat)
		set_bit(ENABLE_VAL_COMPAT_BIT, &enabler->values);

	ret = mutex_lock_killable(&uem->lock);
	if (ret)
		goto free;

	/* Another thread may have taken the address and bit meanwhile */
	ret = -EADDRINUSE;
	if (user_event_mm_find(uem, addr, bit))
		goto unlock;

	ret = -ENOSPC;
	if (uem->count >= READ_ONCE(max_user_event_enablers))
		goto unlock;

	ret = mmap_read_lock_killable(uem->mm);
	if (ret)
		goto unlock;

	/* A status change either finds the enabler or is read below */
	user_event_enabler_link(enabler);
	list_add_tail(&enabler->mm_link, &uem->enablers);
	WRITE_ONCE(uem->count, uem->count + 1);

	ret = user_event_enabler_write(uem, enabler,
				       user_event_own_gup_flags(uem->mm, addr));
	if (ret) {
		user_event_enabler_unlink(enabler);
		user_event_bit_location(&addr, &bit, compat);
		*fault_addr = addr;
		ret = -EAGAIN;
	}
	mmap_read_unlock(uem->mm);
unlock:
	mutex_unlock(&uem->lock);
	if (ret) {
free:
		kmem_cache_free(user_event_enabler_cache, enabler);
	}
	return ret;
}

/*
 * Unlinks the enabler of an address and bit of the calling process and
 * clears the bit, in one section of the process's locks: a fork copies
 * either both or neither. A page that needs a fault that involves a file
 * system or waits gives -EAGAIN and leaves the enabler linked, unless
 * @force: then the bit stays as it is.
 */
static int user_event_enabler_unlink_clear(struct user_event_mm *uem,
					   unsigned long addr, int bit,
					   bool force,
					   struct user_event_enabler **out)
{
	struct user_event_enabler *enabler;
	int ret;

	ret = mutex_lock_killable(&uem->lock);
	if (ret)
		return ret;

	enabler = user_event_mm_find(uem, addr, bit);
	if (!enabler) {
		ret = -ENOENT;
		goto unlock;
	}

	ret = mmap_read_lock_killable(uem->mm);
	if (ret)
		goto unlock;

	ret = user_event_mm_write_bit(uem->mm, addr, bit,
				      user_event_enabler_compat(enabler),
				      false, user_event_own_gup_flags(uem->mm, addr));
	if (!ret || force) {
		user_event_enabler_unlink(enabler);
		*out = enabler;
		ret = ret ? -EFAULT : 0;
	} else {
		ret = -EAGAIN;
	}
	mmap_read_unlock(uem->mm);
unlock:
	mutex_unlock(&uem->lock);
	return ret;
}

/*
 * Unregisters a bit of the calling process and clears it, since nothing
 * updates it any more; the enabler's event reference goes at once.
 * Return: 0, -ENOENT when no such bit is registered, -EINTR, or -EFAULT
 * when the bit cannot be cleared: it is unregistered anyway.
 */
static int user_event_enabler_remove(struct user_event_mm *uem, unsigned long addr, int bit)
{
	struct user_event_enabler *enabler = NULL;
	bool force = false;
	int attempt, ret;

	for (attempt = 0; ; attempt++) {
		ret = user_event_enabler_unlink_clear(uem, addr, bit, force, &enabler);
		if (ret != -EAGAIN)
			break;

		/* With no lock held: the process may take its time */
		ret = user_event_fault_in_current(addr);
		if (ret == -EINTR)
			break;
		force = ret || attempt == MAX_FAULT_ATTEMPTS;
	}

	if (enabler)
		user_event_enabler_free(enabler);

	return ret;
}

/* ---- The write path: ftrace and perf ---- */

/**
 * struct user_event_payload - What a write gives the probes to record
 * @ubuf: The payload when it is one user buffer, else NULL
 * @iter: Else the payload's iterator, which the probes leave where it is
 * @len: Bytes of payload
 */
struct user_event_payload {
	const void __user		*ubuf;
	struct iov_iter			*iter;
	size_t				len;
};

/* Copies a payload of several segments; @data->iter ends where it began */
static noinline bool copy_payload_iter(void *dst, const struct user_event_payload *data)
{
	size_t ret;

	pagefault_disable();
	ret = copy_from_iter(dst, data->len, data->iter);
	pagefault_enable();
	iov_iter_revert(data->iter, ret);

	return ret == data->len;
}

/*
 * Copies all of a payload to @dst, for each probe again. Probes run with
 * preemption off: no faults in the copy.
 */
static __always_inline bool copy_payload(void *dst, const struct user_event_payload *data)
{
	if (!data->len)
		return true;

	/* One user buffer, copied as trace_marker_raw does */
	if (data->ubuf)
		return !copy_from_user_nofault(dst, data->ubuf, data->len);

	return copy_payload_iter(dst, data);
}

/* Checks the dynamic locations of a record copy; @data is the record */
static int user_event_validate(struct user_event *user, void *data, size_t len)
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

static void user_event_ftrace(struct user_event *user,
			      const struct user_event_payload *data,
			      void *tpdata, bool *faulted)
{
	struct trace_event_file *file = tpdata;
	struct trace_event_buffer event_buffer;
	size_t size = sizeof(struct trace_entry) + data->len;
	struct trace_entry *entry;

	if (unlikely(!file || !(file->flags & EVENT_FILE_FL_ENABLED) ||
		     trace_trigger_soft_disabled(file)))
		return;

	/* A reserve failure (tracing off, filtered pid) is no error */
	entry = trace_event_buffer_reserve(&event_buffer, file, size);
	if (unlikely(!entry))
		return;

	if (unlikely(!copy_payload(entry + 1, data)))
		goto discard;

	if (user->nr_validators && unlikely(user_event_validate(user, entry, size)))
		goto discard;

	trace_event_buffer_commit(&event_buffer);
	return;
discard:
	*faulted = true;
	__trace_event_discard_commit(event_buffer.buffer, event_buffer.event);
}

#ifdef CONFIG_PERF_EVENTS
static void user_event_perf(struct user_event *user,
			    const struct user_event_payload *data,
			    void *tpdata, bool *faulted)
{
	size_t len = sizeof(struct trace_entry) + data->len;
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

	/* perf's padded size: too big only after a racing perf attach */
	size = ALIGN(len + sizeof(u32), sizeof(u64)) - sizeof(u32);
	if (unlikely(size > PERF_MAX_TRACE_SIZE))
		return;

	perf_entry = perf_trace_buf_alloc(size, &regs, &context);
	if (unlikely(!perf_entry))
		return;

	perf_fetch_caller_regs(regs);

	if (unlikely(!copy_payload(perf_entry + 1, data)))
		goto fail;

	if (user->nr_validators && unlikely(user_event_validate(user, perf_entry, len)))
		goto fail;

	perf_trace_buf_submit(perf_entry, size, context,
			      user->call.event.type, 1, regs, perf_head, NULL);
	return;
fail:
	*faulted = true;
	perf_swevent_put_recursion_context(context);
}
#endif

/* A payload that an attached tracer would have to drop is refused */
static bool user_event_too_big(struct user_event *user, size_t count)
{
	u8 status = READ_ONCE(user->status);

	return ((status & EVENT_STATUS_FTRACE) &&
		count > USER_EVENT_FTRACE_MAX_PAYLOAD) ||
	       ((status & EVENT_STATUS_PERF) &&
		count > USER_EVENT_PERF_MAX_PAYLOAD);
}

/* Runs each attached probe on the payload; true when one faulted */
static bool user_event_probes(struct user_event *user, const struct user_event_payload *data)
{
	struct tracepoint_func *probe_func_ptr;
	bool faulted = false;

	rcu_read_lock_sched();
	probe_func_ptr = rcu_dereference_sched(user->tp.funcs);
	if (probe_func_ptr) {
		do {
			void *func = probe_func_ptr->func;
			void *tpdata = probe_func_ptr->data;

			/* Other probes expect another prototype: skip them */
			if (func == user_event_ftrace)
				user_event_ftrace(user, data, tpdata, &faulted);
#ifdef CONFIG_PERF_EVENTS
			else if (func == user_event_perf)
				user_event_perf(user, data, tpdata, &faulted);
#endif
		} while ((++probe_func_ptr)->func);
	}
	rcu_read_unlock_sched();

	return faulted;
}

/* Faults in the payload, which the probes read with page faults off */
static bool user_event_fault_in(const struct user_event_payload *data)
{
	if (data->ubuf)
		return !fault_in_readable(data->ubuf, data->len);

	return !fault_in_iov_iter_readable(data->iter, data->len);
}

/* @data is the payload after the index @idx */
static ssize_t user_events_write_core(struct file *file, int idx,
				      const struct user_event_payload *data)
{
	struct user_event_file_info *info = file->private_data;
	struct user_event *user = NULL;
	struct user_event_refs *refs;

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

	if (unlikely(data->len < user->fmt->desc.min_size))
		return -EINVAL;

	if (unlikely(!static_key_enabled(&user->tp.key)))
		return -EBADF;

	if (unlikely(user_event_too_big(user, data->len)))
		return -E2BIG;

	if (unlikely(!user_event_fault_in(data) || user_event_probes(user, data)))
		return -EFAULT;

	return data->len + sizeof(idx);
}

static ssize_t user_events_write_iter(struct kiocb *kp, struct iov_iter *i)
{
	struct user_event_payload data = {};
	struct iovec seg;
	int idx;

	if (unlikely(copy_from_iter(&idx, sizeof(idx), i) != sizeof(idx)))
		return -EFAULT;

	data.len = iov_iter_count(i);

	/*
	 * writev() callers mostly give the payload one segment after the
	 * index: the probes then copy it as the one user buffer it is.
	 */
	if (data.len && iter_is_iovec(i)) {
		seg = iov_iter_iovec(i);
		if (seg.iov_len == data.len)
			data.ubuf = seg.iov_base;
	}
	if (!data.ubuf)
		data.iter = i;

	return user_events_write_core(kp->ki_filp, idx, &data);
}

/* write() without the kiocb and iovec set-up of ->write_iter() */
static ssize_t user_events_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct user_event_payload data;
	int idx;

	if (unlikely(count < sizeof(idx) || get_user(idx, (int __user *)ubuf)))
		return -EFAULT;

	data.ubuf = ubuf + sizeof(idx);
	data.iter = NULL;
	data.len = count - sizeof(idx);

	return user_events_write_core(file, idx, &data);
}

/* ---- Decoded text output ---- */

static void user_event_print_hex(struct trace_seq *s, const u8 *data, u32 size)
{
	u32 i;

	for (i = 0; i < size; i++)
		trace_seq_printf(s, "%02x", data[i]);
}

/* Prints the data a __data_loc or __rel_loc field points to */
static void user_event_print_loc(struct trace_seq *s,
				 const struct user_field *f,
				 void *rec, u32 rec_size)
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

/* A number of 1, 2, 4 or 8 bytes in the field's signedness */
static void user_event_print_number(struct trace_seq *s, const struct user_field *f, void *pos)
{
	u64 val;

	switch (f->size) {
	case 1:
		val = *(u8 *)pos;
		break;
	case 2:
		val = get_unaligned((u16 *)pos);
		break;
	case 4:
		val = get_unaligned((u32 *)pos);
		break;
	default:
		val = get_unaligned((u64 *)pos);
		break;
	}

	if (f->is_signed)
		trace_seq_printf(s, "%lld", sign_extend64(val, f->size * BITS_PER_BYTE - 1));
	else
		trace_seq_printf(s, "%llu", val);
}

/*
 * What a line cut short must leave free in its page: the "[LINE TOO BIG]\n"
 * the trace file ends it with, and the NUL tp_printk adds
 */
#define USER_EVENT_TOO_BIG	"[LINE TOO BIG]\n"
#define USER_EVENT_LINE_ROOM	sizeof(USER_EVENT_TOO_BIG)

/*
 * Prints a record in the layout of @fmt. A line too long for its page is
 * cut after the last field that leaves the room for the end of a cut line:
 * cut anywhere later, the trace file could not end it, and the next
 * record's line would be glued to it.
 */
static enum print_line_t user_event_print(struct trace_iterator *iter,
					  const struct user_event_fmt *fmt)
{
	const struct user_fields *desc = &fmt->desc;
	struct trace_seq *s = &iter->seq;
	const struct user_field *f;
	void *rec = iter->ent;
	unsigned int cut;
	u32 rec_size;
	int i;

	/*
	 * A record is only as trustworthy as its size: one that came
	 * through the event's inject file never met the validators. Without
	 * a size, only the static fields are known to be there.
	 */
	rec_size = iter->ent_size ?: sizeof(struct trace_entry) + desc->min_size;

	trace_seq_printf(s, "%s:", fmt->name);
	cut = trace_seq_used(s);

	for (i = 0; i < desc->count; i++) {
		f = &desc->fields[i];

		if (trace_seq_used(s) + USER_EVENT_LINE_ROOM <= sizeof(s->buffer))
			cut = trace_seq_used(s);

		trace_seq_printf(s, " %s=", f->name);
		if ((u64)f->offset + f->size > rec_size) {
			trace_seq_puts(s, "<short>");
			continue;
		}

		switch (f->kind) {
		case USER_FIELD_PLAIN:
			user_event_print_number(s, f, rec + f->offset);
			break;
		case USER_FIELD_STRING:
			trace_seq_printf(s, "%.*s", f->size, (char *)rec + f->offset);
			break;
		case USER_FIELD_DATA_LOC:
		case USER_FIELD_REL_LOC:
			user_event_print_loc(s, f, rec, rec_size);
			break;
		default:
			user_event_print_hex(s, rec + f->offset, f->size);
			break;
		}
	}

	trace_seq_putc(s, '\n');
	if (!trace_seq_has_overflowed(s))
		return TRACE_TYPE_HANDLED;

	s->seq.len = cut;
	return TRACE_TYPE_PARTIAL_LINE;
}

/* A record found by its type id, in a buffer: its event may be gone */
static enum print_line_t user_event_print_trace(struct trace_iterator *iter,
						int flags,
						struct trace_event *event)
{
	return user_event_print(iter, container_of(event, struct user_event_fmt, call.event));
}

/* A record that tp_printk prints as it is committed, by its event call */
static enum print_line_t user_event_print_call(struct trace_iterator *iter,
					       int flags,
					       struct trace_event *event)
{
	struct trace_event_call *call = container_of(event, struct trace_event_call, event);
	struct user_event *user = call->data;
	enum print_line_t ret;

	ret = user_event_print(iter, user->fmt);

	/* tp_printk ends the line with a NUL, and no marker of its own */
	if (ret == TRACE_TYPE_PARTIAL_LINE) {
		iter->seq.full = 0;
		trace_seq_puts(&iter->seq, USER_EVENT_TOO_BIG);
	}

	return ret;
}

/* ---- ioctls and file operations ---- */

static struct user_event_refs *
user_events_refs(struct user_event_file_info *info)
{
	return rcu_dereference_protected(info->refs, lockdep_is_held(&info->lock));
}

static int user_events_ref_find(struct user_event_file_info *info, struct user_event *user)
{
	struct user_event_refs *refs = user_events_refs(info);
	u32 i;

	for (i = 0; refs && i < refs->count; i++) {
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

	new_refs = kzalloc(struct_size(new_refs, events, capacity), GFP_KERNEL_ACCOUNT);
	if (!new_refs)
		return -ENOMEM;

	new_refs->capacity = capacity;
	if (refs) {
		memcpy(new_refs->events, refs->events, refs->count * sizeof(refs->events[0]));
		new_refs->count = refs->count;
	}

	rcu_assign_pointer(info->refs, new_refs);
	kfree_rcu(refs, rcu);

	return new_refs->count;
}

/* Publishes a reserved index; the store of the slot comes first */
static void user_events_ref_add(struct user_event_file_info *info, struct user_event *user)
{
	struct user_event_refs *refs = user_events_refs(info);

	refs->events[refs->count] = user;
	/* Pairs with smp_load_acquire() in user_events_write_core() */
	smp_store_release(&refs->count, refs->count + 1);
}

/*
 * A 32-bit process that fills a 64-bit pointer field with a plain cast
 * gets it sign-extended by the compiler for every address from 2 GiB up:
 * read those as the address they came from. Anything else above 4 GiB
 * cannot be one of its addresses.
 */
static int user_events_compat_addr(u64 *addr)
{
	if (upper_32_bits(*addr) == U32_MAX && (*addr & BIT_ULL(31)))
		*addr = lower_32_bits(*addr);
	else if (upper_32_bits(*addr))
		return -EFAULT;

	return 0;
}

/* Copies and checks the argument of DIAG_IOCSREG, in the ABI's order */
static long user_reg_get(struct user_reg __user *ureg, struct user_reg *kreg, bool compat)
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

	/* An 8-byte word only where a long has 64 bits */
	if (kreg->enable_size != 4 && (BITS_PER_LONG < 64 || kreg->enable_size != 8))
		return -EINVAL;

	if (kreg->enable_addr % kreg->enable_size)
		return -EINVAL;

	if (kreg->enable_bit > (kreg->enable_size * BITS_PER_BYTE) - 1)
		return -EINVAL;

	if (compat && user_events_compat_addr(&kreg->enable_addr))
		return -EFAULT;

	if (kreg->enable_addr != (unsigned long)kreg->enable_addr ||
	    !access_ok((void __user *)(unsigned long)kreg->enable_addr,
		       kreg->enable_size))
		return -EFAULT;

	kreg->size = size;
	return 0;
}

/*
 * Stores a write index with the locks of DIAG_IOCSREG held, so without a
 * fault that could wait. Return: 0, -EINTR, or -EAGAIN when a page of the
 * index needs such a fault.
 */
static int user_events_store_index(u32 __user *uaddr, u32 index)
{
	unsigned long addr = (unsigned long)uaddr, last = addr + sizeof(index) - 1;
	struct mm_struct *mm = current->mm;
	int ret = -EAGAIN;

	if (!copy_to_user_nofault(uaddr, &index, sizeof(index)))
		return 0;

	/* A page copy-on-write or dropped: faulted in and stored at once */
	if (mmap_read_lock_killable(mm))
		return -EINTR;

	if (user_event_fault_in_nowait(mm, addr) &&
	    (!((addr ^ last) & PAGE_MASK) || user_event_fault_in_nowait(mm, last)) &&
	    !copy_to_user_nofault(uaddr, &index, sizeof(index)))
		ret = 0;

	mmap_read_unlock(mm);
	return ret;
}

/*
 * The part of DIAG_IOCSREG that takes locks: nothing here may wait for a
 * fault.
 * -EAGAIN asks the caller to fault @fault_addr in and call again.
 */
static long user_events_reg_locked(struct user_event_file_info *info,
				   struct user_reg __user *ureg,
				   struct user_reg *reg, const char *cmd,
				   struct user_event_mm *uem,
				   unsigned long *fault_addr)
{
	struct user_event *user;
	bool created = false;
	u32 index;
	long ret;
	int idx;

	ret = user_event_find_or_create(info->group, cmd, reg->flags, &user, &created);
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
	ret = user_events_store_index(&ureg->write_index, index);
	if (ret) {
		*fault_addr = (unsigned long)&ureg->write_index;
		goto undo;
	}

	/*
	 * The slot's reference is taken before the enabler is published:
	 * once it is linked, another thread of the process can unregister
	 * it and put the lookup reference that it took over.
	 */
	if (idx < 0)
		user_event_get(user);

	ret = user_event_enabler_create(reg, user, uem, fault_addr);
	if (ret)
		goto undo_slot;

	if (idx < 0)
		user_events_ref_add(info, user);

	return 0;
undo_slot:
	/* Not the last: the lookup reference is still ours */
	if (idx < 0)
		user_event_put(user);
undo:
	user_event_put_undo(user, created);
	return ret;
}

/* Faults in the word at @addr, which may cross a page */
static int user_events_fault_in_word(unsigned long addr, size_t size)
{
	int ret;

	ret = user_event_fault_in_current(addr);
	if (!ret && ((addr ^ (addr + size - 1)) & PAGE_MASK))
		ret = user_event_fault_in_current(addr + size - 1);

	return ret;
}

/*
 * DIAG_IOCSREG: all or nothing. A registration that fails leaves no
 * event, enabler, index or reference behind; an enable address that
 * cannot be made writable is -EFAULT.
 */
static long user_events_ioctl_reg(struct user_event_file_info *info,
				  struct user_reg __user *ureg, bool compat)
{
	struct user_reg reg = {};
	struct user_event_mm *uem;
	unsigned long fault_addr;
	int attempt;
	char *cmd;
	long ret;

	ret = user_reg_get(ureg, &reg, compat);
	if (ret)
		return ret;

	uem = user_event_mm_get_current();
	if (!uem)
		return -ENOMEM;

	if (user_event_mm_find(uem, reg.enable_addr, reg.enable_bit))
		return -EADDRINUSE;

	if (READ_ONCE(uem->count) >= READ_ONCE(max_user_event_enablers))
		return -ENOSPC;

	if (compat && user_events_compat_addr(&reg.name_args))
		return -EFAULT;

	cmd = strndup_user(u64_to_user_ptr(reg.name_args), MAX_EVENT_DESC);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);

	for (attempt = 0; attempt <= MAX_FAULT_ATTEMPTS; attempt++) {
		ret = mutex_lock_killable(&info->lock);
		if (ret)
			break;
		ret = user_events_reg_locked(info, ureg, &reg, cmd, uem, &fault_addr);
		mutex_unlock(&info->lock);
		if (ret != -EAGAIN)
			break;

		/* With no lock held: the process may take its time */
		ret = user_events_fault_in_word(fault_addr, sizeof(u32));
		if (ret)
			break;
		ret = -EFAULT;
	}

	kfree(cmd);
	return ret;
}

/* DIAG_IOCSDEL: deletes every event of the name */
static long user_events_ioctl_del(struct user_event_file_info *info, char __user *uname)
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
	hash_for_each_possible_safe(group->register_table, user, tmp, node, user_event_key(name)) {
		if (strcmp(user->reg_name, name))
			continue;

		ret = user_event_delete(user);
		if (ret)
			break;
	}
	mutex_unlock(&event_mutex);

	kfree(name);
	return ret;
}

/* Copies and checks the argument of DIAG_IOCSUNREG, in the ABI's order */
static long user_unreg_get(struct user_unreg __user *ureg, struct user_unreg *kreg, bool compat)
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

	/* The reserved fields are checked first, whatever the copy gave */
	if (kreg->__reserved || kreg->__reserved2)
		return -EINVAL;

	if (!ret && compat && user_events_compat_addr(&kreg->disable_addr))
		return -EFAULT;

	return ret;
}

/* DIAG_IOCSUNREG: stop updating a bit and clear it */
static long user_events_ioctl_unreg(struct user_unreg __user *ureg, bool compat)
{
	struct user_unreg reg = {};
	struct user_event_mm *uem;
	long ret;

	ret = user_unreg_get(ureg, &reg, compat);
	if (ret)
		return ret;

	/* Pairs with cmpxchg() in user_event_mm_get_current() */
	uem = current->mm ? smp_load_acquire(&current->mm->user_event_mm) : NULL;
	if (!uem)
		return -ENOENT;

	return user_event_enabler_remove(uem, reg.disable_addr, reg.disable_bit);
}

static long user_events_ioctl_common(struct file *file, unsigned int cmd,
				     void __user *uarg, bool compat)
{
	struct user_event_file_info *info = file->private_data;

	if (cmd != DIAG_IOCSREG && cmd != DIAG_IOCSDEL && cmd != DIAG_IOCSUNREG)
		return -ENOTTY;

	/* Changing events takes a file opened for writing */
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;

	switch (cmd) {
	case DIAG_IOCSREG:
		return user_events_ioctl_reg(info, uarg, compat);
	case DIAG_IOCSUNREG:
		return user_events_ioctl_unreg(uarg, compat);
	default:
		return user_events_ioctl_del(info, uarg);
	}
}

static long user_events_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	return user_events_ioctl_common(file, cmd, (void __user *)uarg, false);
}

#ifdef CONFIG_COMPAT
/* 32-bit processes encode a 4-byte pointer in the ioctl numbers */
static long user_events_compat_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
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
	mutex_init(&info->lock);
	file->private_data = info;

	return 0;
}

/* Closing drops the fd's indexes; enablers stay until unregister/exit */
static int user_events_release(struct inode *node, struct file *file)
{
	struct user_event_file_info *info = file->private_data;
	struct user_event_refs *refs;
	u32 i;

	/* The last reference of the file: no writer and no ioctl is left */
	refs = rcu_dereference_protected(info->refs, true);
	for (i = 0; refs && i < refs->count; i++)
		user_event_put(refs->events[i]);

	kfree(refs);
	mutex_destroy(&info->lock);
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

/* ---- dynamic_events: u:NAME fields ---- */

static struct user_event *to_user_event(struct dyn_event *ev)
{
	return container_of(ev, struct user_event, devent);
}

/* Creates a persistent event; an existing matching one is left alone */
static int user_event_create(const char *raw_command)
{
	struct user_event *user;
	const char *cmd;
	int ret;

	if (!str_has_prefix(raw_command, USER_EVENTS_PREFIX))
		return -ECANCELED;

	cmd = skip_spaces(raw_command + strlen(USER_EVENTS_PREFIX));

	ret = user_event_find_or_create(&init_group, cmd, USER_EVENT_REG_PERSIST, &user, NULL);
	if (!ret)
		user_event_put(user);

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

/* In use by a process, a tracer, or another event of the core */
static bool user_event_is_busy(struct dyn_event *ev)
{
	struct user_event *user = to_user_event(ev);

	return !user_event_unreferenced(user) || trace_event_dyn_busy(&user->call);
}

static int user_event_free(struct dyn_event *ev)
{
	struct user_event *user = to_user_event(ev);

	if (user->match_nomem) {
		user->match_nomem = false;
		return -ENOMEM;
	}

	return user_event_delete(user);
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
	if (IS_ERR(canon)) {
		/*
		 * A match cannot fail: user_event_free(), which follows,
		 * gives the error rather than a delete of the wrong event.
		 */
		user->match_nomem = PTR_ERR(canon) == -ENOMEM;
		return user->match_nomem;
	}

	match = !strcmp(canon, user->args);
	kfree(canon);

	return match;
}

/* ---- user_events_status ---- */

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
	unsigned int i, count = 0, busy = 0, kept;
	int bkt;

	mutex_lock(&event_mutex);

	events = kvmalloc_array(max(current_user_events, 1U), sizeof(*events), GFP_KERNEL);
	if (!events) {
		mutex_unlock(&event_mutex);
		return -ENOMEM;
	}

	hash_for_each(group->register_table, bkt, user, node) {
		if (!WARN_ON_ONCE(count >= current_user_events))
			events[count++] = user;
	}

	/* A stable order that readers can diff */
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

	/* The rest of the count: removed events kept for their records */
	kept = current_user_events - count;
	mutex_unlock(&event_mutex);
	kvfree(events);

	seq_printf(m, "\nActive: %u\nBusy: %u\nKept: %u\n", count, busy, kept);

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

/* No mmap: the status page of the first version of this ABI is gone */
static const struct file_operations user_status_fops = {
	.open		= user_status_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* ---- sysctl and init ---- */

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
	{
		.procname	= "user_events_max_enablers",
		.data		= &max_user_event_enablers,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{}
};

static int __init trace_events_user_init(void)
{
	struct dentry *edata;
	int ret;

	hash_init(init_group.register_table);
	user_event_class_init(&init_group.class, USER_EVENTS_SYSTEM);
	user_event_class_init(&init_group.multi_class, USER_EVENTS_MULTI_SYSTEM);

	user_event_enabler_cache = KMEM_CACHE(user_event_enabler, SLAB_ACCOUNT | SLAB_PANIC);

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
		pr_warn("Could not register with dyn_events\n");

	register_sysctl_init("kernel", user_event_sysctls);

	return 0;
err:
	pr_warn("Could not register with tracefs\n");
	return -ENODEV;
}

fs_initcall(trace_events_user_init);

#ifdef CONFIG_USER_EVENTS_KUNIT_TEST
#include "trace_events_user_kunit.c"
#endif
