// SPDX-License-Identifier: GPL-2.0
/*
 * exec.c - `kscen exec [options] -- CMD [-- CMD ...]`: hyperfine's one-liner
 * with kscen's statistics and storage. The commands become a scenario of
 * one exec job whose command is an axis with the first as its baseline,
 * written as YAML and run through kscen run's path (run.h): the same
 * loader and checks as a file, interleaved rounds, paired deltas, the run
 * stored under results/exec/ (--name NAME: results/NAME/) with that text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "cmd.h"
#include "options.h"
#include "run.h"

#define EXEC_REPEAT 10	/* samples a command: enough pairs for a 95% CI */

struct exec_args {
	const char *name, *prepare;
	char **cmds;		/* the commands, as exec's `command` values */
	unsigned nr;
};

/* @s as a YAML double-quoted scalar: every byte says itself. */
static void yaml_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int exec_build(struct cmd_run_source *src, int argc, char **argv)
{
	struct exec_args *a = src->priv;
	size_t len;
	FILE *f;

	(void)argv;
	if (argc || !a->nr)
		return cmd_usage_error("exec", "the commands follow --: kscen exec "
				       "[options] -- CMD [-- CMD ...]");
	f = open_memstream(&src->text, &len);
	if (!f)
		return cmd_usage_error("exec", "out of memory");
	fprintf(f, "# kscen exec: the first command is the baseline\n"
		"scenario: %s\nrepeat: %d\nwarmup: 1\njobs:\n"
		"  - name: exec\n    workload: exec\n    params:\n      command:",
		a->name, EXEC_REPEAT);
	if (a->nr == 1) {
		fputc(' ', f);
		yaml_quoted(f, a->cmds[0]);
	}
	for (unsigned i = 0; a->nr > 1 && i < a->nr; i++) {
		fputs("\n        - ", f);
		yaml_quoted(f, a->cmds[i]);
	}
	if (a->nr > 1) {
		fputs("\n    baseline: {command: ", f);
		yaml_quoted(f, a->cmds[0]);
		fputc('}', f);
	}
	if (a->prepare) {
		fputs("\n    prepare: ", f);
		yaml_quoted(f, a->prepare);
	}
	fputc('\n', f);
	fclose(f);
	src->name = kscen_xstrdup("<exec>");
	src->dir = kscen_xstrdup(".");
	return 0;
}

/*
 * The commands after the first --, each up to the next: one word is the
 * command as written (hyperfine's 'sleep 0.1'), several are joined, quoted
 * where a shell needs it (-- grep -c 'a b' file).
 */
static int split_commands(int argc, char **argv, struct exec_args *a)
{
	int i = 0;

	while (i < argc) {
		int k = i;

		while (k < argc && strcmp(argv[k], "--"))
			k++;
		if (k == i)
			return cmd_usage_error("exec", "an empty command between --");
		a->cmds = kscen_xrealloc(a->cmds, (a->nr + 1) * sizeof(*a->cmds));
		a->cmds[a->nr++] = k - i == 1 ? kscen_xstrdup(argv[i]) :
				   kscen_join_argv(k - i, argv + i);
		for (unsigned p = 0; p + 1 < a->nr; p++)
			if (!strcmp(a->cmds[p], a->cmds[a->nr - 1]))
				return cmd_usage_error("exec", "command %u is command %u "
						       "again: '%s'", a->nr, p + 1,
						       a->cmds[p]);
		i = k + 1;
		if (k == argc - 1)
			return cmd_usage_error("exec", "an empty command after the last --");
	}
	return 0;
}

int cmd_exec(int argc, char **argv)
{
	struct exec_args a = { .name = "exec" };
	const struct kscen_option opts[] = {
		OPT_CALLBACK(0, "name", &a.name, "NAME",
			     "the scenario's name: runs are stored under\n"
			     "results/NAME/ (default exec)", cmd_opt_name),
		OPT_STRING(0, "prepare", &a.prepare, "CMD",
			   "run CMD (/bin/sh -c) before every sample, untimed"),
		OPT_END(),
	};
	struct cmd_run_source src = {
		.cmd = "exec", .opts = opts, .build = exec_build, .priv = &a,
	};
	int dd = 1, code;

	/* Options before the first --, the commands after it. */
	while (dd < argc && strcmp(argv[dd], "--"))
		dd++;
	if (dd < argc && split_commands(argc - dd - 1, argv + dd + 1, &a)) {
		code = EXIT_USAGE;
	} else {
		src.command = kscen_join_argv(argc + 1, argv - 1);
		code = cmd_run_from(&src, dd, argv);
	}
	for (unsigned i = 0; i < a.nr; i++)
		free(a.cmds[i]);
	free(a.cmds);
	return code;
}
