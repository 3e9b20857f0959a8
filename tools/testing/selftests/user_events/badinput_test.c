// SPDX-License-Identifier: GPL-2.0
/*
 * user_events bad input: one test per row of the errno tables of
 * DIAG_IOCSREG, DIAG_IOCSUNREG, DIAG_IOCSDEL and write(), each checking
 * that a failure leaves nothing behind, at once: no event (the Active
 * count of user_events_status is back at its start right after the
 * call), no enabler (the same address and bit register again) and no
 * write index slot.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "user_events_selftests.h"

#define EVENT		"__bad_event"
#define EVENT_OK	"__bad_event_ok"
#define ENABLE_FILE	EVENTS_DIR "/" EVENT "/enable"

/* Where the pieces of a test live; see map_pages(). */
struct pages {
	char *base;
	long size;		/* page size */
	char *words;		/* read-write: enable words */
	char *rw;		/* read-write: structs and strings */
	char *ro;		/* read-only */
	char *edge;		/* read-write, right before the hole */
	char *gone;		/* unmapped */
};

static int map_pages(struct pages *p)
{
	p->size = sysconf(_SC_PAGESIZE);
	p->base = mmap(NULL, 5 * p->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->base == MAP_FAILED)
		return -1;

	p->words = p->base;
	p->rw = p->base + p->size;
	p->ro = p->base + 2 * p->size;
	p->edge = p->base + 3 * p->size;
	p->gone = p->base + 4 * p->size;

	if (mprotect(p->ro, p->size, PROT_READ) ||
	    munmap(p->gone, p->size))
		return -1;

	return 0;
}

static void cleanup_events(void)
{
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
	ue_cleanup_event(EVENT_OK);
	ue_cleanup_event("enable");
	ue_cleanup_event("filter");
}

/*
 * After a call: the @slots events it left registered on the fd are all
 * that exists besides the @active ones from before, right away; the same
 * address and bit register again on the same fd, as the fd's next event;
 * and everything is gone once the fd is closed (the persistent event
 * @persistent, if any, deleted at once, the others auto-deleted).
 */
static void check_nothing_left(struct __test_metadata *_metadata, int fd,
			       void *addr, int bit, int slots, int active,
			       const char *persistent)
{
	int index = -1, now, ret, err;

	now = ue_active_count();
	ASSERT_EQ(active + slots, now) {
		TH_LOG("Active is %d right after the call, expected %d", now,
		       active + slots);
	}

	ASSERT_EQ(0, ue_reg_fd(fd, EVENT_OK " u32 a", addr, bit, 4, 0,
			       &index));
	EXPECT_EQ(slots, index);
	ASSERT_EQ(0, ue_unreg_fd(fd, addr, bit));
	close(fd);
	if (persistent) {
		ret = ue_del(persistent);
		err = errno;
		ASSERT_FALSE(ue_event_exists(persistent)) {
			TH_LOG("DIAG_IOCSDEL %s: %d (%s)", persistent, ret,
			       strerror(err));
		}
	}

	/* The others go by auto-delete, asynchronously: bounded */
	ue_wait_active(active, UE_AUTO_DELETE_MS);
	now = ue_active_count();
	EXPECT_EQ(active, now) {
		TH_LOG("Active is %d, was %d", now, active);
	}
}

/* DIAG_IOCSREG */

enum addr_kind {
	ADDR_INT,		/* an aligned int */
	ADDR_LONG,		/* an aligned 8-byte word */
	ADDR_PLUS2,		/* 2 bytes into a word */
	ADDR_PLUS4,		/* 4 bytes into an 8-byte word */
	ADDR_KERNEL,		/* not a user address */
	ADDR_READONLY,		/* mapped, not writable */
	ADDR_UNMAPPED,
	ADDR_NULL,
};

enum cmd_kind {
	CMD_STRING,		/* the variant's string */
	CMD_UNMAPPED,
	CMD_NULL,
	CMD_LEN_511,		/* valid, 511 characters */
	CMD_LEN_512,
	CMD_NAME_255,		/* a name of 255 characters */
	CMD_NAME_256,
	CMD_STATIC_MAX,		/* static size: the most any tracer records */
	CMD_STATIC_MAX_PLUS1,	/* one byte more, in one struct */
	CMD_STATIC_SPLIT_PLUS1,	/* one byte more, over three fields */
};

enum struct_kind {
	STRUCT_RW,
	STRUCT_UNMAPPED,
	STRUCT_INDEX_READONLY,	/* write_index on a read-only page */
	STRUCT_TAIL_UNMAPPED,	/* size 64, the bytes after 32 unmapped */
};

/* The sizes a row can ask for, beyond plain numbers. */
#define SIZE_STRUCT	-1	/* sizeof(struct user_reg) */
#define SIZE_PAGE	-2
#define SIZE_PAGE_PLUS1	-3

/* A non-zero byte at the last offset of the struct size. */
#define TAIL_LAST	-1

static long resolve_size(long size, long page, long def)
{
	switch (size) {
	case SIZE_STRUCT:
		return def;
	case SIZE_PAGE:
		return page;
	case SIZE_PAGE_PLUS1:
		return page + 1;
	}

	return size;
}

FIXTURE(reg) {
	struct pages p;
	int fd;
	int active;
	bool umount;
};

