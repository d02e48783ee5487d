// SPDX-License-Identifier: GPL-2.0
/*
 * test_vm.c - the host-side logic of kscen vm / kscen ab that needs no QEMU:
 * the release in a bzImage header, the initramfs (module dependencies in
 * load order, the newc archive the kernel unpacks), and ab's job pairs.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"
#include "tests.h"
#include "vm/vm.h"

static char *tmpdir(void)
{
	char *d = kscen_xstrdup("/tmp/kscen-unit-vm.XXXXXX");

	if (!mkdtemp(d))
		abort();
	return d;
}

static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	fwrite(data, 1, len, f);
	fclose(f);
}

void test_vm_bzimage_release_from_header(void **state)
{
	char *d = tmpdir(), *p = kscen_xasprintf("%s/bzImage", d), *r;
	unsigned char img[0x400] = { 0 };
	static const char ver[] = "6.1.0-47-amd64 (debian-kernel@lists.debian.org) #1";

	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00;	/* kernel_version: 0x200 + 0x100 */
	img[0x20f] = 0x01;
	memcpy(img + 0x300, ver, sizeof(ver));
	put(p, img, sizeof(img));
	r = kscen_bzimage_release(p);
	assert_true(r && strcmp(r, "6.1.0-47-amd64") == 0);
	free(r);
	memcpy(img + 0x202, "HdrX", 4);	/* not the boot protocol's magic */
	put(p, img, sizeof(img));
	assert_true(kscen_bzimage_release(p) == NULL);
	assert_true(kscen_bzimage_release("/nonexistent") == NULL);
	unlink(p);
	rmdir(d);
	free(p);
	free(d);
}

/* A fake module: an ELF it is not, but its .modinfo strings are all we read. */
static void fake_ko(const char *dir, const char *name, const char *deps)
{
	char *p = kscen_xasprintf("%s/%s.ko", dir, name);
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "junk%clicense=GPL%cdepends=%s%cname=%s%c",
			 0, 0, deps, 0, name, 0);

	put(p, buf, n);
	free(p);
}

/* The names of a newc archive, in order, and the text of its /init. */
static unsigned cpio_names(const char *path, char names[][256], unsigned max,
			   char **init)
{
	FILE *f = fopen(path, "r");
	unsigned nr = 0;
	char hdr[111];

	*init = NULL;
	while (f && fread(hdr, 1, 110, f) == 110 && !memcmp(hdr, "070701", 6)) {
		char num[9] = { 0 };
		unsigned long size, nlen;
		char name[256];

		memcpy(num, hdr + 54, 8);
		size = strtoul(num, NULL, 16);
		memcpy(num, hdr + 94, 8);
		nlen = strtoul(num, NULL, 16);
		if (nlen > sizeof(name) || fread(name, 1, nlen, f) != nlen)
			break;
		fseek(f, (4 - (110 + nlen) % 4) % 4, SEEK_CUR);
		if (!strcmp(name, "TRAILER!!!"))
			break;
		if (!strcmp(name, "init")) {
			*init = kscen_xcalloc(size + 1, 1);
			if (fread(*init, 1, size, f) != size)
				break;
		} else {
			fseek(f, size, SEEK_CUR);
		}
		fseek(f, (4 - size % 4) % 4, SEEK_CUR);
		if (nr < max)
			snprintf(names[nr++], 256, "%s", name);
	}
	if (f)
		fclose(f);
	return nr;
}

