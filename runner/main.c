// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the command line: one table of subcommands, each with its
 * function and one-line summary, from which `kscen --help` is generated.
 * The commands are in cmd_*.c, what they share in cmd.c.
 *
 * Exit codes (cmd.h): 0 success, skips included; 1 a regression gate
 * tripped; 2 invalid usage or input, nothing run; 3 some job failed; 4 the
 * results could not be saved (the journal keeps them); 128 + N killed by
 * signal N (SIGHUP 129, SIGINT 130, SIGTERM 143), what was taken kept.
 */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "util.h"
#include "cmd.h"

int main(int argc, char **argv)
{
	const struct cmd *c;

	/* Library code reports problems with its input here (diag.h). */
	kscen_diag_set_sink(kscen_diag_print, stderr);
	if (argc < 2) {
		cmd_main_help(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		char *help[] = { argv[2], "--help", NULL };

		/* A command's --help comes from its option table. */
		if (argc > 2 && (c = cmd_find(argv[2])))
			return c->fn(2, help);
		cmd_main_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("kscen %s (%s)\n", KSCEN_VERSION, kscen_describe);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		const char *names[64];
		unsigned nr = 0;

		for (; nr < cmd_table_nr && nr < ARRAY_SIZE(names); nr++)
			names[nr] = cmd_table[nr].name;
		const char *hint = kscen_closest(argv[1], names, nr);
		char hb[160];

		fprintf(stderr, "kscen: '%s' is not a command%s See 'kscen --help'.\n",
			argv[1], kscen_did_you_mean(hb, sizeof(hb), hint, "."));
		return EXIT_USAGE;
	}
	optind = 1;
	return c->fn(argc - 1, argv + 1);
}
