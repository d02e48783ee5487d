// SPDX-License-Identifier: GPL-2.0
/*
 * simulate-history.c - kscen's verdict between runs on synthetic histories,
 * away from any machine: a job's history of K runs of 5 samples (log-normal:
 * a between-run SD TAU, an in-run SD SIGMA, a share OUT of samples slowed by
 * 50 to 200%), then one more run, either from the same distribution (A/A:
 * any verdict is false) or shifted by 3 times the SD of a run's log median
 * (found: "worse"). 2000 trials a line (SIM_TRIALS=N: N), fixed seed:
 * the output is exact.
 * Then a 100-job A/A run 1000 times: the flagged count against the footer's
 * "expected by chance", and how often Benjamini-Hochberg at 0.05 flags any.
 * Built and run by bench/simulate.sh history.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/history.h"

static double unif(unsigned long long *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return ((*s >> 11) + 0.5) / 9007199254740992.0;
}

/* Box-Muller */
static double gauss(unsigned long long *s)
{
	double u = unif(s), v = unif(s);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void sim_run(struct kscen_metric *m, double b, double sigma, double out,
		    unsigned long long *s)
{
	for (unsigned i = 0; i < 5; i++) {
		double l = b + sigma * gauss(s);

		if (unif(s) < out)
			l += log(1.5 + 1.5 * unif(s));
		m->samples[i] = 100 * exp(l);
	}
	m->nr_samples = 5;
}

/* The SD of a run's log median, from 20000 runs. */
static double sd_of_median(double tau, double sigma, double out)
{
	unsigned long long s = 12345;
	double x[5], sum = 0, ss = 0, l, se;
	struct kscen_metric m = { .samples = x };

	for (unsigned i = 0; i < 20000; i++) {
		sim_run(&m, tau * gauss(&s), sigma, out, &s);
		kscen_log_median(&m, &l, &se);
		sum += l;
		ss += l * l;
	}
	return sqrt(ss / 20000 - sum * sum / 20000 / 20000);
}

/* A history of @k runs, then the verdict on one run shifted by @shift. */
static void trial(unsigned k, double tau, double sigma, double out,
		  double shift, unsigned long long *s, struct kscen_change *c)
{
	struct kscen_series_pt pt[64];
	struct kscen_metric m = { .samples = (double[5]){ 0 }, .better = KSCEN_LOWER };
	struct kscen_drift d;

	for (unsigned i = 0; i < k; i++) {
		sim_run(&m, tau * gauss(s), sigma, out, s);
		kscen_log_median(&m, &pt[i].l, &pt[i].se);
	}
	kscen_drift_from(pt, k, &d);
	sim_run(&m, tau * gauss(s) + shift, sigma, out, s);
	memset(c, 0, sizeof(*c));
	kscen_change_between(c, &m, &d, KSCEN_LOWER);
}

int main(void)
{
	static const struct { double tau, sigma, out; } mix[] = {
		{ 0.03, 0.02, 0.1 }, { 0.01, 0.03, 0.1 }, { 0.05, 0.01, 0.1 },
		{ 0.03, 0.02, 0 },
	};
	static const unsigned ks[] = { 3, 5, 10, 20 };
	const char *env = getenv("SIM_TRIALS");
	const int t = env ? atoi(env) : 0;
	const unsigned T = t > 0 ? (unsigned)t : 2000;

	printf("history of K runs of 5 samples; %u trials a line\n", T);
	printf("between  in-run  outliers  SD of a median  K   A/A flagged  3 SD found  cannot tell\n");
	for (unsigned mi = 0; mi < sizeof(mix) / sizeof(mix[0]); mi++) {
		double sd = sd_of_median(mix[mi].tau, mix[mi].sigma, mix[mi].out);

		for (unsigned ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
			unsigned long long s = 0x9e3779b97f4a7c15ull;
			unsigned aa = 0, found = 0, ct = 0;
			struct kscen_change c;

			for (unsigned t = 0; t < T; t++) {
				trial(ks[ki], mix[mi].tau, mix[mi].sigma, mix[mi].out, 0, &s, &c);
				aa += c.verdict == KSCEN_WORSE || c.verdict == KSCEN_BETTER;
				ct += c.verdict == KSCEN_CANNOT_TELL;
				trial(ks[ki], mix[mi].tau, mix[mi].sigma, mix[mi].out, 3 * sd, &s, &c);
				found += c.verdict == KSCEN_WORSE;
			}
			printf("%6.0f%%  %5.0f%%  %7.0f%%  %13.2f%%  %2u  %10.1f%%  %9.1f%%  %10.1f%%\n",
			       100 * mix[mi].tau, 100 * mix[mi].sigma, 100 * mix[mi].out,
			       100 * sd, ks[ki], 100.0 * aa / T, 100.0 * found / T, 100.0 * ct / T);
		}
	}

	/* A 100-job A/A run, 1000 times: histories of 5 runs, no outliers. */
	{
		unsigned long long s = 0xfd7ull;
		unsigned R = 1000, J = 100, any = 0, flagged = 0, most = 0;
		double expected = 0, p[100], q[100];

		for (unsigned r = 0; r < R; r++) {
			unsigned f = 0;
			bool hit = false;

			for (unsigned j = 0; j < J; j++) {
				struct kscen_change c;

				trial(5, 0.03, 0.02, 0, 0, &s, &c);
				p[j] = c.p;
				expected += c.size;
				f += c.verdict == KSCEN_WORSE || c.verdict == KSCEN_BETTER;
			}
			kscen_bh_qvalues(p, J, q);
			for (unsigned j = 0; j < J; j++)
				hit |= q[j] <= 0.05;
			any += hit;
			flagged += f;
			most = f > most ? f : most;
		}
		printf("\n100-job A/A runs (histories of 5 runs): %u runs; flagged %.2f a run "
		       "(at most %u), expected by chance %.2f; any q <= 0.05 in %u of %u runs\n",
		       R, (double)flagged / R, most, expected / R, any, R);
	}
	return 0;
}
