// SPDX-License-Identifier: GPL-2.0
/*
 * user_events records that outlive their event.
 *
 * Removing a user event, in any way (auto-delete after its last user
 * went, DIAG_IOCSDEL, "-:", a truncating open of dynamic_events, a
 * registration of its name with other fields, the undo of a failed
 * registration), discards no record: neither the event's own records in
 * the top buffer, an instance or a snapshot, nor anything else there.
 * They stay readable, printed as they were ("name: field=value ..."),
 * until they are overwritten or the buffer is cleared. The usual ftrace
 * session depends on it: enable the event, run the program, disable the
 * event (which removes it, as the program has exited), read the trace.
 *
 * A registration of the same name with the same fields while such
 * records remain takes the removed event's type id again, so that the
 * records before and after it are printed alike.
 *
 * Also here: error_log never shows a control byte of a refused command;
 * under tp_printk, a record is printed whole whether or not a filter
 * made ftrace build it in the per-CPU buffered event, and a location
 * word from the inject file that points past the record prints <bad>;
 * the hist trigger of a soft disabled event counts a write whose payload
 * page had to be faulted in.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "user_events_selftests.h"

#define VICTIM		"__records_victim"
#define VICTIM_FIELDS	"u32 a; u32 b"
#define VICTIM_OTHER	"u64 c"
#define UNDONE		"__records_undone"
#define INSTANCE	INSTANCES_DIR "/__records"

/* A record of the victim and the line trace prints for it */
struct victim_rec {
	__u32 a;
	__u32 b;
};

#define VICTIM_LINE(a, b)	VICTIM ": a=" #a " b=" #b "\n"
#define MARK_BEFORE	"__records: before the removal"
#define MARK_LINE	"tracing_mark_write: " MARK_BEFORE "\n"

static ssize_t write_victim(int fd, int index, __u32 a, __u32 b)
{
	struct victim_rec rec = { a, b };
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ &rec, sizeof(rec) },
	};

	return writev(fd, io, 2);
}

/*
 * The workflow: a program registers an event, writes and exits while
 * the event is enabled; the disable that follows drops the last
 * reference and removes the event. Read afterwards, the buffer shows
 * the program's records and the marker lines around them. Variants: the
 * top buffer, a snapshot taken before the disable, an instance.
 */
#define APP		"__records_app"
#define APP_FIELDS	"u32 seq; u64 value"
#define APP_RECORDS	3
#define APP_VALUE(seq)	((seq) * 1000003ULL + 7)
#define APP_BEFORE	"__records: before the program"
#define APP_AFTER	"__records: after the program"

FIXTURE(workflow) {
	bool umount;
};

FIXTURE_VARIANT(workflow) {
	const char *dir;	/* whose buffer records the event */
	bool snapshot;		/* a snapshot is taken before the disable */
};

FIXTURE_VARIANT_ADD(workflow, top) {
	.dir = TRACEFS_DIR,
};

FIXTURE_VARIANT_ADD(workflow, snapshot) {
	.dir = TRACEFS_DIR,
	.snapshot = true,
};

FIXTURE_VARIANT_ADD(workflow, instance) {
	.dir = INSTANCE,
};

static void workflow_cleanup(void)
{
	ue_dir_enable(INSTANCE, APP, 0);
	ue_enable(APP, 0);
	ue_cleanup_event(APP);
	rmdir(INSTANCE);
	if (ue_exists(SNAPSHOT_FILE))
		ue_write_str(SNAPSHOT_FILE, "0", 0);
}

FIXTURE_SETUP(workflow) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	workflow_cleanup();
	if (variant->snapshot && !ue_exists(SNAPSHOT_FILE))
		SKIP(longjmp(_metadata->env, 1),
		     "no snapshot file: CONFIG_TRACER_SNAPSHOT is off");
	ASSERT_EQ(0, mkdir(INSTANCE, 0755)) {
		TH_LOG("mkdir %s: %s", INSTANCE, strerror(errno));
	}
	ASSERT_EQ(0, ue_clear_trace());
}

