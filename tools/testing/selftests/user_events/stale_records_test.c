// SPDX-License-Identifier: GPL-2.0
/*
 * Records of removed user events, and the type ids they need.
 *
 * A record is printed by the event that has its type id. A removed
 * event keeps its id as long as a buffer may still hold a record of it,
 * so that no event created later, whatever its layout, prints such a
 * record: the id goes back only once the records are gone (overwritten,
 * consumed through trace_pipe, the buffer cleared, the instance
 * deleted). Once the 16-bit id space has wrapped (the KUnit suite
 * user_events_ids wraps it at boot), a new event gets the lowest free
 * id, so ids go round quickly.
 *
 * Such a removed event counts toward kernel.user_events_max until its
 * records are gone: at the limit creation fails with EMFILE, and works
 * again at once when the buffers that held the records are cleared. An
 * event whose records never reached an ftrace buffer (never enabled in
 * ftrace, or only in perf) costs nothing once removed.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/uio.h>

#include "user_events_selftests.h"

/*
 * A record injected into an event that was never enabled is a record
 * all the same: it stays, printed as before, when the event is removed,
 * and the event keeps its id. The victim's record holds, in field a, a
 * location word that points at field b, and in b the bytes "OLD": an
 * event whose first field is a __data_loc string would print "OLD".
 */
#define VICTIM		"__stale_rec_victim"
#define VICTIM_FIELDS	"u32 a; u32 b"
#define SUCCESSOR	"__stale_rec_successor"
#define SUCC_FIELDS	"__data_loc char[] s; u32 n"
#define FILLER		"__stale_rec_filler"
#define MAX_FILLERS	64
#define OLD_TEXT	"OLD"

FIXTURE(stale) {
	bool umount;
};

static void stale_cleanup(void)
{
	char name[64];
	int i;

	ue_cleanup_event(VICTIM);
	ue_cleanup_event(SUCCESSOR);
	for (i = 0; i < MAX_FILLERS; i++) {
		snprintf(name, sizeof(name), FILLER "%d", i);
		ue_cleanup_event(name);
	}
}

FIXTURE_SETUP(stale) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	stale_cleanup();
	ASSERT_EQ(0, ue_clear_trace());
}

