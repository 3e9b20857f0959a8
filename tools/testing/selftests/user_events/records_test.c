// SPDX-License-Identifier: GPL-2.0
/*
 * user_events records that outlive their event.
 *
 * A record stays in the ring buffers of every ftrace instance that had
 * its event enabled, and in a snapshot taken meanwhile. When the event is
 * removed its type id is freed; once the 16-bit id space has wrapped, the
 * kernel hands the lowest free id to the next event that is created, and
 * that event's print function would be given the old records. A writer
 * chose their bytes, and a print function trusts the layout of its own
 * records: a location word read from a foreign record can point anywhere.
 *
 * So every removal of an event (auto-delete, DIAG_IOCSDEL, a new
 * registration of the name with other fields, "-:" and a truncating open
 * of dynamic_events) must leave no record of it in any buffer. Each
 * variant records into the top buffer, an instance and the snapshot
 * buffer, removes the event, checks that no buffer shows anything of it,
 * and then creates an event that gets the freed id (once the id space
 * has wrapped, which the KUnit suite user_events_ids does at boot) and
 * whose layout would decode the old record into a visible line: nothing
 * may show.
 *
 * The print function itself must stay within the record when it has no
 * iterator to give it the size: with tp_printk, a record committed
 * through the event's inject file (which never met the write path's
 * checks) is printed with a location word that points 64 KiB away.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/uio.h>

#include "user_events_selftests.h"

#define VICTIM		"__records_victim"
#define VICTIM_FIELDS	"u32 a; u32 b"
#define VICTIM_OTHER	"u64 a"
#define SUCCESSOR	"__records_successor"
#define SUCC_FIELDS	"__data_loc char[] s; u32 n"
#define FILLER		"__records_filler"
#define INSTANCE	TRACEFS_DIR "/instances/__records"
#define SNAPSHOT_FILE	TRACEFS_DIR "/snapshot"
#define MAX_FILLERS	64

/* The bytes of the victim's record that a successor reads as a string */
#define OLD_TEXT	"OLD"

enum removal {
	RM_AUTO_DELETE,		/* last fd closed, tracer detached */
	RM_DIAG_IOCSDEL,	/* persistent event, DIAG_IOCSDEL */
	RM_REREGISTER,		/* unreferenced, the name with other fields */
	RM_DYN_DELETE,		/* persistent event, "-:NAME FIELDS" */
	RM_DYN_TRUNCATE,	/* persistent event, O_TRUNC of dynamic_events */
};

FIXTURE(records) {
	int data_fd;
	int word;
	int other_word;
	bool snapshot;
	bool umount;
};

FIXTURE_VARIANT(records) {
	enum removal removal;
};

FIXTURE_VARIANT_ADD(records, auto_delete) {
	.removal = RM_AUTO_DELETE,
};

FIXTURE_VARIANT_ADD(records, diag_iocsdel) {
	.removal = RM_DIAG_IOCSDEL,
};

FIXTURE_VARIANT_ADD(records, reregister_other_fields) {
	.removal = RM_REREGISTER,
};

FIXTURE_VARIANT_ADD(records, dyn_delete) {
	.removal = RM_DYN_DELETE,
};

FIXTURE_VARIANT_ADD(records, dyn_truncate) {
	.removal = RM_DYN_TRUNCATE,
};

static void records_cleanup(void)
{
	char name[64];
	int i;

	ue_write_str(INSTANCE "/events/" USER_EVENTS_SYSTEM "/" VICTIM
		     "/enable", "0", 0);
	ue_enable(VICTIM, 0);
	ue_cleanup_event(VICTIM);
	ue_cleanup_event(SUCCESSOR);
	for (i = 0; i < MAX_FILLERS; i++) {
		snprintf(name, sizeof(name), FILLER "%d", i);
		ue_cleanup_event(name);
	}
	rmdir(INSTANCE);
}