FIXTURE_VARIANT(reg) {
	long size;
	long tail_at;		/* offset of a non-zero byte, 0 or TAIL_LAST */
	int bit;
	int enable_size;
	int flags;
	enum addr_kind addr;
	enum cmd_kind cmd_kind;
	const char *cmd;
	enum struct_kind where;
	int err;		/* expected errno, 0 for success */
};

#define REG_OK .size = SIZE_STRUCT, .enable_size = 4, .cmd = EVENT " u32 a"

FIXTURE_VARIANT_ADD(reg, struct_unmapped) {
	REG_OK, .where = STRUCT_UNMAPPED, .err = EFAULT,
};

/* The tail that must be zero cannot be read */
FIXTURE_VARIANT_ADD(reg, struct_tail_unmapped) {
	REG_OK, .size = 64, .where = STRUCT_TAIL_UNMAPPED, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(reg, size_page_plus_1) {
	REG_OK, .size = SIZE_PAGE_PLUS1, .err = E2BIG,
};

FIXTURE_VARIANT_ADD(reg, size_0) {
	REG_OK, .size = 0, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, size_27) {
	REG_OK, .size = 27, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, size_20_old_abi) {
	REG_OK, .size = 20, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, size_32_zero_tail) {
	REG_OK, .size = 32, .err = 0,
};

FIXTURE_VARIANT_ADD(reg, size_32_nonzero_tail) {
	REG_OK, .size = 32, .tail_at = 28, .err = E2BIG,
};

FIXTURE_VARIANT_ADD(reg, size_page_zero_tail) {
	REG_OK, .size = SIZE_PAGE, .err = 0,
};

FIXTURE_VARIANT_ADD(reg, size_page_nonzero_last) {
	REG_OK, .size = SIZE_PAGE, .tail_at = TAIL_LAST, .err = E2BIG,
};

FIXTURE_VARIANT_ADD(reg, flags_max) {
	REG_OK, .flags = USER_EVENT_REG_MAX, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, flags_high) {
	REG_OK, .flags = 0x8000, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, flags_persist_multi) {
	REG_OK, .flags = USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT,
	.err = 0,
};

FIXTURE_VARIANT_ADD(reg, enable_size_0) {
	REG_OK, .enable_size = 0, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, enable_size_2) {
	REG_OK, .enable_size = 2, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, enable_size_16) {
	REG_OK, .enable_size = 16, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, misaligned_4) {
	REG_OK, .addr = ADDR_PLUS2, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, misaligned_8) {
	REG_OK, .addr = ADDR_PLUS4, .enable_size = 8, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, bit_32_of_4) {
	REG_OK, .bit = 32, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, bit_64_of_8) {
	REG_OK, .addr = ADDR_LONG, .enable_size = 8, .bit = 64, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, bit_255) {
	REG_OK, .bit = 255, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, addr_kernel) {
	REG_OK, .addr = ADDR_KERNEL, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(reg, addr_readonly) {
	REG_OK, .addr = ADDR_READONLY, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(reg, addr_unmapped) {
	REG_OK, .addr = ADDR_UNMAPPED, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(reg, addr_null) {
	REG_OK, .addr = ADDR_NULL, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(reg, write_index_readonly) {
	REG_OK, .where = STRUCT_INDEX_READONLY, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(reg, cmd_unmapped) {
	REG_OK, .cmd_kind = CMD_UNMAPPED, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(reg, cmd_null) {
	REG_OK, .cmd_kind = CMD_NULL, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(reg, cmd_len_511) {
	REG_OK, .cmd_kind = CMD_LEN_511, .err = 0,
};

FIXTURE_VARIANT_ADD(reg, cmd_len_512) {
	REG_OK, .cmd_kind = CMD_LEN_512, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_flags) {
	REG_OK, .cmd = EVENT ":x u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_empty_flags) {
	REG_OK, .cmd = EVENT ": u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_empty) {
	REG_OK, .cmd = "", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_missing) {
	REG_OK, .cmd = " u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_255) {
	REG_OK, .cmd_kind = CMD_NAME_255, .err = 0,
};

FIXTURE_VARIANT_ADD(reg, name_256) {
	REG_OK, .cmd_kind = CMD_NAME_256, .err = EINVAL,
};

/* The ".<id>" suffix of a multi-format event would pass 255 */
FIXTURE_VARIANT_ADD(reg, name_255_multi_format) {
	REG_OK, .cmd_kind = CMD_NAME_255, .flags = USER_EVENT_REG_MULTI_FORMAT,
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_dot) {
	REG_OK, .cmd = ". u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_dotdot) {
	REG_OK, .cmd = ".. u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_slash) {
	REG_OK, .cmd = "__bad/event u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_control) {
	REG_OK, .cmd = "__bad\001event u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_colon) {
	REG_OK, .cmd = "__bad:event", .err = EINVAL,
};

/* Control characters split nothing: they are in the name, refused */
FIXTURE_VARIANT_ADD(reg, name_newline) {
	REG_OK, .cmd = "__bad\nevent u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_carriage_return) {
	REG_OK, .cmd = "__bad\revent u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_vertical_tab) {
	REG_OK, .cmd = "__bad\vevent u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_form_feed) {
	REG_OK, .cmd = "__bad\fevent u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_del) {
	REG_OK, .cmd = "__bad\177event u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_trailing_newline) {
	REG_OK, .cmd = EVENT "\n", .err = EINVAL,
};

/* The files of the system directory: no event directory can take them */
FIXTURE_VARIANT_ADD(reg, name_enable) {
	REG_OK, .cmd = "enable u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_filter) {
	REG_OK, .cmd = "filter u32 a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_enable_multi_format) {
	REG_OK, .cmd = "enable u32 a", .flags = USER_EVENT_REG_MULTI_FORMAT,
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_filter_multi_format) {
	REG_OK, .cmd = "filter", .flags = USER_EVENT_REG_MULTI_FORMAT,
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, name_enable_prefix) {
	REG_OK, .cmd = "enable_x u32 a", .err = 0,
};

FIXTURE_VARIANT_ADD(reg, field_no_name) {
	REG_OK, .cmd = EVENT " u32", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, field_bad_type) {
	REG_OK, .cmd = EVENT " long a", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, struct_size_2g) {
	REG_OK, .cmd = EVENT " struct x a 2147483648", .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, static_size_over_64k) {
	REG_OK, .cmd = EVENT " struct x a 40000; struct y b 30000",
	.err = EINVAL,
};

/* Largest static size a tracer can record (see ue_get_limits()) */
FIXTURE_VARIANT_ADD(reg, static_size_max) {
	REG_OK, .cmd_kind = CMD_STATIC_MAX, .err = 0,
};

FIXTURE_VARIANT_ADD(reg, static_size_max_plus_1) {
	REG_OK, .cmd_kind = CMD_STATIC_MAX_PLUS1, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(reg, static_size_max_plus_1_split) {
	REG_OK, .cmd_kind = CMD_STATIC_SPLIT_PLUS1, .err = EINVAL,
};

FIXTURE_SETUP(reg) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	cleanup_events();

	ASSERT_EQ(0, map_pages(&self->p));
	self->active = ue_active_count();
	ASSERT_LE(0, self->active);
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->fd);
}

FIXTURE_TEARDOWN(reg) {
	cleanup_events();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

static __u64 reg_addr(struct pages *p, enum addr_kind kind)
{
	switch (kind) {
	case ADDR_INT:
	case ADDR_LONG:
		return (unsigned long)p->words;
	case ADDR_PLUS2:
		return (unsigned long)p->words + 2;
	case ADDR_PLUS4:
		return (unsigned long)p->words + 4;
	case ADDR_KERNEL:
		return 1ULL << 63;
	case ADDR_READONLY:
		return (unsigned long)p->ro;
	case ADDR_UNMAPPED:
		return (unsigned long)p->gone;
	case ADDR_NULL:
		break;
	}

	return 0;
}

/* Build the command (outside the struct page); returns its pointer. */
static __u64 reg_cmd(struct pages *p, enum cmd_kind kind, const char *cmd)
{
	static char buf[1024];
	struct ue_limits l;
	size_t len;

	ue_get_limits(&l);
	switch (kind) {
	case CMD_STATIC_MAX:
	case CMD_STATIC_MAX_PLUS1:
		snprintf(buf, sizeof(buf), EVENT " struct x a %ld",
			 l.max_static + (kind == CMD_STATIC_MAX_PLUS1));
		break;
	case CMD_STATIC_SPLIT_PLUS1:
		/* u32 + __data_loc word + struct */
		snprintf(buf, sizeof(buf),
			 EVENT " u32 a; __data_loc char[] b; struct x c %ld",
			 l.max_static + 1 - 8);
		break;
	case CMD_STRING:
		strcpy(buf, cmd);
		break;
	case CMD_UNMAPPED:
		return (unsigned long)p->gone;
	case CMD_NULL:
		return 0;
	case CMD_LEN_511:
	case CMD_LEN_512:
		/* Trailing whitespace is ignored by the parser. */
		len = kind == CMD_LEN_511 ? 511 : 512;
		memset(buf, ' ', len);
		memcpy(buf, EVENT " u32 a", strlen(EVENT " u32 a"));
		buf[len] = '\0';
		break;
	case CMD_NAME_255:
	case CMD_NAME_256:
		len = kind == CMD_NAME_255 ? 255 : 256;
		memset(buf, 'x', len);
		memcpy(buf, EVENT, strlen(EVENT));
		strcpy(buf + len, " u32 a");
		break;
	}

	return (unsigned long)buf;
}

TEST_F(reg, result) {
	long def = sizeof(struct user_reg);
	long size = resolve_size(variant->size, self->p.size, def);
	struct user_reg *reg = (struct user_reg *)self->p.rw;
	void *check_addr = self->p.words;
	int ret, err;

	if (variant->where == STRUCT_UNMAPPED)
		reg = (struct user_reg *)self->p.gone;
	else if (variant->where == STRUCT_TAIL_UNMAPPED)
		reg = (struct user_reg *)(self->p.gone - 32);
	else if (variant->where == STRUCT_INDEX_READONLY)
		reg = (struct user_reg *)(self->p.ro -
					  offsetof(struct user_reg,
						   write_index));

	if (variant->where != STRUCT_UNMAPPED) {
		reg->size = size;
		reg->enable_bit = variant->bit;
		reg->enable_size = variant->enable_size;
		reg->flags = variant->flags;
		reg->enable_addr = reg_addr(&self->p, variant->addr);
		reg->name_args = reg_cmd(&self->p, variant->cmd_kind,
					 variant->cmd);
		/* The kernel must store the index: start with garbage */
		if (variant->where != STRUCT_INDEX_READONLY)
			reg->write_index = UE_INDEX_GARBAGE;
		if (variant->tail_at == TAIL_LAST)
			((char *)reg)[size - 1] = 1;
		else if (variant->tail_at)
			((char *)reg)[variant->tail_at] = 1;
	}

	errno = 0;
	ret = ioctl(self->fd, DIAG_IOCSREG, reg);
	err = errno;
	if (variant->err) {
		ASSERT_EQ(-1, ret) {
			TH_LOG("got %d (%s)", ret, strerror(err));
		}
		ASSERT_EQ(variant->err, err) {
			TH_LOG("got %d (%s)", ret, strerror(err));
		}
	} else {
		ASSERT_EQ(0, ret) {
			TH_LOG("got %s", strerror(err));
		}
		ASSERT_EQ(0, reg->write_index);
		/* A successful name is an event directory */
		if (variant->cmd && strncmp(variant->cmd, EVENT, strlen(EVENT)) &&
		    !variant->flags) {
			char dir[256];

			snprintf(dir, sizeof(dir), EVENTS_DIR "/%.*s",
				 (int)strcspn(variant->cmd, " "), variant->cmd);
			ASSERT_TRUE(ue_exists(dir));
		}
		ASSERT_EQ(0, ue_unreg_fd(self->fd,
					 (void *)(unsigned long)reg->enable_addr,
					 reg->enable_bit));
	}

	if (variant->addr == ADDR_INT || variant->addr == ADDR_LONG)
		check_addr = (void *)(unsigned long)reg_addr(&self->p,
							      variant->addr);

	/* Persistent rows made an event that only a delete removes. */
	check_nothing_left(_metadata, self->fd, check_addr,
			   variant->bit < 32 ? variant->bit : 0,
			   variant->err ? 0 : 1, self->active,
			   !variant->err && variant->flags & USER_EVENT_REG_PERSIST ?
			   EVENT : NULL);
	if (!variant->err && variant->cmd && variant->cmd[0] != '_')
		ASSERT_TRUE(ue_cleanup_event("enable_x"));
}

/* DIAG_IOCSUNREG */

FIXTURE(unreg) {
	struct pages p;
	int fd;
	int active;
	bool umount;
};

FIXTURE_VARIANT(unreg) {
	long size;
	long tail_at;
	int bit;
	int addr_offset;
	int reserved;
	int reserved2;
	bool unmapped;
	bool tail_unmapped;	/* size 32, the bytes after 16 unmapped */
	int err;
};

#define UNREG_OK .size = SIZE_STRUCT

FIXTURE_VARIANT_ADD(unreg, ok) {
	UNREG_OK, .err = 0,
};

FIXTURE_VARIANT_ADD(unreg, struct_unmapped) {
	UNREG_OK, .unmapped = true, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(unreg, struct_tail_unmapped) {
	UNREG_OK, .size = 32, .tail_unmapped = true, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(unreg, size_page_plus_1) {
	UNREG_OK, .size = SIZE_PAGE_PLUS1, .err = E2BIG,
};

FIXTURE_VARIANT_ADD(unreg, size_0) {
	UNREG_OK, .size = 0, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(unreg, size_15) {
	UNREG_OK, .size = 15, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(unreg, size_24_zero_tail) {
	UNREG_OK, .size = 24, .err = 0,
};

FIXTURE_VARIANT_ADD(unreg, size_24_nonzero_tail) {
	UNREG_OK, .size = 24, .tail_at = 17, .err = E2BIG,
};

FIXTURE_VARIANT_ADD(unreg, reserved) {
	UNREG_OK, .reserved = 1, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(unreg, reserved2) {
	UNREG_OK, .reserved2 = 0x100, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(unreg, other_bit) {
	UNREG_OK, .bit = 1, .err = ENOENT,
};

FIXTURE_VARIANT_ADD(unreg, other_addr) {
	UNREG_OK, .addr_offset = 8, .err = ENOENT,
};

FIXTURE_SETUP(unreg) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	cleanup_events();

	ASSERT_EQ(0, map_pages(&self->p));
	self->active = ue_active_count();
	ASSERT_LE(0, self->active);
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->fd);
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", self->p.words, 0, 4,
			       0, NULL));
}

FIXTURE_TEARDOWN(unreg) {
	cleanup_events();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(unreg, result) {
	struct user_unreg *unreg = (struct user_unreg *)self->p.rw;
	int *word = (int *)self->p.words;
	int ret, err;

	if (variant->unmapped) {
		unreg = (struct user_unreg *)self->p.gone;
	} else {
		if (variant->tail_unmapped)
			unreg = (struct user_unreg *)(self->p.gone - 16);
		unreg->size = resolve_size(variant->size, self->p.size,
					   sizeof(*unreg));
		unreg->disable_bit = variant->bit;
		unreg->__reserved = variant->reserved;
		unreg->__reserved2 = variant->reserved2;
		unreg->disable_addr = (unsigned long)self->p.words +
				      variant->addr_offset;
		if (variant->tail_at)
			((char *)unreg)[variant->tail_at] = 1;
	}

	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, ue_load(word));

	errno = 0;
	ret = ioctl(self->fd, DIAG_IOCSUNREG, unreg);
	err = errno;
	if (variant->err) {
		ASSERT_EQ(-1, ret) {
			TH_LOG("got %d (%s)", ret, strerror(err));
		}
		ASSERT_EQ(variant->err, err) {
			TH_LOG("got %d (%s)", ret, strerror(err));
		}

		/* The registration is intact. */
		ASSERT_EQ(1, ue_load(word));
		ASSERT_EQ(0, ue_enable(EVENT, 0));
		ASSERT_EQ(0, ue_load(word));
		ASSERT_EQ(0, ue_unreg_fd(self->fd, self->p.words, 0));
	} else {
		ASSERT_EQ(0, ret);
		ASSERT_EQ(0, ue_load(word));
		ASSERT_EQ(0, ue_enable(EVENT, 0));
		ASSERT_EQ(-1, ue_unreg_fd(self->fd, self->p.words, 0));
		ASSERT_EQ(ENOENT, errno);
	}

	/* The event still holds this fd's first slot. */
	check_nothing_left(_metadata, self->fd, self->p.words, 0, 1,
			   self->active, NULL);
}

/* DIAG_IOCSDEL */

FIXTURE(del) {
	struct pages p;
	int fd;
	int active;
	bool umount;
};

FIXTURE_VARIANT(del) {
	const char *name;
	bool unmapped;
	bool long_name;
	bool hold;		/* keep the event registered on the fd */
	int err;
};

FIXTURE_VARIANT_ADD(del, unmapped) {
	.unmapped = true, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(del, null) {
	.name = NULL, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(del, name_512) {
	.long_name = true, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(del, not_found) {
	.name = EVENT "_none", .err = ENOENT,
};

FIXTURE_VARIANT_ADD(del, busy) {
	.name = EVENT, .hold = true, .err = EBUSY,
};

FIXTURE_SETUP(del) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	cleanup_events();

	ASSERT_EQ(0, map_pages(&self->p));
	self->active = ue_active_count();
	ASSERT_LE(0, self->active);
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->fd);
}

FIXTURE_TEARDOWN(del) {
	cleanup_events();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(del, result) {
	const char *name = variant->name;
	int ret, err;

	if (variant->unmapped)
		name = self->p.gone;
	if (variant->long_name) {
		memset(self->p.rw, 'x', 512);
		self->p.rw[512] = '\0';
		name = self->p.rw;
	}
	if (variant->hold) {
		ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", self->p.words,
				       0, 4, 0, NULL));
		ASSERT_EQ(0, ue_unreg_fd(self->fd, self->p.words, 0));
	}

	errno = 0;
	ret = ioctl(self->fd, DIAG_IOCSDEL, name);
	err = errno;
	ASSERT_EQ(-1, ret) {
		TH_LOG("got %d (%s)", ret, strerror(err));
	}
	ASSERT_EQ(variant->err, err) {
		TH_LOG("got %d (%s)", ret, strerror(err));
	}

	if (variant->hold)
		ASSERT_TRUE(ue_exists(ENABLE_FILE));

	check_nothing_left(_metadata, self->fd, self->p.words, 0,
			   variant->hold ? 1 : 0, self->active, NULL);
}

/* write() */

FIXTURE(write) {
	struct pages p;
	int fd;
	int index;
	bool umount;
};

enum payload_kind {
	PAYLOAD_OK,		/* index + u32 */
	PAYLOAD_SHORT_INDEX,	/* 2 bytes */
	PAYLOAD_INDEX_UNMAPPED,
	PAYLOAD_SHORT,		/* index + 2 bytes */
	PAYLOAD_UNMAPPED,	/* index, then an unmapped payload */
	PAYLOAD_TOO_BIG,
};

FIXTURE_VARIANT(write) {
	int index_delta;	/* added to the registered index */
	bool negative;		/* index -1 */
	bool enable;
	enum payload_kind payload;
	int err;
};

FIXTURE_VARIANT_ADD(write, ok) {
	.enable = true, .payload = PAYLOAD_OK, .err = 0,
};

FIXTURE_VARIANT_ADD(write, short_index) {
	.enable = true, .payload = PAYLOAD_SHORT_INDEX, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(write, index_unmapped) {
	.enable = true, .payload = PAYLOAD_INDEX_UNMAPPED, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(write, index_negative) {
	.enable = true, .negative = true, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(write, index_unknown) {
	.enable = true, .index_delta = 5, .err = ENOENT,
};

FIXTURE_VARIANT_ADD(write, payload_short) {
	.enable = true, .payload = PAYLOAD_SHORT, .err = EINVAL,
};

FIXTURE_VARIANT_ADD(write, disabled) {
	.enable = false, .payload = PAYLOAD_OK, .err = EBADF,
};

FIXTURE_VARIANT_ADD(write, payload_unmapped) {
	.enable = true, .payload = PAYLOAD_UNMAPPED, .err = EFAULT,
};

FIXTURE_VARIANT_ADD(write, too_big) {
	.enable = true, .payload = PAYLOAD_TOO_BIG, .err = E2BIG,
};

FIXTURE_SETUP(write) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	cleanup_events();

	ASSERT_EQ(0, map_pages(&self->p));
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->fd);
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", self->p.words, 0, 4,
			       0, &self->index));
}

FIXTURE_TEARDOWN(write) {
	cleanup_events();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(write, result) {
	int index = variant->negative ? -1 : self->index + variant->index_delta;
	__u32 value = 42;
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ &value, sizeof(value) },
	};
	ssize_t ret;
	int err;
	char *big = NULL;

	switch (variant->payload) {
	case PAYLOAD_OK:
		break;
	case PAYLOAD_SHORT_INDEX:
		io[0].iov_len = 2;
		io[1].iov_len = 0;
		break;
	case PAYLOAD_INDEX_UNMAPPED:
		io[0].iov_base = self->p.gone;
		break;
	case PAYLOAD_SHORT:
		io[1].iov_len = 2;
		break;
	case PAYLOAD_UNMAPPED:
		io[1].iov_base = self->p.gone;
		break;
	case PAYLOAD_TOO_BIG:
		big = calloc(1, 64 * 1024);
		ASSERT_NE(0, (uintptr_t)big);
		io[1].iov_base = big;
		io[1].iov_len = 64 * 1024;
		break;
	}

	if (variant->enable)
		ASSERT_EQ(0, ue_enable(EVENT, 1));

	errno = 0;
	ret = writev(self->fd, io, 2);
	err = errno;
	if (variant->err) {
		ASSERT_EQ(-1, ret) {
			TH_LOG("got %zd (%s)", ret, strerror(err));
		}
		ASSERT_EQ(variant->err, err) {
			TH_LOG("got %zd (%s)", ret, strerror(err));
		}
	} else {
		ASSERT_EQ((ssize_t)(io[0].iov_len + io[1].iov_len), ret) {
			TH_LOG("got %zd (%s)", ret, strerror(err));
		}
	}
	free(big);

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_unreg_fd(self->fd, self->p.words, 0));
	close(self->fd);
}

/*
 * A persistent registration that fails after its event was made (the
 * enable address or write_index turns out unwritable) removes the new
 * event again, at once, as a non-persistent one would be: nothing in
 * user_events_status, tracefs or dynamic_events, and the name is free
 * for other fields. An event that existed before stays as it was.
 */
FIXTURE(persist) {
	struct pages p;
	int fd;
	int check;
	int active;
	bool umount;
};

FIXTURE_VARIANT(persist) {
	enum addr_kind addr;
	bool index_readonly;	/* write_index on a read-only page */
	int flags;		/* besides USER_EVENT_REG_PERSIST */
};

FIXTURE_VARIANT_ADD(persist, addr_readonly) {
	.addr = ADDR_READONLY,
};

FIXTURE_VARIANT_ADD(persist, addr_unmapped) {
	.addr = ADDR_UNMAPPED,
};

FIXTURE_VARIANT_ADD(persist, write_index_readonly) {
	.addr = ADDR_INT, .index_readonly = true,
};

FIXTURE_VARIANT_ADD(persist, addr_readonly_multi_format) {
	.addr = ADDR_READONLY, .flags = USER_EVENT_REG_MULTI_FORMAT,
};

FIXTURE_VARIANT_ADD(persist, write_index_readonly_multi_format) {
	.addr = ADDR_INT, .index_readonly = true,
	.flags = USER_EVENT_REG_MULTI_FORMAT,
};

FIXTURE_SETUP(persist) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	cleanup_events();

	ASSERT_EQ(0, map_pages(&self->p));
	self->active = ue_active_count();
	ASSERT_LE(0, self->active);
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->fd);
}

FIXTURE_TEARDOWN(persist) {
	cleanup_events();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* The "u:" lines of dynamic_events for the register name @name */
static int dyn_lines_of(const char *name)
{
	char *text = ue_read_file(DYN_FILE);
	size_t len = strlen(name);
	char *line;
	int n = 0;

	if (!text)
		return -1;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strncmp(line, "u:", 2) && !strncmp(line + 2, name, len) &&
		    (line[2 + len] == ' ' || !line[2 + len]))
			n++;
	}
	free(text);

	return n;
}

/*
 * DIAG_IOCSREG of @cmd, PERSIST and @flags, with the enable address of
 * kind @addr, and write_index on a read-only page if @index_readonly:
 * EFAULT
 */
static void reg_persist_fails(struct __test_metadata *_metadata,
			      struct pages *p, int fd, enum addr_kind addr,
			      bool index_readonly, int flags, const char *cmd)
{
	struct user_reg *reg = (struct user_reg *)p->rw;
	int ret;

	if (index_readonly)
		reg = (struct user_reg *)(p->ro -
					  offsetof(struct user_reg,
						   write_index));
	reg->size = sizeof(*reg);
	reg->enable_bit = 0;
	reg->enable_size = 4;
	reg->flags = USER_EVENT_REG_PERSIST | flags;
	reg->enable_addr = reg_addr(p, addr);
	reg->name_args = (unsigned long)cmd;

	errno = 0;
	ret = ioctl(fd, DIAG_IOCSREG, reg);
	ASSERT_EQ(-1, ret) {
		TH_LOG("\"%s\" registered", cmd);
	}
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(persist, failed_registration_leaves_no_event) {
	int index = -1;

	reg_persist_fails(_metadata, &self->p, self->fd, variant->addr,
			  variant->index_readonly, variant->flags,
			  EVENT " u32 a");

	/* Gone right after the call, from every view of the events */
	EXPECT_EQ(self->active, ue_active_count());
	EXPECT_FALSE(ue_exists(EVENTS_DIR "/" EVENT));
	EXPECT_FALSE(ue_multi_exists(EVENT));
	EXPECT_EQ(0, dyn_lines_of(EVENT));
	/* Nothing left to delete either */
	ASSERT_EQ(-1, ue_del(EVENT));
	ASSERT_EQ(ENOENT, errno);

	/* The name is free: other fields register, as the fd's first event */
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u64 other", self->p.words, 1,
			       4, 0, &index)) {
		TH_LOG("other fields after the failure: %s", strerror(errno));
	}
	EXPECT_EQ(0, index);
	ASSERT_TRUE(ue_exists(EVENTS_DIR "/" EVENT));
	ASSERT_EQ(0, ue_unreg_fd(self->fd, self->p.words, 1));
	close(self->fd);
	ASSERT_TRUE(ue_wait_auto_delete(EVENTS_DIR "/" EVENT));
	EXPECT_EQ(self->active, ue_active_count());
}

/*
 * The same failure on an event that exists already (persistent, no user
 * left) leaves it alone: still there, and with no reference of the
 * failed call, so that it deletes at once.
 */
TEST_F(persist, failed_registration_keeps_existing_event) {
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", self->p.words, 1, 4,
			       USER_EVENT_REG_PERSIST | variant->flags, NULL));
	ASSERT_EQ(0, ue_unreg_fd(self->fd, self->p.words, 1));
	close(self->fd);
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->fd);

	reg_persist_fails(_metadata, &self->p, self->fd, variant->addr,
			  variant->index_readonly, variant->flags,
			  EVENT " u32 a");

	EXPECT_EQ(self->active + 1, ue_active_count());
	EXPECT_TRUE(ue_event_exists(EVENT));
	EXPECT_EQ(1, dyn_lines_of(EVENT));
	close(self->fd);
	ASSERT_EQ(0, ue_del(EVENT)) {
		TH_LOG("DIAG_IOCSDEL after the failure: %s", strerror(errno));
	}
	EXPECT_FALSE(ue_event_exists(EVENT));
	EXPECT_EQ(self->active, ue_active_count());
}