FIXTURE_TEARDOWN(stale) {
	stale_cleanup();
	ue_clear_trace();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F_TIMEOUT(stale, injected_record_of_never_enabled_event, 120)
{
	char path[512], inject[128], line[128], name[64], *trace;
	const char *lines[1] = { line };
	int victim_id, id = -1, a_off, i;
	__u32 loc, b;

	ASSERT_EQ(0, ue_dyn_write("u:" VICTIM " " VICTIM_FIELDS));
	ue_event_file(path, sizeof(path), VICTIM, "inject");
	if (!ue_exists(path))
		SKIP(return, "no inject file: CONFIG_TRACE_EVENT_INJECT is off");
	victim_id = ue_event_id(VICTIM);
	ASSERT_LT(0, victim_id);
	a_off = ue_format_offset(ue_event_file(path, sizeof(path), VICTIM,
					       "format"), "a", NULL);
	ASSERT_LT(0, a_off);
	loc = (sizeof(__u32) << 16) | (a_off + sizeof(__u32));
	memcpy(&b, OLD_TEXT, sizeof(b));

	/* Never enabled: the record comes through inject alone */
	snprintf(inject, sizeof(inject), "a=%u b=%u", loc, b);
	ASSERT_EQ(0, ue_write_str(ue_event_file(path, sizeof(path), VICTIM,
						"inject"), inject, 0)) {
		TH_LOG("inject: %s", strerror(errno));
	}
	snprintf(line, sizeof(line), VICTIM ": a=%u b=%u\n", loc, b);
	ue_assert_shows(_metadata, TRACE_FILE, lines, 1);

	ASSERT_EQ(0, ue_dyn_write("-:" VICTIM " " VICTIM_FIELDS));
	ASSERT_FALSE(ue_event_exists(VICTIM));
	ue_assert_shows(_metadata, TRACE_FILE, lines, 1);

	/*
	 * New events never get the victim's id: the lowest free ids below
	 * it are filled until the successor's id is above it.
	 */
	for (i = 0; i < MAX_FILLERS; i++) {
		ASSERT_EQ(0, ue_dyn_write("u:" SUCCESSOR " " SUCC_FIELDS));
		id = ue_event_id(SUCCESSOR);
		ASSERT_NE(victim_id, id) {
			TH_LOG("a new event got the id of a removed one whose record remains");
		}
		if (id > victim_id)
			break;
		ASSERT_EQ(0, ue_del(SUCCESSOR));
		snprintf(name, sizeof(name), "u:" FILLER "%d u32 x", i);
		ASSERT_EQ(0, ue_dyn_write(name));
	}
	ASSERT_LT(victim_id, id) {
		TH_LOG("%d free ids below the victim's", MAX_FILLERS);
	}

	ue_assert_shows(_metadata, TRACE_FILE, lines, 1);
	trace = ue_read_file(TRACE_FILE);
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(NULL, strstr(trace, SUCCESSOR)) {
		TH_LOG("the successor printed a record:\n%s", trace);
	}
	free(trace);
}

/*
 * The bound: with kernel.user_events_max just above the events that
 * exist, removed events whose records remain in a buffer fill it, and
 * creating one more fails with EMFILE; once that buffer is cleared (or
 * its records are gone another way), creation works at once. Clearing
 * another buffer does not help.
 */
#define BOUND_EVENT	"__stale_bound"
#define BOUND_NEW	"u:__stale_bound_new u32 x"
#define BOUND_INSTANCE	INSTANCES_DIR "/__stale_bound"
#define BOUND_HELD	2

enum bound_buffer {
	BOUND_TOP,		/* cleared: echo > trace */
	BOUND_SNAPSHOT,		/* cleared: echo 2 > snapshot */
	BOUND_INSTANCE_CLEARED,	/* echo > instances/X/trace */
	BOUND_INSTANCE_REMOVED,	/* rmdir instances/X */
	BOUND_TRACE_PIPE,	/* the records read from trace_pipe */
};

FIXTURE(bound) {
	int old_max;
	bool umount;
};

FIXTURE_VARIANT(bound) {
	enum bound_buffer buffer;
};

FIXTURE_VARIANT_ADD(bound, top_cleared) {
	.buffer = BOUND_TOP,
};

FIXTURE_VARIANT_ADD(bound, snapshot_cleared) {
	.buffer = BOUND_SNAPSHOT,
};

FIXTURE_VARIANT_ADD(bound, instance_cleared) {
	.buffer = BOUND_INSTANCE_CLEARED,
};

FIXTURE_VARIANT_ADD(bound, instance_removed) {
	.buffer = BOUND_INSTANCE_REMOVED,
};

FIXTURE_VARIANT_ADD(bound, trace_pipe_read) {
	.buffer = BOUND_TRACE_PIPE,
};

static void bound_cleanup(void)
{
	char name[64];
	int i;

	rmdir(BOUND_INSTANCE);
	for (i = 0; i < BOUND_HELD; i++) {
		snprintf(name, sizeof(name), BOUND_EVENT "%d", i);
		ue_enable(name, 0);
		ue_cleanup_event(name);
	}
	ue_cleanup_event(BOUND_EVENT "_new");
	if (ue_exists(SNAPSHOT_FILE))
		ue_write_str(SNAPSHOT_FILE, "0", 0);
}

FIXTURE_SETUP(bound) {
	self->old_max = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	bound_cleanup();
	if (variant->buffer == BOUND_SNAPSHOT && !ue_exists(SNAPSHOT_FILE))
		SKIP(longjmp(_metadata->env, 1),
		     "no snapshot file: CONFIG_TRACER_SNAPSHOT is off");
	ASSERT_EQ(0, ue_clear_trace());
	ASSERT_EQ(0, mkdir(BOUND_INSTANCE, 0755));
	self->old_max = ue_read_max();
	ASSERT_LT(0, self->old_max);
}

FIXTURE_TEARDOWN(bound) {
	if (self->old_max > 0)
		ue_write_max(self->old_max);
	bound_cleanup();
	ue_clear_trace();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * Creates event @name, records a=@a into trace directory @dir and
 * removes the event, as a program and a tracer would.
 */
static void record_and_remove(struct __test_metadata *_metadata,
			      const char *name, const char *dir, __u32 a)
{
	int fd = open(DATA_FILE, O_RDWR), index, word = 0;
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ &a, sizeof(a) },
	};
	char cmd[128];

	ASSERT_NE(-1, fd);
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ASSERT_EQ(0, ue_reg_fd(fd, cmd, &word, 0, sizeof(int), 0, &index)) {
		TH_LOG("%s: %s", name, strerror(errno));
	}
	ASSERT_EQ(0, ue_dir_enable(dir, name, 1));
	ASSERT_WRITE(sizeof(index) + sizeof(a), writev(fd, io, 2));
	ASSERT_EQ(0, ue_dir_enable(dir, name, 0));
	ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
	close(fd);
	ASSERT_TRUE(ue_del_unreferenced(name));
}

