// SPDX-License-Identifier: GPL-2.0
/*
 * A process that controls how long a fault on its enable word takes must
 * not stall anybody else. Process A puts its enable word on a page
 * registered with userfaultfd (missing mode) and never serves the fault,
 * in two ways:
 *
 * - registration waits: a thread of A registers with its enable word on
 *   the untouched page, so the registration itself waits in the fault;
 * - the kernel's bit writer meets the fault: A's word is registered and
 *   present, then the page is zapped and registered with userfaultfd,
 *   and the event is enabled. The writer must not wait in the fault: no
 *   fault of it reaches A's userfaultfd. It tries again for a bounded
 *   time and then leaves the bit until the event changes again: once the
 *   page is present (served for another reason), the next change writes
 *   it.
 *
 * The fault is seen pending on the userfaultfd, then other processes
 * register, unregister and close their own events, register A's event,
 * create and delete events through dynamic_events, read
 * user_events_status, enable and disable A's event, an unrelated user
 * event and a kernel event through ftrace, and open perf events on user
 * events. Each of these steps must complete within UF_BOUND_MS; the
 * longest wait is reported. Then A is either served (its registration
 * returns 0 and its bit follows the event) or killed (it dies within
 * UF_BOUND_MS); either way no reference of A is left: A's persistent
 * event deletes at once (after the bit writer got out of the fault) and
 * the Active count is back to its start. The harness' kmemleak scan
 * covers the rest.
 *
 * userfaultfd that catches faults taken by the kernel needs CAP_SYS_PTRACE
 * (or vm.unprivileged_userfaultfd=1): A runs as root, like the test.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <linux/userfaultfd.h>

#include "user_events_selftests.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif

/* What every step of another process must complete within */
#define UF_BOUND_MS	5000

/* ksft_print_msg(), flushed: the harness ends each test with _exit() */
#define UF_NOTE(...) do {						\
	ksft_print_msg(__VA_ARGS__);					\
	fflush(stdout);							\
} while (0)
/*
 * The kernel writes an enable bit whose page needed a fault from a
 * worker, asynchronously by design: once A's fault is served or A is
 * gone, that worker finishes within this bound.
 */
#define UF_WORKER_MS	UE_FAULT_MS

#define EV_A		"__uf_a"
#define EV_A_CMD	EV_A " u32 a"
#define EV_OTHER	"__uf_other"
#define EV_OTHER_CMD	EV_OTHER " u32 a"
#define EV_B		"__uf_b"
#define EV_B_CMD	EV_B " u32 a; u64 b"
#define EV_DYN		"__uf_dyn"
#define EV_DYN_CMD	EV_DYN " u32 a"

static const char * const uf_kernel_events[] = {
	"sched/sched_process_fork", "task/task_newtask",
	"signal/signal_generate", "timer/timer_start",
};

#define UF_MAX_STEPS	8
#define UF_MAX_OPS	16

/* The steps of one operation, timed by the process doing them */
struct uf_steps {
	int started;
	int done;
	long start[UF_MAX_STEPS];
	long end[UF_MAX_STEPS];
	int err[UF_MAX_STEPS];
	char name[UF_MAX_STEPS][96];
};

/* Shared between the test, A and the processes of the operations */
struct uf_shared {
	struct uf_steps steps[UF_MAX_OPS];
	int reg_ret;		/* A's registration: 0 or errno */
	int word;		/* A's enable word, as A reads it */
	unsigned long addr;	/* the address of A's enable word */
};

struct uf_case {
	struct uf_shared *sh;
	const char *kernel_enable;	/* enable file of a kernel event */
	const char *a_event;		/* the event A's word belongs to */
	int start_active;
	long longest;
	char longest_name[96];
	int nr_ops;
	struct {
		pid_t pid;
		struct uf_steps *steps;
	} stuck[UF_MAX_OPS];
	int nr_stuck;
	long released;		/* when A was served or killed */
};

static int uf_step_begin(struct uf_steps *s, const char *name)
{
	int k = s->started;

	snprintf(s->name[k], sizeof(s->name[k]), "%s", name);
	s->start[k] = ue_now_ms();
	s->end[k] = 0;
	__atomic_store_n(&s->started, k + 1, __ATOMIC_SEQ_CST);

	return k;
}

