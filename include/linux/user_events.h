/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User-space trace events: the hooks of the mm lifecycle.
 *
 * A process registers enable bits with DIAG_IOCSREG on tracefs
 * user_events_data. They belong to the process (its mm), so that every
 * thread shares them. fork() without CLONE_VM copies them to the child,
 * execve() and the exit of the last user of the mm drop them: each task
 * that stops using an mm says so first (user_events_mm_leave()), the
 * last put of the mm drops them (user_events_mm_release()).
 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <uapi/linux/user_events.h>

struct mm_struct;

#ifdef CONFIG_USER_EVENTS

void user_events_mm_init(struct mm_struct *mm);
int user_events_dup_mm_prepare(struct mm_struct *oldmm, struct mm_struct *mm);
int user_events_dup_mm(struct mm_struct *oldmm, struct mm_struct *mm, int err);
void user_events_mm_leave(struct mm_struct *mm);
void user_events_mm_release(struct mm_struct *mm);

#else /* !CONFIG_USER_EVENTS */

static inline void user_events_mm_init(struct mm_struct *mm)
{
}

static inline int user_events_dup_mm_prepare(struct mm_struct *oldmm,
					     struct mm_struct *mm)
{
	return 0;
}

static inline int user_events_dup_mm(struct mm_struct *oldmm,
				     struct mm_struct *mm, int err)
{
	return err;
}

static inline void user_events_mm_leave(struct mm_struct *mm)
{
}

static inline void user_events_mm_release(struct mm_struct *mm)
{
}

#endif /* CONFIG_USER_EVENTS */

#endif /* _LINUX_USER_EVENTS_H */
