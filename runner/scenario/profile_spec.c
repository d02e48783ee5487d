// SPDX-License-Identifier: GPL-2.0
/*
 * profile_spec.c - the scenario's `profile:` key, at the top of a scenario
 * (every job) or in a job (that job; it wins over the top's):
 *
 *   profile: true
 *   profile:
 *     frequency: 999        # Hz
 *     stacks: both          # kernel | user | both
 *     scope: job            # job | system
 *     top: 10               # symbols a report shows
 *     profiler: bpf         # bpf (kscen's own) | perf (perf record)
 *
 * A mapping turns profiling on; `profile: false` in a job turns the top's
 * off for that job. Errors are file:line:column like the rest of the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/util.h"
#include "profile_spec.h"
#include "scenario_load.h"
#include "yaml_tree.h"

void kscen_profile_spec_default(struct kscen_profile_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->frequency = KSCEN_PROFILE_FREQ;
	s->stacks = KSCEN_STACKS_BOTH;
	s->top = KSCEN_PROFILE_TOP;
}

static const char *const keys[] = { "frequency", "stacks", "scope", "top", "profiler" };

#define mark kscen_ynode_mark

static const char *text(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int choice(const char *s, const char *const *names, unsigned n)
{
	for (unsigned i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int uint_in(const char *s, unsigned long min, unsigned long max,
		   unsigned *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int kscen_profile_spec_read(const char *file, yaml_document_t *doc,
			    yaml_node_t *n, const struct kscen_profile_spec *inherit,
			    struct kscen_profile_spec **out)
{
	struct kscen_profile_spec *s = kscen_xmalloc(sizeof(*s));
	unsigned errors = 0;
	int i;

	if (inherit && inherit->on)
		*s = *inherit;
	else
		kscen_profile_spec_default(s);
	*out = s;
	if (n->type == YAML_SCALAR_NODE) {
		i = choice(text(n), (const char *[]){ "false", "true" }, 2);
		if (i < 0) {
			kscen_file_error(file, mark(n), "profile: expected true, false "
					 "or a mapping (frequency, stacks, scope, top, profiler)");
			return 1;
		}
		s->on = i;
		return 0;
	}
	if (n->type != YAML_MAPPING_NODE) {
		kscen_file_error(file, mark(n), "profile: expected true, false or a mapping");
		return 1;
	}
	s->on = true;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *key = text(k), *val = text(v), *hint;
		char hb[160];

		switch (choice(key, keys, ARRAY_SIZE(keys))) {
		case 0:
			/* perf_event_max_sample_rate defaults to 100000. */
			if (uint_in(val, 1, 100000, &s->frequency))
				goto bad;
			continue;
		case 1:
			i = choice(val, (const char *[]){ "kernel", "user", "both" }, 3);
			if (i < 0)
				goto bad;
			s->stacks = i + 1;
			continue;
		case 2:
			i = choice(val, (const char *[]){ "job", "system" }, 2);
			if (i < 0)
				goto bad;
			s->system = i;
			continue;
		case 3:
			if (uint_in(val, 1, KSCEN_PROFILE_KEEP, &s->top))
				goto bad;
			continue;
		case 4:
			i = choice(val, (const char *[]){ "bpf", "perf" }, 2);
			if (i < 0)
				goto bad;
			s->perf = i;
			continue;
		default:
			hint = key ? kscen_closest(key, keys, ARRAY_SIZE(keys)) : NULL;
			kscen_file_error(file, mark(k), "profile: unknown key '%s'%s",
					 key ? key : "?",
					 kscen_did_you_mean(hb, sizeof(hb), hint, ""));
			errors++;
			continue;
		}
bad:
		kscen_file_error(file, mark(v), "profile: %s: %s", key,
				 !strcmp(key, "frequency") ? "expected Hz from 1 to 100000" :
				 !strcmp(key, "stacks") ? "expected kernel, user or both" :
				 !strcmp(key, "scope") ? "expected job or system" :
				 !strcmp(key, "top") ? "expected a count from 1 to 50" :
				 "expected bpf or perf");
		errors++;
	}
	return errors;
}
