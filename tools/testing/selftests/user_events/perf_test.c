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
	ue_delete_wait(EVENT, 1000);
}

FIXTURE_SETUP(user) {
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

/* Attach perf to the event: one sample per hit, with the raw record. */
static int perf_attach(struct perf_ctx *ctx, int id)
{
	long page_size = sysconf(_SC_PAGESIZE);

	ctx->fd = ue_perf_open(id);
	if (ctx->fd < 0)
		return -1;

	ctx->len = page_size * 2;
	ctx->ring = mmap(NULL, ctx->len, PROT_READ, MAP_SHARED, ctx->fd, 0);
	if (ctx->ring == MAP_FAILED) {
		close(ctx->fd);
		return -1;
	}

	return 0;
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
	offset = field_offset("\tfield:u32 field1;");
	ASSERT_EQ(8, offset);

	ASSERT_EQ(0, perf_attach(&ctx, id));
	/* Set synchronously by the attach. */
	ASSERT_EQ(1 << 31, self->check);

	ASSERT_WRITE(sizeof(data), write(self->data_fd, &data, sizeof(data)));

	hdr = first_record(&ctx);
	ASSERT_NE(NULL, hdr);
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
	ASSERT_NE(NULL, hdr);
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
	ASSERT_NE(NULL, status);
	EXPECT_TRUE(strstr(status, "\n" EVENT " # Used by perf\n") ||
		    !strncmp(status, EVENT " # Used by perf\n",
			     strlen(EVENT " # Used by perf\n")));
	free(status);

	/* Both tracers, in the documented order. */
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	status = ue_read_file(STATUS_FILE);
	ASSERT_NE(NULL, status);
	EXPECT_NE(NULL, strstr(status, EVENT " # Used by ftrace perf\n"));
	free(status);

	/* Still set while ftrace alone is attached. */
	perf_detach(&ctx);
	ASSERT_EQ(1 << 31, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);
}

TEST_F(user, perf_write_too_big_e2big) {
	const size_t big = 9000;
	char *payload = calloc(1, 4 + big);
	struct perf_ctx ctx;
	int index = -1;
	int id;

	ASSERT_NE(NULL, payload);
	ASSERT_EQ(0, ue_reg_fd(self->data_fd, EVENT " u32 a", &self->check,
			       31, 4, 0, &index));
	id = event_id();
	ASSERT_LT(0, id);
	ASSERT_EQ(0, perf_attach(&ctx, id));
	memcpy(payload, &index, sizeof(index));

	/* Fits perf's 8 KiB limit. */
	ASSERT_WRITE(4 + 1000, write(self->data_fd, payload, 4 + 1000));

	/* Does not fit: reported, not dropped. */
	ASSERT_EQ(-1, write(self->data_fd, payload, 4 + big));
	ASSERT_EQ(E2BIG, errno);

	perf_detach(&ctx);
	free(payload);
}

TEST_HARNESS_MAIN
