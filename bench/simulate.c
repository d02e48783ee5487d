// SPDX-License-Identifier: GPL-2.0
/*
 * simulate.c - kscen's significance test on synthetic samples, away from
 * any machine: how often an A/A comparison is called significant and how
 * often a planted +10% is found, for n samples a side and a noise CV, with
 * an optional noise shared by the two jobs of a round (what interleaving
 * and pairs are for). 2000 trials each, fixed seed: the output is exact.
 * Built and run by bench/simulate.sh [ROUND_CV].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/run.h"

/* xorshift64 and Box-Muller. */
static double gauss(unsigned long long *s)
{
	double u, v;

	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	u = ((*s >> 11) + 0.5) / 9007199254740992.0;
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	v = ((*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

int main(int argc, char **argv)
{
	static const double cvs[] = { 0.01, 0.03, 0.05, 0.10 };
	static const unsigned ns[] = { 5, 10, 30 };
	double round_cv = argc > 1 ? atof(argv[1]) : 0;
	const unsigned T = 2000;

	printf("round noise CV %g%%; %u trials a line\n", 100 * round_cv, T);
	printf("  n  CV  | unpaired: A/A  +10%% found | pairs allowed: A/A  +10%% found\n");
	for (unsigned ni = 0; ni < 3; ni++) {
		for (unsigned ci = 0; ci < 4; ci++) {
			unsigned long long seed = 0x9e3779b97f4a7c15ull;
			unsigned n = ns[ni], fp = 0, det = 0, pfp = 0, pdet = 0;
			double a[30], b[30], c[30], cv = cvs[ci], r;
			struct kscen_metric ma = { .samples = a, .nr_samples = n };
			struct kscen_metric mb = { .samples = b, .nr_samples = n };
			struct kscen_metric mc = { .samples = c, .nr_samples = n };
			struct kscen_change ch;

			for (unsigned t = 0; t < T; t++) {
				for (unsigned i = 0; i < n; i++) {
					r = round_cv * gauss(&seed);
					a[i] = 100 * exp(r + cv * gauss(&seed));
					b[i] = 100 * exp(r + cv * gauss(&seed));
					c[i] = 110 * exp(r + cv * gauss(&seed));
				}
				kscen_change_compute(&ma, &mb, false, &ch);
				fp += ch.verdict != KSCEN_SAME;
				kscen_change_compute(&ma, &mc, false, &ch);
				det += ch.verdict == KSCEN_WORSE;
				kscen_change_compute(&ma, &mb, true, &ch);
				pfp += ch.verdict != KSCEN_SAME;
				kscen_change_compute(&ma, &mc, true, &ch);
				pdet += ch.verdict == KSCEN_WORSE;
			}
			printf(" %2u %3.0f%% |          %5.1f%%  %5.1f%%     |               %5.1f%%  %5.1f%%\n",
			       n, 100 * cv, 100.0 * fp / T, 100.0 * det / T,
			       100.0 * pfp / T, 100.0 * pdet / T);
		}
	}
	return 0;
}
