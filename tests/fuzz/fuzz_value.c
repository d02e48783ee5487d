// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_value.c - libFuzzer target: any text as a parameter value of every
 * type, against synthetic parameters at the edges of the ranges and against
 * every real workload's parameter table; then as a percentage, a number
 * and UTF-8, the other scalar parsers a scenario or a command line reaches.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "scenario/scenario_load.h"

static const struct kscen_param edges[] = {
	{ .name = "i", .type = KSCEN_P_INT, .min = -9223372036854775807LL - 1,
	  .max = 9223372036854775807LL },
	{ .name = "u", .type = KSCEN_P_INT, .min = 0, .max = 64 },
	{ .name = "s", .type = KSCEN_P_SIZE, .min = 0, .max = 9223372036854775807LL },
	{ .name = "t", .type = KSCEN_P_TIME, .min = 1, .max = 9223372036854775807LL },
	{ .name = "b", .type = KSCEN_P_BOOL },
	{ .name = "str", .type = KSCEN_P_STRING },
	{ .name = "e", .type = KSCEN_P_ENUM, .choices = "a|bb||c" },
	{ .name = "e1", .type = KSCEN_P_ENUM, .choices = "" },
};

/* A value that parses must parse again to an equal value. */
static void one(const struct kscen_param *p, const char *text)
{
	struct kscen_value v, again;
	char err[256];

	if (kscen_value_parse(p, text, &v, err, sizeof(err)))
		return;
	if (kscen_value_parse(p, text, &again, err, sizeof(err)) ||
	    !kscen_value_equal(p, &v, &again))
		abort();
	kscen_value_fini(&again);
	kscen_value_fini(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	double pct;
	size_t i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (i = 0; i < ARRAY_SIZE(edges); i++)
		one(&edges[i], text);
	for (unsigned w = 0; w < kscen_nr_workloads; w++)
		for (unsigned k = 0; k < kscen_workloads[w]->nr_params; k++)
			one(&kscen_workloads[w]->params[k], text);
	kscen_parse_pct(text, &pct);
	kscen_is_number(text);
	for (i = 0; i < size && text[i]; ) {
		unsigned n = kscen_utf8_len(text + i);

		i += n ? n : 1;
	}
	free(text);
	return 0;
}