/* Reads trace_pipe until it is empty (or @text is full); false on error */
static bool drain_trace_pipe(char *text, size_t len)
{
	int fd = open(TRACEFS_DIR "/trace_pipe", O_RDONLY | O_NONBLOCK);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, text + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	text[got] = '\0';

	return true;
}

TEST_F_TIMEOUT(bound, removed_events_with_records_count, 120)
{
	bool instance = variant->buffer == BOUND_INSTANCE_CLEARED ||
			variant->buffer == BOUND_INSTANCE_REMOVED;
	const char *dir = instance ? BOUND_INSTANCE : TRACEFS_DIR;
	char name[64], want[BOUND_HELD][96], path[512];
	static char text[65536];
	const char *lines[BOUND_HELD];
	int i;

	ASSERT_EQ(0, ue_write_max(ue_count_event_dirs() + BOUND_HELD));
	for (i = 0; i < BOUND_HELD; i++) {
		snprintf(name, sizeof(name), BOUND_EVENT "%d", i);
		record_and_remove(_metadata, name, dir, 100 + i);
		snprintf(want[i], sizeof(want[i]), "%s: a=%d\n", name, 100 + i);
		lines[i] = want[i];
	}
	if (variant->buffer == BOUND_SNAPSHOT)
		ASSERT_EQ(0, ue_write_str(SNAPSHOT_FILE, "1", 0));

	snprintf(path, sizeof(path), "%s",
		 variant->buffer == BOUND_SNAPSHOT ? SNAPSHOT_FILE :
		 instance ? BOUND_INSTANCE "/trace" : TRACE_FILE);
	ue_assert_shows(_metadata, path, lines, BOUND_HELD);

	ASSERT_EQ(EMFILE, ue_dyn_write(BOUND_NEW)) {
		TH_LOG("removed events whose records remain do not count");
	}
	if (variant->buffer != BOUND_TOP &&
	    variant->buffer != BOUND_TRACE_PIPE) {
		ASSERT_EQ(0, ue_clear_trace());
		ASSERT_EQ(EMFILE, ue_dyn_write(BOUND_NEW)) {
			TH_LOG("clearing the top buffer freed what %s holds",
			       path);
		}
	}

	switch (variant->buffer) {
	case BOUND_TOP:
		ASSERT_EQ(0, ue_clear_trace());
		break;
	case BOUND_SNAPSHOT:
		ASSERT_EQ(0, ue_write_str(SNAPSHOT_FILE, "2", 0));
		break;
	case BOUND_INSTANCE_CLEARED:
		ASSERT_EQ(0, ue_write_str(BOUND_INSTANCE "/trace", "",
					  O_TRUNC));
		break;
	case BOUND_INSTANCE_REMOVED:
		ASSERT_EQ(0, rmdir(BOUND_INSTANCE));
		break;
	case BOUND_TRACE_PIPE:
		ASSERT_TRUE(drain_trace_pipe(text, sizeof(text)));
		i = ue_text_missing(text, lines, BOUND_HELD);
		EXPECT_EQ(-1, i) {
			TH_LOG("trace_pipe gave:\n%s", text);
		}
		break;
	}

	/* At once: the kernel takes back what it can when it needs it */
	ASSERT_EQ(0, ue_dyn_write(BOUND_NEW)) {
		TH_LOG("creating an event after the records went: %s",
		       strerror(errno));
	}
	ASSERT_EQ(0, ue_del(BOUND_EVENT "_new"));
}

