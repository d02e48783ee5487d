// SPDX-License-Identifier: GPL-2.0
/*
 * version.c - which kscen made a run: the release and `git describe` of the
 * tree it was built from ($(BUILD)/describe.h, rewritten by make only when
 * the description changes, so that only this file is rebuilt).
 */
#include "describe.h"

const char kscen_describe[] = KSCEN_DESCRIBE;
