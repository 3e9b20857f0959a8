// SPDX-License-Identifier: GPL-2.0
/*
 * Type ids going round: no record of a removed user event is ever
 * printed by another event.
 *
 * A removed event keeps its type id while a buffer may hold a record of
 * it; the id goes back once the records are gone, here overwritten.
 * Once the 16-bit id space has wrapped (the KUnit suite user_events_ids
 * wraps it at boot), a new event gets the lowest free id, which is then
 * the id of an event whose records were overwritten.
 *
 * Hundreds of events, each created, recorded once into a small instance
 * and removed, with kernel.user_events_max half as much again above what
 * the instance holds: creating an event soon needs the id of one whose
 * records were overwritten, and the ids go round many times. Every line
 * left in the instance is then printed by its own event, with its own
 * values; the records left are the last ones written, as many as the
 * buffer says it holds; no two events with records left share an id.
 * The layouts differ from one event to the next (one reads a location
 * word), so a record printed by another event's printer shows.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "user_events_selftests.h"

/* Whether the id of a removed event goes to the next event at once */
static bool ids_reused(const char *name)
{
	char cmd[128];
	int first, again;

	snprintf(cmd, sizeof(cmd), "u:%s u32 x", name);
	if (ue_dyn_write(cmd))
		return false;
	first = ue_event_id(name);
	ue_del(name);
	if (ue_dyn_write(cmd))
		return false;
	again = ue_event_id(name);
	ue_del(name);

	return first > 0 && again == first;
}

/*
 * entries (records in the buffer) and overrun (records overwritten) of
 * trace directory @dir, summed over its CPUs; false if unreadable
 */
static bool buffer_stats(const char *dir, long *entries, long *overrun)
{
	char pattern[512], *text, *at;
	glob_t g;
	size_t i;
	bool ok;

	*entries = 0;
	*overrun = 0;
	snprintf(pattern, sizeof(pattern), "%s/per_cpu/cpu*/stats", dir);
	ok = glob(pattern, 0, NULL, &g) == 0;
	for (i = 0; ok && i < g.gl_pathc; i++) {
		text = ue_read_file(g.gl_pathv[i]);
		at = text ? strstr(text, "entries: ") : NULL;
		ok = at;
		if (ok)
			*entries += atol(at + strlen("entries: "));
		at = text ? strstr(text, "\noverrun: ") : NULL;
		ok = ok && at;
		if (ok)
			*overrun += atol(at + strlen("\noverrun: "));
		free(text);
	}
	globfree(&g);

	return ok;
}

#define WRAP_DIR	INSTANCES_DIR "/__records_wrap"
#define WRAP_EVENT	"__records_wrap"
#define WRAP_PROBE	"__records_wrap_probe"
#define WRAP_CYCLES	600
#define WRAP_MARGIN	32
#define WRAP_TEXT	392	/* bytes of text in each record */
#define WRAP_PAYLOAD	(8 + 4 + WRAP_TEXT)	/* the largest, layout 1 */

static const char * const wrap_layouts[] = {
	"u32 seq; char[396] text",
	"u64 key; u32 seq; char[392] text",
	"char[396] text; s32 neg",
	"__data_loc char[] text; u32 seq",
};

FIXTURE(wrap) {
	int old_max;
	int header;
	bool umount;
};

static void wrap_cleanup(void)
{
	char *name;
	glob_t g;
	size_t i;

	rmdir(WRAP_DIR);
	if (glob(EVENTS_DIR "/" WRAP_EVENT "*", 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			name = strrchr(g.gl_pathv[i], '/') + 1;
			ue_cleanup_event(name);
		}
	}
	globfree(&g);
}

FIXTURE_SETUP(wrap) {
	cpu_set_t cpus;

	self->old_max = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	wrap_cleanup();

	/* One CPU: one ring of records, overwritten oldest first */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));

	self->header = ue_header_size();
	ASSERT_LT(0, self->header);
	self->old_max = ue_read_max();
	ASSERT_LT(0, self->old_max);
	ASSERT_EQ(0, ue_clear_trace());
	if (ue_exists(SNAPSHOT_FILE))
		ASSERT_EQ(0, ue_write_str(SNAPSHOT_FILE, "0", 0));
	ASSERT_EQ(0, mkdir(WRAP_DIR, 0755));
	/* The least a ring buffer takes: 2 pages a CPU */
	ASSERT_EQ(0, ue_write_str(WRAP_DIR "/buffer_size_kb", "1", 0));
}

