// SPDX-License-Identifier: GPL-2.0
/*
 * vm.c - `kscen vm --kernel BZIMAGE -- run SCENARIO ...`: boot the kernel
 * (vm.c) and run this same kscen binary in it, in the same working directory
 * of the shared root. The results directory is the one host directory the
 * guest may write: it is shared read-write at its own path, so the result
 * file lands where `kscen run` on the host would have put it, with the guest
 * kernel in its system section (the guest's uname) and "<host>-vm-tcg" or
 * "<host>-vm-kvm" as its hostname.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>

#include "cmd.h"
#include "options.h"
#include "lib/util.h"
#include "vm/vm.h"


/* The -o/--results of `run ARGS`, or "results". */
static const char *results_arg(int argc, char **argv)
{
	const char *dir = "results";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--results")) && i + 1 < argc)
			dir = argv[++i];
		else if (!strncmp(argv[i], "--results=", 10))
			dir = argv[i] + 10;
		else if (!strncmp(argv[i], "-o", 2) && argv[i][2])
			dir = argv[i] + 2;
	}
	return dir;
}

/* mkdir -p @path; *@made: the first directory it made (malloc'ed), or NULL. */
static int mkdir_p(const char *path, char **made)
{
	char *p = kscen_xstrdup(path);
	int ret = 0;

	*made = NULL;
	for (char *s = p + 1; !ret; s++) {
		bool end = !*s;
		int r;

		if (!end && *s != '/')
			continue;
		*s = '\0';
		r = mkdir(p, 0755);
		if (r && errno != EEXIST)
			ret = -errno;
		else if (!r && !*made)
			*made = kscen_xstrdup(p);
		if (end)
			break;
		*s = '/';
	}
	free(p);
	return ret;
}

/* Remove @path and its parents up to @made, which mkdir_p() made (if empty). */
static void unmake(const char *path, char *made)
{
	char *p = kscen_xstrdup(path), *slash;

	if (made) {
		while (strlen(p) >= strlen(made) && !rmdir(p) && (slash = strrchr(p, '/')))
			*slash = '\0';
	}
	free(p);
	free(made);
}

int cmd_vm(int argc, char **argv)
{
	struct kscen_vm_config c = {
		.label = "", .cpus = 2, .memory = 1ULL << 30, .boot_timeout = 300,
		.forward = 1,
	};
	unsigned long cpus = 2, boot = 300;
	struct kscen_vm vm;
	char *rw = NULL, *script = NULL, *made = NULL;
	const char *dir = "";
	int ret, code;
	const struct kscen_option opts[] = {
		OPT_STRING(0, "kernel", &c.kernel, "BZIMAGE", "the kernel to boot"),
		OPT_STRING(0, "modules", &c.modules, "DIR",
			   "its modules; default: lib/modules/RELEASE beside an\n"
			   "unpacked package's boot/, a build tree, /lib/modules/RELEASE"),
		KSCEN_VM_OPTIONS(&c, &cpus, &boot),
		OPT__VERBOSE(&kscen_verbose, "print the qemu command line"),
		OPT_END(),
	};

	/* What follows the first argument is the guest's kscen command line. */
	optind = kscen_parse_options("vm", argc, argv, opts, KSCEN_OPT_STOP_AT_ARG);
	if (optind < 0)
		return optind == KSCEN_OPT_HELP ? 0 : EXIT_USAGE;
	c.cpus = cpus;
	c.boot_timeout = boot;
	c.label = c.kernel && strrchr(c.kernel, '/') ? strrchr(c.kernel, '/') + 1 : c.kernel;
	if (!c.kernel)
		return cmd_usage_error("vm", "needs --kernel BZIMAGE");
	if (optind == argc)
		return cmd_usage_error("vm", "needs the kscen command to run in the guest, "
				       "after --: kscen vm --kernel K -- run SCENARIO");
	argc -= optind;
	argv += optind;
	if (!strcmp(argv[0], "vm") || !strcmp(argv[0], "ab")) {
		fprintf(stderr, "kscen vm: '%s' does not run in a guest\n", argv[0]);
		return EXIT_USAGE;
	}
	/* made for the guest to write; removed again if it never boots */
	if (!strcmp(argv[0], "run")) {
		dir = results_arg(argc, argv);
		if ((ret = mkdir_p(dir, &made)) || !(rw = realpath(dir, NULL))) {
			fprintf(stderr, "kscen vm: results directory %s: %s\n", dir,
				strerror(ret ? -ret : errno));
			unmake(dir, made);
			return EXIT_USAGE;
		}
		c.rw_dir = rw;
	}
	script = kscen_vm_script(argc, argv, rw);
	if (!script) {
		free(rw);
		unmake(dir, made);
		return EXIT_USAGE;
	}
	c.script = script;
	ret = kscen_vm_start(&c, &vm);
	if (ret) {
		kscen_vm_free(&vm);
		free(script);
		free(rw);
		unmake(dir, made);	/* nothing was booted: nothing stored */
		return ret == -ENOENT || ret == -ENOEXEC || ret == -EINVAL ?
		       EXIT_USAGE : EXIT_FAILED_JOBS;
	}
	free(made);
	fprintf(stderr, "kscen vm: kernel %s booted in %.1f s (guest uptime %.1f s) "
		"under %s%s%s%s\n", vm.release, vm.boot_s, vm.guest_up, vm.kvm ? "KVM" : "TCG",
		vm.kvm ? "" : " (", vm.kvm ? "" : vm.accel_why, vm.kvm ? "" : ")");
	while (!kscen_vm_pump(&vm, -1))
		;
	kscen_vm_stop(&vm, 5000);
	if (vm.exit_code < 0 || vm.exit_code == 125) {
		fprintf(stderr, "kscen vm: kernel %s stopped before the guest's kscen "
			"finished\n", vm.release);
		kscen_vm_print_tail(&vm);
		code = EXIT_FAILED_JOBS;
	} else {
		code = vm.exit_code;
	}
	kscen_vm_free(&vm);
	free(script);
	free(rw);
	return code;
}

/* ---- options shared by vm and ab ------------------------------------------------ */

int kscen_vm_opt_memory(const char *cmd, const struct kscen_option *o, const char *arg)
{
	if (!kscen_vm_parse_memory(arg, o->value))
		return 0;
	return cmd_usage_error(cmd, "--memory: '%s' is not a size like 512M or 2G", arg);
}

int kscen_vm_opt_accel(const char *cmd, const struct kscen_option *o, const char *arg)
{
	if (!kscen_vm_parse_accel(arg, o->value))
		return 0;
	return cmd_usage_error(cmd, "--accel: '%s' is not auto, kvm or tcg", arg);
}
