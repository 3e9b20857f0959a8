// SPDX-License-Identifier: GPL-2.0
/*
 * user_events from a 32-bit process on a 64-bit kernel (built with -m32
 * only, as compat_test_32).
 *
 * The pointer fields of struct user_reg and struct user_unreg are 64
 * bits wide. A 32-bit program that fills them with (__u64)ptr, like the
 * ABI documentation does, gets the address sign-extended by GCC: every
 * address at or above 0x80000000 (the stack and the mmap area of a
 * 32-bit process) arrives as 0xffffffffxxxxxxxx. The kernel reads such a
 * value as the 32-bit address it came from; a value with any other upper
 * bits is not an address of the process: EFAULT. Casting through
 * uintptr_t (zero-extension) works as well. Writes (write() and
 * writev()) from the 32-bit process are recorded.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "user_events_selftests.h"

#if __SIZEOF_POINTER__ != 4
#error "compat_test is built with -m32 only"
#endif

#define EVENT		"__compat_event"
#define EVENT_CMD	EVENT " u32 a; u32 b"
#define ENABLE_FILE	EVENTS_DIR "/" EVENT "/enable"
/* Below the 32-bit mmap area, above 2 GiB */
#define HIGH_ADDR	0x90000000UL
/* Below 2 GiB */
#define LOW_ADDR	0x30000000UL

/*
 * (__u64)ptr, as a 32-bit program writes it: GCC sign-extends a pointer
 * converted to a wider integer, which is what going through the signed
 * intptr_t spells out.
 */
static __u64 sext(const void *ptr)
{
	return (__u64)(intptr_t)ptr;
}

static __u64 zext(const void *ptr)
{
	return (__u64)(uintptr_t)ptr;
}

FIXTURE(compat) {
	char *high;		/* a page at HIGH_ADDR */
	char *low;		/* a page at LOW_ADDR */
	int data_fd;
	bool umount;
};

static void compat_cleanup(void)
{
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
}

FIXTURE_SETUP(compat) {
	long page = sysconf(_SC_PAGESIZE);

	self->high = MAP_FAILED;
	self->low = MAP_FAILED;
	self->data_fd = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	compat_cleanup();
	self->high = mmap((void *)HIGH_ADDR, page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			  -1, 0);
	ASSERT_EQ(HIGH_ADDR, (uintptr_t)self->high);
	self->low = mmap((void *)LOW_ADDR, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0);
	ASSERT_EQ(LOW_ADDR, (uintptr_t)self->low);
	self->data_fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->data_fd);
}

