// SPDX-License-Identifier: GPL-2.0
/*
 * fleet.c - kscen compare --fleet OLD NEW: two sets of runs of one
 * scenario from several hosts (before and after a kernel change, on every
 * machine of a lab), compared host by host and summed up across hosts.
 *
 * A change that shows on one machine only is a property of that machine;
 * one that shows on every machine of a configuration is a property of the
 * kernel on that configuration. So each host's own change comes first
 * (its newest complete run in OLD against its newest in NEW), then per job
 * the geometric mean of the hosts' ratios (the mean of ratios that is
 * symmetric: +100% and -50% cancel), and the hosts grouped by the
 * environment they share, with what sets each group apart.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/diag.h"
#include "envdiff.h"
#include "store/history.h"
#include "store/store.h"
#include "lib/util.h"
#include "report.h"
#include "expand/shard.h"

struct host_pair {
	const char *host;
	struct kscen_run *old, *new_;
	unsigned group;
};

/* Each host's newest usable run among the runs of @arg (a file or a dir). */
static int load_set(const char *arg, struct kscen_history *h)
{
	struct stat st;
	struct kscen_run *r;

	memset(h, 0, sizeof(*h));
	if (stat(arg, &st)) {
		kscen_error("compare", "%s: %s", arg, strerror(errno));
		return -EINVAL;
	}
	if (S_ISDIR(st.st_mode))
		return kscen_history_load(arg, NULL, NULL, NULL, h) ? -EINVAL : 0;
	if (kscen_result_load(arg, &r))
		return -EINVAL;
	h->run = kscen_xcalloc(1, sizeof(*h->run));
	h->run[0] = r;
	h->nr = 1;
	return 0;
}

/* The newest (by started) run of @host in @h, or NULL. */
static struct kscen_run *newest(const struct kscen_history *h, const char *host)
{
	struct kscen_run *best = NULL;

	for (unsigned i = 0; i < h->nr; i++) {
		struct kscen_run *r = h->run[i];

		if (!r->system.hostname || strcmp(r->system.hostname, host))
			continue;
		if (!best || (r->started && best->started &&
			      strcmp(r->started, best->started) > 0))
			best = r;
	}
	return best;
}

/* Do @a and @b differ in more than their host names? */
static bool same_config(const struct kscen_run *a, const struct kscen_run *b)
{
	struct kscen_envdiff *v;
	unsigned nr = kscen_env_diff(a, b, &v), other = 0;

	for (unsigned i = 0; i < nr; i++)
		other += strcmp(v[i].name, "hostname") != 0;
	kscen_env_diff_free(v, nr);
	return !other;
}