/* Everything else */

FIXTURE(misc) {
	int saved_max;		/* user_events_max to restore, or -1 */
	int fd;
	int check;
	int active;
	bool umount;
};

FIXTURE_SETUP(misc) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	cleanup_events();
	self->saved_max = -1;
	self->active = ue_active_count();
	ASSERT_LE(0, self->active);
	self->fd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->fd);
}

FIXTURE_TEARDOWN(misc) {
	if (self->saved_max >= 0)
		ue_write_max(self->saved_max);
	cleanup_events();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

TEST_F(misc, unknown_ioctl_enotty) {
	char buf[64] = {0};

	ASSERT_EQ(-1, ioctl(self->fd, _IO(DIAG_IOC_MAGIC, 3), buf));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, _IOWR('x', 0, struct user_reg *), buf));
	ASSERT_EQ(ENOTTY, errno);
	/* DIAG_IOCSDEL's number with another size (a pointer's differs) */
	ASSERT_EQ(-1, ioctl(self->fd, _IOW(DIAG_IOC_MAGIC, 2, short), buf));
	ASSERT_EQ(ENOTTY, errno);
	close(self->fd);
}

TEST_F(misc, status_mmap_enodev) {
	int fd = open(STATUS_FILE, O_RDONLY);
	void *map;

	ASSERT_NE(-1, fd);
	map = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_EQ((uintptr_t)MAP_FAILED, (uintptr_t)map);
	ASSERT_EQ(ENODEV, errno);
	close(fd);
	close(self->fd);
}