FIXTURE_TEARDOWN(compat) {
	if (self->data_fd >= 0)
		close(self->data_fd);
	if (self->high != MAP_FAILED)
		munmap(self->high, sysconf(_SC_PAGESIZE));
	if (self->low != MAP_FAILED)
		munmap(self->low, sysconf(_SC_PAGESIZE));
	compat_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

static int reg_raw(int fd, __u64 cmd, __u64 addr, int bit, int *index)
{
	struct user_reg reg = {0};
	int ret;

	reg.size = sizeof(reg);
	reg.enable_bit = bit;
	reg.enable_size = 4;
	reg.enable_addr = addr;
	reg.name_args = cmd;
	reg.write_index = UE_INDEX_GARBAGE;
	ret = ioctl(fd, DIAG_IOCSREG, &reg);
	if (!ret && index)
		*index = reg.write_index;

	return ret;
}

static int unreg_raw(int fd, __u64 addr, int bit)
{
	struct user_unreg unreg = {0};

	unreg.size = sizeof(unreg);
	unreg.disable_bit = bit;
	unreg.disable_addr = addr;

	return ioctl(fd, DIAG_IOCSUNREG, &unreg);
}

/*
 * Register @cmd (a string at @cmd_ptr) with the bit at @word, converting
 * both pointers with @conv; flip it through ftrace; write with write()
 * and writev(); unregister through the same conversion.
 */
static void round_trip(struct __test_metadata *_metadata, int fd,
		       char *cmd_ptr, int *word, __u64 (*conv)(const void *))
{
	struct {
		int index;
		__u32 a, b;
	} rec;
	struct iovec io[2];
	int index = -1;

	strcpy(cmd_ptr, EVENT_CMD);
	*word = 0;

	ASSERT_EQ(0, reg_raw(fd, conv(cmd_ptr), conv(word), 7, &index)) {
		TH_LOG("DIAG_IOCSREG with %#llx / %#llx: %s",
		       (unsigned long long)conv(cmd_ptr),
		       (unsigned long long)conv(word), strerror(errno));
	}
	ASSERT_EQ(0, index);
	ASSERT_EQ(0, *word);

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 7, *word);
	ASSERT_EQ(0, ue_clear_trace());

	rec.index = index;
	rec.a = 42;
	rec.b = 0x80000001;
	ASSERT_WRITE(sizeof(rec), write(fd, &rec, sizeof(rec)));
	ASSERT_TRUE(ue_trace_has(EVENT ": a=42 b=2147483649"));
	rec.a = 43;
	io[0].iov_base = &rec.index;
	io[0].iov_len = sizeof(rec.index);
	io[1].iov_base = &rec.a;
	io[1].iov_len = sizeof(rec) - sizeof(rec.index);
	ASSERT_WRITE(sizeof(rec), writev(fd, io, 2));
	ASSERT_TRUE(ue_trace_has(EVENT ": a=43 b=2147483649"));

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 7, *word);

	/* Cleared although still enabled, and no longer updated */
	ASSERT_EQ(0, unreg_raw(fd, conv(word), 7)) {
		TH_LOG("DIAG_IOCSUNREG with %#llx: %s",
		       (unsigned long long)conv(word), strerror(errno));
	}
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
}

TEST_F(compat, sign_extended_stack) {
	char cmd[64];
	int word = 0;

	/* What the test is about: a high address, sign-extended */
	ASSERT_LE(0x80000000UL, (uintptr_t)&word);
	ASSERT_EQ(0xffffffffULL, sext(&word) >> 32);
	ASSERT_EQ(0xffffffffULL, sext(cmd) >> 32);
	round_trip(_metadata, self->data_fd, cmd, &word, sext);
}

TEST_F(compat, sign_extended_mmap_area) {
	ASSERT_EQ(0xffffffffULL, sext(self->high) >> 32);
	round_trip(_metadata, self->data_fd, self->high,
		   (int *)(self->high + 256), sext);
}

TEST_F(compat, zero_extended_stack) {
	char cmd[64];
	int word = 0;

	ASSERT_EQ(0ULL, zext(&word) >> 32);
	round_trip(_metadata, self->data_fd, cmd, &word, zext);
}

TEST_F(compat, zero_extended_mmap_area) {
	round_trip(_metadata, self->data_fd, self->high,
		   (int *)(self->high + 256), zext);
}

/* Registered one way, unregistered the other: the same address */
TEST_F(compat, sign_and_zero_extension_same_address) {
	int *word = (int *)(self->high + 512);

	strcpy(self->high, EVENT_CMD);
	ASSERT_EQ(0, reg_raw(self->data_fd, sext(self->high), sext(word), 3,
			     NULL));
	/* The same address and bit again: in use, however spelled */
	ASSERT_EQ(-1, reg_raw(self->data_fd, zext(self->high), zext(word), 3,
			      NULL));
	ASSERT_EQ(EADDRINUSE, errno);
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1 << 3, *word);
	ASSERT_EQ(0, unreg_raw(self->data_fd, zext(word), 3));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(-1, unreg_raw(self->data_fd, sext(word), 3));
	ASSERT_EQ(ENOENT, errno);
}

/*
 * Upper halves that make a 64-bit value no 32-bit address, whatever its
 * lower half (each row keeps the lower half of a real address): EFAULT.
 */
