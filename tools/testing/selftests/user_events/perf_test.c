// SPDX-License-Identifier: GPL-2.0
/*
 * user_events with perf: attaching perf sets the enable bit at once,
 * writes become PERF_RECORD_SAMPLEs carrying the payload, detaching
 * clears the bit.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sys/mman.h>

#include "user_events_selftests.h"

#define EVENT		"__perf_event"
#define EVENT_DIR	EVENTS_DIR "/" EVENT

FIXTURE(user) {
	int data_fd;
	int check;
	bool umount;
};

static void perf_cleanup(void)
{
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
}

FIXTURE_SETUP(user) {
	/* Jumps past the body and the teardown: nothing is set up yet */
	if (!ue_have_perf())
		SKIP(longjmp(_metadata->env, 1), "%s", UE_NO_PERF);
	USER_EVENT_FIXTURE_SETUP(self->umount);
	perf_cleanup();

	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(user) {
	ue_unreg_fd(self->data_fd, &self->check, 31);
	close(self->data_fd);
	perf_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

static int event_id(void)
{
	char *text = ue_read_file(EVENT_DIR "/id");
	int id = text ? atoi(text) : -1;

	free(text);

	return id;
}

/* Offset of @field from the format file, or -1. */
static int field_offset(const char *field)
{
	char *text = ue_read_file(EVENT_DIR "/format");
	char *at = text ? strstr(text, field) : NULL;
	int offset = -1;

	if (at)
		at = strstr(at, "offset:");
	if (at)
		offset = atoi(at + strlen("offset:"));
	free(text);

	return offset;
}

struct perf_ctx {
	int fd;
	void *ring;
	size_t len;
};

/*
 * Attach perf to the event: one sample per hit, with the raw record, in
 * a ring of at least @data bytes (rounded up to a power of two pages).
 */
static int perf_attach_size(struct perf_ctx *ctx, int id, long data)
{
	long page_size = sysconf(_SC_PAGESIZE);
	long pages = 1;

	while (pages * page_size < data)
		pages *= 2;

	ctx->fd = ue_perf_open(id);
	if (ctx->fd < 0)
		return -1;

	ctx->len = page_size * (1 + pages);
	ctx->ring = mmap(NULL, ctx->len, PROT_READ, MAP_SHARED, ctx->fd, 0);
	if (ctx->ring == MAP_FAILED) {
		close(ctx->fd);
		return -1;
	}

	return 0;
}

static int perf_attach(struct perf_ctx *ctx, int id)
{
	return perf_attach_size(ctx, id, 1);
}

static void perf_detach(struct perf_ctx *ctx)
{
	munmap(ctx->ring, ctx->len);
	close(ctx->fd);
}

/* The first record of the ring: its header, then the raw sample. */
static struct perf_event_header *first_record(struct perf_ctx *ctx)
{
	struct perf_event_mmap_page *meta = ctx->ring;
	long page_size = sysconf(_SC_PAGESIZE);
	__u64 offset = meta->data_offset ? meta->data_offset : page_size;

	if (!meta->data_head)
		return NULL;

	return (void *)((char *)ctx->ring + offset);
}

TEST_F(user, perf_write) {
	struct {
		int index;
		__u32 field1;
		__u32 field2;
	} data = { 0, 0xc001, 0xc01a };
	struct perf_event_header *hdr;
	struct perf_ctx ctx;
	int id, offset;
	int index = -1;
	char *raw;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 field1; u32 field2",
			       &self->check, 31, 4, 0, &index));
	ASSERT_EQ(0, index);
	data.index = index;
	ASSERT_EQ(0, self->check);

	id = event_id();
	ASSERT_LT(0, id);
	/* The payload follows the common header, whatever its size */
	offset = field_offset("\tfield:u32 field1;");
	ASSERT_EQ(ue_header_size(), offset);

	ASSERT_EQ(0, perf_attach(&ctx, id));
	/* Set synchronously by the attach. */
	ASSERT_EQ(1 << 31, self->check);

	ASSERT_WRITE(sizeof(data), write(self->data_fd, &data, sizeof(data)));

	hdr = first_record(&ctx);
	ASSERT_NE(0, (uintptr_t)hdr);
	ASSERT_EQ(PERF_RECORD_SAMPLE, hdr->type);
	/* Header, then the u32 raw size, then the record. */
	raw = (char *)(hdr + 1) + sizeof(__u32);
	ASSERT_EQ(0xc001, *(__u32 *)(raw + offset));
	ASSERT_EQ(0xc01a, *(__u32 *)(raw + offset + 4));

	perf_detach(&ctx);
	/* Cleared synchronously by the detach. */
	ASSERT_EQ(0, self->check);
}