FIXTURE_TEARDOWN(workflow) {
	workflow_cleanup();
	ue_clear_trace();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * The program: registers APP, says so on @ready, waits for @go, writes
 * APP_RECORDS records once its bit is set and exits without cleaning up.
 */
static void app_main(int ready, int go)
{
	int fd, index, word = 0;
	__u64 value;
	__u32 seq;
	struct iovec io[3] = {
		{ &index, sizeof(index) },
		{ &seq, sizeof(seq) },
		{ &value, sizeof(value) },
	};
	char c = 0;

	fd = open(DATA_FILE, O_RDWR);
	UE_CHILD_CHECK(fd >= 0);
	UE_CHILD_EQ(0, ue_reg_fd(fd, APP " " APP_FIELDS, &word, 0, sizeof(int),
				 0, &index));
	UE_CHILD_EQ(1, write(ready, &c, 1));
	UE_CHILD_EQ(1, read(go, &c, 1));

	/* Set by the enable at once, or by the worker */
	UE_CHILD_CHECK(ue_wait_int(&word, 1, UE_FAULT_MS));
	for (seq = 1; seq <= APP_RECORDS; seq++) {
		value = APP_VALUE(seq);
		UE_CHILD_EQ(sizeof(index) + sizeof(seq) + sizeof(value),
			    writev(fd, io, 3));
	}
	_exit(0);
}

TEST_F_TIMEOUT(workflow, program_records_kept_after_disable, 120)
{
	char want[APP_RECORDS + 2][128], path[512];
	const char *lines[APP_RECORDS + 2];
	int ready[2], go[2], i;
	ssize_t n;
	pid_t pid;
	char c;

	ASSERT_EQ(0, ue_dir_mark(variant->dir, APP_BEFORE));

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		app_main(ready[1], go[0]);
	close(ready[1]);
	close(go[0]);
	n = read(ready[0], &c, 1);
	if (n != 1)
		ASSERT_CHILD_OK(pid);	/* it ended early: its report says why */
	ASSERT_EQ(1, n);
	ASSERT_EQ(0, ue_dir_enable(variant->dir, APP, 1));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_CHILD_OK(pid);
	close(ready[0]);
	close(go[1]);

	ASSERT_EQ(0, ue_dir_mark(variant->dir, APP_AFTER));
	if (variant->snapshot)
		ASSERT_EQ(0, ue_write_str(SNAPSHOT_FILE, "1", 0));

	/* The tracer held the last reference: the event goes */
	ASSERT_EQ(0, ue_dir_enable(variant->dir, APP, 0));
	ASSERT_TRUE(ue_wait_auto_delete(EVENTS_DIR "/" APP));

	snprintf(want[0], sizeof(want[0]), "tracing_mark_write: " APP_BEFORE "\n");
	for (i = 1; i <= APP_RECORDS; i++)
		snprintf(want[i], sizeof(want[i]), APP ": seq=%d value=%llu\n",
			 i, APP_VALUE((unsigned long long)i));
	snprintf(want[i], sizeof(want[i]), "tracing_mark_write: " APP_AFTER "\n");
	for (i = 0; i < APP_RECORDS + 2; i++)
		lines[i] = want[i];

	if (variant->snapshot)
		snprintf(path, sizeof(path), "%s", SNAPSHOT_FILE);
	else
		snprintf(path, sizeof(path), "%s/trace", variant->dir);
	ue_assert_shows(_metadata, path, lines, APP_RECORDS + 2);
}

/*
 * Every way to remove an event keeps its records in every buffer: two
 * records go to an instance and the top buffer, a snapshot taken between
 * them keeps the first, a marker line follows; then the event goes.
 */
enum removal {
	RM_AUTO_DELETE,		/* last fd closed, tracers detached */
	RM_DIAG_IOCSDEL,	/* persistent event, DIAG_IOCSDEL */
	RM_REREGISTER,		/* unreferenced, the name with other fields */
	RM_DYN_DELETE,		/* persistent event, "-:NAME FIELDS" */
	RM_DYN_TRUNCATE,	/* persistent event, O_TRUNC of dynamic_events */
	RM_UNDO,		/* another event, made by a failed registration */
};

FIXTURE(records) {
	int data_fd;
	int other_fd;
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

FIXTURE_VARIANT_ADD(records, failed_registration_undo) {
	.removal = RM_UNDO,
};

static void records_cleanup(void)
{
	ue_dir_enable(INSTANCE, VICTIM, 0);
	ue_enable(VICTIM, 0);
	ue_cleanup_event(VICTIM);
	ue_cleanup_event(UNDONE);
	rmdir(INSTANCE);
	if (ue_exists(SNAPSHOT_FILE))
		ue_write_str(SNAPSHOT_FILE, "0", 0);
}

FIXTURE_SETUP(records) {
	self->data_fd = -1;
	self->other_fd = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	records_cleanup();

	self->snapshot = ue_exists(SNAPSHOT_FILE);
	ASSERT_EQ(0, mkdir(INSTANCE, 0755)) {
		TH_LOG("mkdir %s: %s", INSTANCE, strerror(errno));
	}
	ASSERT_EQ(0, ue_clear_trace());

	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(records) {
	if (self->data_fd != -1)
		close(self->data_fd);
	if (self->other_fd != -1)
		close(self->other_fd);
	ue_unreg(&self->word, 0);
	ue_unreg(&self->other_word, 0);
	records_cleanup();
	ue_clear_trace();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * A registration that creates UNDONE and then fails, as the kernel
 * cannot store write_index in the read-only struct: it removes UNDONE.
 * Returns the ioctl's result.
 */
static int register_undone(int *word)
{
	long page = sysconf(_SC_PAGESIZE);
	struct user_reg *reg;
	int fd, ret, err;

	reg = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (reg == MAP_FAILED)
		return -1;
	reg->size = sizeof(*reg);
	reg->enable_size = sizeof(*word);
	reg->enable_addr = (__u64)(unsigned long)word;
	reg->name_args = (__u64)(unsigned long)UNDONE " u32 x";
	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0 || mprotect(reg, page, PROT_READ)) {
		ret = -1;
		err = errno;
	} else {
		ret = ioctl(fd, DIAG_IOCSREG, reg);
		err = errno;
	}
	if (fd >= 0)
		close(fd);
	munmap(reg, page);
	errno = err;

	return ret;
}

TEST_F_TIMEOUT(records, removal_keeps_records_in_every_buffer, 120)
{
	static const char * const top[] = {
		VICTIM_LINE(1, 2), VICTIM_LINE(3, 4), MARK_LINE,
	};
	static const char * const top_after_snapshot[] = {
		VICTIM_LINE(3, 4), MARK_LINE,
	};
	static const char * const instance[] = {
		VICTIM_LINE(1, 2), VICTIM_LINE(3, 4),
	};
	static const char * const snapshot[] = { VICTIM_LINE(1, 2) };
	static const char * const new_record[] = { VICTIM ": c=5\n" };
	bool persist = variant->removal != RM_AUTO_DELETE &&
		       variant->removal != RM_REREGISTER;
	int index, old_id;
	__u64 c = 5;
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ &c, sizeof(c) },
	};

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, VICTIM " " VICTIM_FIELDS,
			       &self->word, 0, sizeof(int),
			       persist ? USER_EVENT_REG_PERSIST : 0, &index));
	old_id = ue_event_id(VICTIM);
	ASSERT_LT(0, old_id);

	ASSERT_EQ(0, ue_enable(VICTIM, 1));
	ASSERT_EQ(0, ue_dir_enable(INSTANCE, VICTIM, 1));
	ASSERT_WRITE(sizeof(index) + sizeof(struct victim_rec),
		     write_victim(self->data_fd, index, 1, 2));
	if (self->snapshot)
		ASSERT_EQ(0, ue_write_str(SNAPSHOT_FILE, "1", 0));
	ASSERT_WRITE(sizeof(index) + sizeof(struct victim_rec),
		     write_victim(self->data_fd, index, 3, 4));
	ASSERT_EQ(0, ue_dir_mark(TRACEFS_DIR, MARK_BEFORE));
	ASSERT_EQ(0, ue_enable(VICTIM, 0));
	ASSERT_EQ(0, ue_dir_enable(INSTANCE, VICTIM, 0));

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
		/* The lookup (or, if it came first, the auto-delete) */
		self->other_fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, self->other_fd);
		ASSERT_EQ(0, ue_reg_fd(self->other_fd,
				       VICTIM " " VICTIM_OTHER,
				       &self->other_word, 0, sizeof(int), 0,
				       &index)) {
			TH_LOG("re-registration: %s", strerror(errno));
		}
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
	case RM_UNDO:
		ASSERT_EQ(-1, register_undone(&self->other_word));
		ASSERT_EQ(EFAULT, errno);
		ASSERT_FALSE(ue_event_exists(UNDONE));
		break;
	}
	if (variant->removal != RM_REREGISTER && variant->removal != RM_UNDO)
		ASSERT_FALSE(ue_event_exists(VICTIM));

	if (self->snapshot) {
		ue_assert_shows(_metadata, TRACE_FILE, top_after_snapshot,
				ARRAY_SIZE(top_after_snapshot));
		ue_assert_shows(_metadata, SNAPSHOT_FILE, snapshot,
				ARRAY_SIZE(snapshot));
	} else {
		ue_assert_shows(_metadata, TRACE_FILE, top, ARRAY_SIZE(top));
	}
	ue_assert_shows(_metadata, INSTANCE "/trace", instance,
			ARRAY_SIZE(instance));

	if (variant->removal != RM_REREGISTER)
		return;

	/* The new event's records must never meet the old ones' printer */
	ASSERT_NE(old_id, ue_event_id(VICTIM)) {
		TH_LOG("the new event got the id of the old one, whose records remain");
	}

	/* The new event's record beside the old ones, each as its own */
	ASSERT_EQ(0, ue_enable(VICTIM, 1));
	ASSERT_WRITE(sizeof(index) + sizeof(c),
		     writev(self->other_fd, io, 2));
	ASSERT_EQ(0, ue_enable(VICTIM, 0));
	ue_assert_shows(_metadata, TRACE_FILE, new_record, 1);
	ue_assert_shows(_metadata, TRACE_FILE,
			self->snapshot ? top_after_snapshot : top,
			self->snapshot ? ARRAY_SIZE(top_after_snapshot) :
					 ARRAY_SIZE(top));
	ASSERT_EQ(0, ue_unreg_fd(self->other_fd, &self->other_word, 0));
}

