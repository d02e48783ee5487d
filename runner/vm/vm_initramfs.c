// SPDX-License-Identifier: GPL-2.0
/*
 * vm_initramfs.c - the initramfs a `kscen vm` / `kscen ab` guest boots with,
 * built at run time: a static busybox, the modules that mounting the host's
 * root over virtio 9p and talking to the agent over virtio-serial need (with
 * their dependencies, read from each module's .modinfo "depends=", since an
 * unpacked kernel package has no modules.dep), and a shell init that mounts
 * the shared root read-only, runs the guest script in it and powers off.
 *
 * The archive is the kernel's "newc" cpio format
 * (Documentation/driver-api/early-userspace/buffer-format.rst), written here
 * uncompressed, so no cpio tool is needed. Compressed modules (.ko.xz,
 * .ko.zst, .ko.gz) are stored decompressed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <stdio.h>
#include "lib/diag.h"
#include "lib/util.h"
#include "vm.h"

#define BUSYBOX "/bin/busybox"	/* Debian's busybox-static */

/* What the init needs: virtio PCI, 9p over virtio; the agent's port too. */
static const char *const needed[] = {
	"virtio_pci", "9pnet_virtio", "9p", "virtio_console",
};
/* Loaded where the kernel has it: the host's /tmp shown in the guest. */
static const char *const wanted[] = { "overlay" };
#define NEEDED_WITHOUT_AGENT 3

/* ---- cpio, newc ---------------------------------------------------------- */

struct cpio {
	FILE *f;
	unsigned ino;
	int err;
};

static void cpio_pad(struct cpio *c)
{
	long pos = ftell(c->f);

	while (pos++ % 4)
		fputc(0, c->f);
}

static void cpio_entry(struct cpio *c, const char *name, unsigned mode,
		       const void *data, size_t size, unsigned rmaj, unsigned rmin)
{
	fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		c->ino++, mode, 0, 0, 1, 0, size, 0, 0, rmaj, rmin,
		strlen(name) + 1, 0);
	fwrite(name, 1, strlen(name) + 1, c->f);
	cpio_pad(c);
	if (size && fwrite(data, 1, size, c->f) != size)
		c->err = -EIO;
	cpio_pad(c);
}

/* A file of the guest's tree: busybox, a module; none is near this size. */
#define INITRAMFS_FILE_MAX (1UL << 30)

static int cpio_file(struct cpio *c, const char *name, const char *path,
		     unsigned mode)
{
	char *data;
	size_t size;
	int ret = kscen_read_regular(path, INITRAMFS_FILE_MAX, &data, &size);

	if (ret)
		return ret;
	cpio_entry(c, name, S_IFREG | mode, data, size, 0, 0);
	free(data);
	return 0;
}

/*
 * A module's bytes, decompressed when it is a .ko.xz, .ko.zst or .ko.gz
 * (CONFIG_MODULE_COMPRESS_*) by the matching tool: busybox's insmod and the
 * .modinfo reader both want the plain ELF file.
 */
static int read_module(const char *path, char **data, size_t *size)
{
	static const char *const tools[][2] = {
		{ ".xz", "xz -dc" }, { ".zst", "zstd -dc" }, { ".gz", "gzip -dc" },
	};
	const char *tool = NULL, *dot = strrchr(path, '.');
	size_t cap = 1 << 16, n = 0, r;
	char *cmd, *buf;
	FILE *f;
	int st;

	for (unsigned i = 0; i < ARRAY_SIZE(tools) && dot; i++)
		if (!strcmp(dot, tools[i][0]))
			tool = tools[i][1];
	if (!tool)
		return kscen_read_regular(path, INITRAMFS_FILE_MAX, data, size);
	if (strchr(path, '\''))
		return -EINVAL;
	cmd = kscen_xasprintf("%s '%s' 2>/dev/null", tool, path);
	f = popen(cmd, "re");
	free(cmd);
	if (!f)
		return -errno;
	buf = kscen_xmalloc(cap);
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = kscen_xrealloc(buf, cap *= 2);
	}
	st = pclose(f);
	if (st != 0 || n == 0) {
		free(buf);
		return -ENOEXEC;
	}
	*data = buf;
	*size = n;
	return 0;
}

/* ---- the kernel's release, where its modules are -------------------------- */