int kscen_fleet_compare(FILE *out, const char *old_arg, const char *new_arg)
{
	struct kscen_history ho, hn;
	struct host_pair *hp = NULL;
	unsigned nh = 0, ng = 0, i, k, g;
	double all_log = 0;
	unsigned all_n = 0;
	int ret = -EINVAL;

	if (load_set(old_arg, &ho))
		return -EINVAL;
	if (load_set(new_arg, &hn)) {
		kscen_history_free(&ho);
		return -EINVAL;
	}
	hp = kscen_xcalloc(hn.nr + 1, sizeof(*hp));
	/* Hosts of NEW, in first-seen order, that OLD has too. */
	for (i = 0; i < hn.nr; i++) {
		const char *host = hn.run[i]->system.hostname;
		bool seen = false;

		if (!host)
			continue;
		for (k = 0; k < nh; k++)
			seen |= !strcmp(hp[k].host, host);
		if (seen)
			continue;
		hp[nh].host = host;
		hp[nh].new_ = newest(&hn, host);
		hp[nh].old = newest(&ho, host);
		if (!hp[nh].old) {
			fprintf(out, "# %s: no run in %s, left out\n", host, old_arg);
			continue;
		}
		if (strcmp(hp[nh].old->scenario, hp[nh].new_->scenario)) {
			fprintf(out, "# %s: scenario '%s' against '%s', left out\n", host,
				hp[nh].old->scenario, hp[nh].new_->scenario);
			continue;
		}
		nh++;
	}
	if (!nh) {
		kscen_error("compare --fleet", "no host has usable runs in "
			    "both %s and %s", old_arg, new_arg);
		goto out;
	}
	/* Groups: hosts whose NEW runs share every environment field. */
	for (i = 0; i < nh; i++) {
		for (k = 0; k < i && !same_config(hp[k].new_, hp[i].new_); k++)
			;
		hp[i].group = k < i ? hp[k].group : ng++;
	}

	fprintf(out, "# kscen compare --fleet: scenario %s, %u host%s, %u "
		"configuration%s\n", hp[0].new_->scenario, nh, nh == 1 ? "" : "s",
		ng, ng == 1 ? "" : "s");
	for (i = 0; i < nh; i++) {
		struct kscen_run *nr_ = hp[i].new_, *or_ = hp[i].old;

		fprintf(out, "\n## %s (configuration %c): kernel %s -> %s\n", hp[i].host,
			'A' + (hp[i].group % 26), or_->system.kernel ? or_->system.kernel : "?",
			nr_->system.kernel ? nr_->system.kernel : "?");
		for (k = 0; k < nr_->nr_jobs; k++) {
			const struct kscen_job_result *nj = &nr_->jobs[k];
			const struct kscen_job_result *oj = kscen_run_find(or_, nj->id);
			const struct kscen_metric *nm = kscen_primary(nj), *om;
			struct kscen_change c;
			char buf[160];

			om = oj && nm && kscen_job_same(oj, nj, false) ?
			     kscen_find_metric(oj, nm->name) : NULL;
			if (!om || !kscen_change_compute(om, nm, false, &c)) {
				fprintf(out, "  %-12s %s\n", "-", nj->id);
				continue;
			}
			kscen_format_change(&c, buf, sizeof(buf));
			fprintf(out, "  %s  %s\n", buf, nj->id);
		}
	}

	/* Per job, across hosts: the geometric mean of new/old medians. */
	fprintf(out, "\n## across hosts (geometric mean of the ratios of medians)\n");
	for (k = 0; k < hp[0].new_->nr_jobs; k++) {
		const char *id = hp[0].new_->jobs[k].id;
		double sum[27] = { 0 };
		unsigned n[27] = { 0 }, worse = 0, better = 0;
		enum kscen_better dir = KSCEN_LOWER;

		for (i = 0; i < nh; i++) {
			const struct kscen_job_result *nj = kscen_run_find(hp[i].new_, id);
			const struct kscen_job_result *oj = kscen_run_find(hp[i].old, id);
			const struct kscen_metric *nm = nj ? kscen_primary(nj) : NULL, *om;
			struct kscen_change c;

			om = oj && nm && kscen_job_same(oj, nj, false) ?
			     kscen_find_metric(oj, nm->name) : NULL;
			if (!om || !kscen_change_compute(om, nm, false, &c) ||
			    !(c.old > 0) || !(c.new_ > 0))
				continue;
			dir = nm->better;
			g = hp[i].group < 26 ? hp[i].group : 26;
			sum[g] += log(c.new_ / c.old);
			n[g]++;
			sum[26] += g == 26 ? 0 : log(c.new_ / c.old);
			n[26] += g == 26 ? 0 : 1;
			worse += c.verdict == KSCEN_WORSE;
			better += c.verdict == KSCEN_BETTER;
		}
		if (!n[26]) {
			fprintf(out, "  %-9s %s\n", "-", id);
			continue;
		}
		fprintf(out, "  %+7.1f%%  %s  (%u host%s: %u worse, %u better, %u ~; "
			"%s is better)", 100 * expm1(sum[26] / n[26]), id, n[26],
			n[26] == 1 ? "" : "s", worse, better, n[26] - worse - better,
			dir == KSCEN_LOWER ? "lower" : "higher");
		for (g = 0; ng > 1 && g < ng && g < 26; g++)
			if (n[g])
				fprintf(out, " %c: %+.1f%%", 'A' + g, 100 * expm1(sum[g] / n[g]));
		fputc('\n', out);
		all_log += sum[26];
		all_n += n[26];
	}
	if (all_n)
		fprintf(out, "  %+7.1f%%  all jobs, all hosts (%u ratios)\n",
			100 * expm1(all_log / all_n), all_n);

	/* What sets the configurations apart. */
	fprintf(out, "\n## configurations\n");
	for (g = 0; g < ng; g++) {
		const struct kscen_run *rep = NULL;

		fprintf(out, "  %c:", 'A' + (g % 26));
		for (i = 0; i < nh; i++)
			if (hp[i].group == g) {
				fprintf(out, " %s", hp[i].host);
				rep = rep ? rep : hp[i].new_;
			}
		fputc('\n', out);
		for (i = 0; g && i < nh; i++)
			if (hp[i].group == 0) {
				struct kscen_envdiff *v;
				unsigned nd = kscen_env_diff(hp[i].new_, rep, &v);

				for (k = 0; k < nd; k++) {
					if (!strcmp(v[k].name, "hostname"))
						continue;
					if (v[k].tokens)
						fprintf(out, "     %s vs A: %s\n", v[k].name, v[k].tokens);
					else
						fprintf(out, "     %s: %s (A: %s)\n", v[k].name,
							v[k].new_, v[k].old);
				}
				kscen_env_diff_free(v, nd);
				break;
			}
	}
	ret = 0;
out:
	free(hp);
	kscen_history_free(&ho);
	kscen_history_free(&hn);
	return ret;
}