static void uf_step_end(struct uf_steps *s, int k, int err)
{
	s->err[k] = err;
	s->end[k] = ue_now_ms();
	__atomic_store_n(&s->done, k + 1, __ATOMIC_SEQ_CST);
}

/* Run @expr as a timed step: its errno, 0 on success (>= 0) */
#define UF_STEP(s, name, expr) ({					\
	struct uf_steps *__s = (s);					\
	int __k = uf_step_begin(__s, name);				\
	int __err = (expr) < 0 ? errno : 0;				\
									\
	uf_step_end(__s, __k, __err);					\
	__err;								\
})

static int uf_write_file(const char *path, const char *text)
{
	return ue_write_str(path, text, 0);
}

static int uf_dyn_write(const char *cmd)
{
	return ue_write_str(DYN_FILE, cmd, O_APPEND);
}

static const char *uf_enable_path(char *buf, size_t len, const char *name)
{
	return ue_event_file(buf, len, name, "enable");
}

/* --- the operations of the other processes, each a list of steps --- */

/* open() and perf_event_open() as steps: the fd goes to *@fd */
static int uf_open_data(int *fd)
{
	*fd = open(DATA_FILE, O_RDWR);

	return *fd;
}

static int uf_perf_open(int *fd, int id)
{
	*fd = ue_perf_open(id);

	return *fd;
}

static int op_own_event(struct uf_steps *s, struct uf_case *cs)
{
	static int word;
	int fd = -1;

	if (UF_STEP(s, "open user_events_data", uf_open_data(&fd)))
		return 1;
	if (UF_STEP(s, "register an event of its own",
		    ue_reg_fd(fd, EV_B_CMD, &word, 0, 4, 0, NULL)))
		return 1;
	if (UF_STEP(s, "unregister it", ue_unreg_fd(fd, &word, 0)))
		return 1;

	return UF_STEP(s, "close user_events_data", close(fd)) != 0;
}

static int op_a_event(struct uf_steps *s, struct uf_case *cs)
{
	static int word;
	int fd = -1;

	if (UF_STEP(s, "open user_events_data", uf_open_data(&fd)))
		return 1;
	if (UF_STEP(s, "register the event of A's word",
		    ue_reg_fd(fd, EV_A_CMD, &word, 1, 4, 0, NULL)))
		return 1;
	if (UF_STEP(s, "unregister it", ue_unreg_fd(fd, &word, 1)))
		return 1;

	return UF_STEP(s, "close user_events_data", close(fd)) != 0;
}

static int op_ftrace_user(struct uf_steps *s, struct uf_case *cs)
{
	char path[512];

	uf_enable_path(path, sizeof(path), EV_OTHER);
	if (UF_STEP(s, "ftrace enable of an unrelated user event",
		    uf_write_file(path, "1")))
		return 1;

	return UF_STEP(s, "ftrace disable of an unrelated user event",
		       uf_write_file(path, "0")) != 0;
}

static int op_ftrace_kernel(struct uf_steps *s, struct uf_case *cs)
{
	if (UF_STEP(s, "ftrace enable of a kernel event",
		    uf_write_file(cs->kernel_enable, "1")))
		return 1;

	return UF_STEP(s, "ftrace disable of a kernel event",
		       uf_write_file(cs->kernel_enable, "0")) != 0;
}

static int op_toggle_a(struct uf_steps *s, struct uf_case *cs)
{
	char path[512];

	uf_enable_path(path, sizeof(path), cs->a_event);
	if (UF_STEP(s, "ftrace disable of A's event",
		    uf_write_file(path, "0")))
		return 1;

	return UF_STEP(s, "ftrace enable of A's event",
		       uf_write_file(path, "1")) != 0;
}

static int op_perf(struct uf_steps *s, const char *event, const char *what)
{
	char name[96];
	int fd = -1;
	int id = ue_event_id(event);

	snprintf(name, sizeof(name), "perf_event_open on %s", what);
	if (UF_STEP(s, name, uf_perf_open(&fd, id)))
		return 1;
	snprintf(name, sizeof(name), "close the perf event on %s", what);

	return UF_STEP(s, name, close(fd)) != 0;
}