/*
 * The same name with the same fields while records of the removed event
 * remain: the new event takes the removed one's type id, and the
 * records before and after it are printed alike.
 */
#define REUSED		"__records_reused"

FIXTURE(reuse) {
	int word;
	bool umount;
};

FIXTURE_SETUP(reuse) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_enable(REUSED, 0);
	ue_cleanup_event(REUSED);
	ASSERT_EQ(0, ue_clear_trace());
}

FIXTURE_TEARDOWN(reuse) {
	ue_unreg(&self->word, 0);
	ue_enable(REUSED, 0);
	ue_cleanup_event(REUSED);
	ue_clear_trace();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Registers REUSED as @cmd, records a=@a b=@b, removes the event */
static void reused_cycle(struct __test_metadata *_metadata, int *word,
			 const char *cmd, __u32 a, __u32 b, int *id)
{
	int fd = open(DATA_FILE, O_RDWR), index;

	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, cmd, word, 0, sizeof(int), 0, &index)) {
		TH_LOG("registering \"%s\": %s", cmd, strerror(errno));
	}
	*id = ue_event_id(REUSED);
	ASSERT_LT(0, *id);
	ASSERT_EQ(0, ue_enable(REUSED, 1));
	ASSERT_WRITE(sizeof(index) + sizeof(struct victim_rec),
		     write_victim(fd, index, a, b));
	ASSERT_EQ(0, ue_enable(REUSED, 0));
	ASSERT_EQ(0, ue_unreg_fd(fd, word, 0));
	close(fd);
	/* Unreferenced: deleted at once (or by its auto-delete already) */
	ASSERT_TRUE(ue_del_unreferenced(REUSED));
}

