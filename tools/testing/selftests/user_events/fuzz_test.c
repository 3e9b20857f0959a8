// SPDX-License-Identifier: GPL-2.0
/*
 * user_events fuzz test: generated command strings, user_reg/user_unreg
 * structures and write payloads. Commands (through DIAG_IOCSREG and
 * dynamic_events) are checked against the answer the command grammar
 * and the events that exist demand (see "the oracle" below), and so are
 * random structs the kernel must accept as structs, which leave the
 * answer to their command; the other inputs must give success or an
 * errno the ABI allows for that call.
 * Anything else fails and prints the input. Per-event tracefs files of
 * some of the events are kept open across their deletion; afterwards
 * every read and write of them must fail with ENODEV. The run is
 * deterministic for a seed:
 *
 *   UE_FUZZ_SEED=N   seed (default 0x5eed, printed)
 *   UE_FUZZ_ITERS=N  number of inputs (default FUZZ_ITERS)
 *
 * Writes go to an event with __data_loc and __rel_loc fields that is
 * traced by ftrace, by perf (a perf_event_open with a ring buffer), or by
 * both, changing with each batch.
 *
 * Cost on the debug kernel (KASAN, lockdep, kmemleak) under QEMU TCG, as
 * measured by the "ms in" line this test prints: a parsed command about
 * 1-1.5 ms (allocations), one that creates an event 3-4 ms plus its
 * removal at the end of the batch (tracefs directories), a dynamic_events
 * line 3-5 ms, a random struct 0.2-0.3 ms, a write 0.15-0.2 ms. The mix
 * below averages about 0.5-0.7 ms, so the default run takes about a
 * minute there (four times that on a host busy with other work, and
 * about three times that in the foreign-architecture guests, which run
 * fewer inputs). The run is not timed: FUZZ_HANG_SECONDS only stops a
 * kernel that hangs.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <linux/perf_event.h>

#include "user_events_selftests.h"

#define FUZZ_SEED		0x5eedULL
#define FUZZ_ITERS		100000
/* The kselftest harness kills the test after this (a hang) */
#define FUZZ_HANG_SECONDS	500
#define PERF_PAGES		8
#define FUZZ_BATCH		2048
#define NR_POOL			6
#define POOL_PREFIX		"__fz"
#define WEVENT			"__fzw"
#define WEVENT_CMD		WEVENT " u32 a; __data_loc char[] s;" \
				" __rel_loc char[] r; char[8] c"
/* Static payload of WEVENT (its record offsets: w_hdr, w_sloc, w_rloc) */
#define W_MIN			20
#define W_EXACT_MAX		2048
#define WEVENT_CANON		"u32 a; __data_loc char[] s; " \
				"__rel_loc char[] r; char[8] c"
#define KERNEL_ADDR		0xffffffff81000000ULL

/* The errnos each call may give for a bad input, 0-terminated */
static const int reg_errs[] = { EINVAL, EADDRINUSE, EFAULT, E2BIG, 0 };
static const int unreg_errs[] = { EINVAL, ENOENT, EFAULT, E2BIG, 0 };
static const int write_errs[] = { EINVAL, ENOENT, EFAULT, E2BIG, EBADF, 0 };

static __u64 rng_state;

static __u64 rnd(void)
{
	return ue_rand64(&rng_state);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static long ue_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);

	return ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* An entry of @list, an array of @size bytes */
static const char *pick(const char * const *list, size_t size)
{
	return list[rn(size / sizeof(*list))];
}

/* @list must be an array, not a pointer */
#define PICK(list)	pick(list, sizeof(list))

struct fuzz_stats {
	unsigned long cmd, cmd_ok, cmd_exact, dyn, dyn_ok, dyn_exact, reg,
		      reg_ok, reg_exact, unreg, write, write_ok, write_exact,
		      write_perf, stale;
	/* Time spent per kind of input, in ms */
	long t_cmd, t_cmd_ok, t_dyn, t_reg, t_unreg, t_write, t_batch;
};

struct fuzz_mem {
	long page;
	char *area;	/* words, rw, hole, buffers, rw, read-only */
	char *words;
	char *ro;
	char *hole;
	char *buf;
	char *tail;	/* last bytes of the page before the hole */
};

/* ---- command strings ------------------------------------------------ */

static const char * const good_types[] = {
	"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "int",
	"unsigned int", "short", "unsigned short", "char", "unsigned char",
	"char[1]", "char[20]", "char[0x10]", "char[1024]", "unsigned char[8]",
	"__data_loc char[]", "__rel_loc char[]", "__data_loc unsigned char[]",
	"__rel_loc u8[]", "__data_loc int",
};

static const char * const bad_types[] = { UE_BAD_TYPES };

static const char * const field_names[] = {
	"a", "b", "c", "count", "x1", "_", "data", "__n", "a;b", "",
	"9z", "a\tb", "very_long_field_name_that_goes_on_and_on_and_on",
};

static const char * const struct_sizes[] = {
	"1", "16", "0", "65535", "65536", "2147483647", "2147483648",
	"4294967295", "4294967296", "99999999999", "-1", "0x10", "8a", "",
};

static const char * const seps[] = {
	";", "; ", " ;", ";;", ";\t", " ; ", ";  ", "\t;\t",
};

static const char * const ws[] = { "", "", "", " ", "\t", "  ", " \t " };

static const char * const odd_names[] = {
	"", "a/b", "a b", "a\tb", "x:y", "name:", ":", "\x01", "\x7f",
	"\xc3\xa9", "-", "..", ".", "u:x", "!", "a\nb", "#",
};

static int cat(char *buf, int len, int cap, const char *s)
{
	int n = strlen(s);

	if (len + n >= cap)
		n = cap - 1 - len;
	memcpy(buf + len, s, n);
	buf[len + n] = '\0';

	return len + n;
}

static int gen_field(char *buf, int len, int cap)
{
	char num[32];

	len = cat(buf, len, cap, PICK(ws));
	switch (rn(10)) {
	case 0:
		len = cat(buf, len, cap, PICK(bad_types));
		break;
	case 1:
	case 2:
		snprintf(num, sizeof(num), "struct s%u", rn(3));
		len = cat(buf, len, cap, num);
		len = cat(buf, len, cap, " ");
		len = cat(buf, len, cap, PICK(field_names));
		if (rn(8))
			len = cat(buf, len, cap, " ");
		len = cat(buf, len, cap, PICK(struct_sizes));
		len = cat(buf, len, cap, PICK(ws));
		return len;
	default:
		len = cat(buf, len, cap, PICK(good_types));
		break;
	}

	if (rn(16)) {
		len = cat(buf, len, cap, rn(10) ? " " : PICK(ws));
		len = cat(buf, len, cap, rn(8) ? field_names[rn(8)] :
			  PICK(field_names));
	}
	if (!rn(20))
		len = cat(buf, len, cap, " 4");
	len = cat(buf, len, cap, PICK(ws));

	return len;
}

