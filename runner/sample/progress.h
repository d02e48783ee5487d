/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress.h - where a run is, said to the diagnostics sink as
 * KSCEN_DIAG_INFO (progress.c). On a terminal one line redrawn in place: round, job, elapsed time and an estimate of what
 * is left; elsewhere a plain line a round, as logs want it; nothing with -q.
 */
#ifndef KSCEN_PROGRESS_H
#define KSCEN_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

struct kscen_progress {
	bool quiet, tty;
	long long t0, last_draw;	/* ns */
	unsigned long long done;	/* samples taken */
	unsigned long long left;	/* samples still planned */
	const char *what;		/* "round", "warmup round" */
	unsigned round, rounds;		/* 1-based */
	unsigned job, jobs;		/* within the round, 1-based */
	bool drawn;			/* a line is on the terminal */
	long long (*now)(void);		/* the clock: kscen_now_ns() */
};

/* @tty < 0: ask isatty(2) (and TERM != dumb); @now NULL: kscen_now_ns(). */
void kscen_progress_init(struct kscen_progress *p, bool quiet, int tty,
			 long long (*now)(void));
/*
 * Round @round of @rounds begins, @jobs samples in it, @later samples in
 * the rounds after it (for the estimate).
 */
void kscen_progress_round(struct kscen_progress *p, bool warmup,
			  unsigned round, unsigned rounds, unsigned jobs,
			  unsigned long long later);
/* One sample of the round taken. */
void kscen_progress_sample(struct kscen_progress *p);
/* Clear the line before printing something else to stderr, and at the end. */
void kscen_progress_clear(struct kscen_progress *p);
/* "1:05", "1:02:03": @ns as minutes:seconds or hours:minutes:seconds. */
void kscen_progress_duration(long long ns, char *buf, unsigned len);

#endif