TEST_F(reuse, same_fields_take_the_removed_type_id)
{
	static const char * const first[] = { REUSED ": a=1 b=2\n" };
	static const char * const both[] = {
		REUSED ": a=1 b=2\n", REUSED ": a=3 b=4\n",
	};
	int id, again;

	reused_cycle(_metadata, &self->word, REUSED " u32 a; u32 b", 1, 2,
		     &id);
	ue_assert_shows(_metadata, TRACE_FILE, first, 1);

	/* Another spelling of the same fields */
	reused_cycle(_metadata, &self->word, REUSED "  u32 a ;u32\tb", 3, 4,
		     &again);
	EXPECT_EQ(id, again) {
		TH_LOG("the same name and fields got type id %d, the removed event had %d",
		       again, id);
	}
	ue_assert_shows(_metadata, TRACE_FILE, both, 2);
}

/*
 * An event enabled but deleted while the buffers hold nothing: nothing is
 * held for it, so it counts for nothing once deleted, and at the limit
 * (after a clear) there is room for a new event.
 */
TEST_F(reuse, removal_over_empty_buffers_keeps_nothing)
{
	int fd = open(DATA_FILE, O_RDWR), index;

	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_release_kept());
	ASSERT_EQ(0, ue_reg_fd(fd, REUSED " u32 a; u32 b", &self->word, 0,
			       sizeof(int), 0, &index));
	ASSERT_EQ(0, ue_enable(REUSED, 1));
	ASSERT_EQ(0, ue_enable(REUSED, 0));
	ASSERT_EQ(0, ue_clear_trace());
	ASSERT_EQ(0, ue_unreg_fd(fd, &self->word, 0));
	close(fd);
	ASSERT_TRUE(ue_del_unreferenced(REUSED));
	EXPECT_EQ(0, ue_kept_count()) {
		TH_LOG("an event deleted over empty buffers is still kept");
	}
	EXPECT_EQ(0, ue_release_kept()) {
		TH_LOG("at the limit, after a clear, the deleted event still counts");
	}
}