static int op_perf_user(struct uf_steps *s, struct uf_case *cs)
{
	return op_perf(s, EV_OTHER, "an unrelated user event");
}

static int op_perf_a(struct uf_steps *s, struct uf_case *cs)
{
	return op_perf(s, cs->a_event, "A's event");
}

static int op_dyn(struct uf_steps *s, struct uf_case *cs)
{
	if (UF_STEP(s, "u: create", uf_dyn_write("u:" EV_DYN_CMD)))
		return 1;

	return UF_STEP(s, "-: delete", uf_dyn_write("-:" EV_DYN_CMD)) != 0;
}

static int op_status(struct uf_steps *s, struct uf_case *cs)
{
	char *text = NULL;
	int k = uf_step_begin(s, "read user_events_status");

	text = ue_read_file(STATUS_FILE);
	uf_step_end(s, k, text ? 0 : errno);
	free(text);

	return !text;
}

typedef int (*uf_op_fn)(struct uf_steps *s, struct uf_case *cs);

static int uf_pidfd(pid_t pid)
{
	return syscall(__NR_pidfd_open, pid, 0);
}

/* Wait up to @ms for @pid to end: its wait status, or -1 */
static int uf_wait_bounded(pid_t pid, int ms)
{
	struct pollfd p = { .fd = uf_pidfd(pid), .events = POLLIN };
	int status = -1;

	if (p.fd < 0)
		return -1;
	if (poll(&p, 1, ms) == 1 && waitpid(pid, &status, 0) == pid) {
		close(p.fd);
		return status;
	}
	close(p.fd);

	return -1;
}

/*
 * Run @fn in a new process; fail when one of its steps takes more than
 * UF_BOUND_MS or fails. A process that is stuck is left to uf_reap(),
 * which tells whether it got on once A was gone.
 */