/* A command string: mostly pool names and valid-looking fields */
static void gen_cmd(char *buf, int cap, bool pool_only)
{
	unsigned int nfields, i, r;
	char name[320];
	int len = 0;

	r = rn(100);
	if (pool_only || r < 85) {
		snprintf(name, sizeof(name), POOL_PREFIX "%u", rn(NR_POOL));
	} else if (r < 87) {
		snprintf(name, sizeof(name), POOL_PREFIX "r%x", rn(64));
	} else if (r < 90) {
		memset(name, 'n', sizeof(name) - 1);
		name[rn(2) ? 255 : 256] = '\0';
	} else {
		snprintf(name, sizeof(name), "%s%s", rn(2) ? POOL_PREFIX : "",
			 PICK(odd_names));
	}

	len = cat(buf, len, cap, rn(30) ? "" : PICK(ws));
	len = cat(buf, len, cap, name);
	nfields = rn(5);
	if (nfields)
		len = cat(buf, len, cap, rn(12) ? " " : PICK(ws));
	for (i = 0; i < nfields; i++) {
		if (i)
			len = cat(buf, len, cap, PICK(seps));
		len = gen_field(buf, len, cap);
	}
	if (!rn(10))
		len = cat(buf, len, cap, PICK(seps));

	/* Long: beyond the 511 byte limit of the ioctl path */
	if (!rn(50))
		while (len < 520 && len < cap - 16)
			len = cat(buf, len, cap, "; u32 pad");

	/* Near-valid: a few byte mutations */
	if (!rn(8)) {
		for (i = rn(3) + 1; i && len; i--) {
			int at = rn(len);

			switch (rn(3)) {
			case 0:
				buf[at] = (char)(rn(255) + 1);
				break;
			case 1:
				memmove(buf + at, buf + at + 1, len - at);
				len--;
				break;
			default:
				if (len + 1 < cap) {
					memmove(buf + at + 1, buf + at,
						len - at + 1);
					buf[at] = " \t;[]:0x"[rn(8)];
					len++;
				}
				break;
			}
		}
	}
}

static void dump_input(const char *what, const void *data, size_t len)
{
	const unsigned char *p = data;
	char line[4 * 64 + 1];
	size_t i, n = 0;

	fprintf(stderr, "# %s (%zu bytes): ", what, len);
	for (i = 0; i < len && i < 700; i++) {
		if (isprint(p[i]) && p[i] != '\\')
			fputc(p[i], stderr);
		else
			fprintf(stderr, "\\x%02x", p[i]);
	}
	fputc('\n', stderr);
	(void)line;
	(void)n;
}

/* ---- the oracle: what the kernel must answer for a command ---------- */

/*
 * A command is "NAME FIELD;FIELD...". The name ends at the first space
 * or tab; it may not be empty, longer than 255 bytes, "." or "..", nor
 * hold '/', ':', whitespace or control characters, nor be "enable" or
 * "filter". Fields are split at each ';', their tokens at runs of spaces
 * and tabs; an empty field is skipped. A field is TYPE NAME, or struct X
 * NAME SIZE, with a C identifier as NAME. The static sizes must not add
 * up to more than the largest payload a tracer can record. A lookup of
 * an existing single-format event of the name comes before the fields
 * are judged: the same canonical fields reuse it, anything else gives
 * EADDRINUSE. Bytes above 0x7f are left to the kernel (character
 * classes of names), and so is anything that depends on the multi-format
 * id counter.
 */
enum verdict { V_OK, V_EINVAL, V_EADDRINUSE, V_UNKNOWN };

static const char * const verdict_names[] = {
	"success", "EINVAL", "EADDRINUSE", "either",
};

#define CANON_MAX	2048
#define MODEL_MAX	1024

/* A single-format event that exists now; canon NULL: not known here */
struct model_event {
	char *name;
	char *canon;
	bool persist;
	bool held;	/* by the write fd: survives the batch */
};

static struct model_event model[MODEL_MAX];
static int nr_model;
static long max_static;

/*
 * Record offsets of WEVENT's payload (the size of the common header) and
 * of its __data_loc and __rel_loc words, read from its format file
 */
static unsigned int w_hdr, w_sloc, w_rloc;

static struct model_event *model_find(const char *name)
{
	int i;

	for (i = 0; i < nr_model; i++)
		if (!strcmp(model[i].name, name))
			return &model[i];
	return NULL;
}

static void model_add(const char *name, const char *canon, bool persist,
		      bool held)
{
	struct model_event *e;

	if (nr_model == MODEL_MAX)
		return;
	e = &model[nr_model++];
	e->name = strdup(name);
	e->canon = canon ? strdup(canon) : NULL;
	e->persist = persist;
	e->held = held;
}

/* The batch fd is closed and the persistent events deleted */
static void model_batch_end(void)
{
	int i, kept = 0;

	for (i = 0; i < nr_model; i++) {
		if (model[i].held) {
			model[kept++] = model[i];
			continue;
		}
		free(model[i].name);
		free(model[i].canon);
	}
	nr_model = kept;
}

static void model_free(void)
{
	int i;

	for (i = 0; i < nr_model; i++) {
		free(model[i].name);
		free(model[i].canon);
	}
	nr_model = 0;
}

/* kstrtoull(): optional '+', base 0 = 0x hex / 0 octal / decimal */
static int parse_ull(const char *s, unsigned int base,
		     unsigned long long *res)
{
	unsigned long long v = 0;
	int digits = 0;

	if (*s == '+')
		s++;
	if (!base) {
		if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
		    isxdigit((unsigned char)s[2]))
			base = 16;
		else
			base = s[0] == '0' ? 8 : 10;
	}
	if (base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x')
		s += 2;
	for (;; s++, digits++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (tolower((unsigned char)*s) >= 'a' &&
			 tolower((unsigned char)*s) <= 'f')
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > (~0ULL - d) / base)
			return -1;
		v = v * base + d;
	}
	if (!digits)
		return -1;
	if (*s == '\n')
		s++;
	if (*s)
		return -1;
	*res = v;
	return 0;
}