TEST_F(misc, same_addr_bit_eaddrinuse) {
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", &self->check, 0, 4,
			       0, NULL));

	/* Rejected before the command is looked at: nothing created. */
	ASSERT_EQ(-1, ue_reg_fd(self->fd, EVENT_OK " u32 a", &self->check, 0,
				4, 0, NULL));
	ASSERT_EQ(EADDRINUSE, errno);
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/" EVENT_OK));

	ASSERT_EQ(0, ue_unreg_fd(self->fd, &self->check, 0));
	close(self->fd);
	ASSERT_TRUE(ue_wait_active(self->active, 1000));
}

TEST_F(misc, args_mismatch_eaddrinuse) {
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", &self->check, 0, 4,
			       0, NULL));
	ASSERT_EQ(-1, ue_reg_fd(self->fd, EVENT " u64 a", &self->check, 1, 4,
				0, NULL));
	ASSERT_EQ(EADDRINUSE, errno);

	/* The failed one left no enabler at bit 1. */
	ASSERT_EQ(-1, ue_unreg_fd(self->fd, &self->check, 1));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(0, ue_unreg_fd(self->fd, &self->check, 0));
	close(self->fd);
	ASSERT_TRUE(ue_wait_active(self->active, 1000));
}

TEST_F(misc, unreg_without_registrations_enoent) {
	pid_t pid;

	/* A process that never registered anything. */
	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		UE_CHILD_EQ(-1, ue_unreg_fd(self->fd, &self->check, 0));
		UE_CHILD_EQ(ENOENT, errno);
		_exit(0);
	}

	ASSERT_CHILD_OK(pid);
	close(self->fd);
}

