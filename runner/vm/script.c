// SPDX-License-Identifier: GPL-2.0
/*
 * script.c - what a guest runs: a shell script that goes to our working
 * directory on the shared root and execs this same kscen with the
 * command's arguments, after checking the guest will see every path they
 * name (it mounts a tmpfs of its own over /run; the host's /tmp it sees
 * read-only under an overlay of its own, vm_initramfs.c).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/util.h"
#include "vm.h"

/* Is @path under /run, which the guest has as a tmpfs of its own? */
bool kscen_vm_hidden(const char *path, const char *rw)
{
	size_t n = rw ? strlen(rw) : 0;

	if (rw && !strncmp(path, rw, n) && (path[n] == '/' || !path[n]))
		return false;
	return !strncmp(path, "/run", 4) && (path[4] == '/' || !path[4]);
}

/*
 * KSCEN_MODULE_PATH goes to the guest as it is: false (printed) if one of
 * its entries is where the guest would not see it.
 */
static bool module_path_seen(const char *rw)
{
	const char *env = getenv("KSCEN_MODULE_PATH");
	char *list, *save = NULL;
	bool ok = true;

	if (!env)
		return true;
	list = kscen_xstrdup(env);
	for (char *e = strtok_r(list, ":", &save); e && ok; e = strtok_r(NULL, ":", &save)) {
		char *real = realpath(e, NULL);

		if (real && kscen_vm_hidden(real, rw)) {
			kscen_error(NULL, "KSCEN_MODULE_PATH: %s is under /run, "
				    "which the guest mounts a tmpfs of its own over; move it "
				    "elsewhere", real);
			ok = false;
		}
		free(real);
	}
	free(list);
	return ok;
}

/*
 * The test hooks (KSCEN_TEST_*: KSCEN_TEST_DISTURB plants its disturbance
 * where the samples are taken, in the guest) go to the guest as they are;
 * a name of anything but capitals, digits and '_' is left out.
 */
static void export_test_hooks(FILE *f)
{
	extern char **environ;

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');

		if (strncmp(*e, "KSCEN_TEST_", 11) || !eq ||
		    strspn(*e, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != (size_t)(eq - *e))
			continue;
		fprintf(f, "export %.*s=", (int)(eq - *e), *e);
		kscen_sh_quote(f, eq + 1);
		fputc('\n', f);
	}
}

/*
 * The script the guest runs: cd where we are, exec kscen with @argv. The
 * guest's output is its console; the init prints the exit code after it.
 * KSCEN_MODULE_PATH and the test hooks are passed on. NULL (printed) when the guest would not
 * see the directory, a file of @argv or KSCEN_MODULE_PATH.
 */
char *kscen_vm_script(int argc, char **argv, const char *rw)
{
	char cwd[PATH_MAX], self[PATH_MAX], *buf = NULL;
	size_t len = 0;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;

	if (n <= 0 || !getcwd(cwd, sizeof(cwd))) {
		kscen_error(NULL, "cannot find this kscen or the working directory");
		return NULL;
	}
	self[n] = '\0';
	for (int i = -2; i < argc; i++) {
		char *real = i == -2 ? kscen_xstrdup(cwd) : i == -1 ? kscen_xstrdup(self) :
			     realpath(argv[i], NULL);
		bool bad = real && kscen_vm_hidden(real, rw);

		if (bad)
			kscen_error(NULL, "%s is under /run, which the guest "
				    "mounts a tmpfs of its own over; move it elsewhere", real);
		free(real);
		if (bad)
			return NULL;
	}
	if (!module_path_seen(rw))
		return NULL;
	f = open_memstream(&buf, &len);
	fputs("export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
	      "export HOME=/tmp LANG=C.UTF-8\n", f);
	if (getenv("KSCEN_MODULE_PATH")) {
		fputs("export KSCEN_MODULE_PATH=", f);
		kscen_sh_quote(f, getenv("KSCEN_MODULE_PATH"));
		fputc('\n', f);
	}
	export_test_hooks(f);
	fputs("cd ", f);
	kscen_sh_quote(f, cwd);
	fputs(" || exit 126\nexec ", f);
	kscen_sh_quote(f, self);
	for (int i = 0; i < argc; i++) {
		fputc(' ', f);
		kscen_sh_quote(f, argv[i]);
	}
	fputc('\n', f);
	fclose(f);
	return buf;
}
