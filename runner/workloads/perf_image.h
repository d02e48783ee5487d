/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_image.h - the bytes of kscen-messaging (helper/perf_image.c), the
 * executable sched.messaging's image: perf forks its workers from.
 */
#ifndef KSCEN_PERF_IMAGE_H
#define KSCEN_PERF_IMAGE_H

extern const unsigned char kscen_perf_image[], kscen_perf_image_end[];

#endif