static const char * const plain_types[] = {
	"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "int",
	"unsigned int", "short", "unsigned short", "char", "unsigned char",
};

static const int plain_sizes[] = {
	1, 1, 2, 2, 4, 4, 8, 8, 4, 4, 2, 2, 1, 1,
};

/* One field's tokens: its static size, or -1 when invalid */
static long field_size(char **tok, int n, char *canon, int *clen)
{
	char type[128] = "";
	const char *bracket;
	unsigned long long v;
	int type_tokens = 1, i, rest;
	long size = -1;

	if (!strcmp(tok[0], "unsigned") || !strcmp(tok[0], "struct"))
		type_tokens = 2;
	else if (!strcmp(tok[0], "__data_loc") || !strcmp(tok[0], "__rel_loc"))
		type_tokens = n > 1 && !strcmp(tok[1], "unsigned") ? 3 : 2;
	if (n < type_tokens + 1)
		return -1;
	for (i = 0; i < type_tokens; i++) {
		if (strlen(type) + strlen(tok[i]) + 2 > sizeof(type))
			return -1;
		if (i)
			strcat(type, " ");
		strcat(type, tok[i]);
	}
	if (!ue_c_ident(tok[type_tokens]))
		return -1;
	rest = n - type_tokens - 1;
	bracket = strchr(type, '[');

	if (!strncmp(type, "__data_loc ", 11) ||
	    !strncmp(type, "__rel_loc ", 10)) {
		size = 4;
	} else if (!strncmp(type, "struct ", 7)) {
		if (rest != 1 || parse_ull(tok[type_tokens + 1], 10, &v) ||
		    !v || v > 0xffffffffULL || v > (unsigned long long)max_static)
			return -1;
		*clen += snprintf(canon + *clen, CANON_MAX - *clen,
				  "%s%s %s %llu", *clen ? "; " : "", type,
				  tok[type_tokens], v);
		return v;
	} else if (bracket) {
		const char *end;
		char num[8];

		if (!((bracket - type == 4 && !strncmp(type, "char", 4)) ||
		      (bracket - type == 13 &&
		       !strncmp(type, "unsigned char", 13))))
			return -1;
		bracket++;
		if (strlen(bracket) > 7)
			return -1;
		end = strchr(bracket, ']');
		if (!end)
			return -1;
		memcpy(num, bracket, end - bracket);
		num[end - bracket] = '\0';
		if (parse_ull(num, 0, &v) || !v || v > 1024)
			return -1;
		size = v;
	} else {
		for (i = 0; i < (int)ARRAY_SIZE(plain_types); i++)
			if (!strcmp(type, plain_types[i]))
				size = plain_sizes[i];
		if (size < 0)
			return -1;
	}
	if (rest)
		return -1;

	*clen += snprintf(canon + *clen, CANON_MAX - *clen, "%s%s %s",
			  *clen ? "; " : "", type, tok[type_tokens]);
	return size;
}

/* The canonical form of a field list into @canon: 0, or -1 if invalid */
static int fields_canon(const char *args, char *canon)
{
	char *copy = strdup(args), *cur = copy, *field, *p, *tok[4];
	long total = 0, size;
	int n, clen = 0, ret = 0;

	canon[0] = '\0';
	while ((field = strsep(&cur, ";"))) {
		n = 0;
		while ((p = strsep(&field, " \t"))) {
			if (!*p)
				continue;
			if (n == 4) {
				ret = -1;
				goto out;
			}
			tok[n++] = p;
		}
		if (!n)
			continue;
		size = field_size(tok, n, canon, &clen);
		total += size;
		if (size < 0 || total > max_static || clen >= CANON_MAX) {
			ret = -1;
			goto out;
		}
	}
out:
	free(copy);
	return ret;
}

