// SPDX-License-Identifier: GPL-2.0
/*
 * options.c - parse a command's options from its table (options.h) through
 * getopt_long, and print the table as --help.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "options.h"
#include "report/report.h"
#include "scenario/scenario_load.h"
#include "lib/util.h"

#define HELP_COL 22	/* where the help text starts */
#define MAX_OPTS 40
#define ID_BASE 256	/* getopt's value of an option without a short name */

static int set_value(const char *cmd, const struct kscen_option *o, const char *arg)
{
	char name[64];

	if (o->long_name)
		snprintf(name, sizeof(name), "--%s", o->long_name);
	else
		snprintf(name, sizeof(name), "-%c", o->short_name);
	switch (o->type) {
	case KSCEN_OPT_BOOL:
		*(bool *)o->value = true;
		return 0;
	case KSCEN_OPT_COUNT:
		(*(int *)o->value)++;
		return 0;
	case KSCEN_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case KSCEN_OPT_UINT:
		if (cmd_opt_uint(cmd, name, arg, o->max, o->value))
			return -1;
		if (*(unsigned long *)o->value < o->min) {
			cmd_usage_error(cmd, "%s: must be at least %lu", name, o->min);
			return -1;
		}
		return 0;
	case KSCEN_OPT_PCT:
		return cmd_opt_pct(cmd, name, arg, o->value) ? -1 : 0;
	case KSCEN_OPT_FORMAT:
		return cmd_opt_format(cmd, arg, o->value) ? -1 : 0;
	case KSCEN_OPT_CALLBACK:
		return o->cb(cmd, o, arg) ? -1 : 0;
	case KSCEN_OPT_END:
		break;
	}
	return -1;
}

/*
 * getopt_long() says '?' both for a name it does not know and for a prefix
 * of several (--re: --repeat, --results, --resume); tell them apart, and
 * give the closest name to a misspelt one, as git does.
 */
static void unknown_long(const char *cmd, const char *arg,
			 const struct option *lo, unsigned n)
{
	size_t len = strcspn(arg, "=");
	char name[64], list[512] = "", hb[160], dashed[72];
	const char *names[MAX_OPTS + 2], *hint;
	unsigned nr = 0, o = 0;

	snprintf(name, sizeof(name), "%.*s", (int)len, arg);
	for (unsigned i = 0; i < n; i++) {
		names[i] = lo[i].name;
		if (len && !strncmp(lo[i].name, arg, len)) {
			o += snprintf(list + o, o < sizeof(list) ? sizeof(list) - o : 0,
				      "%s--%s", nr ? ", " : "", lo[i].name);
			nr++;
		}
	}
	if (nr > 1) {
		cmd_usage_error(cmd, "--%s is ambiguous: %s", name, list);
		return;
	}
	if (nr == 1) {	/* known: then only a value it does not take is wrong */
		cmd_usage_error(cmd, "%s takes no value", list);
		return;
	}
	hint = kscen_closest(name, names, n);
	if (hint)
		snprintf(dashed, sizeof(dashed), "--%s", hint);
	cmd_usage_error(cmd, "--%s is not an option%s", name,
			kscen_did_you_mean(hb, sizeof(hb), hint ? dashed : NULL, ""));
}

int kscen_parse_options(const char *cmd, int argc, char **argv,
			const struct kscen_option *opts, unsigned flags)
{
	struct option lo[MAX_OPTS + 2];
	char shorts[3 * MAX_OPTS + 4], *sp = shorts;
	unsigned n = 0;
	int c;

	if (flags & KSCEN_OPT_STOP_AT_ARG)
		*sp++ = '+';
	*sp++ = ':';	/* a missing argument is ':', not '?' */
	*sp++ = 'h';
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	for (unsigned i = 0; opts[i].type != KSCEN_OPT_END && i < MAX_OPTS; i++) {
		const struct kscen_option *o = &opts[i];
		int val = o->short_name ? o->short_name : ID_BASE + (int)i;

		if (o->short_name) {
			*sp++ = (char)o->short_name;
			if (o->argh)
				*sp++ = ':';
		}
		if (o->long_name)
			lo[n++] = (struct option){ o->long_name,
				o->argh ? required_argument : no_argument, NULL, val };
	}
	*sp = '\0';
	lo[n] = (struct option){ 0 };

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct kscen_option *o = NULL;

		if (c == 'h') {
			cmd_help(cmd_find(cmd), stdout);
			kscen_options_help(stdout, opts);
			return KSCEN_OPT_HELP;
		}
		if (c == ':' && optopt && optopt < ID_BASE &&
		    strncmp(argv[optind - 1], "--", 2)) {
			cmd_usage_error(cmd, "-%c needs a value", optopt);
			return KSCEN_OPT_ERROR;
		}
		if (c == ':') {
			cmd_usage_error(cmd, "%s needs a value", argv[optind - 1]);
			return KSCEN_OPT_ERROR;
		}
		if (c == '?') {
			if (strncmp(argv[optind - 1], "--", 2))
				cmd_usage_error(cmd, "-%c is not an option", optopt);
			else
				unknown_long(cmd, argv[optind - 1] + 2, lo, n);
			return KSCEN_OPT_ERROR;
		}
		for (unsigned i = 0; opts[i].type != KSCEN_OPT_END && !o; i++)
			if (c == (opts[i].short_name ? opts[i].short_name : ID_BASE + (int)i))
				o = &opts[i];
		if (!o || set_value(cmd, o, optarg))
			return KSCEN_OPT_ERROR;
	}
	return optind;
}

static void help_line(FILE *out, int short_name, const char *long_name,
		      const char *argh, const char *help)
{
	char head[64];
	int len;

	len = snprintf(head, sizeof(head), "  %c%c%s%s%s%s%s",
		       short_name ? '-' : ' ', short_name ? short_name : ' ',
		       short_name && long_name ? ", " : "  ",
		       long_name ? "--" : "", long_name ? long_name : "",
		       argh ? " " : "", argh ? argh : "");
	fputs(head, out);
	if (len + 2 > HELP_COL)
		fputs("  ", out);
	else
		fprintf(out, "%*s", HELP_COL - len, "");
	for (const char *h = help; *h; h++) {
		fputc(*h, out);
		if (*h == '\n')
			fprintf(out, "%*s", HELP_COL, "");
	}
	fputc('\n', out);
}

void kscen_options_help(FILE *out, const struct kscen_option *opts)
{
	fputs("\noptions:\n", out);
	for (const struct kscen_option *o = opts; o->type != KSCEN_OPT_END; o++)
		help_line(out, o->short_name, o->long_name, o->argh, o->help);
	help_line(out, 'h', "help", NULL, "this help");
}