/* The offset of field @field in the format file of event @name, or -1 */
/*
 * Whether a removed event's id goes to the next event at once: the case
 * once the 16-bit id space has wrapped (the KUnit suite user_events_ids
 * makes it wrap at boot). Before that, ids are handed out in order.
 */
static bool ids_reused(void)
{
	int first, again;

	if (ue_dyn_write("u:" FILLER "0 u32 x"))
		return false;
	first = ue_event_id(FILLER "0");
	ue_del(FILLER "0");
	if (ue_dyn_write("u:" FILLER "0 u32 x"))
		return false;
	again = ue_event_id(FILLER "0");
	ue_del(FILLER "0");

	return first > 0 && again == first;
}

/* Whether the text of trace file @path shows anything of the test */
static bool trace_shows_records(const char *path, char *why, size_t len)
{
	static const char * const marks[] = {
		VICTIM, SUCCESSOR, OLD_TEXT, "Unknown type",
	};
	char *text = ue_read_file(path);
	unsigned int i;
	char *at;

	if (!text) {
		snprintf(why, len, "cannot read %s", path);
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(marks); i++) {
		at = strstr(text, marks[i]);
		if (at) {
			snprintf(why, len, "%s: %.120s", path, at);
			free(text);
			return true;
		}
	}
	free(text);

	return false;
}