static const __u32 bad_upper[] = {
	0x00000001,		/* 0x1_8xxx_xxxx */
	0xfffffffe,		/* not all upper bits set */
	0x7fffffff,
	0x80000000,
	0x00010000,
};

#define NR_BAD		(ARRAY_SIZE(bad_upper) + 1)

/*
 * Bad value @i for the address @ptr: a bad upper half, or (the last one)
 * all ones above an address below 2 GiB, which is no sign extension.
 */
static __u64 bad_value(struct _test_data_compat *self, const void *ptr,
		       unsigned int i)
{
	if (i < ARRAY_SIZE(bad_upper))
		return (__u64)bad_upper[i] << 32 | (uintptr_t)ptr;

	return 0xffffffff00000000ULL |
	       ((uintptr_t)self->low + ((uintptr_t)ptr & 0xfff));
}

TEST_F(compat, enable_addr_other_high_bits_efault) {
	int *word = (int *)(self->high + 256);
	unsigned int i;

	strcpy(self->high, EVENT_CMD);
	for (i = 0; i < NR_BAD; i++) {
		__u64 addr = bad_value(self, word, i);

		ASSERT_EQ(-1, reg_raw(self->data_fd, zext(self->high), addr,
				      0, NULL)) {
			TH_LOG("enable_addr %#llx registered",
			       (unsigned long long)addr);
		}
		ASSERT_EQ(EFAULT, errno) {
			TH_LOG("enable_addr %#llx: %s",
			       (unsigned long long)addr, strerror(errno));
		}
	}
	ASSERT_FALSE(ue_event_exists(EVENT));
	ASSERT_EQ(0, *word);
}

TEST_F(compat, name_args_other_high_bits_efault) {
	int *word = (int *)(self->high + 256);
	unsigned int i;

	strcpy(self->high, EVENT_CMD);
	strcpy(self->low, EVENT_CMD);
	for (i = 0; i < NR_BAD; i++) {
		__u64 addr = bad_value(self, self->high, i);

		ASSERT_EQ(-1, reg_raw(self->data_fd, addr, zext(word), 0,
				      NULL)) {
			TH_LOG("name_args %#llx registered",
			       (unsigned long long)addr);
		}
		ASSERT_EQ(EFAULT, errno) {
			TH_LOG("name_args %#llx: %s",
			       (unsigned long long)addr, strerror(errno));
		}
	}
	ASSERT_FALSE(ue_event_exists(EVENT));
}

TEST_F(compat, disable_addr_other_high_bits_efault) {
	int *word = (int *)(self->high + 256);
	unsigned int i;

	strcpy(self->high, EVENT_CMD);
	ASSERT_EQ(0, reg_raw(self->data_fd, zext(self->high), zext(word), 0,
			     NULL));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	for (i = 0; i < NR_BAD; i++) {
		__u64 addr = bad_value(self, word, i);

		ASSERT_EQ(-1, unreg_raw(self->data_fd, addr, 0));
		ASSERT_EQ(EFAULT, errno) {
			TH_LOG("disable_addr %#llx: %s",
			       (unsigned long long)addr, strerror(errno));
		}
	}
	/* Still registered and set */
	ASSERT_EQ(1, *word);
	ASSERT_EQ(0, unreg_raw(self->data_fd, sext(word), 0));
	ASSERT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
}

/* DIAG_IOCSDEL through compat_ioctl, of a persistent event */
TEST_F(compat, delete_persistent) {
	char cmd[] = EVENT_CMD;
	int word = 0;

	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_size = 4,
		.flags = USER_EVENT_REG_PERSIST,
	};

	reg.enable_addr = sext(&word);
	reg.name_args = sext(cmd);
	ASSERT_EQ(0, ioctl(self->data_fd, DIAG_IOCSREG, &reg));
	ASSERT_EQ(0, unreg_raw(self->data_fd, sext(&word), 0));
	close(self->data_fd);
	self->data_fd = -1;
	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(0, ue_del(EVENT));
	ASSERT_FALSE(ue_exists(ENABLE_FILE));
}

TEST_HARNESS_MAIN