/*
 * A reader of trace_pipe takes a page of records out of the ring and
 * reads one of them; the event is removed; then other records overwrite
 * the ring many times over. The writer never overwrites the reader's
 * page: the removed event's records on it stay, printed as before, and
 * its format stays with them, counted, even though more records than the
 * buffer held went meanwhile. Once they are read, it makes room at once.
 */
#define READER_INSTANCE	INSTANCES_DIR "/__stale_reader"
#define READER_OLD	"__stale_reader_old"
#define READER_NEW	"__stale_reader_new"
#define READER_PROBE	"u:__stale_reader_probe u32 x"

/*
 * Seconds the wall clock was put ahead, taken back at the teardown where
 * the clock may go back that far
 */
static int clock_ahead;

static int shift_wall_clock(int seconds)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now))
		return -1;
	now.tv_sec += seconds;
	return clock_settime(CLOCK_REALTIME, &now);
}

FIXTURE(reader) {
	int old_max;
	bool umount;
	cpu_set_t cpus;
};

/* A snapshot of the instance at each event of a ring buffer's reader lock */
#define LOCK_TRIGGER	READER_INSTANCE "/events/lock/lock_acquire/trigger"
#define LOCK_SNAPSHOT	"snapshot if name ~ \"*reader_lock*\""

static void reader_cleanup(void)
{
	ue_write_str(LOCK_TRIGGER, "!snapshot", O_APPEND);
	rmdir(READER_INSTANCE);
	ue_cleanup_event(READER_OLD);
	ue_cleanup_event(READER_NEW);
	ue_cleanup_event("__stale_reader_probe");
}

FIXTURE_SETUP(reader) {
	cpu_set_t one;

	self->old_max = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	reader_cleanup();
	ASSERT_EQ(0, ue_release_kept());
	ASSERT_EQ(0, mkdir(READER_INSTANCE, 0755));
	/* A few pages: the smallest ring the core makes */
	ASSERT_EQ(0, ue_write_str(READER_INSTANCE "/buffer_size_kb", "8", 0));
	/* Every record on one CPU, the reader's page of that CPU */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->cpus), &self->cpus));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	self->old_max = ue_read_max();
	ASSERT_LT(0, self->old_max);
}

FIXTURE_TEARDOWN(reader) {
	if (clock_ahead && !shift_wall_clock(-clock_ahead))
		clock_ahead = 0;
	sched_setaffinity(0, sizeof(self->cpus), &self->cpus);
	if (self->old_max > 0)
		ue_write_max(self->old_max);
	reader_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/*
 * Event @name, enabled in the instance, records @n values, then goes;
 * with @set_back, the wall clock goes back a minute before it does (it
 * was put two minutes ahead for the records: a wall clock that started
 * at the boot, without a real-time clock, cannot go before the boot)
 */
static void reader_records(struct __test_metadata *_metadata,
			   const char *name, int n, bool set_back)
{
	int fd = open(DATA_FILE, O_RDWR), index, word = 0, i;
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ &i, sizeof(i) },
	};
	char cmd[128];

	ASSERT_NE(-1, fd);
	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	ASSERT_EQ(0, ue_reg_fd(fd, cmd, &word, 0, sizeof(int), 0, &index));
	ASSERT_EQ(0, ue_dir_enable(READER_INSTANCE, name, 1));
	if (set_back) {
		ASSERT_EQ(0, shift_wall_clock(120));
		clock_ahead += 120;
	}
	for (i = 0; i < n; i++)
		ASSERT_WRITE(sizeof(index) + sizeof(i), writev(fd, io, 2));
	if (set_back) {
		ASSERT_EQ(0, shift_wall_clock(-60));
		clock_ahead -= 60;
	}
	ASSERT_EQ(0, ue_dir_enable(READER_INSTANCE, name, 0));
	ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
	close(fd);
	ASSERT_TRUE(ue_del_unreferenced(name));
}

