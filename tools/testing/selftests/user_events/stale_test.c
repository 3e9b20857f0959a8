// SPDX-License-Identifier: GPL-2.0
/*
 * user_events stale tracefs files: a per-event file (enable, filter,
 * trigger, format, id, hist; inject and hist_debug when configured) kept
 * open while its event goes away, in each way an event can end:
 *
 *   auto-delete after the last fd closed, after the last unregister,
 *   after the exit of the registering process; DIAG_IOCSDEL of a
 *   persistent event; "-:" in dynamic_events; a truncating open of
 *   dynamic_events.
 *
 * After the end, other events are created and deleted so that the freed
 * memory is reused, then the stale fd is read and written: each call
 * fails with ENODEV, also once a new event of the same name exists, and
 * the close touches nothing freed (KASAN and the splat scan of the
 * harness tell). A synthetic event, another dynamic event provider, gets
 * the same checks.
 *
 * Events that end by auto-delete go through the kernel's work item
 * shortly after their last reference: waited for, bounded
 * (UE_AUTO_DELETE_MS). Every other end is immediate.
 */
#define _GNU_SOURCE
#include <sys/wait.h>

#include "user_events_selftests.h"

#define EVENT		"__stale_event"
#define FIELDS		"u32 a; char[16] s; __data_loc char[] d; u64 b"
#define EVENT_CMD	EVENT " " FIELDS
#define EVENT_DIR	EVENTS_DIR "/" EVENT
#define CHURN_FMT	"__stale_churn%d"
#define CHURN_FIELDS	"u32 a; u64 b; char[40] c; __data_loc char[] d; " \
			"__rel_loc char[] e; struct x f 24; s16 g"
#define NR_CHURN	4
#define SYNTH		"__stale_synth"
#define SYNTH_DIR	TRACEFS_DIR "/events/synthetic/" SYNTH
#define SYNTH_FILE	TRACEFS_DIR "/synthetic_events"

/* How the event ends */
enum end {
	END_CLOSE,		/* auto-delete: the last fd is closed */
	END_UNREGISTER,		/* auto-delete: the last enabler goes */
	END_EXIT,		/* auto-delete: the registering process exits */
	END_DELETE,		/* DIAG_IOCSDEL of a persistent event */
	END_DYN_DELETE,		/* "-:NAME FIELDS" in dynamic_events */
	END_DYN_TRUNCATE,	/* open(dynamic_events, O_TRUNC) */
};

/* What can be done with a per-event file */
struct event_file {
	const char *name;
	bool read;
	const char *write;	/* what to write, NULL if not writable */
};

static const struct event_file files[] = {
	{ "enable", true, "1" },
	{ "filter", true, "a == 1" },
	{ "trigger", true, "traceon" },
	{ "format", true, NULL },
	{ "id", true, NULL },
	{ "hist", true, NULL },
	{ "inject", false, "a=1" },
	{ "hist_debug", true, NULL },
};

enum {
	F_ENABLE, F_FILTER, F_TRIGGER, F_FORMAT, F_ID, F_HIST, F_INJECT,
	F_HIST_DEBUG
};

FIXTURE(stale) {
	int data_fd;
	int word;
	pid_t child;
	int go[2];
	bool umount;
};

FIXTURE_VARIANT(stale) {
	enum end end;
};

FIXTURE_VARIANT_ADD(stale, auto_delete_after_close) {
	.end = END_CLOSE,
};

FIXTURE_VARIANT_ADD(stale, auto_delete_after_unregister) {
	.end = END_UNREGISTER,
};

FIXTURE_VARIANT_ADD(stale, auto_delete_after_exit) {
	.end = END_EXIT,
};

FIXTURE_VARIANT_ADD(stale, diag_iocsdel) {
	.end = END_DELETE,
};

FIXTURE_VARIANT_ADD(stale, dyn_delete) {
	.end = END_DYN_DELETE,
};

FIXTURE_VARIANT_ADD(stale, dyn_truncate) {
	.end = END_DYN_TRUNCATE,
};

static void stale_cleanup(void)
{
	char name[64];
	int i;

	ue_write_str(EVENT_DIR "/trigger", "", O_TRUNC);
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
	for (i = 0; i < NR_CHURN; i++) {
		snprintf(name, sizeof(name), CHURN_FMT, i);
		ue_cleanup_event(name);
	}
}

