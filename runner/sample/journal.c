// SPDX-License-Identifier: GPL-2.0
/*
 * journal.c - the append-only record of a run in progress, beside its result:
 * <results>/<scenario>/<started>-<host>.journal. This file writes it;
 * journal_read.c reads it back for --resume (journal_int.h: what both share).
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
 *
 * A journal is read as hostile input: the one path it names that kscen
 * acts on ("p", a partial result it removes once the run is whole) must
 * be a result of this very run beside the journal, or the journal is
 * refused with its line; a damaged sample record (a line repeated or cut,
 * a value that is not a finite number) is named by its line and the
 * journal cut there, so the samples from it on are taken again rather
 * than the resume failing the same way each time. The run holding the
 * journal, or resuming it, has an exclusive flock() on it: a second resume
 * is refused while it runs.
 */
#define _GNU_SOURCE	/* vasprintf, in put() (journal_int.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <stdio.h>
#include "lib/util.h"
#include "journal.h"
#include "journal_int.h"

#define SYNC_EVERY_NS 1000000000LL	/* at most one fdatasync a second */

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
	j->started = kscen_xstrdup(h->started);
	flock(j->fd, LOCK_EX | LOCK_NB);	/* new: nobody else has it */
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
	for (unsigned i = 0; i < h->nr_modules; i++) {
		char *e = enc(h->modules[i]);

		put(j, "module %s %s\n", e, h->module_shas[i]);
		free(e);
	}
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

const char *kscen_journal_path(const struct kscen_journal *j)
{
	return j ? j->path : NULL;
}

int kscen_journal_sample(struct kscen_journal *j, unsigned round, unsigned k,
			 const struct kscen_job *job, long long timeout_ns,
			 struct kscen_sample_out *out, double *seconds)
{
	long long t0;
	char *reason;
	int ret;

	ret = kscen_journal_replay_next(j, round, k, out, seconds);
	if (ret <= 0)
		return ret;
	*seconds = 0;
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
	free(j->started);
	free(j);
}

void kscen_journal_note_result(struct kscen_journal *j, const char *path)
{
	char *real;

	if (!j)
		return;
	/* where a resume from another directory finds it: the absolute path */
	real = realpath(path, NULL);
	put_str(j, "p", real ? real : path);
	free(real);
	if (!j->err && fdatasync(j->fd) < 0)
		j->err = -errno;
}
