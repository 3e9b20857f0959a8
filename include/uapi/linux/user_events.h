/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User-space trace events: the ABI of tracefs user_events_data.
 *
 * A process registers an event with DIAG_IOCSREG on an open
 * user_events_data file. The kernel then keeps one bit at a user address
 * of the process set while any tracer (ftrace, perf, ...) is attached to
 * the event, and clear otherwise. While the bit is set the process emits
 * the event with write()/writev() on the same file: the data starts with
 * the s32 write_index returned by the registration, followed by the
 * payload laid out as described by the registered fields.
 *
 * See Documentation/trace/user_events.rst.
 */
#ifndef _UAPI_LINUX_USER_EVENTS_H
#define _UAPI_LINUX_USER_EVENTS_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define USER_EVENTS_SYSTEM "user_events"
#define USER_EVENTS_MULTI_SYSTEM "user_events_multi"
#define USER_EVENTS_PREFIX "u:"

/*
 * Location word of __data_loc and __rel_loc fields: the data offset in
 * the low 16 bits, the data size in the high 16 bits.
 */
#define DYN_LOC(offset, size) ((size) << 16 | (offset))

/* Flags of struct user_reg */
enum user_reg_flag {
	/* The event stays after its last user is gone (needs CAP_PERFMON) */
	USER_EVENT_REG_PERSIST		= 1U << 0,

	/* Each distinct format gets its own event, named <name>.<hex id> */
	USER_EVENT_REG_MULTI_FORMAT	= 1U << 1,

	/* This value or above is not ABI */
	USER_EVENT_REG_MAX		= 1U << 2,
};

/*
 * struct user_reg - Argument of DIAG_IOCSREG
 * @size: Size of this structure, for forward compatibility
 * @enable_bit: Bit to set or clear at @enable_addr
 * @enable_size: Size of the value at @enable_addr: 4, or 8 on 64-bit kernels
 * @flags: USER_EVENT_REG_* flags
 * @enable_addr: User address of the value holding @enable_bit
 * @name_args: User pointer to the command "name[ field[;field]...]"
 * @write_index: Output: index to put in front of each write of the event
 */
struct user_reg {
	__u32	size;
	__u8	enable_bit;
	__u8	enable_size;
	__u16	flags;
	__u64	enable_addr;
	__u64	name_args;
	__u32	write_index;
} __attribute__((__packed__));

/*
 * struct user_unreg - Argument of DIAG_IOCSUNREG
 * @size: Size of this structure, for forward compatibility
 * @disable_bit: Bit that was registered at @disable_addr
 * @__reserved: Must be zero
 * @__reserved2: Must be zero
 * @disable_addr: User address that was registered
 */
struct user_unreg {
	__u32	size;
	__u8	disable_bit;
	__u8	__reserved;
	__u16	__reserved2;
	__u64	disable_addr;
} __attribute__((__packed__));

#define DIAG_IOC_MAGIC '*'

/* Request to register a user event */
#define DIAG_IOCSREG _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg *)

/* Request to delete a user event by name */
#define DIAG_IOCSDEL _IOW(DIAG_IOC_MAGIC, 1, char *)

/* Request to stop updating an enable bit registered by this process */
#define DIAG_IOCSUNREG _IOW(DIAG_IOC_MAGIC, 2, struct user_unreg *)

#endif /* _UAPI_LINUX_USER_EVENTS_H */
