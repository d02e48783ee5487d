// SPDX-License-Identifier: GPL-2.0
/*
 * journal.c - the append-only record of a run in progress, beside its result:
 * <results>/<scenario>/<started>-<host>.journal.
 *
 * A run can be cut short at any point (SIGKILL, power loss, a full disk at
 * the end). The journal holds what is needed to finish it: a header with the
 * scenario's path and digest and every option that decides the jobs, their
 * rounds and the reference run, then one line per sample outcome, in the
 * order the samples were taken, each line one write(2) (it survives the
 * runner's death), and flushed to the disk (fdatasync) at the end of a
 * round at most once a second (power loss): a sync costs 0.2 ms here, more
 * than the harness of a short sample should.
 * `kscen run --resume JOURNAL` replays those outcomes through the same round
 * loop (run.c), which is deterministic given them, so it reaches the same
 * state, then takes the samples still missing. The journal is removed once
 * the complete result is saved, and kept whenever it is not.
 *
 * Text, one record a line: a torn last line (power loss mid-write) is
 * dropped on resume. Numbers are C99 hex floats (%a), exact both ways;
 * strings are percent-encoded so that a record is always one line.
 */
#define _GNU_SOURCE	/* getline */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include "lib/util.h"
#include "journal.h"

#define MAGIC "kscen-journal 1"

struct kscen_journal {
	char *path;
	int fd;			/* O_APPEND */
	FILE *replay;		/* the records still to replay; NULL when none */
	unsigned long replayed;
	char *partial;		/* a partial result of this run, to replace */
	int err;		/* the first write error, sticky */
	long long synced_ns;	/* the last fdatasync, kscen_now_ns() */
};

#define SYNC_EVERY_NS 1000000000LL	/* at most one fdatasync a second */

/* Bytes that would break a line or a field are written as %XX. */
static char *enc(const char *s)
{
	char *out = kscen_xmalloc(3 * strlen(s) + 2), *p = out;

	if (!*s)
		return strcpy(out, "%");	/* the empty string */
	for (; *s; s++) {
		unsigned char c = *s;

		if (c <= ' ' || c == '%' || c >= 0x7f)
			p += sprintf(p, "%%%02X", c);
		else
			*p++ = c;
	}
	*p = '\0';
	return out;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode @s in place; -EINVAL on a bad escape or an embedded NUL. */
static int dec(char *s)
{
	char *w = s;

	if (!strcmp(s, "%")) {
		*s = '\0';
		return 0;
	}
	for (; *s; s++) {
		if (*s != '%') {
			*w++ = *s;
			continue;
		}
		int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return -EINVAL;
		*w++ = hi << 4 | lo;
		s += 2;
	}
	*w = '\0';
	return 0;
}

/* One write(2) a record: a crash leaves whole lines and at most one torn. */
static void put(struct kscen_journal *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(struct kscen_journal *j, const char *fmt, ...)
{
	va_list ap;
	char *line;
	size_t len, off = 0;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		j->err = j->err ? j->err : -ENOMEM;
		return;
	}
	len = n;
	while (off < len && !j->err) {
		ssize_t w = write(j->fd, line + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			j->err = -errno;
		else
			off += w;
	}
	free(line);
}

static void put_str(struct kscen_journal *j, const char *key, const char *v)
{
	char *e = enc(v);

	put(j, "%s %s\n", key, e);
	free(e);
}

/* The scenario's @text beside journal @path, on the disk before the journal. */
static int write_copy(const char *path, const char *text)
{
	char *copy = kscen_xasprintf("%s.scenario", path);
	size_t len = strlen(text), off = 0;
	int fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666), ret = 0;

	if (fd < 0) {
		ret = -errno;
		free(copy);
		return ret;
	}
	while (off < len && !ret) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno != EINTR)
			ret = -errno;
		else if (n > 0)
			off += n;
	}
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	if (ret)
		unlink(copy);
	free(copy);
	return ret;
}