FIXTURE_SETUP(stale) {
	self->data_fd = -1;
	self->child = -1;
	self->go[0] = -1;
	self->go[1] = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	stale_cleanup();
}

FIXTURE_TEARDOWN(stale) {
	if (self->child > 0) {
		close(self->go[1]);
		ue_wait_child(self->child);
	}
	if (self->data_fd >= 0)
		close(self->data_fd);
	stale_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* The registering process of END_EXIT: holds the event until told */
static void exit_child(int ready, int go, int *word)
{
	int fd = open(DATA_FILE, O_RDWR);
	char c = 0;

	UE_CHILD_CHECK(fd >= 0);
	UE_CHILD_EQ(0, ue_reg_fd(fd, EVENT_CMD, word, 0, 4, 0, NULL));
	UE_CHILD_EQ(1, write(ready, &c, 1));
	/* EOF: the parent let go; exit with the fd and enabler */
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

/* Create the event so that it can end the way @end says */
static void event_begin(struct __test_metadata *_metadata,
			struct _test_data_stale *self, enum end end)
{
	int ready[2];
	char c;

	switch (end) {
	case END_CLOSE:
	case END_UNREGISTER:
	case END_DELETE:
		self->data_fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, self->data_fd);
		ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT_CMD, &self->word,
				       0, 4,
				       end == END_DELETE ?
				       USER_EVENT_REG_PERSIST : 0, NULL));
		/* Only one reference is left: the one that ends it */
		if (end != END_UNREGISTER)
			ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->word, 0));
		if (end != END_CLOSE) {
			close(self->data_fd);
			self->data_fd = -1;
		}
		break;
	case END_EXIT:
		ASSERT_EQ(0, pipe(ready));
		ASSERT_EQ(0, pipe(self->go));
		self->child = fork();
		ASSERT_NE(-1, self->child);
		if (self->child == 0) {
			close(ready[0]);
			close(self->go[1]);
			exit_child(ready[1], self->go[0], &self->word);
		}
		close(ready[1]);
		close(self->go[0]);
		ASSERT_EQ(1, read(ready[0], &c, 1));
		close(ready[0]);
		break;
	case END_DYN_DELETE:
	case END_DYN_TRUNCATE:
		ASSERT_EQ(0, ue_dyn_write("u:" EVENT_CMD));
		break;
	}
	ASSERT_TRUE(ue_exists(EVENT_DIR));
}

static void event_end(struct __test_metadata *_metadata,
		      struct _test_data_stale *self, enum end end)
{
	int fd;

	switch (end) {
	case END_CLOSE:
		close(self->data_fd);
		self->data_fd = -1;
		break;
	case END_UNREGISTER:
		ASSERT_EQ(0, ue_unreg(&self->word, 0));
		break;
	case END_EXIT:
		close(self->go[1]);
		ASSERT_CHILD_OK(self->child);
		self->child = -1;
		break;
	case END_DELETE:
		ASSERT_EQ(0, ue_del(EVENT));
		break;
	case END_DYN_DELETE:
		ASSERT_EQ(0, ue_dyn_write("-:" EVENT_CMD));
		break;
	case END_DYN_TRUNCATE:
		/* Every dynamic event goes: none of them may be in use */
		fd = open(DYN_FILE, O_WRONLY | O_TRUNC);
		ASSERT_NE(-1, fd) {
			TH_LOG("truncating open: %s", strerror(errno));
		}
		close(fd);
		break;
	}

	if (end <= END_EXIT)
		ASSERT_TRUE(ue_wait_auto_delete(EVENT_DIR));
	ASSERT_FALSE(ue_exists(EVENT_DIR));
}

/*
 * Events with several fields, created and deleted again: their memory
 * (events, fields, tracefs files) reuses what the ended event freed.
 */