FIXTURE_SETUP(records) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	records_cleanup();

	self->snapshot = ue_exists(SNAPSHOT_FILE);
	ASSERT_EQ(0, mkdir(INSTANCE, 0755)) {
		TH_LOG("mkdir %s: %s", INSTANCE, strerror(errno));
	}
	ASSERT_EQ(0, ue_clear_trace());
	if (self->snapshot)
		ASSERT_EQ(0, ue_write_str(SNAPSHOT_FILE, "0", 0));

	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(records) {
	if (self->data_fd != -1)
		close(self->data_fd);
	ue_unreg(&self->word, 0);
	ue_unreg(&self->other_word, 0);
	records_cleanup();
	if (self->snapshot)
		ue_write_str(SNAPSHOT_FILE, "0", 0);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Writes one record of the victim: a = location word, b = "OLD" */
static ssize_t write_victim(int fd, int index, __u32 loc)
{
	char old[4] = OLD_TEXT;
	struct iovec io[3] = {
		{ &index, sizeof(index) },
		{ &loc, sizeof(loc) },
		{ old, sizeof(old) },
	};

	return writev(fd, io, 3);
}

TEST_F(records, removed_event_leaves_no_record)
{
	const char *instance_enable = INSTANCE "/events/" USER_EVENTS_SYSTEM
				      "/" VICTIM "/enable";
	bool persist = variant->removal != RM_AUTO_DELETE &&
		       variant->removal != RM_REREGISTER;
	int index, victim_id, id, a_off, i;
	char why[256], name[64], path[512];
	bool reused = ids_reused();
	__u32 loc;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, VICTIM " " VICTIM_FIELDS,
			       &self->word, 0, sizeof(int),
			       persist ? USER_EVENT_REG_PERSIST : 0, &index));
	victim_id = ue_event_id(VICTIM);
	ASSERT_LT(0, victim_id);

	/*
	 * Field a of the victim is where the successor has its location
	 * word: pointing at field b, it decodes b as the string "OLD".
	 */
	ue_event_file(path, sizeof(path), VICTIM, "format");
	a_off = ue_format_offset(path, "a", NULL);
	ASSERT_LT(0, a_off);
	loc = (sizeof(__u32) << 16) | (a_off + sizeof(__u32));

	ASSERT_EQ(0, ue_enable(VICTIM, 1));
	ASSERT_EQ(0, ue_write_str(instance_enable, "1", 0));
	ASSERT_WRITE(sizeof(index) + 2 * sizeof(__u32),
		     write_victim(self->data_fd, index, loc));
	if (self->snapshot) {
		/* The record moves to the snapshot; another follows */
		ASSERT_EQ(0, ue_write_str(SNAPSHOT_FILE, "1", 0));
		ASSERT_WRITE(sizeof(index) + 2 * sizeof(__u32),
			     write_victim(self->data_fd, index, loc));
	}
	ASSERT_EQ(0, ue_enable(VICTIM, 0));
	ASSERT_EQ(0, ue_write_str(instance_enable, "0", 0));

	/* The records are there while the event is */
	ASSERT_TRUE(trace_shows_records(TRACE_FILE, why, sizeof(why)));
	ASSERT_TRUE(trace_shows_records(INSTANCE "/trace", why, sizeof(why)));

	/* Only a PERSIST flag still holds the event after this */
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->word, 0));
	close(self->data_fd);
	self->data_fd = -1;
	switch (variant->removal) {
	case RM_AUTO_DELETE:
		ASSERT_TRUE(ue_wait_auto_delete(EVENTS_DIR "/" VICTIM));
		break;
	case RM_DIAG_IOCSDEL:
		ASSERT_EQ(0, ue_del(VICTIM)) {
			TH_LOG("DIAG_IOCSDEL: %s", strerror(errno));
		}
		break;
	case RM_REREGISTER:
		/* The lookup or the auto-delete removes the old event */
		ASSERT_EQ(0, ue_reg(VICTIM " " VICTIM_OTHER, &self->other_word,
				    0, sizeof(int), 0)) {
			TH_LOG("re-registration: %s", strerror(errno));
		}
		ASSERT_EQ(0, ue_unreg(&self->other_word, 0));
		ASSERT_TRUE(ue_wait_auto_delete(EVENTS_DIR "/" VICTIM));
		break;
	case RM_DYN_DELETE:
		ASSERT_EQ(0, ue_dyn_write("-:" VICTIM " " VICTIM_FIELDS));
		break;
	case RM_DYN_TRUNCATE:
		ASSERT_EQ(0, ue_write_str(DYN_FILE, "", O_TRUNC)) {
			TH_LOG("truncating dynamic_events: %s",
			       strerror(errno));
		}
		break;
	}
	ASSERT_FALSE(ue_event_exists(VICTIM));

	ASSERT_FALSE(trace_shows_records(TRACE_FILE, why, sizeof(why))) {
		TH_LOG("after the removal: %s", why);
	}
	ASSERT_FALSE(trace_shows_records(INSTANCE "/trace", why,
					 sizeof(why))) {
		TH_LOG("after the removal: %s", why);
	}
	if (self->snapshot)
		ASSERT_FALSE(trace_shows_records(SNAPSHOT_FILE, why,
						 sizeof(why))) {
			TH_LOG("after the removal: %s", why);
		}

	if (!reused)
		SKIP(return, "%s",
		     "event ids are not reused yet in this boot: the KUnit suite user_events_ids wraps them");

	/*
	 * The next event gets the lowest free id: the victim's, unless an
	 * event that went meanwhile left a lower one (fill those first).
	 */
	for (i = 0; i < MAX_FILLERS; i++) {
		ASSERT_EQ(0, ue_dyn_write("u:" SUCCESSOR " " SUCC_FIELDS));
		id = ue_event_id(SUCCESSOR);
		if (id >= victim_id)
			break;
		ASSERT_EQ(0, ue_del(SUCCESSOR));
		snprintf(name, sizeof(name), "u:" FILLER "%d u32 x", i);
		ASSERT_EQ(0, ue_dyn_write(name));
	}
	ASSERT_EQ(victim_id, id) {
		TH_LOG("the successor got id %d, not the victim's", id);
	}

	ASSERT_FALSE(trace_shows_records(TRACE_FILE, why, sizeof(why))) {
		TH_LOG("with the id reused: %s", why);
	}
	ASSERT_FALSE(trace_shows_records(INSTANCE "/trace", why,
					 sizeof(why))) {
		TH_LOG("with the id reused: %s", why);
	}
	if (self->snapshot)
		ASSERT_FALSE(trace_shows_records(SNAPSHOT_FILE, why,
						 sizeof(why))) {
			TH_LOG("with the id reused: %s", why);
		}
}