/*
 * error_log and a command with control bytes: the entry shows only the
 * refused word, every byte that is not printable escaped (\e, \n, \xHH,
 * \NNN: whatever the form, decoded it gives the word back), and the
 * caret under the refused word (its first byte, or the byte that makes
 * it refused), counted in the escaped text. Through dynamic_events a
 * newline ends the command, so only the ioctl tries it.
 */
#define ERROR_LOG	TRACEFS_DIR "/error_log"
#define CMD_PREFIX	"  Command: "
#define ERR_EVENT	"__records_err"

static const struct {
	const char *cmd;	/* as given to DIAG_IOCSREG, or after "u:" */
	const char *refused;	/* the refused word of it */
	bool ioctl_only;	/* has a newline */
} errlog_cases[] = {
	{ ERR_EVENT "\033[2Jname u32 a", ERR_EVENT "\033[2Jname" },
	{ ERR_EVENT "\n[ 1.000000] forged u32 a", ERR_EVENT "\n[", true },
	{ ERR_EVENT " u32 a\033[8mb", "a\033[8mb" },
	{ ERR_EVENT " u32 a\nforged", "a\nforged", true },
	/* Escaped bytes before the refused word move the caret */
	{ ERR_EVENT " struct \033[1mhid s 4; u32 b\033c", "b\033c" },
	/* Control bytes in a word that is accepted */
	{ ERR_EVENT " struct \033[1m\x07\x7fhid s 4; bogus c", "bogus" },
};

FIXTURE(errlog) {
	int word;
	bool umount;
};

FIXTURE_SETUP(errlog) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
}