int kscen_journal_create(const char *path, const struct kscen_journal_hdr *h,
			 const struct kscen_jobs *jobs, struct kscen_journal **out)
{
	struct kscen_journal *j;
	int ret;

	*out = NULL;
	j = kscen_xcalloc(1, sizeof(*j));
	j->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
	if (j->fd < 0) {
		ret = -errno;
		free(j);
		return ret;
	}
	j->path = kscen_xstrdup(path);
	if (h->scenario_text && (ret = write_copy(path, h->scenario_text))) {
		kscen_journal_close(j, true);
		return ret;
	}
	put(j, MAGIC "\n");
	put_str(j, "scenario_file", h->scenario_file);
	put_str(j, "scenario_sha256", h->scenario_sha256);
	put_str(j, "started", h->started);
	put_str(j, "command", h->command);
	put(j, "repeat %u\nwarmup %u\nmax_repeat %u\nuntil_ci %a\nmax_jobs %lu\n",
	    h->repeat, h->warmup, h->max_repeat, h->until_ci, h->max_jobs);
	if (h->filter)
		put_str(j, "filter", h->filter);
	if (h->shard)
		put_str(j, "shard", h->shard);
	put_str(j, "compare", h->compare ? h->compare : "none");
	if (h->label)
		put_str(j, "label", h->label);
	if (h->profile)
		put(j, "profile 1\n");
	if (h->scenario_text)
		put(j, "scenario_copy 1\n");
	if (h->noise)
		put(j, "noise %u\n", h->noise);
	put(j, "jobs %u\n", jobs->nr);
	for (unsigned i = 0; i < jobs->nr; i++)
		put_str(j, "job", jobs->job[i].id);
	put(j, "samples\n");
	ret = j->err;
	if (!ret && fdatasync(j->fd) < 0)
		ret = -errno;
	if (ret) {
		kscen_journal_close(j, true);
		return ret;
	}
	*out = j;
	return 0;
}

/* The next complete line of @f without its '\n'; NULL at EOF or torn end. */
static char *next_line(FILE *f, char **buf, size_t *cap)
{
	ssize_t n = getline(buf, cap, f);

	if (n <= 0 || (*buf)[n - 1] != '\n')
		return NULL;
	(*buf)[n - 1] = '\0';
	return *buf;
}

static void hdr_fini(struct kscen_journal_hdr *h)
{
	if (h->scenario_copy && *h->scenario_copy)
		free(h->scenario_copy);
	free(h->scenario_file);
	free(h->scenario_sha256);
	free(h->started);
	free(h->command);
	free(h->filter);
	free(h->shard);
	free(h->compare);
	free(h->label);
	for (unsigned i = 0; i < h->nr_ids; i++)
		free(h->ids[i]);
	free(h->ids);
	memset(h, 0, sizeof(*h));
}

void kscen_journal_hdr_fini(struct kscen_journal_hdr *h)
{
	hdr_fini(h);
}

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || *s == '-' || *v > max ? -EINVAL : 0;
}