static void uf_run(struct __test_metadata *_metadata, struct uf_case *cs,
		   uf_op_fn fn)
{
	struct uf_steps *s;
	struct pollfd p;
	long began, now;
	int status, k;
	pid_t pid;

	ASSERT_GT(UF_MAX_OPS, cs->nr_ops);
	s = &cs->sh->steps[cs->nr_ops++];
	memset(s, 0, sizeof(*s));
	began = ue_now_ms();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(fn(s, cs));

	p.fd = uf_pidfd(pid);
	p.events = POLLIN;
	ASSERT_LE(0, p.fd);
	for (;;) {
		/* Waits for the exit, and looks at the clock every 10 ms */
		if (poll(&p, 1, 10) == 1)
			break;
		now = ue_now_ms();
		k = __atomic_load_n(&s->started, __ATOMIC_SEQ_CST) - 1;
		if (k < 0 && now - began < UF_BOUND_MS)
			continue;
		if (k >= 0 && (__atomic_load_n(&s->done, __ATOMIC_SEQ_CST) > k ||
			       now - s->start[k] < UF_BOUND_MS))
			continue;
		/* Stuck */
		EXPECT_TRUE(false) {
			TH_LOG("'%s' did not complete within %d ms",
			       k >= 0 ? s->name[k] : "process start",
			       UF_BOUND_MS);
		}
		cs->stuck[cs->nr_stuck].pid = pid;
		cs->stuck[cs->nr_stuck++].steps = s;
		close(p.fd);
		return;
	}
	close(p.fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	for (k = 0; k < s->done; k++) {
		long took = s->end[k] - s->start[k];

		EXPECT_EQ(0, s->err[k]) {
			TH_LOG("'%s': %s", s->name[k], strerror(s->err[k]));
		}
		EXPECT_GE(UF_BOUND_MS, took) {
			TH_LOG("'%s' took %ld ms", s->name[k], took);
		}
		if (took > cs->longest) {
			cs->longest = took;
			snprintf(cs->longest_name, sizeof(cs->longest_name),
				 "%s", s->name[k]);
		}
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("a process of the operations ended with status 0x%x",
		       status);
	}
}

/* Everything the other processes do while A's fault is pending */
static void uf_run_all(struct __test_metadata *_metadata, struct uf_case *cs)
{
	uf_run(_metadata, cs, op_own_event);
	uf_run(_metadata, cs, op_a_event);
	uf_run(_metadata, cs, op_dyn);
	uf_run(_metadata, cs, op_status);
	uf_run(_metadata, cs, op_ftrace_user);
	if (cs->kernel_enable)
		uf_run(_metadata, cs, op_ftrace_kernel);
	if (ue_have_perf()) {
		uf_run(_metadata, cs, op_perf_user);
		uf_run(_metadata, cs, op_perf_a);
	} else {
		TH_LOG("no perf steps: %s", UE_NO_PERF);
	}
	/* Leaves A's event enabled, as it was */
	uf_run(_metadata, cs, op_toggle_a);
}

/*
 * The processes that were stuck (a failure already) must end once A is
 * gone; when their step completed tells whether A held them up.
 */
static void uf_reap(struct __test_metadata *_metadata, struct uf_case *cs)
{
	struct uf_steps *s;
	int i, k;

	for (i = 0; i < cs->nr_stuck; i++) {
		s = cs->stuck[i].steps;
		k = s->started - 1;
		if (uf_wait_bounded(cs->stuck[i].pid, UF_WORKER_MS) == -1) {
			kill(cs->stuck[i].pid, SIGKILL);
			EXPECT_TRUE(false) {
				TH_LOG("'%s' still blocked %d ms after A was released",
				       s->name[k], UF_WORKER_MS);
			}
		} else if (k >= 0 && s->done > k) {
			TH_LOG("'%s' took %ld ms, and completed %ld ms after A was released",
			       s->name[k], s->end[k] - s->start[k],
			       s->end[k] - cs->released);
		}
	}
	cs->nr_stuck = 0;
}

/* --- process A --- */

struct uf_a_args {
	int sock;		/* commands from the test, the uffd to it */
	int notify;		/* written when the registration returns */
	int scenario;		/* 1: registration waits, 2: bit writer waits */
	int *word;
	struct uf_shared *sh;
};

static void *uf_a_register(void *arg)
{
	struct uf_a_args *a = arg;
	int fd = open(DATA_FILE, O_RDWR);

	a->sh->reg_ret = ue_reg_fd(fd, EV_A_CMD, a->word, 0, 4, 0, NULL) ?
			 errno : 0;
	write(a->notify, "r", 1);

	return NULL;
}

static int uf_userfaultfd(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (uffd < 0)
		return -1;
	if (ioctl(uffd, UFFDIO_API, &api)) {
		close(uffd);
		return -1;
	}

	return uffd;
}

static int uf_a_main(struct uf_a_args *a)
{
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_register r = {0};
	pthread_t thread;
	int uffd, fd = -1, want;
	char cmd;

	a->word = mmap(NULL, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uffd = uf_userfaultfd();
	if (a->word == MAP_FAILED || uffd < 0)
		return 1;
	a->sh->addr = (unsigned long)a->word;

	if (a->scenario == 2) {
		/* Registered while present: the bit is written at once */
		*a->word = 0;
		fd = open(DATA_FILE, O_RDWR);
		if (ue_reg_fd(fd, EV_A_CMD, a->word, 0, 4, 0, NULL))
			return 2;
	}

	r.range.start = (unsigned long)a->word;
	r.range.len = page;
	r.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &r))
		return 3;
	if (a->scenario == 2 && madvise(a->word, page, MADV_DONTNEED))
		return 4;
	if (ue_send_fd(a->sock, uffd, 0))
		return 5;
	close(uffd);

	if (a->scenario == 1 &&
	    pthread_create(&thread, NULL, uf_a_register, a))
		return 6;

	/* 'w' + value: wait for the word to become it; 'q': quit */
	while (read(a->sock, &cmd, 1) == 1) {
		if (cmd == 'q')
			break;
		if (cmd != 'w' || read(a->sock, &want, sizeof(want)) !=
		    sizeof(want))
			return 7;
		ue_wait_int(a->word, want, UF_WORKER_MS);
		a->sh->word = ue_load(a->word);
		if (write(a->sock, "k", 1) != 1)
			return 8;
	}
	if (a->scenario == 1)
		pthread_join(thread, NULL);
	if (fd >= 0)
		close(fd);

	return 0;
}

