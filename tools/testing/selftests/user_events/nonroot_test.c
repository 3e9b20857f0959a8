// SPDX-License-Identifier: GPL-2.0
/*
 * user_events for an unprivileged process: with write access to
 * user_events_data it can register, write and unregister, but not make
 * persistent events (PERSIST, "u:") nor delete them; without access the
 * open fails.
 *
 * Starts as root, gives group 65534 access to user_events_data and lets
 * others search the tracefs root (both restored in teardown), then drops
 * to uid/gid 65534 in a child, which clears all capabilities.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sys/wait.h>

#include "user_events_selftests.h"

#define EVENT		"__nonroot_event"
#define EVENT_P		"__nonroot_event_p"
#define NOBODY		65534

FIXTURE(user) {
	struct stat orig;
	struct stat orig_dir;
	int check;
	bool umount;
};

static void nonroot_cleanup(void)
{
	ue_enable(EVENT, 0);
	ue_cleanup_event(EVENT);
	ue_cleanup_event(EVENT_P);
	ue_cleanup_event(EVENT "_x");
}

FIXTURE_SETUP(user) {
	USER_EVENT_FIXTURE_SETUP(self->umount);
	nonroot_cleanup();
	ASSERT_EQ(0, stat(DATA_FILE, &self->orig));
	ASSERT_EQ(0, stat(TRACEFS_DIR, &self->orig_dir));

	/* tracefs is 0700 by default: let others reach the files. */
	ASSERT_EQ(0, chmod(TRACEFS_DIR, 0711));
}

FIXTURE_TEARDOWN(user) {
	chown(DATA_FILE, self->orig.st_uid, self->orig.st_gid);
	chmod(DATA_FILE, self->orig.st_mode & 07777);
	chmod(TRACEFS_DIR, self->orig_dir.st_mode & 07777);
	nonroot_cleanup();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

static bool drop_privileges(void)
{
	/* Leaving uid 0 clears the permitted and effective capabilities. */
	return !setgroups(0, NULL) && !setgid(NOBODY) && !setuid(NOBODY) &&
	       geteuid() == NOBODY;
}

/* What the unprivileged child checks, one exit code per step. */
enum step {
	STEP_OK,
	STEP_DROP = 10,
	STEP_OPEN,
	STEP_REGISTER,
	STEP_SYNC,
	STEP_BIT_SET,
	STEP_WRITE,
	STEP_PERSIST,
	STEP_DYN_CREATE,
	STEP_DELETE,
	STEP_UNREGISTER,
};

static const char *step_name(int step)
{
	static const char * const names[] = {
		"drop privileges", "open user_events_data", "register",
		"sync with parent", "bit set on enable", "write",
		"PERSIST gives EPERM", "u: gives EPERM",
		"DIAG_IOCSDEL of a persistent event gives EPERM",
		"unregister clears the bit",
	};

	if (step >= STEP_DROP && step <= STEP_UNREGISTER)
		return names[step - STEP_DROP];

	return "?";
}

static int unprivileged(int dyn_fd, int ready_fd, int go_fd,
			int *check)
{
	static const char dyn_cmd[] = "u:" EVENT "_x u32 a";
	struct {
		int index;
		__u32 value;
	} data = { 0, 7 };
	int fd, index = -1;
	char c;

	if (!drop_privileges())
		return STEP_DROP;

	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0)
		return STEP_OPEN;

	if (ue_reg_fd(fd, EVENT " u32 a", (void *)check, 0, 4, 0, &index))
		return STEP_REGISTER;
	data.index = index;

	if (write(ready_fd, "r", 1) != 1 || read(go_fd, &c, 1) != 1)
		return STEP_SYNC;
	/* The parent enabled the event before it said go */
	if (ue_load(check) != 1)
		return STEP_BIT_SET;

	if (write(fd, &data, sizeof(data)) != sizeof(data))
		return STEP_WRITE;

	if (ue_reg_fd(fd, EVENT "_x u32 a", (void *)check, 1, 4,
		      USER_EVENT_REG_PERSIST, NULL) != -1 || errno != EPERM)
		return STEP_PERSIST;

	if (write(dyn_fd, dyn_cmd, strlen(dyn_cmd)) != -1 || errno != EPERM)
		return STEP_DYN_CREATE;

	if (ioctl(fd, DIAG_IOCSDEL, EVENT_P) != -1 || errno != EPERM)
		return STEP_DELETE;

	if (ue_unreg_fd(fd, (void *)check, 0) || ue_load(check) != 0)
		return STEP_UNREGISTER;

	close(fd);

	return STEP_OK;
}

TEST_F(user, unprivileged_register_write_unregister) {
	int ready[2], go[2];
	int dyn_fd, status;
	pid_t pid;
	char c;

	/* Group NOBODY may open user_events_data for writing. */
	ASSERT_EQ(0, chown(DATA_FILE, 0, NOBODY));
	ASSERT_EQ(0, chmod(DATA_FILE, 0660));

	/* A persistent event the child must not be able to delete. */
	ASSERT_EQ(0, ue_write_str(DYN_FILE, "u:" EVENT_P " u32 a", O_APPEND));

	/* Opened while privileged: the check is made at write time. */
	dyn_fd = open(DYN_FILE, O_WRONLY | O_APPEND);
	ASSERT_NE(-1, dyn_fd);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0)
		_exit(unprivileged(dyn_fd, ready[1], go[0], &self->check));
	close(ready[1]);
	close(go[0]);

	if (read(ready[0], &c, 1) == 1)
		EXPECT_EQ(0, ue_enable(EVENT, 1));
	write(go[1], "g", 1);

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(STEP_OK, WEXITSTATUS(status)) {
		TH_LOG("unprivileged step failed: %s",
		       step_name(WEXITSTATUS(status)));
	}

	/* What the child was refused does not exist. */
	ASSERT_FALSE(ue_exists(EVENTS_DIR "/" EVENT "_x"));
	ASSERT_TRUE(ue_exists(EVENTS_DIR "/" EVENT_P));
	close(dyn_fd);
}

