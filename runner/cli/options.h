/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options.h - a command's options described once, as data (like perf's
 * parse-options.h): each with its short and long name, argument, help and
 * where its value goes. From the table come getopt_long's table, the strict
 * parsing of each value, and `kscen CMD --help`.
 *
 * GNU habits: options before or after the arguments (getopt_long permutes
 * argv), `--` ends them, `--opt=value` and `--opt value`, unambiguous
 * abbreviations of long names.
 */
#ifndef KSCEN_OPTIONS_H
#define KSCEN_OPTIONS_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

enum kscen_opt_type {
	KSCEN_OPT_END,
	KSCEN_OPT_BOOL,		/* bool *: set */
	KSCEN_OPT_COUNT,	/* int *: one more each time (-v -v) */
	KSCEN_OPT_STRING,	/* const char **: the argument */
	KSCEN_OPT_UINT,		/* unsigned long *: a whole number, min..max */
	KSCEN_OPT_PCT,		/* double *: "5", "5%", "2.5%": above 0, up to 100 */
	KSCEN_OPT_FORMAT,	/* enum kscen_format *: text, markdown, json, csv */
	KSCEN_OPT_CALLBACK,	/* cb(cmd, opt, arg): 0, or a usage error said */
};

struct kscen_option {
	enum kscen_opt_type type;
	int short_name;		/* 0: none */
	const char *long_name;
	void *value;
	const char *argh;	/* the argument's name in --help; NULL: none */
	const char *help;	/* '\n' continues it on the next line */
	unsigned long min, max;	/* KSCEN_OPT_UINT */
	int (*cb)(const char *cmd, const struct kscen_option *o, const char *arg);
};

#define OPT_BOOL(s, l, v, h)	{ KSCEN_OPT_BOOL, (s), (l), (v), NULL, (h), 0, 0, NULL }
#define OPT_COUNT(s, l, v, h)	{ KSCEN_OPT_COUNT, (s), (l), (v), NULL, (h), 0, 0, NULL }
#define OPT_STRING(s, l, v, a, h) \
	{ KSCEN_OPT_STRING, (s), (l), (v), (a), (h), 0, 0, NULL }
#define OPT_UINT(s, l, v, a, lo, hi, h) \
	{ KSCEN_OPT_UINT, (s), (l), (v), (a), (h), (lo), (hi), NULL }
#define OPT_PCT(s, l, v, h)	{ KSCEN_OPT_PCT, (s), (l), (v), "PCT", (h), 0, 0, NULL }
#define OPT_FORMAT(v)		{ KSCEN_OPT_FORMAT, 0, "format", (v), "F", \
				  "text (default), mail (72 columns), markdown,\njson or csv", 0, 0, NULL }
#define OPT_CALLBACK(s, l, v, a, h, f) \
	{ KSCEN_OPT_CALLBACK, (s), (l), (v), (a), (h), 0, 0, (f) }
#define OPT_END()		{ KSCEN_OPT_END, 0, NULL, NULL, NULL, NULL, 0, 0, NULL }

/*
 * The rows several commands share, written once (git's OPT__VERBOSE): the
 * same letter, name, argument and range wherever they appear; the help
 * where a command says it in its own words.
 */
#define OPT__QUIET(v, h)	OPT_BOOL('q', "quiet", (v), (h))
#define OPT__VERBOSE(v, h)	OPT_COUNT('v', "verbose", (v), (h))
#define OPT__RESULTS(v, h)	OPT_STRING('o', "results", (v), "DIR", (h))
#define OPT__REPEAT(v, h)	OPT_UINT('r', "repeat", (v), "N", 1, 1000000, (h))
#define OPT__WARMUP(v, h)	OPT_UINT('w', "warmup", (v), "N", 0, 1000000, (h))
#define OPT__FILTER(v, h)	OPT_STRING(0, "filter", (v), "GLOB", (h))
#define OPT__NO_SAVE(v)		OPT_BOOL(0, "no-save", (v), "do not store the run")
#define OPT__MAX_JOBS(v)	OPT_UINT(0, "max-jobs", (v), "N", 0, ULONG_MAX / 2, \
					 "refuse a larger matrix (default 100000)")
#define OPT__SHARDS(v, h)	OPT_UINT(0, "shards", (v), "N", 1, KSCEN_MAX_SHARDS, (h))

/* Stop at the first argument: what follows is another command's (kscen vm). */
#define KSCEN_OPT_STOP_AT_ARG 1u

/*
 * Parse the options of command @cmd in @argv (argv[0] is the command's
 * name) by @opts. Returns the index of the first argument, the arguments
 * moved to the end of @argv; KSCEN_OPT_HELP when --help was asked and
 * printed (exit 0); KSCEN_OPT_ERROR after a usage error was said (exit 2).
 */
#define KSCEN_OPT_HELP (-1)
#define KSCEN_OPT_ERROR (-2)
int kscen_parse_options(const char *cmd, int argc, char **argv,
			const struct kscen_option *opts, unsigned flags);
/* `kscen CMD --help`'s lines for @opts, -h/--help last. */
void kscen_options_help(FILE *out, const struct kscen_option *opts);

#endif
