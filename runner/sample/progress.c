// SPDX-License-Identifier: GPL-2.0
/*
 * progress.c - where a run is, said through the diagnostics sink as
 * KSCEN_DIAG_INFO (lib/diag.h; stderr). On a terminal, one line redrawn at
 * most ten times a second ("kscen: round 3/10, job 4/12, 0:12 elapsed,
 * about 0:34 left"); the estimate is the mean time per sample so far times
 * the samples still planned, so it is only as good as the jobs are alike.
 * Not on a terminal, the plain "kscen: round 3/10" line a round that logs
 * and CI output have always had.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "lib/diag.h"
#include "lib/util.h"

#define REDRAW_NS 100000000LL	/* 10 Hz */

void kscen_progress_init(struct kscen_progress *p, bool quiet, int tty,
			 long long (*now)(void))
{
	const char *term = getenv("TERM");

	memset(p, 0, sizeof(*p));
	p->quiet = quiet;
	if (tty < 0)
		tty = isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb"));
	p->tty = tty;
	p->now = now ? now : kscen_now_ns;
	p->t0 = p->now();
}

void kscen_progress_duration(long long ns, char *buf, unsigned len)
{
	long long s = ns < 0 ? 0 : (ns + 500000000LL) / 1000000000LL;

	if (s >= 3600)
		snprintf(buf, len, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%lld:%02lld", s / 60, s % 60);
}

static void draw(struct kscen_progress *p)
{
	long long now = p->now(), el = now - p->t0;
	char e[32], l[32];

	kscen_progress_duration(el, e, sizeof(e));
	l[0] = '\0';
	if (p->done)
		kscen_progress_duration((long long)((double)el / p->done * p->left),
					l, sizeof(l));
	kscen_diag_info("\rkscen: %s %u/%u, job %u/%u, %s elapsed%s%s%s\033[K", p->what,
			p->round, p->rounds, p->job, p->jobs, e, p->done ? ", about " : "",
			l, p->done ? " left" : "");
	p->drawn = true;
	p->last_draw = now;
}

void kscen_progress_round(struct kscen_progress *p, bool warmup,
			  unsigned round, unsigned rounds, unsigned jobs,
			  unsigned long long later)
{
	if (p->quiet)
		return;
	p->what = warmup ? "warmup round" : "round";
	p->round = round;
	p->rounds = rounds;
	p->job = 0;
	p->jobs = jobs;
	p->left = jobs + later;
	if (!p->tty) {
		kscen_diag_info("kscen: %s %u/%u\n", p->what, round, rounds);
		return;
	}
	draw(p);
}

void kscen_progress_sample(struct kscen_progress *p)
{
	p->done++;
	if (p->left)
		p->left--;
	if (p->quiet || !p->tty)
		return;
	p->job++;
	if (p->now() - p->last_draw >= REDRAW_NS)
		draw(p);
}

void kscen_progress_clear(struct kscen_progress *p)
{
	if (p->drawn)
		kscen_diag_info("\r\033[K");
	p->drawn = false;
}