static bool name_valid(const char *name)
{
	const unsigned char *p;

	if (!*name || strlen(name) > 255 || !strcmp(name, ".") ||
	    !strcmp(name, "..") || !strcmp(name, "enable") ||
	    !strcmp(name, "filter"))
		return false;
	for (p = (const unsigned char *)name; *p; p++)
		if (*p == '/' || *p == ':' || *p == ' ' ||
		    (*p >= '\t' && *p <= '\r') || *p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/*
 * The answer to command @cmd (after "u:" and its spaces for @dyn), for a
 * multi-format registration with @multi. Sets @name (the register name)
 * and @canon (its canonical fields, "" if not valid).
 */
static enum verdict cmd_verdict(const char *cmd, bool multi, bool dyn,
				char *name, char *canon)
{
	const char *args;
	struct model_event *e;
	bool high = false, fields_ok;
	size_t len;
	const unsigned char *p;

	name[0] = '\0';
	canon[0] = '\0';
	if (!dyn && strlen(cmd) >= 512)
		return V_EINVAL;
	for (p = (const unsigned char *)cmd; *p; p++)
		high |= *p > 0x7f;

	len = strcspn(cmd, " \t");
	if (len > 300)
		return V_EINVAL;
	memcpy(name, cmd, len);
	name[len] = '\0';
	args = cmd[len] ? cmd + len + 1 : "";

	if (!name_valid(name))
		return high ? V_UNKNOWN : V_EINVAL;
	fields_ok = !fields_canon(args, canon);
	if (!fields_ok)
		canon[0] = '\0';

	if (multi) {
		/* "name.<hex id>" has to fit 255 bytes too */
		if (strlen(name) + 2 > 255)
			return V_EINVAL;
		if (high || strlen(name) + 17 > 255)
			return V_UNKNOWN;
		return fields_ok ? V_OK : V_EINVAL;
	}

	e = model_find(name);
	if (e) {
		if (!e->canon || high)
			return V_UNKNOWN;
		return fields_ok && !strcmp(e->canon, canon) ? V_OK :
							      V_EADDRINUSE;
	}
	if (high)
		return V_UNKNOWN;
	return fields_ok ? V_OK : V_EINVAL;
}

static bool verdict_ok(enum verdict v, int ret, int err)
{
	switch (v) {
	case V_OK:
		return ret == 0;
	case V_EINVAL:
		return ret == -1 && err == EINVAL;
	case V_EADDRINUSE:
		return ret == -1 && err == EADDRINUSE;
	case V_UNKNOWN:
		break;
	}
	return ret == 0 || (ret == -1 && (err == EINVAL || err == EADDRINUSE));
}

/* After the kernel answered: a new single-format event exists now */
static void model_learn(enum verdict v, int ret, bool multi, bool persist,
			const char *name, const char *canon)
{
	if (ret || multi || model_find(name))
		return;
	model_add(name, v == V_OK ? canon : NULL, persist, false);
}

/* ---- tracefs files held across deletions ---------------------------- */

#define NR_STALE	16

static const char * const stale_files[] = {
	"enable", "filter", "trigger", "format", "id", "hist",
};

struct stale_fd {
	int fd;
	int file;		/* index in stale_files */
	char dir[320];		/* the event's directory */
};

static struct stale_fd stale[NR_STALE];
static int nr_stale;

/* Open a file of single-format event @name, to be checked once it ends */
static void stale_open(const char *name, unsigned int which)
{
	struct stale_fd *h;
	char path[400];
	int ro;

	if (nr_stale == NR_STALE || strlen(name) > 200)
		return;
	h = &stale[nr_stale];
	h->file = which % ARRAY_SIZE(stale_files);
	ro = h->file >= 3;
	snprintf(h->dir, sizeof(h->dir), EVENTS_DIR "/%s", name);
	snprintf(path, sizeof(path), "%s/%s", h->dir, stale_files[h->file]);
	h->fd = open(path, ro ? O_RDONLY : O_RDWR);
	if (h->fd >= 0)
		nr_stale++;
}

/*
 * Every event of the held files is gone: once deleted (the persistent
 * ones by the sweep, at once; the others by their auto-delete, bounded),
 * each read and write of the file fails with ENODEV.
 */
static bool stale_check(struct __test_metadata *_metadata,
			unsigned long *checked)
{
	char buf[256];
	bool ok = true;
	int i;

	for (i = 0; i < nr_stale; i++) {
		struct stale_fd *h = &stale[i];
		const char *what = stale_files[h->file];
		ssize_t ret;

		if (!ue_wait_auto_delete(h->dir)) {
			TH_LOG("%s still exists", h->dir);
			ok = false;
		}
		errno = 0;
		ret = read(h->fd, buf, sizeof(buf));
		if (ret != -1 || errno != ENODEV) {
			TH_LOG("read of %s/%s after its deletion: %zd %s",
			       h->dir, what, ret, strerror(errno));
			ok = false;
		}
		if (h->file < 3) {
			const char *cmd = h->file == 0 ? "1" :
					  h->file == 1 ? "common_pid == 1" :
					  "traceon";

			errno = 0;
			ret = write(h->fd, cmd, strlen(cmd));
			if (ret != -1 || errno != ENODEV) {
				TH_LOG("write of %s/%s after its deletion: %zd %s",
				       h->dir, what, ret, strerror(errno));
				ok = false;
			}
		}
		close(h->fd);
		(*checked)++;
	}
	nr_stale = 0;

	return ok;
}

/* ---- the fixture ---------------------------------------------------- */

FIXTURE(fuzz) {
	bool umount;
	struct fuzz_mem m;
	int fd;
	int wfd;
	int widx;
	int vidx;
	int start_active;
	unsigned int next_word;
	int perf_fd;
	void *perf_ring;
	bool perf_on;
};

/* dynamic_events as it was before the run: those events are not ours */
static char *start_dyn;

static bool existed(const char *name)
{
	char *p = start_dyn;
	size_t n = strlen(name);

	while (p && (p = strstr(p, "u:"))) {
		p += 2;
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\n'))
			return true;
	}
	return false;
}

/*
 * Delete the events this test may have left: persistent ones (from
 * dynamic_events or the PERSIST flag, any name the kernel accepted) and,
 * with @all, the write events. With nothing referencing them, each
 * delete works at once, or finds a non-persistent event auto-deleted
 * already; false (and the name logged) when one did not.
 */
static bool fuzz_sweep(bool all)
{
	char *text = ue_read_file(DYN_FILE);
	char *line, *save = NULL, *end;
	bool ok = true;

	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "u:", 2))
			continue;
		line += 2;
		end = strchr(line, ' ');
		if (end)
			*end = '\0';
		if (existed(line))
			continue;
		if (!all && (!strcmp(line, WEVENT) ||
			     !strcmp(line, POOL_PREFIX "v")))
			continue;
		if (all) {
			ue_cleanup_event(line);
		} else if (ue_del(line) && errno != ENOENT) {
			fprintf(stderr, "# sweep: DIAG_IOCSDEL ");
			dump_input(strerror(errno), line, strlen(line));
			ok = false;
		}
	}
	free(text);

	return ok;
}

static void fuzz_cleanup(void)
{
	ue_enable(WEVENT, 0);
	fuzz_sweep(true);
}

