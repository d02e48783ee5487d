/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario_axis.h - the prescan's side job (scenario_axis.c): follow where
 * each event is in the scenario and keep the values of long axes.
 * Private to the scenario stage; what it produces is in scenario_load.h.
 */
#ifndef KSCEN_SCENARIO_AXIS_H
#define KSCEN_SCENARIO_AXIS_H

#include <stdbool.h>
#include <yaml.h>

#include "scenario_load.h"

#define KSCEN_AXIS_SCAN_DEPTH 24	/* more than the prescan allows */

enum axis_role {
	ROLE_NONE,
	ROLE_ROOT,	/* the scenario's mapping */
	ROLE_JOBS,	/* its jobs: list */
	ROLE_OWNER,	/* a job, or defaults: where params: is */
	ROLE_PARAMS,
	ROLE_AXIS,	/* a parameter's list */
};

struct axis_frame {
	enum axis_role role, next;	/* next: the role of the value after a key */
	bool map, at_key;
};

struct kscen_axis_scan {
	const char *buf;
	size_t len;
	struct kscen_streamed *out;
	struct axis_frame frame[KSCEN_AXIS_SCAN_DEPTH];
	unsigned depth, open_depth;
	bool stopped, collecting;
	struct kscen_stream_axis open;	/* the list being read */
	size_t used, room;		/* of open.arena */
	size_t items_room;		/* of open.item */
	size_t byte, chr;		/* a byte offset, the character it starts */
	struct kscen_streamed *pre;	/* lexed before (@buf is its text), or NULL */
	unsigned next_pre, adopted;	/* of pre's lists: the next, those found */
};

/* Each event of the prescan, before it is deleted (a scalar may be taken). */
void kscen_axis_scan_event(struct kscen_axis_scan *sc, yaml_event_t *ev);
/*
 * The end of the prescan; @failed: nothing is kept. False when a list of
 * @sc->pre was not found where an axis is: nothing is kept either.
 */
bool kscen_axis_scan_end(struct kscen_axis_scan *sc, bool failed);

#endif