/*
 * PERSIST without CAP_PERFMON is refused before the command is parsed
 * or looked up: EPERM for an invalid field list and for a name that
 * exists with other fields too (not EINVAL or EADDRINUSE), through the
 * ioctl and through "u:", and nothing reaches error_log, which only the
 * parsing and the lookup write to.
 */
#define ERROR_LOG	TRACEFS_DIR "/error_log"

enum persist_step {
	PERSIST_OK,
	PERSIST_DROP = 10,
	PERSIST_OPEN,
	PERSIST_BAD_FIELDS,
	PERSIST_BAD_FIELDS_MULTI,
	PERSIST_OTHER_FIELDS,
	PERSIST_DYN_BAD_FIELDS,
	PERSIST_DYN_OTHER_FIELDS,
};

static const char *persist_step_name(int step)
{
	static const char * const names[] = {
		"drop privileges", "open user_events_data",
		"PERSIST with an invalid field list: EPERM",
		"PERSIST|MULTI_FORMAT with an invalid field list: EPERM",
		"PERSIST of a name that exists with other fields: EPERM",
		"u: with an invalid field list: EPERM",
		"u: of a name that exists with other fields: EPERM",
	};

	if (step >= PERSIST_DROP && step <= PERSIST_DYN_OTHER_FIELDS)
		return names[step - PERSIST_DROP];

	return "?";
}

static bool refused_eperm(int fd, const char *cmd, int *check, int flags)
{
	return ue_reg_fd(fd, cmd, (void *)check, 2, 4, flags, NULL) == -1 &&
	       errno == EPERM;
}

static bool dyn_refused_eperm(int dyn_fd, const char *line)
{
	return write(dyn_fd, line, strlen(line)) == -1 && errno == EPERM;
}

static int unprivileged_persist(int dyn_fd, int *check)
{
	int fd;

	if (!drop_privileges())
		return PERSIST_DROP;

	fd = open(DATA_FILE, O_RDWR);
	if (fd < 0)
		return PERSIST_OPEN;

	if (!refused_eperm(fd, EVENT "_x u32 a; bogus b", check,
			   USER_EVENT_REG_PERSIST))
		return PERSIST_BAD_FIELDS;
	if (!refused_eperm(fd, EVENT "_x u32 a;;u32 1b", check,
			   USER_EVENT_REG_PERSIST |
			   USER_EVENT_REG_MULTI_FORMAT))
		return PERSIST_BAD_FIELDS_MULTI;
	if (!refused_eperm(fd, EVENT_P " u64 other", check,
			   USER_EVENT_REG_PERSIST))
		return PERSIST_OTHER_FIELDS;
	if (!dyn_refused_eperm(dyn_fd, "u:" EVENT "_x u32 a; char[0] b"))
		return PERSIST_DYN_BAD_FIELDS;
	if (!dyn_refused_eperm(dyn_fd, "u:" EVENT_P " u64 other"))
		return PERSIST_DYN_OTHER_FIELDS;

	close(fd);

	return PERSIST_OK;
}

TEST_F(user, unprivileged_persist_eperm_before_parsing) {
	char *log, *dyn;
	int dyn_fd, status;
	pid_t pid;

	ASSERT_EQ(0, chown(DATA_FILE, 0, NOBODY));
	ASSERT_EQ(0, chmod(DATA_FILE, 0660));
	ASSERT_EQ(0, ue_write_str(DYN_FILE, "u:" EVENT_P " u32 a", O_APPEND));
	dyn_fd = open(DYN_FILE, O_WRONLY | O_APPEND);
	ASSERT_NE(-1, dyn_fd);
	ASSERT_EQ(0, ue_write_str(ERROR_LOG, "", O_TRUNC));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0)
		_exit(unprivileged_persist(dyn_fd, &self->check));
	close(dyn_fd);

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(PERSIST_OK, WEXITSTATUS(status)) {
		TH_LOG("unprivileged step failed: %s",
		       persist_step_name(WEXITSTATUS(status)));
	}

	log = ue_read_file(ERROR_LOG);
	ASSERT_NE(0, (uintptr_t)log);
	EXPECT_STREQ("", log) {
		TH_LOG("error_log after refused unprivileged commands:\n%s",
		       log);
	}
	free(log);

	/* Nothing made, nothing changed */
	ASSERT_FALSE(ue_event_exists(EVENT "_x"));
	dyn = ue_read_file(DYN_FILE);
	ASSERT_NE(0, (uintptr_t)dyn);
	EXPECT_NE(0, (uintptr_t)strstr(dyn, "u:" EVENT_P " u32 a\n"));
	EXPECT_EQ(0, (uintptr_t)strstr(dyn, "u:" EVENT_P " u64 other"));
	free(dyn);
}

TEST_F(user, no_access_eacces) {
	int status;
	pid_t pid;

	ASSERT_EQ(0, chown(DATA_FILE, 0, 0));
	ASSERT_EQ(0, chmod(DATA_FILE, 0640));

	pid = fork();
	ASSERT_NE(-1, pid);
	if (pid == 0) {
		if (!drop_privileges())
			_exit(STEP_DROP);
		_exit(open(DATA_FILE, O_RDWR) == -1 && errno == EACCES ?
		      STEP_OK : STEP_OPEN);
	}

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(STEP_OK, WEXITSTATUS(status)) {
		TH_LOG("unprivileged step failed: %s",
		       step_name(WEXITSTATUS(status)));
	}
}

TEST_HARNESS_MAIN
