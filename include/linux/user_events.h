/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User-space trace events: the hooks of the mm lifecycle.
 *
 * A process registers enable bits with DIAG_IOCSREG on tracefs
 * user_events_data. They belong to the process (its mm), so that every
 * thread shares them. fork() without CLONE_VM copies them to the child
 * (user_events_dup_mmap()); execve() and exit drop them with the last task
 * that uses the mm: each task that starts using an mm is counted
 * (user_events_mm_init(), user_events_fork()), each that stops, by exit
 * or by a successful execve(), says so (user_events_mm_leave()), and the
 * last put of the mm frees what is left (user_events_mm_release()).
 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <uapi/linux/user_events.h>

struct mm_struct;
struct task_struct;

#ifdef CONFIG_USER_EVENTS

void user_events_mm_init(struct mm_struct *mm);
void user_events_fork(struct task_struct *p, u64 clone_flags);
int user_events_dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm);
void user_events_mm_leave(struct mm_struct *mm);
void user_events_mm_release(struct mm_struct *mm);

#else /* !CONFIG_USER_EVENTS */

static inline void user_events_mm_init(struct mm_struct *mm)
{
}

static inline void user_events_fork(struct task_struct *p, u64 clone_flags)
{
}

static inline int user_events_dup_mmap(struct mm_struct *mm,
				       struct mm_struct *oldmm)
{
	return 0;
}

static inline void user_events_mm_leave(struct mm_struct *mm)
{
}

static inline void user_events_mm_release(struct mm_struct *mm)
{
}

#endif /* CONFIG_USER_EVENTS */

#endif /* _LINUX_USER_EVENTS_H */