static void churn(struct __test_metadata *_metadata)
{
	char cmd[256];
	int i;

	for (i = 0; i < NR_CHURN; i++) {
		snprintf(cmd, sizeof(cmd), "u:" CHURN_FMT " " CHURN_FIELDS, i);
		ASSERT_EQ(0, ue_dyn_write(cmd));
	}
	for (i = 0; i < NR_CHURN; i++) {
		snprintf(cmd, sizeof(cmd), "-:" CHURN_FMT " " CHURN_FIELDS, i);
		ASSERT_EQ(0, ue_dyn_write(cmd));
	}
}

/* Each read and write of the stale @fd gives ENODEV */
static void check_stale(struct __test_metadata *_metadata, int fd,
			const struct event_file *f, const char *dir)
{
	char buf[512];
	ssize_t ret;
	int i;

	for (i = 0; i < 2; i++) {
		if (f->read) {
			errno = 0;
			ret = read(fd, buf, sizeof(buf));
			ASSERT_EQ(-1, ret) {
				TH_LOG("read of %s/%s after its event ended: %zd",
				       dir, f->name, ret);
			}
			ASSERT_EQ(ENODEV, errno) {
				TH_LOG("read of %s/%s after its event ended: %s",
				       dir, f->name, strerror(errno));
			}
		}
		if (f->write) {
			errno = 0;
			ret = write(fd, f->write, strlen(f->write));
			ASSERT_EQ(-1, ret) {
				TH_LOG("write of %s/%s after its event ended: %zd",
				       dir, f->name, ret);
			}
			ASSERT_EQ(ENODEV, errno) {
				TH_LOG("write of %s/%s after its event ended: %s",
				       dir, f->name, strerror(errno));
			}
		}
	}
}

/* Open @f of the event in @dir; a read at offset 0 works while it lives */
static int open_live(struct __test_metadata *_metadata,
		     const struct event_file *f, const char *dir)
{
	char path[512], buf[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, f->name);
	fd = open(path, f->write ? (f->read ? O_RDWR : O_WRONLY) : O_RDONLY);
	if (fd < 0)
		TH_LOG("open %s: %s", path, strerror(errno));
	if (fd >= 0 && f->read && pread(fd, buf, sizeof(buf), 0) < 0) {
		TH_LOG("read %s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
	}

	return fd;
}

static void stale_file(struct __test_metadata *_metadata,
		       struct _test_data_stale *self,
		       const struct _fixture_variant_stale *variant, int which)
{
	const struct event_file *f = &files[which];
	char path[512];
	int fd;

	event_begin(_metadata, self, variant->end);
	snprintf(path, sizeof(path), EVENT_DIR "/%s", f->name);
	if (!ue_exists(path))
		SKIP(return, "no %s file: not configured in this kernel",
		     f->name);
	fd = open_live(_metadata, f, EVENT_DIR);
	ASSERT_LE(0, fd);

	event_end(_metadata, self, variant->end);
	churn(_metadata);
	check_stale(_metadata, fd, f, EVENT_DIR);

	/* A new event of the name is not the stale file's */
	ASSERT_EQ(0, ue_dyn_write("u:" EVENT_CMD));
	check_stale(_metadata, fd, f, EVENT_DIR);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, ue_dyn_write("-:" EVENT_CMD));
}

TEST_F(stale, enable) {
	stale_file(_metadata, self, variant, F_ENABLE);
}

TEST_F(stale, filter) {
	stale_file(_metadata, self, variant, F_FILTER);
}

TEST_F(stale, trigger) {
	stale_file(_metadata, self, variant, F_TRIGGER);
}

TEST_F(stale, format) {
	stale_file(_metadata, self, variant, F_FORMAT);
}

TEST_F(stale, id) {
	stale_file(_metadata, self, variant, F_ID);
}

TEST_F(stale, hist) {
	stale_file(_metadata, self, variant, F_HIST);
}

/* The files of configurations the default guest does not have */
FIXTURE(stale_opt) {
	bool umount;
};

FIXTURE_SETUP(stale_opt) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	stale_cleanup();
}