/* The instance still shows READER_OLD's records, each by its own event */
static void expect_old_records_decoded(struct __test_metadata *_metadata)
{
	char *trace = ue_read_file(READER_INSTANCE "/trace");
	bool old_left, unknown;

	ASSERT_TRUE(!!trace);
	old_left = strstr(trace, READER_OLD ": a=");
	unknown = strstr(trace, "Unknown type");
	free(trace);
	EXPECT_TRUE(old_left) {
		TH_LOG("no record of %s left in the instance", READER_OLD);
	}
	EXPECT_FALSE(unknown) {
		TH_LOG("a record printed without its event");
	}
}

TEST_F_TIMEOUT(reader, reader_page_keeps_the_format, 120)
{
	static char text[1 << 16];
	char line[64];
	int fd;

	reader_records(_metadata, READER_OLD, 1000, false);
	/* One line: the page of the oldest records becomes the reader's */
	fd = open(READER_INSTANCE "/trace_pipe", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, read(fd, line, sizeof(line) - 1));
	close(fd);
	ASSERT_EQ(1, ue_kept_count());

	reader_records(_metadata, READER_NEW, 20000, false);
	ASSERT_EQ(2, ue_kept_count());

	/* At the limit the kernel takes back what it can: not these */
	ASSERT_EQ(0, ue_write_max(ue_active_count() + ue_kept_count()));
	EXPECT_EQ(EMFILE, ue_dyn_write(READER_PROBE)) {
		TH_LOG("the format of records on the reader's page went");
	}
	expect_old_records_decoded(_metadata);

	/* Read: all gone, room at once */
	fd = open(READER_INSTANCE "/trace_pipe", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	while (read(fd, text, sizeof(text)) > 0)
		;
	close(fd);
	ASSERT_EQ(0, ue_dyn_write(READER_PROBE)) {
		TH_LOG("creating an event after the records were read: %s",
		       strerror(errno));
	}
	ASSERT_EQ(0, ue_del("__stale_reader_probe"));
}

/*
 * The tai trace clock follows the wall clock, which root may set back:
 * records written before that have later time stamps than the removal
 * of their event. They are still there, and so is the format.
 */
TEST_F_TIMEOUT(reader, clock_set_back_keeps_the_format, 120)
{
	if (ue_write_str(READER_INSTANCE "/trace_clock", "tai", 0))
		SKIP(return, "no tai trace clock: %s", strerror(errno));
	/* Forward: whatever the clock, only a missing permission refuses it */
	if (shift_wall_clock(1))
		SKIP(return, "cannot set the wall clock: %s", strerror(errno));
	clock_ahead += 1;

	reader_records(_metadata, READER_OLD, 100, true);
	EXPECT_EQ(1, ue_kept_count()) {
		TH_LOG("the format went, its records were written 'later'");
	}
	expect_old_records_decoded(_metadata);

	/* Cleared: room at once, whatever the clock */
	ASSERT_EQ(0, ue_write_str(READER_INSTANCE "/trace", "", O_TRUNC));
	EXPECT_EQ(0, ue_release_kept());
}

/*
 * Root may snapshot an instance whenever a lock is taken (a trigger on
 * the lock_acquire event of lockdep kernels): the snapshot swaps the
 * instance's buffers under its max_lock. Marking and checking what the
 * buffers hold for a removed event reads them while no swap may run,
 * and must not itself take a lock there, or the snapshot it triggers
 * waits for ever on the CPU that holds max_lock. The removal and the
 * reclaim at the limit complete, and the format stays while its records
 * are in either buffer.
 */
TEST_F_TIMEOUT(reader, snapshot_on_reader_lock_events, 120)
{
	if (access(LOCK_TRIGGER, W_OK))
		SKIP(return, "no lock_acquire event (a kernel without LOCKDEP): %s",
		     strerror(errno));
	if (access(READER_INSTANCE "/snapshot", F_OK))
		SKIP(return, "no snapshot (a kernel without TRACER_SNAPSHOT): %s",
		     strerror(errno));
	ASSERT_EQ(0, ue_write_str(LOCK_TRIGGER, LOCK_SNAPSHOT, O_APPEND)) {
		TH_LOG("snapshot trigger: %s", strerror(errno));
	}

	reader_records(_metadata, READER_OLD, 100, false);
	ASSERT_EQ(1, ue_kept_count());
	ASSERT_EQ(0, ue_write_max(ue_active_count() + ue_kept_count()));
	EXPECT_EQ(EMFILE, ue_dyn_write(READER_PROBE)) {
		TH_LOG("the format went while the instance held its records");
	}

	ASSERT_EQ(0, ue_write_str(LOCK_TRIGGER, "!snapshot", O_APPEND));
	ASSERT_EQ(0, ue_write_str(READER_INSTANCE "/trace", "", O_TRUNC));
	ASSERT_EQ(0, ue_write_str(READER_INSTANCE "/snapshot", "2", 0));
	ASSERT_EQ(0, ue_dyn_write(READER_PROBE)) {
		TH_LOG("creating an event after both buffers were cleared: %s",
		       strerror(errno));
	}
	ASSERT_EQ(0, ue_del("__stale_reader_probe"));
}

/*
 * Removed events that never had a record in an ftrace buffer cost
 * nothing: with room for one more event, one after the other is
 * created and removed, never enabled or recorded only by perf.
 */
#define FREE_EVENT	"__stale_free"
#define FREE_ROUNDS	8

FIXTURE(costless) {
	int old_max;
	bool umount;
};

FIXTURE_SETUP(costless) {
	self->old_max = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_cleanup_event(FREE_EVENT);
	self->old_max = ue_read_max();
	ASSERT_LT(0, self->old_max);
	ASSERT_EQ(0, ue_write_max(ue_count_event_dirs() + 1));
}

FIXTURE_TEARDOWN(costless) {
	if (self->old_max > 0)
		ue_write_max(self->old_max);
	ue_cleanup_event(FREE_EVENT);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(costless, never_enabled_events_cost_nothing)
{
	int i, word = 0;

	for (i = 0; i < FREE_ROUNDS; i++) {
		ASSERT_EQ(0, ue_reg(FREE_EVENT " u32 a", &word, 0, sizeof(int),
				    0)) {
			TH_LOG("round %d: %s", i, strerror(errno));
		}
		ASSERT_EQ(0, ue_unreg(&word, 0));
		ASSERT_TRUE(ue_del_unreferenced(FREE_EVENT));

		ASSERT_EQ(0, ue_dyn_write("u:" FREE_EVENT " u32 a")) {
			TH_LOG("round %d: dynamic_events", i);
		}
		ASSERT_EQ(0, ue_dyn_write("-:" FREE_EVENT " u32 a"));
	}
}

TEST_F(costless, perf_only_events_cost_nothing)
{
	int i, fd, perf, index, word = 0;
	__u32 a = 7;
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ &a, sizeof(a) },
	};

	if (!ue_have_perf())
		SKIP(return, UE_NO_PERF);
	for (i = 0; i < FREE_ROUNDS; i++) {
		fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, fd);
		ASSERT_EQ(0, ue_reg_fd(fd, FREE_EVENT " u32 a", &word, 0,
				       sizeof(int), 0, &index)) {
			TH_LOG("round %d: %s", i, strerror(errno));
		}
		perf = ue_perf_open(ue_event_id(FREE_EVENT));
		ASSERT_LE(0, perf) {
			TH_LOG("perf_event_open: %s", strerror(errno));
		}
		ASSERT_EQ(1, ue_load(&word));
		ASSERT_WRITE(sizeof(index) + sizeof(a), writev(fd, io, 2));
		close(perf);
		ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
		close(fd);
		ASSERT_TRUE(ue_del_unreferenced(FREE_EVENT));
	}
}

TEST_HARNESS_MAIN