/* Read the header; leaves @f at the first record. */
static int read_header(FILE *f, struct kscen_journal_hdr *h, unsigned *lineno)
{
	char *buf = NULL, *line, *val;
	size_t cap = 0;
	unsigned long v;
	int ret = -EINVAL;

	memset(h, 0, sizeof(*h));
	line = next_line(f, &buf, &cap);
	if (!line || strcmp(line, MAGIC))
		goto out;
	for (*lineno = 2; (line = next_line(f, &buf, &cap)); (*lineno)++) {
		if (!strcmp(line, "samples")) {
			ret = h->scenario_file && h->scenario_sha256 &&
			      h->started && h->nr_ids == h->nr_jobs ? 0 : -EINVAL;
			goto out;
		}
		val = strchr(line, ' ');
		if (!val)
			goto out;
		*val++ = '\0';
		char **str = !strcmp(line, "scenario_file") ? &h->scenario_file :
			     !strcmp(line, "scenario_sha256") ? &h->scenario_sha256 :
			     !strcmp(line, "started") ? &h->started :
			     !strcmp(line, "command") ? &h->command :
			     !strcmp(line, "filter") ? &h->filter :
			     !strcmp(line, "shard") ? &h->shard :
			     !strcmp(line, "compare") ? &h->compare :
			     !strcmp(line, "label") ? &h->label : NULL;
		if (str) {
			if (*str || dec(val))
				goto out;
			*str = kscen_xstrdup(val);
		} else if (!strcmp(line, "job")) {
			if (h->nr_ids >= h->nr_jobs || dec(val))
				goto out;
			h->ids[h->nr_ids++] = kscen_xstrdup(val);
		} else if (!strcmp(line, "until_ci")) {
			char *end;

			h->until_ci = strtod(val, &end);
			if (*end || !(h->until_ci >= 0 && h->until_ci <= 100))
				goto out;
		} else {
			if (parse_uint(val, !strcmp(line, "max_jobs") ? ~0UL >> 1 :
				       !strcmp(line, "jobs") ? 100000000 : 1000000, &v))
				goto out;
			if (!strcmp(line, "repeat"))
				h->repeat = v;
			else if (!strcmp(line, "warmup"))
				h->warmup = v;
			else if (!strcmp(line, "max_repeat"))
				h->max_repeat = v;
			else if (!strcmp(line, "max_jobs"))
				h->max_jobs = v;
			else if (!strcmp(line, "profile") && v <= 1)
				h->profile = v;
			else if (!strcmp(line, "scenario_copy") && v == 1)
				h->scenario_copy = (char *)"";	/* named by the caller */
			else if (!strcmp(line, "noise") && v <= KSCEN_NOISE_DROP)
				h->noise = v;
			else if (!strcmp(line, "jobs") && !h->ids) {
				h->nr_jobs = v;
				h->ids = kscen_xcalloc(v + 1, sizeof(char *));
			} else
				goto out;
		}
	}
out:
	free(buf);
	return ret;
}

int kscen_journal_resume(const char *path, struct kscen_journal_hdr *h,
			 struct kscen_journal **out)
{
	struct kscen_journal *j = NULL;
	char *buf = NULL;
	size_t cap = 0;
	off_t end = 0;
	unsigned lineno = 1;
	ssize_t n;
	FILE *f;
	int ret;

	*out = NULL;
	/* Regular files only, never blocking: the same rule as every input. */
	ret = kscen_read_regular(path, 0, &buf, &cap);	/* -EFBIG: regular */
	free(buf);
	buf = NULL;
	if (ret && ret != -EFBIG)
		return ret;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ret = read_header(f, h, &lineno);
	/* The copy's name is the journal's, never one the journal says. */
	if (h->scenario_copy)
		h->scenario_copy = kscen_xasprintf("%s.scenario", path);
	if (ret) {
		fprintf(stderr, "%s:%u:1: not a kscen journal, or a damaged header\n",
			path, lineno);
		fclose(f);
		hdr_fini(h);
		return -EINVAL;
	}
	/* Where the whole lines end: a torn record is cut off before appending. */
	end = ftello(f);
	while ((n = getline(&buf, &cap, f)) > 0 && buf[n - 1] == '\n')
		end += n;
	free(buf);
	if (truncate(path, end) < 0) {
		ret = -errno;
		fclose(f);
		hdr_fini(h);
		return ret;
	}
	/* Back to the first record, to replay from there. */
	clearerr(f);
	{
		struct kscen_journal_hdr again;

		if (fseeko(f, 0, SEEK_SET) || read_header(f, &again, &lineno))
			abort();	/* read a moment ago */
		hdr_fini(&again);
	}
	j = kscen_xcalloc(1, sizeof(*j));
	j->path = kscen_xstrdup(path);
	j->replay = f;
	j->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (j->fd < 0) {
		ret = -errno;
		kscen_journal_close(j, false);
		hdr_fini(h);
		return ret;
	}
	*out = j;
	return 0;
}