/*
 * Earlier tests can leave a long backlog of RCU callbacks (the debug
 * kernel's kmemleak frees every object through RCU; a process with
 * 60,000 enablers leaves seconds of them). A tracepoint enable that
 * waits for a grace period waits behind that backlog on its CPU, with A
 * or without. Wait for it once on each CPU before anything is timed: a
 * kernel event enabled again after a disable waits for a grace period.
 */
static void uf_settle(const char *kernel_enable)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), cpu;
	cpu_set_t all, one;
	int i;

	if (!kernel_enable || sched_getaffinity(0, sizeof(all), &all))
		return;
	for (cpu = 0; cpu < cpus && cpu < CPU_SETSIZE; cpu++) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		for (i = 0; i < 2; i++) {
			uf_write_file(kernel_enable, "1");
			uf_write_file(kernel_enable, "0");
		}
	}
	sched_setaffinity(0, sizeof(all), &all);
}

FIXTURE(uffd) {
	struct uf_case cs;
	char kernel_enable[256];
	int sock;		/* to A */
	int notify;		/* from A's registration */
	int uffd;		/* A's userfaultfd */
	pid_t a;
	bool umount;
};

static void uf_cleanup_events(void)
{
	ue_enable(EV_A, 0);
	ue_enable(EV_OTHER, 0);
	ue_del(EV_A);
	ue_del(EV_OTHER);
	ue_del(EV_B);
	ue_del(EV_DYN);
}

FIXTURE_SETUP(uffd) {
	struct uf_case *cs = &self->cs;
	unsigned int i;
	int uffd;

	memset(cs, 0, sizeof(*cs));
	self->sock = -1;
	self->notify = -1;
	self->uffd = -1;
	self->a = -1;
	USER_EVENT_FIXTURE_SETUP(self->umount);

	uffd = uf_userfaultfd();
	if (uffd < 0) {
		/* "Function not implemented": no CONFIG_USERFAULTFD */
		int err = errno;

		USER_EVENT_FIXTURE_TEARDOWN(self->umount);
		SKIP(longjmp(_metadata->env, 1),
		     "no userfaultfd for kernel faults: %s", strerror(err));
	}
	close(uffd);

	uf_cleanup_events();
	cs->sh = mmap(NULL, sizeof(*cs->sh), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)cs->sh);
	cs->a_event = EV_A;
	cs->start_active = ue_active_count();
	ASSERT_LE(0, cs->start_active);

	for (i = 0; i < ARRAY_SIZE(uf_kernel_events); i++) {
		snprintf(self->kernel_enable, sizeof(self->kernel_enable),
			 TRACEFS_DIR "/events/%s/enable", uf_kernel_events[i]);
		if (ue_exists(self->kernel_enable)) {
			cs->kernel_enable = self->kernel_enable;
			break;
		}
	}
	if (!cs->kernel_enable)
		TH_LOG("no kernel event to enable: that step is left out");

	ASSERT_EQ(0, uf_dyn_write("u:" EV_A_CMD));
	ASSERT_EQ(0, uf_dyn_write("u:" EV_OTHER_CMD));
	uf_settle(cs->kernel_enable);
}

FIXTURE_TEARDOWN(uffd) {
	if (self->a > 0) {
		kill(self->a, SIGKILL);
		if (self->uffd >= 0)
			close(self->uffd);
		self->uffd = -1;
		uf_wait_bounded(self->a, UF_BOUND_MS);
	}
	if (self->uffd >= 0)
		close(self->uffd);
	if (self->sock >= 0)
		close(self->sock);
	if (self->notify >= 0)
		close(self->notify);
	uf_cleanup_events();
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* Start A; returns once its userfaultfd is here */
static void uf_start_a(struct __test_metadata *_metadata,
		       struct _test_data_uffd *self, int scenario)
{
	struct uf_a_args a = { .scenario = scenario, .sh = self->cs.sh };
	int sv[2], pv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, pipe(pv));
	self->a = fork();
	ASSERT_LE(0, self->a);
	if (self->a == 0) {
		close(sv[0]);
		close(pv[0]);
		a.sock = sv[1];
		a.notify = pv[1];
		_exit(uf_a_main(&a));
	}
	close(sv[1]);
	close(pv[1]);
	self->sock = sv[0];
	self->notify = pv[0];
	self->uffd = ue_recv_fd(self->sock, NULL, UF_BOUND_MS);
	ASSERT_LE(0, self->uffd) TH_LOG("A did not set up its userfaultfd");
}

