// SPDX-License-Identifier: GPL-2.0
/*
 * system.c - `kscen system check`: the settings of this machine that move
 * results (sample/syscheck.c), each with its value, what it does to
 * results and how to change it; the last line is what `kscen run` stores.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sample/syscheck.h"
#include "cmd.h"
#include "options.h"

/* @s after @lead, in lines of at most 78 columns, broken at spaces. */
static void wrap(const char *lead, const char *s)
{
	size_t col = 5 + strlen(lead);
	bool first = true;

	printf("     %s", lead);
	while (*s) {
		size_t n = strcspn(s, " ");

		if (!first && col + 1 + n > 78) {
			printf("\n       ");
			col = 7;
		} else if (!first) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)n, s);
		col += n;
		first = false;
		s += n;
		s += strspn(s, " ");
	}
	putchar('\n');
}

static void print_check(const struct kscen_check *c)
{
	printf("%-4s %s: %s\n", c->off ? "OFF" : c->known ? "ok" : "--", c->name,
	       c->value);
	wrap("", c->effect);
	wrap("to change: ", c->fix);
}

int cmd_system(int argc, char **argv)
{
	unsigned long ms = 1000;
	struct kscen_check c[KSCEN_CHECKS_MAX];
	char line[512];
	unsigned n;
	const struct kscen_option opts[] = {
		OPT_UINT(0, "watch", &ms, "MS", 0, 60000,
			 "watch steal and load over MS milliseconds (default\n"
			 "1000; 0: only the settings)"),
		OPT_END(),
	};

	optind = kscen_parse_options("system", argc, argv, opts, 0);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	if (argc - optind != 1 || strcmp(argv[optind], "check"))
		return cmd_usage_error("system", "the one subcommand is check");
	n = kscen_system_check("", ms, c);
	for (unsigned i = 0; i < n; i++)
		print_check(&c[i]);
	printf("\noff: %s\n", kscen_system_check_summary(c, n, line, sizeof(line)));
	return 0;
}