FIXTURE_TEARDOWN(stale_opt) {
	stale_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(stale_opt, inject_and_hist_debug) {
	int fds[2] = { -1, -1 }, i, n = 0;
	static const int which[2] = { F_INJECT, F_HIST_DEBUG };
	char path[512];

	ASSERT_EQ(0, ue_dyn_write("u:" EVENT_CMD));
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), EVENT_DIR "/%s",
			 files[which[i]].name);
		if (!ue_exists(path))
			continue;
		fds[i] = open_live(_metadata, &files[which[i]], EVENT_DIR);
		ASSERT_LE(0, fds[i]);
		n++;
	}
	if (!n) {
		ASSERT_EQ(0, ue_dyn_write("-:" EVENT_CMD));
		SKIP(return, "no inject or hist_debug files: %s",
		     "CONFIG_TRACE_EVENT_INJECT and CONFIG_HIST_TRIGGERS_DEBUG are not set");
	}

	ASSERT_EQ(0, ue_dyn_write("-:" EVENT_CMD));
	churn(_metadata);
	for (i = 0; i < 2; i++) {
		if (fds[i] < 0)
			continue;
		check_stale(_metadata, fds[i], &files[which[i]], EVENT_DIR);
		ASSERT_EQ(0, close(fds[i]));
	}
}

/*
 * A synthetic event, the dynamic events of histogram triggers: its files
 * held across "-:" or a truncating open of dynamic_events.
 */
FIXTURE(synth) {
	bool umount;
};

FIXTURE_VARIANT(synth) {
	bool truncate;
};

FIXTURE_VARIANT_ADD(synth, dyn_delete) {
	.truncate = false,
};

FIXTURE_VARIANT_ADD(synth, dyn_truncate) {
	.truncate = true,
};

#define SYNTH_FIELDS	"u64 lat; int id; char name[16]"

static void synth_cleanup(void)
{
	if (ue_exists(SYNTH_DIR))
		ue_write_str(SYNTH_FILE, "!" SYNTH, O_APPEND);
}

FIXTURE_SETUP(synth) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	synth_cleanup();
	stale_cleanup();
}

FIXTURE_TEARDOWN(synth) {
	synth_cleanup();
	stale_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(synth, all_files) {
	int fds[F_HIST + 1], i, fd;

	if (!ue_exists(SYNTH_FILE))
		SKIP(return, "no synthetic events: CONFIG_SYNTH_EVENTS is not set");

	ASSERT_EQ(0, ue_dyn_write("s:" SYNTH " " SYNTH_FIELDS));
	ASSERT_TRUE(ue_exists(SYNTH_DIR));
	for (i = 0; i <= F_HIST; i++) {
		/* An event directory has an "id" file only for perf */
		if (i == F_ID && !ue_have_perf()) {
			TH_LOG("no id file to hold: %s", UE_NO_PERF);
			fds[i] = -1;
			continue;
		}
		/* and a "hist" file only with hist triggers (none on riscv) */
		if (i == F_HIST && !ue_exists(SYNTH_DIR "/hist")) {
			TH_LOG("no hist file to hold: CONFIG_HIST_TRIGGERS is not set");
			fds[i] = -1;
			continue;
		}
		fds[i] = open_live(_metadata, &files[i], SYNTH_DIR);
		ASSERT_LE(0, fds[i]);
	}

	if (variant->truncate) {
		fd = open(DYN_FILE, O_WRONLY | O_TRUNC);
		ASSERT_NE(-1, fd) {
			TH_LOG("truncating open: %s", strerror(errno));
		}
		close(fd);
	} else {
		ASSERT_EQ(0, ue_dyn_write("-:synthetic/" SYNTH));
	}
	ASSERT_FALSE(ue_exists(SYNTH_DIR));

	/* Reuse: synthetic and user events with several fields */
	for (i = 0; i < NR_CHURN; i++) {
		ASSERT_EQ(0, ue_dyn_write("s:" SYNTH "_x u64 a; u64 b; char c[32]; int d"));
		ASSERT_EQ(0, ue_dyn_write("-:synthetic/" SYNTH "_x"));
	}
	churn(_metadata);

	for (i = 0; i <= F_HIST; i++) {
		/* The synthetic event's fields are not "a" */
		const struct event_file f = {
			files[i].name, files[i].read,
			i == F_FILTER ? "lat == 1" : files[i].write,
		};

		if (fds[i] < 0)
			continue;
		check_stale(_metadata, fds[i], &f, SYNTH_DIR);
		ASSERT_EQ(0, close(fds[i]));
	}
}

TEST_HARNESS_MAIN