const char *kscen_journal_path(const struct kscen_journal *j)
{
	return j ? j->path : NULL;
}

unsigned long kscen_journal_replayed(const struct kscen_journal *j)
{
	return j ? j->replayed : 0;
}

/*
 * What the sentinels saw, after the seconds: "n" and the numbers of
 * struct kscen_noise_raw; missing before noise.c, then the sample was not
 * judged.
 */
#define NOISE_FMT "n %u %u %lld %lld %lld %lld %lld %lld %ld %ld %ld %ld %ld %lld %d"
#define NOISE_ARGS(d) (d)->nr_cpus, (d)->clk_tck, (d)->ns, (d)->busy, (d)->steal, \
	(d)->own_us, (d)->intr, (d)->softirq, (d)->vcsw, (d)->ivcsw, \
	(d)->migrations, (d)->throttle, (d)->khz, (d)->total

static int replay_noise(char **save, struct kscen_noise_raw *d)
{
	long long v[15];
	char *tok, *end;

	for (unsigned i = 0; i < 15; i++) {
		if (!(tok = strtok_r(NULL, " ", save)))
			return -EBADMSG;
		errno = 0;
		v[i] = strtoll(tok, &end, 10);
		if (*end || errno || v[i] < -1)
			return -EBADMSG;
	}
	if (strtok_r(NULL, " ", save) || v[0] > 1 << 20 || v[1] > 1 << 20 || v[14] > 1)
		return -EBADMSG;
	*d = (struct kscen_noise_raw){
		.valid = v[2] > 0, .nr_cpus = v[0], .clk_tck = v[1], .ns = v[2],
		.busy = v[3], .steal = v[4], .own_us = v[5], .intr = v[6],
		.softirq = v[7], .vcsw = v[8], .ivcsw = v[9], .migrations = v[10],
		.throttle = v[11], .khz = v[12], .total = v[13], .planted = v[14],
	};
	return 0;
}

/*
 * "s ROUND JOB RET NR V... REASON [SECONDS [n NOISE...]]": the next record,
 * if it is this sample's. SECONDS, the runner's time on the sample, is
 * missing in a journal of kscen before 2026-12: 0.
 */
static int replay_one(struct kscen_journal *j, unsigned round, unsigned k,
		      struct kscen_sample_out *out, double *seconds)
{
	char *buf = NULL, *line, *tok, *save;
	size_t cap = 0;
	unsigned long r, kk, nr;
	long ret;
	int err = -EBADMSG;

	/* "p PATH": a partial result saved when the run was interrupted. */
	while ((line = next_line(j->replay, &buf, &cap)) && !strncmp(line, "p ", 2)) {
		if (dec(line + 2))
			break;
		free(j->partial);
		j->partial = kscen_xstrdup(line + 2);
	}
	if (!line) {	/* all replayed: from here on, samples are taken */
		fclose(j->replay);
		j->replay = NULL;
		free(buf);
		return 1;
	}
	memset(out, 0, sizeof(*out));
	tok = strtok_r(line, " ", &save);
	if (!tok || strcmp(tok, "s"))
		goto out;
	if (!(tok = strtok_r(NULL, " ", &save)) || parse_uint(tok, ~0U, &r) ||
	    !(tok = strtok_r(NULL, " ", &save)) || parse_uint(tok, ~0U, &kk) ||
	    r != round || kk != k)
		goto out;
	if (!(tok = strtok_r(NULL, " ", &save)))
		goto out;
	ret = strtol(tok, &tok, 10);
	if (*tok || ret > KSCEN_SKIP || ret < -4095)
		goto out;
	out->ret = ret;
	if (!(tok = strtok_r(NULL, " ", &save)) ||
	    parse_uint(tok, KSCEN_MAX_METRICS, &nr))
		goto out;
	out->nr = nr;
	for (unsigned i = 0; i < nr; i++) {
		if (!(tok = strtok_r(NULL, " ", &save)))
			goto out;
		out->v[i] = strtod(tok, &tok);
		if (*tok)
			goto out;
	}
	if (!(tok = strtok_r(NULL, " ", &save)) || dec(tok))
		goto out;
	snprintf(out->reason, sizeof(out->reason), "%s", tok);
	*seconds = 0;
	if ((tok = strtok_r(NULL, " ", &save))) {
		*seconds = strtod(tok, &tok);
		if (*tok || !(*seconds >= 0))
			goto out;
		tok = strtok_r(NULL, " ", &save);
		if (tok && (strcmp(tok, "n") || replay_noise(&save, &out->noise)))
			goto out;
	}
	j->replayed++;
	err = 0;
out:
	free(buf);
	return err;
}

