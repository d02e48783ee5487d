// SPDX-License-Identifier: GPL-2.0
/*
 * sha256-speed.c - what the scenario checksum (runner/lib/sha256.c) costs
 * on a file of N bytes (default 592107: the one-axis 10^5-value scenario of
 * bench/overhead.sh, figure 3): the fastest of R runs, in milliseconds,
 * and the digest (the same for every version of sha256.c).
 *
 *   cc -O2 -Irunner/lib -o /tmp/sha-new bench/sha256-speed.c runner/lib/sha256.c
 *   git show REV:runner/lib/sha256.c >/tmp/sha256-old.c
 *   cc -O2 -Irunner/lib -o /tmp/sha-old bench/sha256-speed.c /tmp/sha256-old.c
 *   for r in 1 2 3; do /tmp/sha-old; /tmp/sha-new; done
 *
 * The figures are in docs/performance.md ("The checksum").
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

char *kscen_sha256_hex(const void *buf, size_t len);

/* The one function of util.c that sha256.c calls. */
void *kscen_xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		exit(1);
	return p;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 592107;
	int runs = argc > 2 ? atoi(argv[2]) : 20;
	char *buf = kscen_xmalloc(n + 1), *hex = NULL;
	double best = -1;

	/* a list of numbers, as the scenario is */
	for (size_t i = 0; i < n; i++)
		buf[i] = "0123456789, "[i % 12];
	for (int r = 0; r < runs; r++) {
		struct timespec a, b;
		double ms;

		free(hex);
		clock_gettime(CLOCK_MONOTONIC, &a);
		hex = kscen_sha256_hex(buf, n);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
		if (best < 0 || ms < best)
			best = ms;
	}
	printf("%.3f ms for %zu bytes, %s\n", best, n, hex);
	free(hex);
	free(buf);
	return 0;
}