/*
 * An fd opened without write access: each of the three ioctls fails with
 * EBADF before anything else is looked at (even a NULL argument), and
 * creates, removes or changes nothing.
 */
TEST_F(misc, read_only_fd_reg_ebadf) {
	int rfd = open(DATA_FILE, O_RDONLY);
	struct user_reg reg = {0};

	ASSERT_NE(-1, rfd);
	ASSERT_EQ(-1, ioctl(rfd, DIAG_IOCSREG, NULL));
	ASSERT_EQ(EBADF, errno);

	reg.size = sizeof(reg);
	reg.enable_size = 4;
	reg.enable_addr = (__u64)(unsigned long)&self->check;
	reg.name_args = (__u64)(unsigned long)(EVENT " u32 a");
	reg.write_index = UE_INDEX_GARBAGE;
	ASSERT_EQ(-1, ioctl(rfd, DIAG_IOCSREG, &reg));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(UE_INDEX_GARBAGE, reg.write_index);
	reg.flags = USER_EVENT_REG_PERSIST;
	ASSERT_EQ(-1, ioctl(rfd, DIAG_IOCSREG, &reg));
	ASSERT_EQ(EBADF, errno);
	close(rfd);

	ASSERT_FALSE(ue_event_exists(EVENT));
	ASSERT_EQ(self->active, ue_active_count());

	/* No enabler either: the address and bit are free */
	ASSERT_EQ(-1, ue_unreg_fd(self->fd, &self->check, 0));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", &self->check, 0, 4,
			       0, NULL));
	ASSERT_EQ(0, ue_unreg_fd(self->fd, &self->check, 0));
	close(self->fd);
}