int kscen_journal_sample(struct kscen_journal *j, unsigned round, unsigned k,
			 const struct kscen_job *job, long long timeout_ns,
			 struct kscen_sample_out *out, double *seconds)
{
	long long t0;
	char *reason;
	int ret;

	*seconds = 0;
	if (j && j->replay) {
		ret = replay_one(j, round, k, out, seconds);
		if (ret <= 0)
			return ret;
	}
	t0 = kscen_now_ns();
	ret = kscen_sample_isolated(job, timeout_ns, out);
	*seconds = (kscen_now_ns() - t0) / 1e9;
	if (ret || !j || out->ret == -EINTR)
		return ret;	/* an interrupted sample is taken again */
	reason = enc(out->reason);
	{
		char vals[KSCEN_MAX_METRICS * 32] = "", *p = vals;

		for (unsigned i = 0; i < out->nr && i < KSCEN_MAX_METRICS; i++)
			p += sprintf(p, " %a", out->v[i]);
		const struct kscen_noise_raw *d = &out->noise;
		char noise[256] = "";

		if (d->valid || d->planted)
			snprintf(noise, sizeof(noise), " " NOISE_FMT, NOISE_ARGS(d),
				 d->planted);
		put(j, "s %u %u %d %u%s %s %a%s\n", round, k, out->ret,
		    out->nr < KSCEN_MAX_METRICS ? out->nr : KSCEN_MAX_METRICS,
		    vals, reason, *seconds, noise);
	}
	free(reason);
	return 0;
}

int kscen_journal_round_end(struct kscen_journal *j)
{
	long long now;

	if (!j || j->replay)
		return 0;
	now = kscen_now_ns();
	if (j->err || now - j->synced_ns < SYNC_EVERY_NS)
		return j->err;
	if (fdatasync(j->fd) < 0)
		j->err = -errno;
	j->synced_ns = now;
	return j->err;
}

int kscen_journal_error(const struct kscen_journal *j)
{
	return j ? j->err : 0;
}

void kscen_journal_close(struct kscen_journal *j, bool remove)
{
	if (!j)
		return;
	if (j->replay)
		fclose(j->replay);
	if (j->fd >= 0 && !remove && !j->err)
		fdatasync(j->fd);	/* a journal kept: all of it on the disk */
	if (j->fd >= 0)
		close(j->fd);
	if (remove && j->path) {
		char *copy = kscen_xasprintf("%s.scenario", j->path);

		unlink(j->path);
		unlink(copy);	/* if the scenario was kept beside it */
		free(copy);
	}
	free(j->path);
	free(j->partial);
	free(j);
}

void kscen_journal_note_result(struct kscen_journal *j, const char *path)
{
	if (!j)
		return;
	put_str(j, "p", path);
	if (!j->err && fdatasync(j->fd) < 0)
		j->err = -errno;
}

const char *kscen_journal_partial(const struct kscen_journal *j)
{
	return j ? j->partial : NULL;
}