FIXTURE_TEARDOWN(errlog) {
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * Decodes the escapes of @in into @out (at least as long as @in) and
 * notes in @col, for each byte of @out, the column of @in it came from.
 * Returns the length of @out, or -1 for a backslash that starts no
 * known escape.
 */
static int unescape(const char *in, char *out, int *col)
{
	static const char special[] = "\\\\a\ae\033f\fn\nr\rt\tv\v\"\"";
	int n = 0, i = 0, len, v;
	const char *s;

	while (in[i]) {
		col[n] = i;
		if (in[i] != '\\') {
			out[n++] = in[i++];
			continue;
		}
		if (in[i + 1] == 'x' && isxdigit(in[i + 2]) &&
		    isxdigit(in[i + 3])) {
			char hex[3] = { in[i + 2], in[i + 3], '\0' };

			v = strtol(hex, NULL, 16);
			i += 4;
		} else if (in[i + 1] >= '0' && in[i + 1] <= '7') {
			for (v = 0, len = 1; len <= 3 && in[i + len] >= '0' &&
			     in[i + len] <= '7'; len++)
				v = v * 8 + in[i + len] - '0';
			i += len;
		} else {
			for (s = special; *s && *s != in[i + 1]; s += 2)
				;
			if (!*s)
				return -1;
			v = s[1];
			i += 2;
		}
		out[n++] = v;
	}
	out[n] = '\0';

	return n;
}

/*
 * The last entry of error_log, which must be the only one: its message,
 * its command as logged and the caret's column in it. The whole log
 * must be free of control bytes but the line ends.
 */
static void last_error(struct __test_metadata *_metadata, unsigned int n,
		       char *cmd, size_t len, int *caret)
{
	char *log = ue_read_file(ERROR_LOG), *err, *line, *end;
	const unsigned char *p;

	ASSERT_NE(NULL, log);
	for (p = (unsigned char *)log; *p; p++) {
		ASSERT_FALSE((*p < 0x20 && *p != '\n') || *p == 0x7f) {
			TH_LOG("case %u: error_log has the raw byte 0x%02x at offset %d",
			       n, *p, (int)((char *)p - log));
		}
	}

	/* "[time] user_events: error: TEXT", "  Command: CMD", "   ^" */
	err = strstr(log, "] user_events: error: ");
	ASSERT_NE(NULL, err) {
		TH_LOG("case %u: no entry in error_log:\n%s", n, log);
	}
	line = strchr(err, '\n');
	ASSERT_NE(NULL, line);
	line++;
	ASSERT_EQ(0, strncmp(line, CMD_PREFIX, strlen(CMD_PREFIX))) {
		TH_LOG("case %u: the message is not followed by the command:\n%s",
		       n, log);
	}
	end = strchr(line, '\n');
	ASSERT_NE(NULL, end);
	*end++ = '\0';
	snprintf(cmd, len, "%s", line + strlen(CMD_PREFIX));

	*caret = strspn(end, " ");
	ASSERT_EQ(0, strcmp(end + *caret, "^\n")) {
		TH_LOG("case %u: no caret line ending the log after the command:\n%s",
		       n, log);
	}
	*caret -= strlen(CMD_PREFIX);
	free(log);
}

/*
 * After the command of errlog_cases[@c] was refused: the logged command,
 * decoded, is the refused word, and the caret is under its first byte or
 * under its first control byte.
 */
static void check_escaped(struct __test_metadata *_metadata, unsigned int c)
{
	const char *refused = errlog_cases[c].refused, *bad, *word;
	char logged[1024], decoded[1024];
	int col[1024], caret, n, i, at;

	last_error(_metadata, c, logged, sizeof(logged), &caret);
	n = unescape(logged, decoded, col);
	ASSERT_LE(0, n) {
		TH_LOG("case %u: no known escape in the logged command \"%s\"",
		       c, logged);
	}
	EXPECT_STREQ(refused, decoded) {
		TH_LOG("case %u: the logged command \"%s\" is not (only) the refused word",
		       c, logged);
	}
	word = strstr(decoded, refused);
	ASSERT_NE(NULL, word) {
		TH_LOG("case %u: the refused word is not in the logged command \"%s\"",
		       c, logged);
	}

	/* The caret: under the word's first byte or its first control byte */
	for (bad = refused; *bad && *bad >= 0x20 && *bad != 0x7f; bad++)
		;
	at = -1;
	for (i = 0; i < n; i++) {
		if (col[i] == caret)
			at = i - (word - decoded);
	}
	EXPECT_TRUE(at == 0 || (*bad && at == bad - refused)) {
		TH_LOG("case %u, logged as \"%s\": the caret at %d is under neither",
		       c, logged, caret);
	}
}

TEST_F(errlog, ioctl_command_control_bytes_escaped)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errlog_cases); i++) {
		ASSERT_EQ(0, ue_write_str(ERROR_LOG, "", O_TRUNC));
		ASSERT_EQ(-1, ue_reg(errlog_cases[i].cmd, &self->word, 0,
				     sizeof(int), 0)) {
			TH_LOG("case %u registered", i);
		}
		ASSERT_EQ(EINVAL, errno);
		check_escaped(_metadata, i);
	}
}

TEST_F(errlog, dyn_command_control_bytes_escaped)
{
	char cmd[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errlog_cases); i++) {
		if (errlog_cases[i].ioctl_only)
			continue;
		snprintf(cmd, sizeof(cmd), "u:%s", errlog_cases[i].cmd);
		ASSERT_EQ(0, ue_write_str(ERROR_LOG, "", O_TRUNC));
		ASSERT_EQ(EINVAL, ue_dyn_write(cmd)) {
			TH_LOG("case %u not refused", i);
		}
		check_escaped(_metadata, i);
	}
}

/*
 * tp_printk (make test boots with it, and tp_printk_stop_on_boot, so the
 * tests turn it on for their events only): each record is printed into
 * the kernel log as trace shows it.
 */
FIXTURE(printk) {
	bool umount;
};

#define INJECT_EVENT	"__records_inject"
#define INJECT_FIELDS	"__data_loc u8[] d; __data_loc char[] s; u32 n"
#define BIG_EVENT	"__records_big"
#define TP_PRINTK_FILE	"/proc/sys/kernel/tracepoint_printk"