FIXTURE(printk) {
	bool umount;
};

#define INJECT_EVENT	"__records_inject"
#define INJECT_FIELDS	"__data_loc u8[] d; __data_loc char[] s; u32 n"
#define TP_PRINTK_FILE	"/proc/sys/kernel/tracepoint_printk"

FIXTURE_SETUP(printk) {
	char *cmdline;

	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_enable(INJECT_EVENT, 0);
	ue_cleanup_event(INJECT_EVENT);

	cmdline = ue_read_file("/proc/cmdline");
	ASSERT_NE(NULL, cmdline);
	if (!strstr(cmdline, "tp_printk")) {
		free(cmdline);
		/* Out through the harness's jump buffer: no test body */
		SKIP(longjmp(_metadata->env, 1),
		     "the kernel was booted without tp_printk");
	}
	free(cmdline);
}

FIXTURE_TEARDOWN(printk) {
	ue_write_str(TP_PRINTK_FILE, "0", 0);
	ue_enable(INJECT_EVENT, 0);
	ue_cleanup_event(INJECT_EVENT);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* The kernel log, NUL-terminated, or NULL */
static char *kernel_log(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *log;
	int len;

	if (size <= 0)
		return NULL;
	log = calloc(1, size + 1);
	if (!log)
		return NULL;
	len = klogctl(3, log, size);		/* SYSLOG_ACTION_READ_ALL */
	if (len < 0) {
		free(log);
		return NULL;
	}
	log[len] = '\0';

	return log;
}

/* The last line of the kernel log that contains @mark, or NULL */
static char *last_log_line(const char *mark)
{
	char *log = kernel_log(), *at, *line = NULL, *end;

	if (!log)
		return NULL;
	for (at = log; (at = strstr(at, mark)); at++)
		line = at;
	if (line) {
		end = strchr(line, '\n');
		line = strndup(line, end ? end - line : strlen(line));
	}
	free(log);

	return line;
}

TEST_F(printk, injected_record_printed_within_bounds)
{
	char path[512], *line;
	char inject[128];

	ASSERT_EQ(0, ue_dyn_write("u:" INJECT_EVENT " " INJECT_FIELDS));
	ue_event_file(path, sizeof(path), INJECT_EVENT, "inject");
	if (!ue_exists(path))
		SKIP(return, "no inject file: CONFIG_TRACE_EVENT_INJECT is off");
	ASSERT_EQ(0, ue_enable(INJECT_EVENT, 1));
	ASSERT_EQ(0, ue_write_str(TP_PRINTK_FILE, "1", 0));

	/*
	 * d's location word says 0xffff bytes at offset 16: far beyond the
	 * record. The string s is real dynamic data behind the fields.
	 */
	snprintf(inject, sizeof(inject), "d=%u s=\"inside\" n=7",
		 (0xffffU << 16) | 16);
	ASSERT_EQ(0, ue_write_str(path, inject, 0)) {
		TH_LOG("inject: %s", strerror(errno));
	}
	ASSERT_EQ(0, ue_write_str(TP_PRINTK_FILE, "0", 0));
	ASSERT_EQ(0, ue_enable(INJECT_EVENT, 0));

	line = last_log_line(INJECT_EVENT ":");
	ASSERT_NE(NULL, line) {
		TH_LOG("tp_printk printed nothing of the injected record");
	}
	EXPECT_NE(NULL, strstr(line, "d=<bad>")) {
		TH_LOG("the out-of-record location was decoded: %s", line);
	}
	EXPECT_NE(NULL, strstr(line, "s=inside")) {
		TH_LOG("the string inside the record was not: %s", line);
	}
	free(line);
}

/*
 * A write whose payload page is not resident must fault it in and still
 * decide about the record as the core does: a soft disabled event whose
 * trigger tests the record builds it, runs the trigger on it (once),
 * and drops it.
 */
#define SOFT_EVENT	"__records_soft"
#define SOFT_ENABLER	"__records_soft_enabler"

FIXTURE(trigger) {
	int data_fd;
	int memfd;
	long page;
	__u32 *payload;
	bool umount;
};

static void trigger_cleanup(void)
{
	char path[512];

	ue_write_str(ue_event_file(path, sizeof(path), SOFT_EVENT, "trigger"),
		     "!hist:keys=v if v == 7", 0);
	ue_write_str(ue_event_file(path, sizeof(path), SOFT_ENABLER,
				   "trigger"),
		     "!enable_event:" USER_EVENTS_SYSTEM ":" SOFT_EVENT, 0);
	ue_cleanup_event(SOFT_EVENT);
	ue_cleanup_event(SOFT_ENABLER);
}

FIXTURE_SETUP(trigger) {
	self->data_fd = -1;
	self->memfd = -1;
	self->payload = MAP_FAILED;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	trigger_cleanup();
	ASSERT_EQ(0, ue_clear_trace());

	self->page = sysconf(_SC_PAGESIZE);
	self->memfd = memfd_create("__records", 0);
	ASSERT_LE(0, self->memfd);
	ASSERT_EQ(0, ftruncate(self->memfd, self->page));
	self->payload = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
			     MAP_SHARED, self->memfd, 0);
	ASSERT_NE(MAP_FAILED, self->payload);
	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(trigger) {
	if (self->data_fd != -1)
		close(self->data_fd);
	if (self->payload != MAP_FAILED)
		munmap(self->payload, self->page);
	if (self->memfd >= 0)
		close(self->memfd);
	trigger_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(trigger, soft_disabled_conditional_trigger_sees_faulted_write)
{
	char path[512], *hist;
	int index, word = 0, other = 0;
	struct iovec io[2];

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, SOFT_EVENT " u32 v", &word, 0,
			       sizeof(int), 0, &index));
	ASSERT_EQ(0, ue_reg(SOFT_ENABLER " u32 x", &other, 0, sizeof(int),
			    0));

	/* Another event's enable_event trigger makes this one soft disabled */
	ASSERT_EQ(0, ue_write_str(ue_event_file(path, sizeof(path),
						SOFT_ENABLER, "trigger"),
				  "enable_event:" USER_EVENTS_SYSTEM ":"
				  SOFT_EVENT, 0)) {
		TH_LOG("enable_event trigger: %s", strerror(errno));
	}
	ASSERT_EQ(1, ue_load(&word));
	ASSERT_EQ(0, ue_write_str(ue_event_file(path, sizeof(path),
						SOFT_EVENT, "trigger"),
				  "hist:keys=v if v == 7", 0)) {
		TH_LOG("hist trigger: %s", strerror(errno));
	}

	/* The payload's page is in the file, not mapped in the process */
	self->payload[0] = 7;
	ASSERT_EQ(0, madvise(self->payload, self->page, MADV_DONTNEED));
	io[0].iov_base = &index;
	io[0].iov_len = sizeof(index);
	io[1].iov_base = self->payload;
	io[1].iov_len = sizeof(__u32);
	ASSERT_WRITE(sizeof(index) + sizeof(__u32),
		     writev(self->data_fd, io, 2));

	hist = ue_read_file(ue_event_file(path, sizeof(path), SOFT_EVENT,
					  "hist"));
	ASSERT_NE(NULL, hist);
	EXPECT_NE(NULL, strstr(hist, "Hits: 1\n")) {
		TH_LOG("the trigger did not see the write once:\n%s", hist);
	}
	free(hist);

	/* Soft disabled: the record itself is dropped */
	hist = ue_read_file(TRACE_FILE);
	ASSERT_NE(NULL, hist);
	EXPECT_EQ(NULL, strstr(hist, SOFT_EVENT ":")) {
		TH_LOG("a soft disabled event was recorded");
	}
	free(hist);

	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &word, 0));
	ASSERT_EQ(0, ue_unreg(&other, 0));
}

TEST_HARNESS_MAIN
