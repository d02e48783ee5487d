/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_io.h - hand a fuzz input to a loader that takes a path: the bytes go
 * into one memfd, reopened by its /proc path, so the whole read path (open,
 * fstat, size cap, read) runs on every input as it does on a real file.
 */
#ifndef KSCEN_FUZZ_IO_H
#define KSCEN_FUZZ_IO_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int fuzz_memfd = -1;
static char fuzz_path[64];

/* The path of a file holding exactly @data; aborts if it cannot be made. */
static const char *fuzz_file(const unsigned char *data, size_t size)
{
	if (fuzz_memfd < 0) {
		fuzz_memfd = memfd_create("kscen-fuzz", MFD_CLOEXEC);
		if (fuzz_memfd < 0)
			abort();
		snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_memfd);
	}
	if (ftruncate(fuzz_memfd, 0) ||
	    (size && pwrite(fuzz_memfd, data, size, 0) != (ssize_t)size))
		abort();
	return fuzz_path;
}

#endif