TEST_F(misc, read_only_fd_unreg_ebadf) {
	int rfd = open(DATA_FILE, O_RDONLY);

	ASSERT_NE(-1, rfd);
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", &self->check, 0, 4,
			       0, NULL));
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);

	ASSERT_EQ(-1, ioctl(rfd, DIAG_IOCSUNREG, NULL));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(-1, ue_unreg_fd(rfd, &self->check, 0));
	ASSERT_EQ(EBADF, errno);
	close(rfd);

	/* Still registered: set, and still following the event */
	ASSERT_EQ(1, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, self->check);
	ASSERT_EQ(0, ue_enable(EVENT, 1));
	ASSERT_EQ(1, self->check);
	ASSERT_EQ(self->active + 1, ue_active_count());

	ASSERT_EQ(0, ue_enable(EVENT, 0));
	ASSERT_EQ(0, ue_unreg_fd(self->fd, &self->check, 0));
	close(self->fd);
}

TEST_F(misc, read_only_fd_del_ebadf) {
	int rfd = open(DATA_FILE, O_RDONLY);

	ASSERT_NE(-1, rfd);
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", &self->check, 0, 4,
			       USER_EVENT_REG_PERSIST, NULL));
	ASSERT_EQ(0, ue_unreg_fd(self->fd, &self->check, 0));
	close(self->fd);

	/* Unreferenced and persistent: only a delete can remove it */
	ASSERT_EQ(-1, ioctl(rfd, DIAG_IOCSDEL, NULL));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(-1, ioctl(rfd, DIAG_IOCSDEL, EVENT));
	ASSERT_EQ(EBADF, errno);
	ASSERT_EQ(-1, ioctl(rfd, DIAG_IOCSDEL, EVENT "_none"));
	ASSERT_EQ(EBADF, errno);
	close(rfd);

	ASSERT_TRUE(ue_exists(ENABLE_FILE));
	ASSERT_EQ(self->active + 1, ue_active_count());
	ASSERT_EQ(0, ue_del(EVENT));
	ASSERT_EQ(self->active, ue_active_count());
}

