// SPDX-License-Identifier: GPL-2.0
/*
 * Records of a removed event that stay reachable by a printer after the
 * removal, in a way that the reset of the buffers "that recorded the
 * event" (the core's clear_trace) did not cover:
 *
 * - injected_never_enabled: a record committed through the event's
 *   inject file while the event was never enabled. The removal resets
 *   only the buffers of instances in which the event was enabled
 *   (EVENT_FILE_FL_WAS_ENABLED), so the record stays in the buffer, and
 *   the next event that gets the type id decodes it.
 *
 * The victim's record holds, in field a, a location word that points at
 * field b, and in b the bytes "OLD": the successor, whose first field is
 * a __data_loc string, decodes them as the string "OLD".
 *
 * Type ids are only reused once the 16-bit id space has wrapped, which
 * the KUnit suite user_events_ids does at boot; without that the
 * successor part is skipped.
 */
#define _GNU_SOURCE
#include <sys/uio.h>

#include "user_events_selftests.h"

#define VICTIM		"__stale_rec_victim"
#define VICTIM_FIELDS	"u32 a; u32 b"
#define SUCCESSOR	"__stale_rec_successor"
#define SUCC_FIELDS	"__data_loc char[] s; u32 n"
#define FILLER		"__stale_rec_filler"
#define MAX_FILLERS	64
#define OLD_TEXT	"OLD"

FIXTURE(stale) {
	int data_fd;
	int word;
	bool umount;
};

static void stale_cleanup(void)
{
	char name[64];
	int i;

	ue_enable(VICTIM, 0);
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
	self->data_fd = -1;
}

FIXTURE_TEARDOWN(stale) {
	if (self->data_fd >= 0) {
		ue_unreg_fd(self->data_fd, &self->word, 0);
		close(self->data_fd);
	}
	stale_cleanup();
	ue_clear_trace();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Whether the id of a removed event goes to the next event at once */
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

/* The location word that makes the successor read field b as a string */
static __u32 victim_loc(void)
{
	char path[512];
	int a_off = ue_format_offset(ue_event_file(path, sizeof(path), VICTIM,
						"format"), "a", NULL);

	if (a_off < 0)
		return 0;

	return (sizeof(__u32) << 16) | (a_off + sizeof(__u32));
}

/*
 * Creates the successor with the type id @id: it gets the lowest free
 * id, so the lower free ones are filled first. Returns its id.
 */
static int create_successor(int id)
{
	char name[64];
	int got = -1, i;

	for (i = 0; i < MAX_FILLERS; i++) {
		if (ue_dyn_write("u:" SUCCESSOR " " SUCC_FIELDS))
			return -1;
		got = ue_event_id(SUCCESSOR);
		if (got >= id)
			break;
		ue_del(SUCCESSOR);
		snprintf(name, sizeof(name), "u:" FILLER "%d u32 x", i);
		if (ue_dyn_write(name))
			return -1;
	}

	return got;
}

/* The first mark of the test found in @text, or NULL */
static const char *stale_mark(const char *text)
{
	static const char * const marks[] = {
		VICTIM, SUCCESSOR, OLD_TEXT, "Unknown type",
	};
	unsigned int i;
	const char *at;

	for (i = 0; i < ARRAY_SIZE(marks); i++) {
		at = strstr(text, marks[i]);
		if (at)
			return at;
	}

	return NULL;
}

TEST_F(stale, injected_record_of_never_enabled_event)
{
	char path[512], inject[128], *trace;
	int victim_id, id;
	bool reused = ids_reused();
	const char *mark;
	__u32 loc, b;

	ASSERT_EQ(0, ue_dyn_write("u:" VICTIM " " VICTIM_FIELDS));
	ue_event_file(path, sizeof(path), VICTIM, "inject");
	if (!ue_exists(path))
		SKIP(return, "no inject file: CONFIG_TRACE_EVENT_INJECT is off");
	victim_id = ue_event_id(VICTIM);
	ASSERT_LT(0, victim_id);
	loc = victim_loc();
	ASSERT_NE(0, loc);
	memcpy(&b, OLD_TEXT, sizeof(b));

	/* Never enabled: the record comes through inject alone */
	snprintf(inject, sizeof(inject), "a=%u b=%u", loc, b);
	ASSERT_EQ(0, ue_write_str(path, inject, 0)) {
		TH_LOG("inject: %s", strerror(errno));
	}
	trace = ue_read_file(TRACE_FILE);
	ASSERT_NE(NULL, trace);
	ASSERT_NE(NULL, strstr(trace, VICTIM)) {
		TH_LOG("the injected record is not in the buffer");
	}
	free(trace);

	ASSERT_EQ(0, ue_dyn_write("-:" VICTIM " " VICTIM_FIELDS));
	ASSERT_FALSE(ue_event_exists(VICTIM));

	trace = ue_read_file(TRACE_FILE);
	ASSERT_NE(NULL, trace);
	mark = stale_mark(trace);
	EXPECT_EQ(NULL, mark) {
		TH_LOG("after the removal: %.100s", mark);
	}
	free(trace);

	if (!reused)
		SKIP(return, "event ids are not reused in this boot");
	id = create_successor(victim_id);
	ASSERT_EQ(victim_id, id);
	trace = ue_read_file(TRACE_FILE);
	ASSERT_NE(NULL, trace);
	mark = stale_mark(trace);
	EXPECT_EQ(NULL, mark) {
		TH_LOG("with the id reused: %.100s", mark);
	}
	free(trace);
}

TEST_HARNESS_MAIN
