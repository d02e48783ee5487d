// SPDX-License-Identifier: GPL-2.0
/*
 * sync-cost.c FILE [N] - what the run journal's durability costs on this
 * machine: N (default 200) appends of one line to FILE, each followed by
 * fdatasync(); prints microseconds per append+sync. FILE is removed.
 * bench/overhead.sh, figure 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 200, fd;
	struct timespec a, b;

	if (argc < 2 || n < 1)
		return 2;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
	if (fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++)
		if (write(fd, "s 0 0 0 1 0x1p+0 -\n", 19) != 19 || fdatasync(fd))
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	unlink(argv[1]);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n);
	return 0;
}
