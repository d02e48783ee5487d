// SPDX-License-Identifier: GPL-2.0
/*
 * journal_read.c - a run's journal read back for --resume: its header, the
 * "p" records checked (a partial result of this very run beside it), then
 * the sample records replayed, a damaged one cutting the journal there.
 * The format and why it is read as hostile input: journal.c.
 */
#define _GNU_SOURCE	/* getline */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <stdio.h>
#include "lib/diag.h"
#include "lib/util.h"
#include "store/store.h"
#include "journal.h"
#include "journal_int.h"

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
	for (unsigned i = 0; i < h->nr_modules; i++) {
		free(h->modules[i]);
		free(h->module_shas[i]);
	}
	free(h->modules);
	free(h->module_shas);
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
		} else if (!strcmp(line, "module")) {
			char *sha = strchr(val, ' ');

			if (!sha || h->nr_modules >= 4096)
				goto out;
			*sha++ = '\0';
			if (dec(val) || strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)
				goto out;
			h->modules = kscen_xrealloc(h->modules, (h->nr_modules + 1) * sizeof(char *));
			h->module_shas = kscen_xrealloc(h->module_shas,
							(h->nr_modules + 1) * sizeof(char *));
			h->modules[h->nr_modules] = kscen_xstrdup(val);
			h->module_shas[h->nr_modules++] = kscen_xstrdup(sha);
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

/*
 * Is @path a partial result of the run that started at @started, saved
 * beside the journal @journal? 0 with *@full its path there (malloc'ed), or
 * -EINVAL with why in @err. A result no longer there is fine: removed.
 */
static int partial_ok(const char *journal, const char *started, const char *path,
		      char **full, char *err, size_t len)
{
	char *jcopy = kscen_xstrdup(journal), *pcopy = kscen_xstrdup(path);
	char *jdir = dirname(jcopy), *name = basename(pcopy), jreal[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct kscen_run *r = NULL;
	char lerr[8] = "";	/* quiet: its own message is this one */
	int ret = -EINVAL;

	*full = NULL;
	if (!kscen_result_name_ok(name) || !realpath(jdir, jreal)) {
		snprintf(err, len, "p: %s is not a result kscen saved beside this journal", path);
		goto out;
	}
	if (slash) {	/* the directory it was saved in must be the journal's */
		char *d = kscen_xasprintf("%.*s", (int)(slash - path + 1), path);
		bool same = realpath(d, real) && !strcmp(real, jreal);

		free(d);
		if (!same) {
			snprintf(err, len, "p: %s is not a result kscen saved beside this "
				 "journal", path);
			goto out;
		}
	}
	*full = kscen_xasprintf("%s/%s", jreal, name);
	if (access(*full, F_OK) && errno == ENOENT) {
		ret = 0;
		goto out;
	}
	if (kscen_result_load_err(*full, &r, lerr, sizeof(lerr)) || !r->partial ||
	    !kscen_same_str(r->started, started)) {
		snprintf(err, len, "p: %s is not a result of this run (a partial one "
			 "that started at %s)", path, started);
		goto out;
	}
	ret = 0;
out:
	if (ret) {
		free(*full);
		*full = NULL;
	}
	kscen_run_free(r);
	free(jcopy);
	free(pcopy);
	return ret;
}

int kscen_journal_resume(const char *path, struct kscen_journal_hdr *h,
			 struct kscen_journal **out)
{
	struct kscen_journal *j = NULL;
	char *buf = NULL, *partial = NULL, err[PATH_MAX + 128];
	size_t cap = 0;
	off_t end = 0;
	unsigned lineno = 1, first;
	ssize_t n;
	FILE *f = NULL;
	int fd, ret;

	*out = NULL;
	/* Regular files only, never blocking: the same rule as every input. */
	ret = kscen_read_regular(path, 0, &buf, &cap);	/* -EFBIG: regular */
	free(buf);
	buf = NULL;
	if (ret && ret != -EFBIG)
		return ret;
	/* Ours alone from here: another run or resume of it holds the lock. */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (ret == -EBUSY)
			kscen_file_error(path, ((struct kscen_mark){ 0, 0 }),
				    "another kscen is running this journal (its "
				"run, or a resume of it); not resumed");
		close(fd);
		return ret;
	}
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		goto fail;
	}
	ret = read_header(f, h, &lineno);
	/* The copy's name is the journal's, never one the journal says. */
	if (h->scenario_copy)
		h->scenario_copy = kscen_xasprintf("%s.scenario", path);
	if (ret) {
		kscen_file_error(path, ((struct kscen_mark){ lineno, 1 }),
			    "not a kscen journal, or a damaged header");
		ret = -EINVAL;
		goto fail;
	}
	/*
	 * Where the whole lines end: a torn record is cut off before
	 * appending. Every "p" record is checked here, before anything runs.
	 */
	end = ftello(f);
	first = ++lineno;
	for (; (n = getline(&buf, &cap, f)) > 0 && buf[n - 1] == '\n'; lineno++) {
		end += n;
		buf[n - 1] = '\0';
		if (strncmp(buf, "p ", 2))
			continue;
		free(partial);
		partial = NULL;
		if (dec(buf + 2) ? (snprintf(err, sizeof(err), "p: a damaged path"), 1) :
		    partial_ok(path, h->started, buf + 2, &partial, err, sizeof(err))) {
			kscen_file_error(path, ((struct kscen_mark){ lineno, 1 }),
				    "%s; not resumed", err);
			ret = -EINVAL;
			goto fail;
		}
	}
	free(buf);
	buf = NULL;
	if (ftruncate(fd, end) < 0) {
		ret = -errno;
		goto fail;
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
	j->fd = fd;
	j->lineno = first;
	j->off = ftello(f);
	j->partial = partial;
	j->started = kscen_xstrdup(h->started);
	*out = j;
	return 0;
fail:
	free(buf);
	free(partial);
	if (f)
		fclose(f);
	close(fd);
	hdr_fini(h);
	return ret;
}

unsigned long kscen_journal_replayed(const struct kscen_journal *j)
{
	return j ? j->replayed : 0;
}

/*
 * The record at the replay's line is damaged (@why): say so with its line,
 * cut the journal there and stop replaying: the samples from here on are
 * taken again, and appended where the damage was.
 */
static void cut(struct kscen_journal *j, const char *why)
{
	kscen_file_error(j->path, ((struct kscen_mark){ j->lineno, 1 }),
		    "%s; the journal is cut here and the samples from "
		"it on are taken again", why);
	fclose(j->replay);
	j->replay = NULL;
	if (ftruncate(j->fd, j->off) < 0 && !j->err)
		j->err = -errno;
	if (j->partial)		/* its "p" record may have been past the cut */
		put_str(j, "p", j->partial);
}

/* A finite hex float (or decimal), all of @tok. */
static bool finite_num(const char *tok, double *v)
{
	char *end;

	*v = strtod(tok, &end);
	return end != tok && !*end && isfinite(*v);
}

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
 * if it is this sample's (1: none left, take it; 0: replayed). SECONDS,
 * the runner's time on the sample, is missing in a journal of kscen
 * before 2026-12: 0. A damaged record cuts the journal (cut()).
 */
static int replay_one(struct kscen_journal *j, unsigned round, unsigned k,
		      struct kscen_sample_out *out, double *seconds)
{
	char *buf = NULL, *line, *tok, *save, why[160];
	size_t cap = 0;
	unsigned long r, kk, nr;
	long ret;

	/* "p PATH" records were checked when the journal was opened */
	while ((line = next_line(j->replay, &buf, &cap)) && !strncmp(line, "p ", 2)) {
		j->lineno++;
		j->off = ftello(j->replay);
	}
	if (!line) {	/* all replayed: from here on, samples are taken */
		fclose(j->replay);
		j->replay = NULL;
		free(buf);
		return 1;
	}
	memset(out, 0, sizeof(*out));
	snprintf(why, sizeof(why), "not a sample record");
	tok = strtok_r(line, " ", &save);
	if (!tok || strcmp(tok, "s"))
		goto bad;
	if (!(tok = strtok_r(NULL, " ", &save)) || parse_uint(tok, ~0U, &r) ||
	    !(tok = strtok_r(NULL, " ", &save)) || parse_uint(tok, ~0U, &kk))
		goto bad;
	if (r != round || kk != k) {
		snprintf(why, sizeof(why), "a sample of round %lu, job %lu where this "
			 "run takes round %u, job %u (a line repeated or lost?)",
			 r + 1, kk + 1, round + 1, k + 1);
		goto bad;
	}
	snprintf(why, sizeof(why), "a damaged sample record");
	if (!(tok = strtok_r(NULL, " ", &save)))
		goto bad;
	ret = strtol(tok, &tok, 10);
	if (*tok || ret > KSCEN_SKIP || ret < -4095)
		goto bad;
	out->ret = ret;
	if (!(tok = strtok_r(NULL, " ", &save)) ||
	    parse_uint(tok, KSCEN_MAX_METRICS, &nr))
		goto bad;
	out->nr = nr;
	for (unsigned i = 0; i < nr; i++) {
		if (!(tok = strtok_r(NULL, " ", &save))) {
			snprintf(why, sizeof(why), "a sample record cut short: %u of "
				 "%lu values", i, nr);
			goto bad;
		}
		if (!finite_num(tok, &out->v[i])) {
			snprintf(why, sizeof(why), "value %u of a sample record is '%.32s', "
				 "not a finite number", i + 1, tok);
			goto bad;
		}
	}
	if (!(tok = strtok_r(NULL, " ", &save)) || dec(tok)) {
		snprintf(why, sizeof(why), "a sample record without its reason");
		goto bad;
	}
	snprintf(out->reason, sizeof(out->reason), "%s", tok);
	*seconds = 0;
	if ((tok = strtok_r(NULL, " ", &save))) {
		if (!finite_num(tok, seconds) || *seconds < 0)
			goto bad;
		tok = strtok_r(NULL, " ", &save);
		if (tok && (strcmp(tok, "n") || replay_noise(&save, &out->noise)))
			goto bad;
	}
	j->replayed++;
	j->lineno++;
	j->off = ftello(j->replay);
	free(buf);
	return 0;
bad:
	free(buf);
	memset(out, 0, sizeof(*out));
	*seconds = 0;
	cut(j, why);
	return 1;
}

int kscen_journal_replay_next(struct kscen_journal *j, unsigned round, unsigned k,
			      struct kscen_sample_out *out, double *seconds)
{
	*seconds = 0;
	return j && j->replay ? replay_one(j, round, k, out, seconds) : 1;
}

const char *kscen_journal_partial(const struct kscen_journal *j)
{
	return j ? j->partial : NULL;
}

bool kscen_journal_partial_ok(const struct kscen_journal *j, const char *path)
{
	char err[PATH_MAX + 128], *full;
	bool ok;

	if (!j || !path)
		return false;
	ok = !partial_ok(j->path, j->started, path, &full, err, sizeof(err)) && full;
	free(full);
	return ok;
}
