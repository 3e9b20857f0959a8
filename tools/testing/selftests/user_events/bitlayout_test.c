// SPDX-License-Identifier: GPL-2.0
/*
 * Which bit of memory an enable bit is. For a 4-byte value at either half
 * of an 8-byte word, and for an 8-byte value, and for every enable_bit,
 * the kernel sets and clears bit enable_bit of the program's own value,
 * read in the program's byte order, and no other bit of the memory
 * around it: bits the program set there stay set, bits it cleared stay
 * clear. An 8-byte value needs a 64-bit kernel; a 32-bit kernel refuses
 * it with EINVAL.
 */
#include <inttypes.h>
#include <stdint.h>

#include "user_events_selftests.h"

#define BL_NAME		"__bitlayout"
#define BL_CMD		BL_NAME " u32 a"

/* Three 8-byte words: the value is the middle one, or one of its halves */
static union {
	uint64_t words[3];
	unsigned char bytes[24];
} mem;

FIXTURE(bits) {
	bool umount;
	int fd;
	int anchor;
};

/* The value under test: its size, its place in mem, what fills mem */
struct bl_value {
	int size;
	int offset;
	unsigned char fill;
};

FIXTURE_VARIANT(bits) {
	struct bl_value v;
};

FIXTURE_VARIANT_ADD(bits, u32_lower_half) {
	.v = { .size = 4, .offset = 8 },
};

FIXTURE_VARIANT_ADD(bits, u32_upper_half) {
	.v = { .size = 4, .offset = 12 },
};

FIXTURE_VARIANT_ADD(bits, u64) {
	.v = { .size = 8, .offset = 8 },
};

FIXTURE_VARIANT_ADD(bits, u32_lower_half_ones) {
	.v = { .size = 4, .offset = 8, .fill = 0xff },
};

FIXTURE_VARIANT_ADD(bits, u32_upper_half_ones) {
	.v = { .size = 4, .offset = 12, .fill = 0xff },
};

FIXTURE_VARIANT_ADD(bits, u64_ones) {
	.v = { .size = 8, .offset = 8, .fill = 0xff },
};

FIXTURE_SETUP(bits) {
	self->fd = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	ue_cleanup_event(BL_NAME);
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->fd);
	/* A bit elsewhere keeps the event while the others come and go */
	ASSERT_EQ(0, ue_reg_fd(self->fd, BL_CMD, &self->anchor, 0, 4, 0,
			       NULL));
}

FIXTURE_TEARDOWN(bits) {
	ue_enable(BL_NAME, 0);
	if (self->fd >= 0)
		close(self->fd);
	ue_cleanup_event(BL_NAME);
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* What the memory must hold: the fill, and the value's bit @bit as @on */
static void expected(unsigned char *want, const struct bl_value *v,
		     int bit, bool on)
{
	memset(want, v->fill, sizeof(mem));
	if (v->size == 4) {
		uint32_t val;

		memcpy(&val, want + v->offset, sizeof(val));
		val = on ? val | (UINT32_C(1) << bit) : val & ~(UINT32_C(1) << bit);
		memcpy(want + v->offset, &val, sizeof(val));
	} else {
		uint64_t val;

		memcpy(&val, want + v->offset, sizeof(val));
		val = on ? val | (UINT64_C(1) << bit) : val & ~(UINT64_C(1) << bit);
		memcpy(want + v->offset, &val, sizeof(val));
	}
}

static void show(struct __test_metadata *_metadata, const char *what,
		 const unsigned char *bytes)
{
	char line[3 * sizeof(mem) + 1];
	size_t i;

	for (i = 0; i < sizeof(mem); i++)
		snprintf(line + 3 * i, 4, "%02x ", bytes[i]);
	TH_LOG("%s %s", what, line);
}

static bool memory_is(struct __test_metadata *_metadata,
		      const struct bl_value *v, int bit, bool on,
		      const char *when)
{
	unsigned char want[sizeof(mem)], got[sizeof(mem)];

	expected(want, v, bit, on);
	memcpy(got, mem.bytes, sizeof(mem));
	if (!memcmp(want, got, sizeof(mem)))
		return true;

	TH_LOG("enable_bit %d of a %d-byte value at byte %d, %s:",
	       bit, v->size, v->offset, when);
	show(_metadata, "want", want);
	show(_metadata, "got ", got);
	return false;
}

TEST_F(bits, every_bit)
{
	const struct bl_value *v = &variant->v;
	int bit, index;

	if (v->size == 8 && !ue_kernel_is_64bit()) {
		memset(mem.bytes, v->fill, sizeof(mem));
		EXPECT_EQ(-1, ue_reg_fd(self->fd, BL_CMD,
					mem.bytes + v->offset, 0, 8, 0,
					&index));
		EXPECT_EQ(EINVAL, errno);
		return;
	}

	for (bit = 0; bit < v->size * 8; bit++) {
		memset(mem.bytes, v->fill, sizeof(mem));
		ASSERT_EQ(0, ue_reg_fd(self->fd, BL_CMD,
				       mem.bytes + v->offset, bit,
				       v->size, 0, &index)) {
			TH_LOG("enable_bit %d: %s", bit, strerror(errno));
		}
		ASSERT_TRUE(memory_is(_metadata, v, bit, false,
				      "registered, not traced"));

		ASSERT_EQ(0, ue_enable(BL_NAME, 1));
		ASSERT_TRUE(memory_is(_metadata, v, bit, true,
				      "enabled"));

		ASSERT_EQ(0, ue_enable(BL_NAME, 0));
		ASSERT_TRUE(memory_is(_metadata, v, bit, false,
				      "disabled"));

		ASSERT_EQ(0, ue_unreg_fd(self->fd,
					 mem.bytes + v->offset, bit));
		ASSERT_TRUE(memory_is(_metadata, v, bit, false,
				      "unregistered"));
	}
}

TEST_HARNESS_MAIN