FIXTURE_SETUP(printk) {
	char *cmdline;

	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_enable(INJECT_EVENT, 0);
	ue_cleanup_event(INJECT_EVENT);
	ue_enable(BIG_EVENT, 0);
	ue_cleanup_event(BIG_EVENT);

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
	char path[512];

	ue_write_str(TP_PRINTK_FILE, "0", 0);
	ue_enable(INJECT_EVENT, 0);
	ue_cleanup_event(INJECT_EVENT);
	ue_write_str(ue_event_file(path, sizeof(path), BIG_EVENT, "filter"),
		     "0", 0);
	ue_enable(BIG_EVENT, 0);
	ue_cleanup_event(BIG_EVENT);
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
 * With a filter on the event, ftrace builds the record in the per-CPU
 * buffered event, whose length word is laid out differently from a ring
 * buffer event's once the record is over 116 bytes (header included).
 * Payloads around that size, each with and without a filter that lets
 * it pass: the string of the last field, which ends the record, prints
 * whole (a printer given a size short of the record prints <bad>).
 */
#define BIG_TAIL	8	/* "t" and 6 digits and the NUL */

TEST_F_TIMEOUT(printk, filtered_record_printed_whole, 120)
{
	static const unsigned int payloads[] = { 104, 108, 112, 116, 120, 128,
						 512 };
	char cmd[128], path[512], want[64], *line;
	unsigned int i, filtered, fixed;
	int fd, index, word = 0;
	__u32 loc;
	char *rec;

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	for (i = 0; i < ARRAY_SIZE(payloads); i++) {
		/* pad is "p" and NULs; the tail's string ends the record */
		fixed = payloads[i] - BIG_TAIL;
		snprintf(cmd, sizeof(cmd),
			 "u:" BIG_EVENT " char[%u] pad; __rel_loc char[] tail",
			 fixed - 4);
		ASSERT_EQ(0, ue_dyn_write(cmd));
		ASSERT_EQ(0, ue_reg_fd(fd, cmd + 2, &word, 0, sizeof(int), 0,
				       &index));
		ASSERT_EQ(0, ue_enable(BIG_EVENT, 1));
		rec = calloc(1, sizeof(index) + payloads[i]);
		ASSERT_NE(NULL, rec);
		memcpy(rec, &index, sizeof(index));
		rec[sizeof(index)] = 'p';

		/* Right after its own word */
		loc = BIG_TAIL << 16;
		memcpy(rec + sizeof(index) + fixed - 4, &loc, sizeof(loc));
		for (filtered = 0; filtered < 2; filtered++) {
			snprintf(rec + sizeof(index) + fixed, BIG_TAIL, "t%06u",
				 (payloads[i] * 2 + filtered) % 1000000);
			ASSERT_EQ(0, ue_write_str(ue_event_file(path,
								sizeof(path),
								BIG_EVENT,
								"filter"),
						  filtered ? "pad != \"x\"" : "0",
						  0));
			ASSERT_EQ(0, ue_write_str(TP_PRINTK_FILE, "1", 0));
			ASSERT_WRITE(sizeof(index) + payloads[i],
				     write(fd, rec, sizeof(index) + payloads[i]));
			ASSERT_EQ(0, ue_write_str(TP_PRINTK_FILE, "0", 0));

			line = last_log_line(BIG_EVENT ":");
			ASSERT_NE(NULL, line) {
				TH_LOG("tp_printk printed nothing");
			}
			snprintf(want, sizeof(want), " tail=t%06u",
				 (payloads[i] * 2 + filtered) % 1000000);
			EXPECT_NE(NULL, strstr(line, want)) {
				TH_LOG("%u-byte payload, %s: \"%s\", want \"%s\"",
				       payloads[i],
				       filtered ? "filtered" : "no filter",
				       line, want);
			}
			free(line);
		}
		free(rec);
		ASSERT_EQ(0, ue_enable(BIG_EVENT, 0));
		ASSERT_EQ(0, ue_write_str(path, "0", 0));
		ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
		/* The fd's slot holds the event until the fd is closed */
		close(fd);
		fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, fd);
		ASSERT_EQ(0, ue_del(BIG_EVENT));
	}
	close(fd);
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
	/* Every event has a "hist" file when hist triggers are built in */
	if (!ue_exists(ue_event_file(path, sizeof(path), SOFT_EVENT, "hist")))
		SKIP(return, "no hist file: CONFIG_HIST_TRIGGERS is not set");
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