FIXTURE_TEARDOWN(wrap) {
	if (self->old_max > 0)
		ue_write_max(self->old_max);
	wrap_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* The text field of event @i: its number and a hash of it */
static void wrap_text(unsigned int i, char *text)
{
	memset(text, 0, WRAP_TEXT);
	snprintf(text, WRAP_TEXT, "w%u-%08x", i, i * 2654435761U ^ 0x5bd1e995);
}

/* The payload of event @i's record into @buf; returns its size */
static size_t wrap_payload(unsigned int i, int header, char *buf)
{
	char text[WRAP_TEXT];
	__u64 key = (__u64)(i * 2654435761U) << 32 | i;
	__s32 neg = -(__s32)i - 1;
	__u32 loc;

	wrap_text(i, text);
	memset(buf, 0, WRAP_PAYLOAD);
	switch (i % ARRAY_SIZE(wrap_layouts)) {
	case 0:
		memcpy(buf, &i, 4);
		memcpy(buf + 4, text, WRAP_TEXT);
		return 4 + 396;
	case 1:
		memcpy(buf, &key, 8);
		memcpy(buf + 8, &i, 4);
		memcpy(buf + 12, text, WRAP_TEXT);
		return WRAP_PAYLOAD;
	case 2:
		memcpy(buf, text, WRAP_TEXT);
		memcpy(buf + 396, &neg, 4);
		return 396 + 4;
	default:
		/* The string follows the two fields, in the record's tail */
		loc = DYN_LOC(header + 8, strlen(text) + 1);
		memcpy(buf, &loc, 4);
		memcpy(buf + 4, &i, 4);
		memcpy(buf + 8, text, WRAP_TEXT);
		return 8 + WRAP_TEXT;
	}
}

/* What trace prints for event @i's record, from its name on */
static void wrap_line(unsigned int i, char *line, size_t len)
{
	char text[WRAP_TEXT];
	int n;

	wrap_text(i, text);
	n = snprintf(line, len, WRAP_EVENT "%u: ", i);
	switch (i % ARRAY_SIZE(wrap_layouts)) {
	case 0:
		snprintf(line + n, len - n, "seq=%u text=%s", i, text);
		break;
	case 1:
		snprintf(line + n, len - n, "key=%llu seq=%u text=%s",
			 (unsigned long long)(i * 2654435761U) << 32 | i, i,
			 text);
		break;
	case 2:
		snprintf(line + n, len - n, "text=%s neg=%d", text, -(int)i - 1);
		break;
	default:
		snprintf(line + n, len - n, "text=%s seq=%u", text, i);
		break;
	}
}

/*
 * Checks every line of the instance after @written events: each is the
 * record of an event, printed as that event prints it; they are the last
 * records written, in order, as many as the buffer holds; and the events
 * they belong to have distinct ids (@ids).
 */
static void wrap_check(struct __test_metadata *_metadata,
		       unsigned int written, const int *ids)
{
	char path[512], want[256], *text, *line, *next, *at;
	unsigned int i, first = 0, count = 0;
	long entries, overrun;
	int n;
	static bool taken[65536];
	size_t len;

	snprintf(path, sizeof(path), "%s/trace", WRAP_DIR);
	text = ue_read_file(path);
	ASSERT_NE(NULL, text);
	ASSERT_TRUE(buffer_stats(WRAP_DIR, &entries, &overrun));
	memset(taken, 0, sizeof(taken));

	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (line[0] == '#' || strstr(line, "[LOST"))
			continue;
		at = strstr(line, WRAP_EVENT);
		ASSERT_NE(NULL, at) {
			TH_LOG("%s: a line that is no record of the test: %s",
			       path, line);
		}
		n = sscanf(at, WRAP_EVENT "%u:", &i);
		ASSERT_EQ(1, n) {
			TH_LOG("%s: %s", path, line);
		}
		ASSERT_GT(written, i);
		wrap_line(i, want, sizeof(want));
		len = strlen(want);
		ASSERT_TRUE(!strncmp(at, want, len) && !at[len]) {
			TH_LOG("%s: a record printed as another's:\n  %s\nwant\n  %s",
			       path, at, want);
		}
		if (!count)
			first = i;
		ASSERT_EQ(first + count, i) {
			TH_LOG("%s: after the record of event %u comes %u",
			       path, first + count - 1, i);
		}
		ASSERT_FALSE(taken[ids[i]]) {
			TH_LOG("%s: event %u has records and the id %d of another that has",
			       path, i, ids[i]);
		}
		taken[ids[i]] = true;
		count++;
	}
	free(text);

	ASSERT_LT(0, count) {
		TH_LOG("%s: no record left", path);
	}
	EXPECT_EQ(written - 1, first + count - 1) {
		TH_LOG("%s: the last record is not the last one written", path);
	}
	EXPECT_EQ(entries, count) {
		TH_LOG("%s: %u records printed, the buffer holds %ld", path,
		       count, entries);
	}
	EXPECT_EQ(written, entries + overrun) {
		TH_LOG("%s: %u records written, %ld held and %ld overwritten",
		       path, written, entries, overrun);
	}
}