FIXTURE_SETUP(fuzz) {
	long page = sysconf(_SC_PAGESIZE);
	struct ue_limits limits;
	char path[512];

	self->fd = -1;
	self->wfd = -1;
	self->perf_fd = -1;
	self->perf_ring = MAP_FAILED;
	self->m.area = MAP_FAILED;
	USER_EVENT_FIXTURE_SETUP(self->umount);
	/* Left by an earlier run of this test */
	ue_enable(WEVENT, 0);
	ue_cleanup_event(WEVENT);
	ue_cleanup_event(POOL_PREFIX "v");
	start_dyn = ue_read_file(DYN_FILE);
	self->start_active = ue_active_count();
	ue_get_limits(&limits);
	max_static = limits.max_static;

	self->m.page = page;
	self->m.area = mmap(NULL, page * 6, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE((uintptr_t)MAP_FAILED, (uintptr_t)self->m.area);
	memset(self->m.area, 0, page * 6);
	self->m.words = self->m.area;
	self->m.ro = self->m.area + page * 5;
	self->m.hole = self->m.area + page * 2;
	self->m.buf = self->m.area + page * 3;
	self->m.tail = self->m.hole - 64;
	ASSERT_EQ(0, mprotect(self->m.ro, page, PROT_READ));
	/*
	 * Inaccessible, but kept reserved: an unmapped page would be free
	 * for the next mapping of this process (of the C library, say).
	 */
	ASSERT_EQ(0, mprotect(self->m.hole, page, PROT_NONE));

	self->wfd = open(DATA_FILE, O_RDWR);
	ASSERT_NE(-1, self->wfd);
	ASSERT_EQ(0, ue_reg_fd(self->wfd, WEVENT_CMD, self->m.buf + page, 0,
			       4, 0, &self->widx));
	ASSERT_EQ(0, ue_reg_fd(self->wfd, POOL_PREFIX "v", self->m.buf + page,
			       1, 4, 0, &self->vidx));
	ASSERT_EQ(0, ue_enable(WEVENT, 1));
	model_add(WEVENT, WEVENT_CANON, false, true);
	model_add(POOL_PREFIX "v", "", false, true);

	ue_event_file(path, sizeof(path), WEVENT, "format");
	w_hdr = ue_format_payload_offset(path);
	w_sloc = ue_format_offset(path, "s", NULL);
	w_rloc = ue_format_offset(path, "r", NULL);
	/* Packed after the header: u32 a, then the two location words */
	ASSERT_EQ(w_hdr + 4, w_sloc) {
		TH_LOG("%s: payload at %d, s at %d", WEVENT, (int)w_hdr,
		       (int)w_sloc);
	}
	ASSERT_EQ(w_hdr + 8, w_rloc);
	/* The bound of the static sizes counts the same header */
	ASSERT_EQ(limits.header, (long)w_hdr);
}

static void perf_off(struct _test_data_fuzz *self)
{
	if (self->perf_ring != MAP_FAILED)
		munmap(self->perf_ring, (PERF_PAGES + 1) * self->m.page);
	self->perf_ring = MAP_FAILED;
	if (self->perf_fd >= 0)
		close(self->perf_fd);
	self->perf_fd = -1;
}

/*
 * Trace WEVENT with perf too, for this task: the writes then also go
 * through the perf probe, its buffer and its validators. The ring buffer
 * is never read; full means lost records, not failed writes.
 */
static int perf_on(struct _test_data_fuzz *self)
{
	char path[256], *id;

	perf_off(self);
	id = ue_read_file(ue_event_file(path, sizeof(path), WEVENT, "id"));
	if (!id)
		return -1;
	self->perf_fd = ue_perf_open(atoi(id));
	free(id);
	if (self->perf_fd < 0)
		return -1;
	self->perf_ring = mmap(NULL, (PERF_PAGES + 1) * self->m.page,
			       PROT_READ | PROT_WRITE, MAP_SHARED,
			       self->perf_fd, 0);
	if (self->perf_ring == MAP_FAILED) {
		perf_off(self);
		return -1;
	}

	return 0;
}

FIXTURE_TEARDOWN(fuzz) {
	perf_off(self);
	if (self->wfd >= 0) {
		ue_unreg_fd(self->wfd, self->m.buf + self->m.page, 0);
		ue_unreg_fd(self->wfd, self->m.buf + self->m.page, 1);
		close(self->wfd);
	}
	if (self->fd >= 0)
		close(self->fd);
	while (nr_stale)
		close(stale[--nr_stale].fd);
	model_free();
	fuzz_cleanup();
	if (self->m.area != MAP_FAILED)
		munmap(self->m.area, self->m.page * 6);
	free(start_dyn);
	start_dyn = NULL;
	USER_EVENT_FIXTURE_TEARDOWN(self->umount);
}

/* A fresh enable location in the words page: (word, bit) never repeats */
static void *next_enable(struct _test_data_fuzz *self, int *bit)
{
	unsigned int n = self->next_word++;
	long words = self->m.page / 8;

	*bit = n % 32;
	return self->m.words + ((n / 32) % words) * 8;
}

static bool errno_ok(const int *allowed, int err)
{
	for (; *allowed; allowed++)
		if (*allowed == err)
			return true;

	return false;
}

/* Valid struct, generated command: the answer the oracle demands */
static bool fuzz_cmd(struct __test_metadata *_metadata,
		     struct _test_data_fuzz *self, struct fuzz_stats *st)
{
	static char name[320], canon[CANON_MAX];
	char *cmd = self->m.buf;
	int bit, ret, err, flags;
	enum verdict v;
	void *addr;

	gen_cmd(cmd, 1024, false);
	addr = next_enable(self, &bit);
	flags = rn(10) ? 0 : USER_EVENT_REG_MULTI_FORMAT;
	st->cmd++;
	v = cmd_verdict(cmd, flags, false, name, canon);

	ret = ue_reg_fd(self->fd, cmd, addr, bit, 4, flags, NULL);
	err = errno;
	if (!verdict_ok(v, ret, err)) {
		TH_LOG("DIAG_IOCSREG(flags=%d): %d %s, expected %s", flags, ret,
		       ret ? strerror(err) : "", verdict_names[v]);
		dump_input("command", cmd, strlen(cmd));
		return false;
	}
	st->cmd_exact += v != V_UNKNOWN;
	model_learn(v, ret, flags, false, name, canon);
	if (ret)
		return true;

	st->cmd_ok++;
	if (!flags && !rn(40))
		stale_open(name, rn(64));
	if (ue_unreg_fd(self->fd, addr, bit)) {
		TH_LOG("unregister after reg failed: %s", strerror(errno));
		dump_input("command", cmd, strlen(cmd));
		return false;
	}
	return true;
}

/* Generated command through dynamic_events (always persistent) */
static bool fuzz_dyn(struct __test_metadata *_metadata,
		     struct _test_data_fuzz *self, struct fuzz_stats *st)
{
	static char name[320], canon[CANON_MAX];
	char *line = self->m.buf;
	enum verdict v;
	char *p;
	int fd, err;
	ssize_t ret;

	memcpy(line, "u:", 2);
	gen_cmd(line + 2, 1024, true);
	/* One line, no comment: that is the core's parser, not ours */
	for (p = line; *p; p++)
		if (*p == '\n' || *p == '#')
			*p = ' ';
	st->dyn++;

	fd = open(DYN_FILE, O_WRONLY | O_APPEND);
	if (fd < 0) {
		TH_LOG("open dynamic_events: %s", strerror(errno));
		return false;
	}
	ret = write(fd, line, strlen(line));
	err = errno;
	close(fd);

	/* "u:", then any spaces, then the command */
	for (p = line + 2; isspace((unsigned char)*p); p++)
		;
	v = cmd_verdict(p, false, true, name, canon);
	if (!verdict_ok(v, ret == (ssize_t)strlen(line) ? 0 : -1, err)) {
		TH_LOG("dynamic_events write: %zd %s, expected %s", ret,
		       ret < 0 ? strerror(err) : "", verdict_names[v]);
		dump_input("line", line, strlen(line));
		return false;
	}
	st->dyn_exact += v != V_UNKNOWN;
	model_learn(v, ret == (ssize_t)strlen(line) ? 0 : -1, false, true,
		    name, canon);
	if (ret == (ssize_t)strlen(line)) {
		st->dyn_ok++;
		if (!rn(20))
			stale_open(name, rn(64));
	}
	return true;
}

static __u64 gen_addr(struct _test_data_fuzz *self, int size)
{
	char *base = self->m.words + rn(self->m.page / 8) * 8;

	switch (rn(12)) {
	case 0:
		return 0;
	case 1:
		return KERNEL_ADDR + rn(4096) * size;
	case 2:
		return (__u64)(unsigned long)self->m.hole + rn(512) * size;
	case 3:
		return (__u64)(unsigned long)self->m.ro + rn(512) * size;
	case 4:
		return (__u64)(unsigned long)base + rn(size ? size : 8);
	case 5:
		return rnd();
	case 6:
		return ~0ULL - rn(64);
	default:
		return (__u64)(unsigned long)base;
	}
}

/*
 * Whether the kernel accepts @reg as a struct, so that only its command
 * decides the answer: a size it takes, with zeros after the 28 bytes it
 * knows, known flags, an enable word of a size this kernel supports,
 * aligned, with the bit inside it, in the words page (mapped, written, and
 * nothing of this process is registered there but what fuzz_cmd() and
 * fuzz_reg() unregister at once).
 */
static bool reg_struct_valid(struct _test_data_fuzz *self,
			     const struct user_reg *reg)
{
	static int kernel64 = -1;
	unsigned long addr = (unsigned long)reg->enable_addr;
	unsigned long words = (unsigned long)self->m.words;
	const char *p = (const char *)reg;
	unsigned int i;

	if (kernel64 < 0)
		kernel64 = ue_kernel_is_64bit();
	if (reg->size < 28 || reg->size > self->m.page)
		return false;
	for (i = 28; i < reg->size; i++)
		if (p[i])
			return false;
	if (reg->flags & ~(USER_EVENT_REG_MAX - 1))
		return false;
	if (reg->enable_size != 4 && !(reg->enable_size == 8 && kernel64))
		return false;
	if (reg->enable_addr != addr || addr % reg->enable_size ||
	    reg->enable_bit >= reg->enable_size * 8)
		return false;

	return addr >= words &&
	       addr - words <= self->m.page - reg->enable_size;
}

/* Random user_reg: sizes, flags, bits, addresses, strings */
static bool fuzz_reg(struct __test_metadata *_metadata,
		     struct _test_data_fuzz *self, struct fuzz_stats *st)
{
	static const unsigned int sizes[] = {
		28, 28, 28, 28, 0, 4, 20, 27, 29, 32, 64, 4096, 4097,
		0xffffffff, 0x80000000,
	};
	static char name[320], canon[CANON_MAX];
	char *cmd = self->m.buf + 1024;
	enum verdict v = V_UNKNOWN;
	struct user_reg *reg;
	unsigned int size;
	int ret, err, place;
	bool multi = false, persist = false, exact;
	char *at;

	/* The command string */
	switch (rn(10)) {
	case 0:
		/*
		 * Where no command can be: nothing, the kernel, a hole, the
		 * zeros of the read-only page. Not the enable words, whose
		 * set bits can spell a valid name.
		 */
		switch (rn(5)) {
		case 0:
			at = NULL;
			break;
		case 1:
			at = (char *)(unsigned long)KERNEL_ADDR + rn(4096);
			break;
		case 2:
			at = self->m.hole + rn(512);
			break;
		case 3:
			at = (char *)(unsigned long)(~0ULL - rn(64));
			break;
		default:
			at = self->m.ro + rn(512);
			break;
		}
		break;
	case 1:
		/* No NUL before the hole */
		at = self->m.tail;
		memset(at, 'x', 64);
		break;
	case 2:
		memset(cmd, 'y', 600);
		cmd[600] = '\0';
		at = cmd;
		break;
	default:
		gen_cmd(cmd, 512, false);
		at = cmd;
		break;
	}

	/* The struct: in the buffer, or running into the hole */
	size = sizes[rn(ARRAY_SIZE(sizes))];
	place = rn(10);
	if (place == 0)
		reg = (struct user_reg *)(self->m.hole - 28);
	else if (place == 1)
		reg = (struct user_reg *)(unsigned long)KERNEL_ADDR;
	else
		reg = (struct user_reg *)(self->m.buf + 2048);

	if ((char *)reg != (char *)(unsigned long)KERNEL_ADDR) {
		unsigned int room = place ? 2048 : 28;

		memset(reg, 0, room);
		/* Sometimes a non-zero byte in the tail */
		if (place && !rn(4))
			((char *)reg)[28 + rn(room - 28)] = (char)(rn(255) + 1);
		reg->size = size;
		reg->enable_size = rn(3) ? (rn(2) ? 4 : 8) : rn(130);
		reg->enable_bit = rn(3) ? rn(reg->enable_size * 8 + 1) :
					  rn(256);
		reg->flags = rn(4) ? (rn(8) ? 0 : USER_EVENT_REG_MULTI_FORMAT) :
				     (rn(4) ? rn(4) : rnd());
		reg->enable_addr = gen_addr(self, reg->enable_size);
		reg->name_args = (__u64)(unsigned long)at;
		multi = reg->flags & USER_EVENT_REG_MULTI_FORMAT;
		persist = reg->flags & USER_EVENT_REG_PERSIST;
	}
	/*
	 * A struct at the end of the page covers the last 28 bytes of the
	 * tail: its bytes end the run of 'x' (its write_index is 0), and on
	 * a big-endian machine the size's high byte ends it after 36 'x'.
	 * The kernel reads that string: judge a copy of it.
	 */
	if (at == self->m.tail && place == 0) {
		strcpy(cmd, at);
		at = cmd;
	}
	if (at == cmd)
		v = cmd_verdict(cmd, multi, false, name, canon);
	exact = at == cmd && place > 1 && reg_struct_valid(self, reg);
	st->reg++;

	ret = ioctl(self->fd, DIAG_IOCSREG, reg);
	err = errno;
	if (ret == 0 && place == 1) {
		TH_LOG("DIAG_IOCSREG of a kernel pointer succeeded");
		return false;
	}
	if (ret == 0 && (at != cmd || v == V_EINVAL || v == V_EADDRINUSE)) {
		TH_LOG("DIAG_IOCSREG succeeded, expected %s",
		       at == cmd ? verdict_names[v] : "a bad command string");
		goto fail;
	}
	if (ret == 0) {
		model_learn(v, 0, multi, persist, name, canon);
		st->reg_ok++;
		ret = ue_unreg_fd(self->fd,
				  (void *)(unsigned long)reg->enable_addr,
				  reg->enable_bit);
		if (ret) {
			TH_LOG("unregister after random reg: %s",
			       strerror(errno));
			goto fail;
		}
		return true;
	}
	if (exact) {
		/* Refusals judged by the command alone: must not be none */
		st->reg_exact += v != V_UNKNOWN;
		if (verdict_ok(v, ret, err))
			return true;
		TH_LOG("DIAG_IOCSREG of a valid struct: %s, expected %s",
		       strerror(err), verdict_names[v]);
		goto fail;
	}
	if (errno_ok(reg_errs, err))
		return true;

	TH_LOG("random DIAG_IOCSREG: %d %s", ret, strerror(err));
fail:
	if ((char *)reg != (char *)(unsigned long)KERNEL_ADDR)
		dump_input("user_reg", reg, 28);
	if (at == cmd)
		dump_input("command", cmd, strlen(cmd));
	return false;
}

/* Random user_unreg: nothing is registered, so never a success */
static bool fuzz_unreg(struct __test_metadata *_metadata,
		       struct _test_data_fuzz *self, struct fuzz_stats *st)
{
	static const unsigned int sizes[] = {
		16, 16, 16, 0, 8, 15, 17, 24, 64, 4096, 4097, 0xffffffff,
	};
	struct user_unreg *unreg = (struct user_unreg *)(self->m.buf + 2048);
	int ret, err;

	memset(unreg, 0, 128);
	if (!rn(4))
		((char *)unreg)[16 + rn(112)] = (char)(rn(255) + 1);
	unreg->size = sizes[rn(ARRAY_SIZE(sizes))];
	unreg->disable_bit = rn(3) ? rn(33) : rn(256);
	if (!rn(4))
		unreg->__reserved = rnd();
	if (!rn(4))
		unreg->__reserved2 = rnd();
	unreg->disable_addr = gen_addr(self, 4);
	if (!rn(10))
		unreg = (struct user_unreg *)(self->m.hole - 8);
	st->unreg++;

	ret = ioctl(self->fd, DIAG_IOCSUNREG, unreg);
	err = errno;
	if (ret && errno_ok(unreg_errs, err))
		return true;

	TH_LOG("random DIAG_IOCSUNREG: %d %s", ret, strerror(err));
	if ((char *)unreg != self->m.hole - 8)
		dump_input("user_unreg", unreg, 16);
	return false;
}

/* Expected result of a WEVENT write of payload @p (@len bytes) */
static int expect_wevent(const unsigned char *p, size_t len)
{
	__u32 sloc, rloc, off, sz, end;

	if (len < W_MIN)
		return -EINVAL;
	if (len > W_EXACT_MAX)
		return 1;	/* unknown: sub-buffer size */

	memcpy(&sloc, p + w_sloc - w_hdr, 4);
	memcpy(&rloc, p + w_rloc - w_hdr, 4);

	off = sloc & 0xffff;
	sz = sloc >> 16;
	end = off + sz;
	if (end > w_hdr + len || !sz)
		return -EFAULT;
	if (end - 1 < w_hdr)
		return 1;	/* unknown: the last byte is in the header */
	if (p[end - 1 - w_hdr])
		return -EFAULT;

	off = rloc & 0xffff;
	sz = rloc >> 16;
	end = w_rloc + 4 + off + sz;
	if (end > w_hdr + len || !sz)
		return -EFAULT;
	if (p[end - 1 - w_hdr])
		return -EFAULT;

	return 0;
}

static __u32 gen_loc(bool rel, size_t len, size_t *str_at, size_t *str_len)
{
	/* Record offset of a string in the dynamic area */
	size_t dyn = w_hdr + W_MIN;
	size_t at, n;

	if (len <= W_MIN || !rn(6))
		return rnd();
	at = dyn + rn(len - W_MIN);
	n = rn(w_hdr + len - at) + 1;
	if (!rn(5))
		n += rn(8);	/* past the end */
	*str_at = at;
	*str_len = n;
	if (rel)
		at -= (rel == 1 ? w_rloc + 4 : 0);
	return (n << 16) | (at & 0xffff);
}

/* Random write payloads against WEVENT (checked exactly) and others */
static bool fuzz_write(struct __test_metadata *_metadata,
		       struct _test_data_fuzz *self, struct fuzz_stats *st)
{
	unsigned char *p = (unsigned char *)self->m.buf + 2048 + 4;
	size_t len, sat = 0, slen = 0, rat = 0, rlen = 0, i;
	struct iovec io[3];
	int idx, expect, err, niov;
	ssize_t ret;
	__u32 loc;
	bool exact = false;
	int fd = self->wfd;

	len = rn(8) ? rn(200) : rn(6000);
	if (len > (size_t)self->m.page - 2048 - 8)
		len = self->m.page - 2048 - 8;
	for (i = 0; i < len; i++)
		p[i] = rn(4) ? rn(256) : 0;

	switch (rn(10)) {
	case 0:
		/* No tracer on that one */
		idx = self->vidx;
		expect = -EBADF;
		break;
	case 1:
		idx = rn(2) ? -1 - (int)rn(100) : 2 + rn(1000);
		expect = idx < 0 ? -EINVAL : -ENOENT;
		break;
	case 2:
		/* Whatever the batch fd holds at that index */
		idx = rn(4);
		expect = 1;
		fd = self->fd;
		break;
	default:
		idx = self->widx;
		if (len >= W_MIN) {
			loc = gen_loc(false, len, &sat, &slen);
			memcpy(p + w_sloc - w_hdr, &loc, 4);
			loc = gen_loc(true, len, &rat, &rlen);
			memcpy(p + w_rloc - w_hdr, &loc, 4);
			/* Usually NUL-terminate what was pointed at */
			if (slen && rn(5) && sat + slen <= w_hdr + len)
				p[sat + slen - 1 - w_hdr] = 0;
			if (rlen && rn(5) && rat + rlen <= w_hdr + len)
				p[rat + rlen - 1 - w_hdr] = 0;
		}
		expect = expect_wevent(p, len);
		exact = expect != 1;
		break;
	}

	memcpy(p - 4, &idx, 4);
	niov = 1;
	io[0].iov_base = p - 4;
	io[0].iov_len = len + 4;
	if (rn(3) == 0 && len > 2) {
		/* Same bytes, split into several iovecs */
		size_t cut = rn(len);

		io[0].iov_len = 4 + cut;
		io[1].iov_base = p + cut;
		io[1].iov_len = len - cut;
		niov = 2;
	}

	st->write++;
	if (self->perf_on && fd == self->wfd && idx == self->widx)
		st->write_perf++;
	ret = writev(fd, io, niov);
	err = errno;
	if (exact)
		st->write_exact++;
	if (ret == (ssize_t)len + 4)
		st->write_ok++;

	if (expect == 1) {
		if (ret == (ssize_t)len + 4 ||
		    (ret < 0 && errno_ok(write_errs, err)))
			return true;
	} else if (expect == 0 ? ret == (ssize_t)len + 4 :
		   ret == -1 && err == -expect) {
		return true;
	} else if (!exact && expect == 0 && ret == -1 && err == E2BIG) {
		return true;
	}

	TH_LOG("writev(index %d, %zu bytes, %d iovecs): %zd %s, expected %d",
	       idx, len, niov, ret, ret < 0 ? strerror(err) : "", expect);
	dump_input("payload", p, len);
	return false;
}

/*
 * The end of a batch: its fd goes, taking the last reference of every
 * event registered in it; the persistent events are deleted. Then none
 * of them exists for the oracle, and every file held open is stale.
 */
static bool batch_end(struct __test_metadata *_metadata,
		      struct _test_data_fuzz *self, struct fuzz_stats *st)
{
	bool ok;

	if (self->fd >= 0)
		close(self->fd);
	self->fd = -1;
	ok = fuzz_sweep(false);
	model_batch_end();
	return stale_check(_metadata, &st->stale) && ok;
}

TEST_F_TIMEOUT(fuzz, generated_inputs, FUZZ_HANG_SECONDS)
{
	struct fuzz_stats st = {0};
	unsigned long iters = FUZZ_ITERS, n;
	long start, elapsed, t0;
	const char *env;
	bool ok = true, have_perf;
	unsigned int r, mode;

	rng_state = FUZZ_SEED;
	env = getenv("UE_FUZZ_SEED");
	if (env && *env)
		rng_state = strtoull(env, NULL, 0);
	env = getenv("UE_FUZZ_ITERS");
	if (env && *env)
		iters = strtoul(env, NULL, 0);
	TH_LOG("UE_FUZZ_SEED=0x%llx UE_FUZZ_ITERS=%lu",
	       (unsigned long long)rng_state, iters);
	have_perf = ue_have_perf();
	if (!have_perf)
		TH_LOG("WEVENT traced by ftrace alone: %s", UE_NO_PERF);
	if (!rng_state)
		rng_state = 1;

	start = ue_now_ms();
	for (n = 0; n < iters && ok; n++) {
		if (n % FUZZ_BATCH == 0) {
			t0 = ue_now_us();
			ok = batch_end(_metadata, self, &st);
			if (!ok) {
				TH_LOG("end of the batch before input %lu", n);
				break;
			}
			self->fd = open(DATA_FILE, O_RDWR);
			ASSERT_NE(-1, self->fd);
			/*
			 * WEVENT: ftrace, ftrace and perf, perf alone; a
			 * kernel without perf has the ftrace mode only.
			 */
			mode = have_perf ? (n / FUZZ_BATCH) % 3 : 0;
			ASSERT_EQ(0, ue_enable(WEVENT, mode != 2));
			if (mode == 0)
				perf_off(self);
			ASSERT_EQ(0, mode == 1 ? perf_on(self) : 0);
			self->perf_on = mode != 0;
			st.t_batch += ue_now_us() - t0;
		}

		/* The costly kinds (parsing, new events) a bit rarer */
		r = rn(200);
		t0 = ue_now_us();
		if (r < 34) {
			unsigned long was = st.cmd_ok;

			ok = fuzz_cmd(_metadata, self, &st);
			if (st.cmd_ok != was)
				st.t_cmd_ok += ue_now_us() - t0;
			else
				st.t_cmd += ue_now_us() - t0;
		} else if (r < 36) {
			ok = fuzz_dyn(_metadata, self, &st);
			st.t_dyn += ue_now_us() - t0;
		} else if (r < 96) {
			ok = fuzz_reg(_metadata, self, &st);
			st.t_reg += ue_now_us() - t0;
		} else if (r < 120) {
			ok = fuzz_unreg(_metadata, self, &st);
			st.t_unreg += ue_now_us() - t0;
		} else {
			ok = fuzz_write(_metadata, self, &st);
			st.t_write += ue_now_us() - t0;
		}
		if (!ok)
			TH_LOG("failed at input %lu (UE_FUZZ_SEED as above)",
			       n);
	}
	if (ok)
		ok = batch_end(_metadata, self, &st);
	elapsed = ue_now_ms() - start;

	TH_LOG("%lu inputs in %ld ms", n, elapsed);
	TH_LOG("cmd %lu (ok %lu, exact %lu), dyn %lu (ok %lu, exact %lu)",
	       st.cmd, st.cmd_ok, st.cmd_exact, st.dyn, st.dyn_ok,
	       st.dyn_exact);
	TH_LOG("reg %lu (ok %lu, refused exact %lu), unreg %lu, stale files %lu",
	       st.reg, st.reg_ok, st.reg_exact, st.unreg, st.stale);
	TH_LOG("write %lu (ok %lu, exact %lu, perf attached %lu)", st.write,
	       st.write_ok, st.write_exact, st.write_perf);
	TH_LOG("ms in: cmd fail %ld, cmd ok %ld, dyn %ld, reg %ld, unreg %ld",
	       st.t_cmd / 1000, st.t_cmd_ok / 1000, st.t_dyn / 1000,
	       st.t_reg / 1000, st.t_unreg / 1000);
	TH_LOG("ms in: write %ld, batch ends %ld", st.t_write / 1000,
	       st.t_batch / 1000);
	ASSERT_TRUE(ok);
	ASSERT_LT(0, st.stale);
	ASSERT_LT(0, st.reg_exact);

	perf_off(self);
	ASSERT_EQ(0, ue_enable(WEVENT, 0));
	ASSERT_EQ(0, ue_unreg_fd(self->wfd, self->m.buf + self->m.page, 0));
	ASSERT_EQ(0, ue_unreg_fd(self->wfd, self->m.buf + self->m.page, 1));
	close(self->wfd);
	self->wfd = -1;
	fuzz_cleanup();
	/* Everything registered here is gone again */
	ASSERT_TRUE(ue_wait_active(self->start_active, UE_AUTO_DELETE_MS)) {
		char *text = ue_read_file(STATUS_FILE);

		TH_LOG("Active is not back to %d:\n%s", self->start_active,
		       text ? text : "");
		free(text);
	}
}

TEST_HARNESS_MAIN