char *kscen_bzimage_release(const char *path)
{
	unsigned char hdr[0x210];
	char ver[128];
	char *out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n;

	if (fd < 0)
		return NULL;
	/* boot protocol: "HdrS" at 0x202, kernel_version pointer at 0x20e */
	if (pread(fd, hdr, sizeof(hdr), 0) != sizeof(hdr) ||
	    memcmp(hdr + 0x202, "HdrS", 4))
		goto out;
	if (pread(fd, ver, sizeof(ver) - 1, 0x200 + (hdr[0x20e] | hdr[0x20f] << 8)) <= 0)
		goto out;
	ver[sizeof(ver) - 1] = '\0';
	n = strcspn(ver, " ");
	if (n && n < sizeof(ver) - 1)
		out = strndup(ver, n);
out:
	close(fd);
	return out;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

char *kscen_vm_modules_dir(const char *kernel, const char *release)
{
	char *copy = kscen_xstrdup(kernel), *dir = dirname(copy), *p;
	const char *const tries[] = {
		"%s/../lib/modules/%s",	/* an unpacked package: boot/vmlinuz-R */
		"%s/lib/modules/%s",	/* make modules_install INSTALL_MOD_PATH */
		"%s/../../..",		/* a build tree: arch/x86/boot/bzImage */
	};

	for (unsigned i = 0; i < ARRAY_SIZE(tries); i++) {
		p = kscen_xasprintf(tries[i], dir, release ? release : "");
		if (i == 2) {
			char *b = kscen_xasprintf("%s/modules.builtin", p);
			bool tree = strstr(kernel, "arch/x86/boot/") && access(b, F_OK) == 0;

			free(b);
			if (!tree) {
				free(p);
				continue;
			}
		}
		if ((release || i == 2) && is_dir(p)) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	if (release) {
		p = kscen_xasprintf("/lib/modules/%s", release);
		if (is_dir(p))
			return p;
		free(p);
	}
	return NULL;
}

/* ---- modules and their dependencies ---------------------------------------- */

struct mod {
	char *name, *path;
};

/* What nftw() found; static because nftw's callback takes no argument. */
static struct {
	struct mod *m;
	unsigned nr, cap;
	char **builtin;
	unsigned nr_builtin;
} found;

static void norm(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* The module name of a path ending in .ko, .ko.xz, .ko.zst or .ko.gz. */
static char *mod_name(const char *path)
{
	const char *b = strrchr(path, '/');
	const char *ko;
	char *n;

	b = b ? b + 1 : path;
	ko = strstr(b, ".ko");
	if (!ko || (ko[3] && strcmp(ko + 3, ".xz") && strcmp(ko + 3, ".zst") &&
		    strcmp(ko + 3, ".gz")))
		return NULL;
	n = strndup(b, ko - b);
	norm(n);
	return n;
}

static int walk(const char *path, const struct stat *st, int type, struct FTW *f)
{
	char *n;

	(void)st;
	(void)f;
	if (type != FTW_F || !(n = mod_name(path)))
		return 0;
	if (found.nr == found.cap)
		found.m = kscen_xrealloc(found.m, (found.cap = found.cap * 2 + 64) *
					 sizeof(*found.m));
	found.m[found.nr].name = n;
	found.m[found.nr++].path = kscen_xstrdup(path);
	return 0;
}

static void read_builtin(const char *dir)
{
	char *p = kscen_xasprintf("%s/modules.builtin", dir), *line = NULL;
	FILE *f = fopen(p, "re");
	size_t cap = 0;
	char *n;

	free(p);
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		n = mod_name(line);
		if (!n)
			continue;
		found.builtin = kscen_xrealloc(found.builtin, (found.nr_builtin + 1) *
					       sizeof(char *));
		found.builtin[found.nr_builtin++] = n;
	}
	free(line);
	fclose(f);
}

static void found_free(void)
{
	for (unsigned i = 0; i < found.nr; i++) {
		free(found.m[i].name);
		free(found.m[i].path);
	}
	for (unsigned i = 0; i < found.nr_builtin; i++)
		free(found.builtin[i]);
	free(found.m);
	free(found.builtin);
	memset(&found, 0, sizeof(found));
}

/* "depends=a,b" in the module's .modinfo strings; malloc'ed, "" for none. */
static char *mod_depends(const char *data, size_t size)
{
	static const char key[] = "depends=";

	for (size_t i = 0; i + sizeof(key) < size; i++)
		if ((i == 0 || data[i - 1] == '\0') &&
		    memcmp(data + i, key, sizeof(key) - 1) == 0)
			return strndup(data + i + sizeof(key) - 1,
				       strnlen(data + i + sizeof(key) - 1,
					       size - i - sizeof(key) + 1));
	return kscen_xstrdup("");
}

struct order {
	char **names, **paths;
	unsigned nr;
};

/* Is module @name in the modules found, or built in? */
static bool has_module(const char *name)
{
	for (unsigned i = 0; i < found.nr_builtin; i++)
		if (!strcmp(found.builtin[i], name))
			return true;
	for (unsigned i = 0; i < found.nr; i++)
		if (!strcmp(found.m[i].name, name))
			return true;
	return false;
}

/* Append @name after its dependencies; 0 or -ENOENT (printed). */
static int resolve(const char *name, const char *dir, struct order *o,
		   unsigned depth)
{
	const struct mod *m = NULL;
	char *data, *deps, *save = NULL;
	size_t size;
	int ret;

	for (unsigned i = 0; i < found.nr_builtin; i++)
		if (!strcmp(found.builtin[i], name))
			return 0;
	for (unsigned i = 0; i < o->nr; i++)
		if (!strcmp(o->names[i], name))
			return 0;
	for (unsigned i = 0; i < found.nr && !m; i++)
		if (!strcmp(found.m[i].name, name))
			m = &found.m[i];
	if (!m) {
		kscen_error(NULL, "module %s is needed but is neither in %s "
			    "nor built in (modules.builtin)", name, dir);
		return -ENOENT;
	}
	if (depth > 32)
		return -ELOOP;
	if ((ret = read_module(m->path, &data, &size))) {
		kscen_error(NULL, "%s: %s", m->path, ret == -ENOEXEC ?
			    "cannot decompress it (is xz-utils, zstd or gzip installed?)" :
			    strerror(-ret));
		return ret;
	}
	deps = mod_depends(data, size);
	free(data);
	for (char *d = strtok_r(deps, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
		norm(d);
		if ((ret = resolve(d, dir, o, depth + 1))) {
			free(deps);
			return ret;
		}
	}
	free(deps);
	o->names = kscen_xrealloc(o->names, (o->nr + 1) * sizeof(char *));
	o->paths = kscen_xrealloc(o->paths, (o->nr + 1) * sizeof(char *));
	o->names[o->nr] = kscen_xstrdup(name);
	o->paths[o->nr++] = kscen_xstrdup(m->path);
	return 0;
}

/* ---- the init ---------------------------------------------------------------- */

static const char init_head[] =
	"#!/bin/busybox sh\n"
	"# kscen's init: mount the host's root read-only over 9p, run the job in\n"
	"# it, power off. Its lines on the console start with \"kscen-init:\".\n"
	"/bin/busybox --install -s /bin\n"
	"export PATH=/bin\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev\n"
	"# the boot's messages were for a failing boot; the job's output is clean\n"
	"dmesg -n 4\n"
	"fail() {\n"
	"\techo \"kscen-init: error: $*\"\n"
	"\techo \"kscen-init: exit 125\"\n"
	"\tpoweroff -f; reboot -f; sleep 3600\n"
	"}\n";

static const char init_root[] =
	"mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 "
	"kscenroot /newroot || fail \"cannot mount the host's root over 9p\"\n"
	"r=/newroot\n"
	"mount -t proc proc $r/proc && mount -t sysfs sysfs $r/sys &&\n"
	"\tmount -t devtmpfs devtmpfs $r/dev &&\n"
	"\tmount -t tmpfs tmpfs $r/run || fail \"cannot mount proc, sys, dev, run\"\n"
	"# /tmp: the host's, read-only, under a tmpfs the guest writes (overlayfs),\n"
	"# so that scenarios, binaries and results under the host's /tmp are seen\n"
	"mkdir -p /ovl && mount -t tmpfs tmpfs /ovl && mkdir /ovl/upper /ovl/work &&\n"
	"\tmount -t overlay overlay -o lowerdir=$r/tmp,upperdir=/ovl/upper,workdir=/ovl/work $r/tmp ||\n"
	"\t{ echo \"kscen-init: no overlayfs: the host's /tmp is not seen here\";\n"
	"\t  mount -t tmpfs tmpfs $r/tmp || fail \"cannot mount tmp\"; }\n"
	"mkdir -p $r/dev/pts $r/dev/shm\n"
	"mount -t devpts devpts $r/dev/pts; mount -t tmpfs tmpfs $r/dev/shm\n"
	"mount -t tracefs tracefs $r/sys/kernel/tracing 2>/dev/null\n"
	"mount -t debugfs debugfs $r/sys/kernel/debug 2>/dev/null\n"
	"mount -t bpf bpf $r/sys/fs/bpf 2>/dev/null\n";


static char *make_init(const struct kscen_vm_config *c, const struct order *o,
		       const char *hostname)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fputs(init_head, f);
	for (unsigned i = 0; i < o->nr; i++)
		fprintf(f, "insmod /lib/modules/%s.ko || fail \"cannot load module %s\"\n",
			o->names[i], o->names[i]);
	fputs(init_root, f);
	if (c->rw_dir) {
		/* under /tmp or /run it is on the guest's own layer: make it */
		fputs("mkdir -p $r", f);
		kscen_sh_quote(f, c->rw_dir);
		fputs(" 2>/dev/null\n", f);
		fputs("mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 kscenrw $r", f);
		kscen_sh_quote(f, c->rw_dir);
		fputs(" || fail \"cannot mount the results directory over 9p\"\n", f);
	}
	fputs("hostname ", f);
	kscen_sh_quote(f, hostname);
	fputs("\ntouch $r/run/kscen-guest\n"
	      "cp /job.sh $r/run/kscen-job.sh\n"
	      "echo \"kscen-init: booted $(uname -r), up $(cut -d' ' -f1 /proc/uptime) s\"\n"
	      "chroot $r /bin/sh /run/kscen-job.sh\n"
	      "echo \"kscen-init: exit $?\"\n"
	      "sync\n"
	      "poweroff -f; reboot -f; sleep 3600\n", f);
	fclose(f);
	return buf;
}

int kscen_vm_initramfs(const struct kscen_vm_config *c, const char *modules,
		       const char *dir, const char *hostname)
{
	static const char *const dirs[] = {
		"bin", "dev", "proc", "sys", "newroot", "lib", "lib/modules",
	};
	struct order o = { 0 };
	struct cpio cp = { .ino = 1 };
	const char *busybox;
	char *init, *path;
	int ret = 0;

	if (modules) {
		if (nftw(modules, walk, 32, FTW_PHYS)) {
			ret = -errno;
			kscen_error(NULL, "%s: %s", modules, strerror(errno));
			goto out;
		}
		read_builtin(modules);
		for (unsigned i = 0; i < (c->agent ? ARRAY_SIZE(needed) :
					  NEEDED_WITHOUT_AGENT) && !ret; i++)
			ret = resolve(needed[i], modules, &o, 0);
		for (unsigned i = 0; i < ARRAY_SIZE(wanted) && !ret; i++)
			if (has_module(wanted[i]))
				ret = resolve(wanted[i], modules, &o, 0);
		if (ret)
			goto out;
	}
	init = make_init(c, &o, hostname);

	path = kscen_xasprintf("%s/initramfs.cpio", dir);
	cp.f = fopen(path, "we");
	free(path);
	if (!cp.f) {
		ret = -errno;
		free(init);
		goto out;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(dirs); i++)
		cpio_entry(&cp, dirs[i], S_IFDIR | 0755, NULL, 0, 0, 0);
	/* the kernel opens /dev/console for init before anything is mounted */
	cpio_entry(&cp, "dev/console", S_IFCHR | 0600, NULL, 0, 5, 1);
	cpio_entry(&cp, "init", S_IFREG | 0755, init, strlen(init), 0, 0);
	cpio_entry(&cp, "job.sh", S_IFREG | 0644, c->script, strlen(c->script), 0, 0);
	free(init);
	/* KSCEN_BUSYBOX: another static busybox (and the unit tests) */
	busybox = getenv("KSCEN_BUSYBOX") && *getenv("KSCEN_BUSYBOX") ?
		  getenv("KSCEN_BUSYBOX") : BUSYBOX;
	if ((ret = cpio_file(&cp, "bin/busybox", busybox, 0755))) {
		kscen_error(NULL, "%s: %s (Debian: apt-get install busybox-static)",
			    busybox, strerror(-ret));
		fclose(cp.f);
		goto out;
	}
	for (unsigned i = 0; i < o.nr && !ret; i++) {
		char *name = kscen_xasprintf("lib/modules/%s.ko", o.names[i]);

		char *data;
		size_t size;

		ret = read_module(o.paths[i], &data, &size);
		if (!ret) {
			cpio_entry(&cp, name, S_IFREG | 0644, data, size, 0, 0);
			free(data);
		}
		free(name);
	}
	cpio_entry(&cp, "TRAILER!!!", 0, NULL, 0, 0, 0);
	if (fclose(cp.f) && !ret)
		ret = -errno;
	if (!ret)
		ret = cp.err;
out:
	for (unsigned i = 0; i < o.nr; i++) {
		free(o.names[i]);
		free(o.paths[i]);
	}
	free(o.names);
	free(o.paths);
	found_free();
	return ret;
}