TEST_F(user, perf_empty_event) {
	struct perf_event_header *hdr;
	struct perf_ctx ctx;
	int index = -1;
	int id;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT, &self->check, 31, 4, 0,
			       &index));
	id = event_id();
	ASSERT_LT(0, id);

	ASSERT_EQ(0, perf_attach(&ctx, id));
	ASSERT_EQ(1 << 31, self->check);

	ASSERT_WRITE(4, write(self->data_fd, &index, sizeof(index)));
	hdr = first_record(&ctx);
	ASSERT_NE(0, (uintptr_t)hdr);
	ASSERT_EQ(PERF_RECORD_SAMPLE, hdr->type);

	perf_detach(&ctx);
	ASSERT_EQ(0, self->check);
}

TEST_F(user, perf_status_used_by) {
	struct perf_ctx ctx;
	char *status;
	int id;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 a", &self->check,
			       31, 4, 0, NULL));
	id = event_id();
	ASSERT_LT(0, id);

	ASSERT_EQ(0, perf_attach(&ctx, id));
	status = ue_read_file(STATUS_FILE);
	ASSERT_NE(0, (uintptr_t)status);
	EXPECT_TRUE(strstr(status, "\n" EVENT " # Used by perf\n") ||
		    !strncmp(status, EVENT " # Used by perf\n",
			     strlen(EVENT " # Used by perf\n")));
	free(status);

	/* Both tracers, in the documented order. */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	status = ue_read_file(STATUS_FILE);
	ASSERT_NE(0, (uintptr_t)status);
	EXPECT_NE(0, (uintptr_t)strstr(status, EVENT " # Used by ftrace perf\n"));
	free(status);

	/* Still set while ftrace alone is attached. */
	perf_detach(&ctx);
	ASSERT_EQ(1 << 31, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);
}

/*
 * A payload of @len bytes for EVENT " u32 n; __data_loc char[] tail" (n
 * = @len, "end<len>" at the very end of the record) after @index, in one
 * buffer for write(), for records with a @hdr-byte common header.
 */
static char *big_write(int hdr, int index, size_t len, char *tail,
		       size_t tail_len)
{
	char *buf = calloc(1, 4 + len);
	__u32 n = len, loc;
	size_t slen;

	if (!buf)
		return NULL;
	snprintf(tail, tail_len, "end%zu", len);
	slen = strlen(tail) + 1;
	/* __data_loc: from the record start, the header included */
	loc = DYN_LOC(hdr + len - slen, slen);
	memcpy(buf, &index, 4);
	memcpy(buf + 4, &n, 4);
	memcpy(buf + 8, &loc, 4);
	memcpy(buf + 4 + len - slen, tail, slen);

	return buf;
}

/*
 * The first sample of the ring holds the whole record of a @len byte
 * payload after a @common-byte common header: raw size ALIGN(common +
 * len + 4, 8) - 4, n and the tail string.
 */
static bool sample_holds(struct __test_metadata *_metadata,
			 struct perf_ctx *ctx, int common, size_t len,
			 const char *tail)
{
	struct perf_event_header *hdr = first_record(ctx);
	__u32 raw_size, n;
	char *raw;

	if (!hdr || hdr->type != PERF_RECORD_SAMPLE) {
		TH_LOG("no sample in the ring");
		return false;
	}
	memcpy(&raw_size, hdr + 1, 4);
	raw = (char *)(hdr + 1) + sizeof(__u32);
	if (raw_size != ((common + len + 4 + 7) & ~7UL) - 4) {
		TH_LOG("raw size %u for a %zu byte payload", raw_size, len);
		return false;
	}
	memcpy(&n, raw + common, 4);
	if (n != len || strcmp(raw + common + len - strlen(tail) - 1, tail)) {
		TH_LOG("sample holds n=%u, not the %zu byte payload", n, len);
		return false;
	}

	return true;
}

