// SPDX-License-Identifier: GPL-2.0
/*
 * perf_image_blob.c - kscen-messaging (helper/perf_image.c), the program
 * sched.messaging's image: perf runs, as bytes of kscen: the Makefile
 * builds it first and names it in KSCEN_PERF_IMAGE. kscen stays one file to
 * install, and what runs is always the build's own.
 */
#include "perf_image.h"

#ifndef KSCEN_PERF_IMAGE
#error "KSCEN_PERF_IMAGE: the path of the built kscen-messaging (Makefile)"
#endif

__asm__(".section .rodata\n"
	".balign 16\n"
	".globl kscen_perf_image\n"
	"kscen_perf_image:\n"
	".incbin \"" KSCEN_PERF_IMAGE "\"\n"
	".globl kscen_perf_image_end\n"
	"kscen_perf_image_end:\n"
	".previous\n");