/*
 * How many records of the test's size the instance holds: write until
 * its buffer overwrites; the count it had then.
 */
static long wrap_capacity(struct __test_metadata *_metadata, int header)
{
	char buf[sizeof(int) + WRAP_PAYLOAD];
	long entries, overrun, most = 0;
	int fd, index, word = 0, n;
	size_t len;

	fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, fd);
	ASSERT_EQ(0, ue_reg_fd(fd, WRAP_PROBE " u32 seq; char[396] text",
			       &word, 0, sizeof(int), 0, &index));
	ASSERT_EQ(0, ue_dir_enable(WRAP_DIR, WRAP_PROBE, 1));
	memcpy(buf, &index, sizeof(index));
	len = sizeof(index) + wrap_payload(0, header, buf + sizeof(index));
	for (n = 0; n < 100000; n++) {
		ASSERT_WRITE(len, write(fd, buf, len));
		ASSERT_TRUE(buffer_stats(WRAP_DIR, &entries, &overrun));
		if (entries > most)
			most = entries;
		if (overrun)
			break;
	}
	ASSERT_LT(0, overrun);
	ASSERT_EQ(0, ue_dir_enable(WRAP_DIR, WRAP_PROBE, 0));
	ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
	close(fd);
	ASSERT_EQ(0, ue_write_str(WRAP_DIR "/trace", "", O_TRUNC));
	ASSERT_TRUE(ue_del_unreferenced(WRAP_PROBE));

	return most;
}

TEST_F_TIMEOUT(wrap, records_printed_by_their_own_event, 500)
{
	char name[64], buf[sizeof(int) + WRAP_PAYLOAD], cmd[128], line[256];
	const char *lines[1] = { line };
	unsigned int i, reused = 0;
	static int ids[WRAP_CYCLES];
	long start = ue_now_ms();
	static bool used[65536];
	int fd, index, word = 0;
	bool wrapped;
	long held;
	size_t len;

	wrapped = ids_reused(WRAP_EVENT "_reuse");
	held = wrap_capacity(_metadata, self->header);
	ASSERT_EQ(0, ue_write_max(ue_count_event_dirs() + held + held / 2 +
				  WRAP_MARGIN));
	TH_LOG("%ld records fill the instance; ids %sreused after a removal",
	       held, wrapped ? "" : "not yet ");

	for (i = 0; i < WRAP_CYCLES; i++) {
		snprintf(name, sizeof(name), WRAP_EVENT "%u", i);
		snprintf(cmd, sizeof(cmd), "%s %s", name,
			 wrap_layouts[i % ARRAY_SIZE(wrap_layouts)]);
		fd = open(DATA_FILE, O_RDWR);
		ASSERT_NE(-1, fd);
		ASSERT_EQ(0, ue_reg_fd(fd, cmd, &word, 0, sizeof(int), 0,
				       &index)) {
			TH_LOG("event %u: %s", i, strerror(errno));
		}
		ids[i] = ue_event_id(name);
		ASSERT_LT(0, ids[i]);
		ASSERT_GT(65536, ids[i]);
		reused += used[ids[i]];
		used[ids[i]] = true;

		ASSERT_EQ(0, ue_dir_enable(WRAP_DIR, name, 1));
		memcpy(buf, &index, sizeof(index));
		len = sizeof(index) + wrap_payload(i, self->header,
						   buf + sizeof(index));
		ASSERT_WRITE(len, write(fd, buf, len));
		ASSERT_EQ(0, ue_dir_enable(WRAP_DIR, name, 0));
		ASSERT_EQ(0, ue_unreg_fd(fd, &word, 0));
		close(fd);
		ASSERT_TRUE(ue_del_unreferenced(name));

		/* The first removal already must have kept the record */
		if (i == 0) {
			wrap_line(0, line, sizeof(line));
			ue_assert_shows(_metadata, WRAP_DIR "/trace", lines, 1);
		}
	}

	wrap_check(_metadata, WRAP_CYCLES, ids);
	TH_LOG("%u of %u events got an id an earlier one had (%ld ms)",
	       reused, WRAP_CYCLES, ue_now_ms() - start);
	if (wrapped)
		EXPECT_LT(0, reused) {
			TH_LOG("no id was reused: the test did not wrap");
		}
}

TEST_HARNESS_MAIN
