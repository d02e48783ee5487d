// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the command line: the command named by argv[1], from the one
 * list of commands (KSCEN_COMMANDS, cmd.h), each in cli/NAME.c; what they
 * share is cmd.c.
 *
 * Exit codes (cmd.h): 0 success, skips included; 1 a regression gate
 * tripped; 2 invalid usage or input, nothing run; 3 some job failed; 4 the
 * results could not be saved (the journal keeps them); 128 + N killed by
 * signal N (SIGHUP 129, SIGINT 130, SIGTERM 143), what was taken kept.
 */
#include <stdio.h>
#include <string.h>

#include "lib/child.h"
#include "lib/diag.h"
#include "lib/util.h"
#include "cmd.h"

#define CMD_DISPATCH(name, args, summary, options) { #name, cmd_##name },
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	KSCEN_COMMANDS(CMD_DISPATCH)
};
#undef CMD_DISPATCH

static int (*command(const char *name))(int, char **)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].fn;
	return NULL;
}

int main(int argc, char **argv)
{
	int (*fn)(int, char **);

	/* Library code reports problems with its input here (diag.h). */
	kscen_diag_set_sink(kscen_diag_print, stderr);
	/* before anything forks: the fork server and every sample inherit it */
	kscen_child_allow_reaping();
	if (argc < 2) {
		cmd_main_help(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		char *help[] = { argv[2], "--help", NULL };

		/* A command's --help comes from its option table. */
		if (argc > 2 && (fn = command(argv[2])))
			return fn(2, help);
		cmd_main_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("kscen %s (%s)\n", KSCEN_VERSION, kscen_describe);
		return 0;
	}
	fn = command(argv[1]);
	if (!fn) {
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
	return fn(argc - 1, argv + 1);
}