TEST_F(user, perf_write_largest_record) {
	struct perf_ctx ctx;
	struct ue_limits l;
	char tail[32];
	char *buf;
	int index = -1;
	int id, hdr;

	ue_get_limits(&l);
	ASSERT_EQ(0, ue_reg_fd(self->data_fd,
			       EVENT " u32 n; __data_loc char[] tail",
			       &self->check, 31, 4, 0, &index));
	id = ue_event_id(EVENT);
	ASSERT_LT(0, id);
	hdr = ue_payload_offset(EVENT);
	ASSERT_LT(0, hdr);
	/* The limits count the header the kernel's records have */
	ASSERT_EQ(hdr, l.header);
	ASSERT_EQ(0, perf_attach_size(&ctx, id, 4 * 8192));

	/* The largest raw sample perf takes, recorded whole */
	buf = big_write(hdr, index, l.perf, tail, sizeof(tail));
	ASSERT_NE(0, (uintptr_t)buf);
	ASSERT_WRITE(4 + l.perf, write(self->data_fd, buf, 4 + l.perf));
	free(buf);
	ASSERT_TRUE(sample_holds(_metadata, &ctx, hdr, l.perf, tail));

	/* One byte more: reported, not dropped */
	buf = big_write(hdr, index, l.perf + 1, tail, sizeof(tail));
	ASSERT_NE(0, (uintptr_t)buf);
	ASSERT_EQ(-1, write(self->data_fd, buf, 4 + l.perf + 1));
	ASSERT_EQ(E2BIG, errno);
	free(buf);

	perf_detach(&ctx);
}

/* With ftrace and perf attached, the smaller limit counts for both */
TEST_F(user, ftrace_and_perf_largest_record) {
	struct perf_ctx ctx;
	struct ue_limits l;
	char tail[32], line[96];
	char *buf;
	int index = -1;
	int id, hdr;

	ue_get_limits(&l);
	ASSERT_EQ(0, ue_reg_fd(self->data_fd,
			       EVENT " u32 n; __data_loc char[] tail",
			       &self->check, 31, 4, 0, &index));
	id = ue_event_id(EVENT);
	ASSERT_LT(0, id);
	hdr = ue_payload_offset(EVENT);
	ASSERT_LT(0, hdr);
	ASSERT_EQ(hdr, l.header);
	ASSERT_EQ(0, perf_attach_size(&ctx, id, 4 * 8192));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, ue_clear_trace());

	buf = big_write(hdr, index, l.both, tail, sizeof(tail));
	ASSERT_NE(0, (uintptr_t)buf);
	ASSERT_WRITE(4 + l.both, write(self->data_fd, buf, 4 + l.both));
	free(buf);
	ASSERT_TRUE(sample_holds(_metadata, &ctx, hdr, l.both, tail));
	snprintf(line, sizeof(line), EVENT ": n=%ld tail=%s", l.both, tail);
	ASSERT_EQ(1, ue_trace_count(line));

	/* Fits one of them only: neither records it */
	buf = big_write(hdr, index, l.both + 1, tail, sizeof(tail));
	ASSERT_NE(0, (uintptr_t)buf);
	ASSERT_EQ(-1, write(self->data_fd, buf, 4 + l.both + 1));
	ASSERT_EQ(E2BIG, errno);
	free(buf);
	ASSERT_EQ(0, ue_trace_count(tail));

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	perf_detach(&ctx);
}

/*
 * A perf attachment alone holds the event: DIAG_IOCSDEL is refused
 * while it is open and works as soon as it is closed.
 */
TEST_F(user, delete_while_only_perf_holds_ebusy) {
	struct perf_ctx ctx;
	int id;

	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 a", &self->check,
			       31, 4, USER_EVENT_REG_PERSIST, NULL));
	id = ue_event_id(EVENT);
	ASSERT_LT(0, id);
	ASSERT_EQ(0, perf_attach(&ctx, id));
	ASSERT_EQ(0, ue_unreg_fd(self->data_fd, &self->check, 31));
	close(self->data_fd);
	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);

	ASSERT_EQ(-1, ue_del(EVENT));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_TRUE(ue_exists(EVENT_DIR));

	perf_detach(&ctx);
	ASSERT_EQ(0, ue_del(EVENT));
	ASSERT_FALSE(ue_exists(EVENT_DIR));
}