/* write() needs write access too: the VFS refuses it */
TEST_F(misc, read_only_fd_write_ebadf) {
	int rfd = open(DATA_FILE, O_RDONLY);
	int data[2] = { 0, 1 };

	ASSERT_NE(-1, rfd);
	ASSERT_EQ(-1, write(rfd, data, sizeof(data)));
	ASSERT_EQ(EBADF, errno);
	close(rfd);
	close(self->fd);
}

TEST_F(misc, max_events_emfile) {
	int max = ue_read_max();
	int ret, err;

	ASSERT_LT(0, max);
	self->saved_max = max;
	/* Deleted events kept for their records count too: none here */
	ASSERT_EQ(0, ue_release_kept());
	ASSERT_EQ(0, ue_write_max(self->active));

	/* No room for a new event... */
	ret = ue_reg_fd(self->fd, EVENT " u32 a", &self->check, 0, 4, 0,
			NULL);
	err = errno;
	ASSERT_EQ(0, ue_write_max(max));
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EMFILE, err);

	/* ...and the limit being lower deletes nothing. */
	ASSERT_EQ(self->active, ue_active_count());
	ASSERT_EQ(0, ue_reg_fd(self->fd, EVENT " u32 a", &self->check, 0, 4,
			       0, NULL));
	ASSERT_EQ(0, ue_write_max(self->active));
	ASSERT_EQ(self->active + 1, ue_active_count());
	ASSERT_EQ(0, ue_write_max(max));
	ASSERT_EQ(max, ue_read_max());

	ASSERT_EQ(0, ue_unreg_fd(self->fd, &self->check, 0));
	close(self->fd);
	ASSERT_TRUE(ue_wait_active(self->active, 1000));
}

TEST_HARNESS_MAIN