/* Wait up to @ms for A's page fault to be pending: its address */
static unsigned long uf_wait_fault(int uffd, int ms)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, ms) != 1 || read(uffd, &msg, sizeof(msg)) !=
	    sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
		return 0;

	return msg.arg.pagefault.address;
}

/* Serve A's fault with a zero page */
static int uf_serve(int uffd, unsigned long addr)
{
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_zeropage z = {
		.range = { .start = addr & ~(page - 1), .len = page },
	};

	return ioctl(uffd, UFFDIO_ZEROPAGE, &z);
}

/* Ask A to wait (bounded) for its word to become @want: what it read */
static int uf_a_word(struct __test_metadata *_metadata,
		     struct _test_data_uffd *self, int want)
{
	char cmd = 'w', reply;
	struct pollfd p = { .fd = self->sock, .events = POLLIN };

	self->cs.sh->word = -1;
	if (write(self->sock, &cmd, 1) != 1 ||
	    write(self->sock, &want, sizeof(want)) != sizeof(want))
		return -1;
	if (poll(&p, 1, UF_WORKER_MS + UF_BOUND_MS) != 1 ||
	    read(self->sock, &reply, 1) != 1)
		return -1;

	return self->cs.sh->word;
}

/* A leaves on its own ('q') or is killed; either within UF_BOUND_MS */
static void uf_end_a(struct __test_metadata *_metadata,
		     struct _test_data_uffd *self, bool kill_it)
{
	int status;

	if (kill_it) {
		self->cs.released = ue_now_ms();
		ASSERT_EQ(0, kill(self->a, SIGKILL));
		/* The test's copy of the fd keeps the userfaultfd alive */
		close(self->uffd);
		self->uffd = -1;
	} else {
		ASSERT_EQ(1, write(self->sock, "q", 1));
	}
	status = uf_wait_bounded(self->a, UF_BOUND_MS);
	ASSERT_NE(-1, status) TH_LOG("A did not end within %d ms", UF_BOUND_MS);
	self->a = -1;
	if (kill_it) {
		ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	} else {
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			TH_LOG("A ended with status 0x%x", status);
		}
	}
}

/*
 * Nothing of A is left: its persistent event has no reference and
 * deletes at once; the Active count comes back.
 */
static void uf_nothing_left(struct __test_metadata *_metadata,
			    struct uf_case *cs)
{
	char path[512];
	int ret;

	ASSERT_EQ(0, ue_enable(EV_A, 0));
	ASSERT_EQ(0, ue_enable(EV_OTHER, 0));
	ret = ue_del(EV_A) ? errno : 0;
	ASSERT_EQ(0, ret) TH_LOG("DIAG_IOCSDEL of A's event: %s", strerror(ret));
	ASSERT_FALSE(ue_exists(ue_event_file(path, sizeof(path), EV_A, "")));
	ASSERT_EQ(0, ue_del(EV_OTHER));
	/* The others' non-persistent event goes by auto-delete */
	ASSERT_TRUE(ue_wait_active(cs->start_active, UE_AUTO_DELETE_MS)) {
		TH_LOG("Active %d, was %d", ue_active_count(),
		       cs->start_active);
	}
}

static void uf_report(struct uf_case *cs, const char *what)
{
	UF_NOTE("%s: every step of the others within %d ms, longest %ld ms (%s)\n",
		what, UF_BOUND_MS, cs->longest, cs->longest_name);
}

/* A thread of A registers with its word on the never-served page */
static void uf_registration_waits(struct __test_metadata *_metadata,
				  struct _test_data_uffd *self, bool kill_it)
{
	struct uf_case *cs = &self->cs;
	struct pollfd p;
	unsigned long addr;
	char c;

	/* A registers for an enabled event: a served fault sets its bit */
	ASSERT_EQ(0, ue_enable(EV_A, 1));
	uf_start_a(_metadata, self, 1);
	addr = uf_wait_fault(self->uffd, UF_BOUND_MS);
	ASSERT_NE(0, addr) {
		p.fd = self->notify;
		p.events = POLLIN;
		TH_LOG("no fault of A's registration pending within %d ms%s",
		       UF_BOUND_MS, poll(&p, 1, 0) == 1 ?
		       ": the registration returned" : "");
	}

