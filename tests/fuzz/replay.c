// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - a fuzz target's inputs replayed without libFuzzer: linked with
 * one tests/fuzz/fuzz_X.c by the normal compiler (make test builds
 * build/fuzz-replay-X), it hands each file named on its command line,
 * whole, to LLVMFuzzerTestOneInput(), as libFuzzer does for the inputs it
 * is given. What the target checks (the two expanders agree, a result that
 * loads loads again) aborts on a difference; under make asan the
 * sanitizers report what libFuzzer would. Each input's name goes to stderr
 * before it runs, so the last one named is the one that failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_INPUT (1 << 20)	/* libFuzzer's inputs are far smaller */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	uint8_t *buf = malloc(MAX_INPUT);
	int bad = 0;

	if (!buf)
		return 1;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (!f) {
			perror(argv[i]);
			bad = 1;
			continue;
		}
		n = fread(buf, 1, MAX_INPUT, f);
		if (ferror(f) || !feof(f)) {
			fprintf(stderr, "%s: unreadable, or over %d bytes\n", argv[i], MAX_INPUT);
			bad = 1;
		} else {
			fprintf(stderr, "replay %s\n", argv[i]);
			LLVMFuzzerTestOneInput(buf, n);
		}
		fclose(f);
	}
	free(buf);
	return bad;
}