/*
 * With perf alone attached, a dynamic location that reaches past the
 * payload is EFAULT and nothing is recorded, however much padding perf
 * adds to the sample: the record ends where the payload ends. Payloads
 * of each length mod 8 get every amount of padding, 0 to 7 bytes; the
 * locations end 1 to 8 bytes past the payload. One ending exactly at the
 * payload's end is recorded.
 */
#define LOC_STR_LEN	4	/* "abc" and its NUL */

static __u64 ring_head(struct perf_ctx *ctx)
{
	struct perf_event_mmap_page *meta = ctx->ring;

	return ue_perf_head(meta);
}

/*
 * Write @len bytes of payload for a single field, the first after the
 * @hdr-byte common header, whose location (of a @rel_loc or data_loc
 * kind) points at a 4-byte string ending @past bytes after the payload.
 * The payload holds all of the string that fits, NUL last when it all
 * does.
 */
static ssize_t write_loc(int fd, int hdr, int index, bool rel_loc,
			 size_t len, size_t past)
{
	char buf[4 + 64];
	size_t end = hdr + len + past;	/* record offset of the string's end */
	size_t start = end - LOC_STR_LEN;
	__u32 loc;

	memset(buf, 'x', sizeof(buf));
	memcpy(buf, &index, 4);
	/* data_loc counts from the record start, rel_loc after its word */
	loc = DYN_LOC(rel_loc ? start - (hdr + 4) : start, LOC_STR_LEN);
	memcpy(buf + 4, &loc, 4);
	if (!past)
		memcpy(buf + 4 + start - hdr, "abc", LOC_STR_LEN);

	return write(fd, buf, 4 + len);
}

static void perf_only_loc_past_payload(struct __test_metadata *_metadata,
				       int fd, int *check, bool rel_loc)
{
	struct perf_ctx ctx;
	__u64 before;
	size_t len, past;
	int index = -1;
	ssize_t ret;
	int id, hdr;

	ASSERT_EQ(0, ue_reg_fd(fd, rel_loc ?
			       EVENT " __rel_loc char[] s" :
			       EVENT " __data_loc char[] s",
			       check, 31, 4, 0, &index));
	id = ue_event_id(EVENT);
	ASSERT_LT(0, id);
	hdr = ue_payload_offset(EVENT);
	ASSERT_LT(0, hdr);
	ASSERT_EQ(0, perf_attach_size(&ctx, id, 16384));
	/* perf alone: no ftrace probe that would check the record too */
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(1 << 31, *check);

	/* The word, then at least the string: 8 lengths, each padding */
	for (len = 4 + LOC_STR_LEN; len < 4 + LOC_STR_LEN + 8; len++) {
		for (past = 1; past <= 8; past++) {
			before = ring_head(&ctx);
			errno = 0;
			ret = write_loc(fd, hdr, index, rel_loc, len, past);
			EXPECT_EQ(-1, ret) {
				TH_LOG("payload %zu (perf pads %zu), string %zu past it: %zd",
				       len, (size_t)(-(hdr + len + 4) & 7),
				       past, ret);
			}
			EXPECT_EQ(EFAULT, errno);
			EXPECT_EQ(before, ring_head(&ctx)) {
				TH_LOG("payload %zu, %zu past: recorded",
				       len, past);
			}
		}

		before = ring_head(&ctx);
		ASSERT_WRITE(4 + len, write_loc(fd, hdr, index, rel_loc,
						len, 0));
		EXPECT_LT(before, ring_head(&ctx)) {
			TH_LOG("payload %zu ending at the payload's end: no sample",
			       len);
		}
	}

	perf_detach(&ctx);
}

TEST_F(user, perf_only_data_loc_past_payload_efault) {
	perf_only_loc_past_payload(_metadata, self->data_fd, &self->check,
				   false);
}

TEST_F(user, perf_only_rel_loc_past_payload_efault) {
	perf_only_loc_past_payload(_metadata, self->data_fd, &self->check,
				   true);
}

TEST_HARNESS_MAIN