	uf_run_all(_metadata, cs);

	if (kill_it) {
		uf_end_a(_metadata, self, true);
	} else {
		cs->released = ue_now_ms();
		ASSERT_EQ(0, uf_serve(self->uffd, addr));
		p.fd = self->notify;
		p.events = POLLIN;
		ASSERT_EQ(1, poll(&p, 1, UF_BOUND_MS)) {
			TH_LOG("A's registration did not return once served");
		}
		ASSERT_EQ(1, read(self->notify, &c, 1));
		ASSERT_EQ(0, cs->sh->reg_ret) {
			TH_LOG("A's registration: %s",
			       strerror(cs->sh->reg_ret));
		}
		/*
		 * Enabled all along but toggled while A's registration
		 * waited: the bit may need the kernel's writer, bounded.
		 */
		ASSERT_EQ(1, uf_a_word(_metadata, self, 1));
		uf_end_a(_metadata, self, false);
	}
	uf_reap(_metadata, cs);
	uf_nothing_left(_metadata, cs);
	uf_report(cs, kill_it ? "registration waits, A killed" :
		  "registration waits, A served");
}

/*
 * A's registered word is zapped and the event enabled: the kernel's
 * writer of the bit must not wait for A's monitor, nor even ask it
 */
static void uf_writer_waits(struct __test_metadata *_metadata,
			    struct _test_data_uffd *self, bool kill_it)
{
	struct uf_case *cs = &self->cs;
	struct uf_steps *s = &cs->sh->steps[cs->nr_ops++];
	unsigned long addr;
	char path[512];

	uf_start_a(_metadata, self, 2);

	/* The enable that makes the kernel write A's bit */
	memset(s, 0, sizeof(*s));
	ASSERT_EQ(0, UF_STEP(s, "ftrace enable of A's event",
			     ue_write_str(uf_enable_path(path, sizeof(path),
							 EV_A), "1", 0)));
	ASSERT_GE(UF_BOUND_MS, s->end[0] - s->start[0]);
	cs->longest = s->end[0] - s->start[0];
	snprintf(cs->longest_name, sizeof(cs->longest_name), "%s", s->name[0]);
	uf_run_all(_metadata, cs);

	/* The writer has tried since the enable: nothing reached A's monitor */
	addr = uf_wait_fault(self->uffd, 0);
	ASSERT_EQ(0, addr) {
		TH_LOG("the bit writer took a fault on A's userfaultfd at 0x%lx",
		       addr);
	}
	addr = cs->sh->addr;

	if (kill_it) {
		uf_end_a(_metadata, self, true);
	} else {
		cs->released = ue_now_ms();
		/*
		 * Present again: the writer's retries may be over by now,
		 * the next change of the event writes the bit
		 */
		ASSERT_EQ(0, uf_serve(self->uffd, addr));
		ASSERT_EQ(0, ue_write_str(uf_enable_path(path, sizeof(path),
							 EV_A), "0", 0));
		ASSERT_EQ(0, ue_write_str(uf_enable_path(path, sizeof(path),
							 EV_A), "1", 0));
		ASSERT_EQ(1, uf_a_word(_metadata, self, 1)) {
			TH_LOG("A's bit did not follow its enabled event");
		}
		uf_end_a(_metadata, self, false);
	}
	uf_reap(_metadata, cs);
	uf_nothing_left(_metadata, cs);
	uf_report(cs, kill_it ? "bit writer meets the fault, A killed" :
		  "bit writer meets the fault, A served");
}

TEST_F_TIMEOUT(uffd, registration_waits_then_served, 120) {
	uf_registration_waits(_metadata, self, false);
}

TEST_F_TIMEOUT(uffd, registration_waits_then_killed, 120) {
	uf_registration_waits(_metadata, self, true);
}

TEST_F_TIMEOUT(uffd, bit_writer_waits_then_served, 120) {
	uf_writer_waits(_metadata, self, false);
}

TEST_F_TIMEOUT(uffd, bit_writer_waits_then_killed, 120) {
	uf_writer_waits(_metadata, self, true);
}

TEST_HARNESS_MAIN