void test_vm_initramfs_loads_dependencies_first(void **state)
{
	char *d = tmpdir(), *mods = kscen_xasprintf("%s/mods", d);
	char *sub = kscen_xasprintf("%s/mods/kernel", d), *bb = kscen_xasprintf("%s/bb", d);
	char *cpio = kscen_xasprintf("%s/initramfs.cpio", d), *init = NULL, *builtin;
	struct kscen_vm_config c = {
		.script = "echo hi\n", .rw_dir = "/srv/res", .agent = true,
	};
	char names[32][256];
	const char *pos[6];
	bool console = false, bbox = false, gz = false;
	unsigned nr;

	mkdir(mods, 0755);
	mkdir(sub, 0755);
	put(bb, "#!", 2);
	setenv("KSCEN_BUSYBOX", bb, 1);
	fake_ko(sub, "virtio_pci", "virtio,virtio_ring,virtio_pci_modern_dev");
	fake_ko(sub, "virtio_pci_modern_dev", "");
	fake_ko(sub, "virtio_ring", "");
	fake_ko(sub, "9pnet", "");
	fake_ko(sub, "9pnet_virtio", "9pnet,virtio_ring,virtio");
	fake_ko(sub, "9p", "9pnet,netfs");
	fake_ko(sub, "netfs", "");
	/* compressed (CONFIG_MODULE_COMPRESS_GZIP), with a dependency of its own */
	fake_ko(sub, "virtio_console", "virtio,virtio_ring,console_dep");
	fake_ko(sub, "console_dep", "");
	{
		char *gz = kscen_xasprintf("gzip '%s/virtio_console.ko'", sub);

		assert_true(system(gz) == 0);
		free(gz);
	}
	/* virtio is built in: named in modules.builtin, no .ko */
	builtin = kscen_xasprintf("%s/modules.builtin", mods);
	put(builtin, "kernel/drivers/virtio/virtio.ko\n", 32);

	assert_true(kscen_vm_initramfs(&c, mods, d, "host-vm-tcg") == 0);
	nr = cpio_names(cpio, names, 32, &init);
	assert_true(nr >= 10 && init);
	assert_true(init && strstr(init, "hostname 'host-vm-tcg'"));
	assert_true(init && strstr(init, "kscenrw $r'/srv/res'"));
	assert_true(init && !strstr(init, "/virtio.ko"));
	if (init) {
		pos[0] = strstr(init, "insmod /lib/modules/virtio_ring.ko");
		pos[1] = strstr(init, "insmod /lib/modules/virtio_pci_modern_dev.ko");
		pos[2] = strstr(init, "insmod /lib/modules/virtio_pci.ko");
		pos[3] = strstr(init, "insmod /lib/modules/9pnet.ko");
		pos[4] = strstr(init, "insmod /lib/modules/9pnet_virtio.ko");
		pos[5] = strstr(init, "insmod /lib/modules/9p.ko");
		assert_true(pos[0] && pos[1] && pos[2] && pos[3] && pos[4] && pos[5]);
		assert_true(pos[0] < pos[2] && pos[1] < pos[2] && pos[3] < pos[4] &&
			pos[4] < pos[5] && strstr(init, "insmod /lib/modules/netfs.ko") < pos[5]);
		assert_true(strstr(init, "insmod /lib/modules/virtio_console.ko") >
			strstr(init, "insmod /lib/modules/console_dep.ko") &&
			strstr(init, "insmod /lib/modules/console_dep.ko"));
	}
	free(init);
	for (unsigned i = 0; i < nr; i++) {
		console |= !strcmp(names[i], "dev/console");
		bbox |= !strcmp(names[i], "bin/busybox");
		gz |= !strcmp(names[i], "lib/modules/virtio_console.ko");
	}
	assert_true(console && bbox && gz);

	/* a needed module that is neither there nor built in */
	{
		char *p = kscen_xasprintf("%s/9p.ko", sub);

		unlink(p);
		free(p);
	}
	assert_true(kscen_vm_initramfs(&c, mods, d, "h") == -ENOENT);
	unsetenv("KSCEN_BUSYBOX");
	free(cpio);
	cpio = kscen_xasprintf("rm -rf '%s'", d);
	assert_true(system(cpio) == 0);
	free(builtin);
	free(mods);
	free(sub);
	free(bb);
	free(cpio);
	free(d);
}

void test_ab_jobs_pair_kernels(void **state)
{
	struct kscen_scenario *s = NULL;
	struct kscen_jobs jobs = { 0 }, both = { 0 };

	assert_true(kscen_scenario_load("tests/fixtures/e2e/tiny.yaml", &s) == 0);
	if (!s)
		return;
	assert_true(kscen_expand(s, 1000, &jobs) == 0 && jobs.nr == 3);
	kscen_ab_jobs(&jobs, &both);
	assert_true(both.nr == 6);
	assert_true(!strcmp(both.job[0].id, "sleep/kernel=A,command=sleep 0.01"));
	assert_true(!strcmp(both.job[4].id, "sleep/kernel=B,command=sleep 0.02"));
	assert_true(both.job[4].nr_kv == 2 && !strcmp(both.job[4].keys[0], "kernel") &&
		!strcmp(both.job[4].values[0], "B"));
	/* B's baseline is the same job on A; A keeps the scenario's */
	assert_true(both.job[4].baseline == 1 && both.job[5].baseline == 2);
	assert_true(both.job[1].baseline == jobs.job[1].baseline);
	assert_true(both.job[3].params == jobs.job[0].params);
	kscen_ab_jobs_free(&both);
	kscen_jobs_free(&jobs);
	kscen_scenario_free(s);
}

/*
 * The guest's script: kscen with its arguments, where we are, and the test
 * hooks (KSCEN_TEST_DISTURB must plant its load where the samples are),
 * quoted; a hook whose name is not one is left out.
 */
void test_vm_script_passes_test_hooks(void **state)
{
	char *argv[] = { "run", "scenarios/syscall.yaml" }, *s;

	(void)state;
	setenv("KSCEN_TEST_DISTURB", "0.3,2 'x'; reboot", 1);
	setenv("KSCEN_TEST_lower", "1", 1);
	s = kscen_vm_script(2, argv, "/srv/res");
	unsetenv("KSCEN_TEST_DISTURB");
	unsetenv("KSCEN_TEST_lower");
	assert_non_null(s);
	assert_non_null(strstr(s, "\nexport KSCEN_TEST_DISTURB='0.3,2 '\\''x'\\''; reboot'\n"));
	assert_null(strstr(s, "KSCEN_TEST_lower"));
	assert_non_null(strstr(s, " 'run' 'scenarios/syscall.yaml'\n"));
	free(s);
}
