// SPDX-License-Identifier: GPL-2.0
/*
 * symbols.c - addresses to function names for the profiler, without perf.
 *
 * Kernel: /proc/kallsyms, the text symbols sorted by address; an address
 * belongs to the last symbol at or below it (kallsyms gives no sizes).
 * When kptr_restrict hides the addresses from this user they all read 0,
 * which is reported instead of resolving everything to one wrong name.
 *
 * User space: a process's executable file mappings, snapshotted from
 * /proc/PID/maps while it lives, and each mapped object's ELF symbol table
 * (.symtab, else .dynsym) read once through libelf. An address becomes a
 * file offset through its mapping, a virtual address through the object's
 * PT_LOAD headers, then a function by st_value/st_size, the way perf's
 * map__map_ip() and dso__find_symbol() do. The object's GNU build id is
 * kept, so a profile says which build of a library it named. A stripped
 * object's full .symtab is taken from its separate debug file when one is
 * installed (/usr/lib/debug/.build-id/xx/yyyy.debug, as libc6-dbg ships
 * it; gdb and perf look there too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "symbols.h"

struct sym {
	uint64_t addr, size;
	char *name;
	long long rank;		/* among aliases of one address: higher wins */
};

/*
 * How good a name is among the aliases of one address (higher: better),
 * after perf's choose_best_symbol(): fewer leading underscores, then no
 * version ("pthread_create@@GLIBC_2.34"), then shorter.
 */
static long name_rank(const char *s)
{
	size_t under = strspn(s, "_");

	return -(long)under * 1000000 - (strchr(s, '@') ? 100000 : 0) - (long)strlen(s);
}

/* By address; aliases worst first, so that the search ends on the best. */
static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The last symbol at or below @addr; NULL when none is. */
static const struct sym *sym_search(const struct sym *s, unsigned n, uint64_t addr)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &s[lo - 1] : NULL;
}

/* ---- Kernel --------------------------------------------------------------- */

struct kscen_ksyms {
	struct sym *s;
	unsigned n;
	uint64_t end;	/* _etext, or the last symbol: beyond it, no name */
};

int kscen_ksyms_load(const char *path, struct kscen_ksyms **out, bool *hidden)
{
	struct kscen_ksyms *k;
	unsigned cap = 0;
	char line[512], name[256], type;
	unsigned long long addr;
	bool nonzero = false;
	FILE *f = fopen(path ? path : "/proc/kallsyms", "r");

	*out = NULL;
	*hidden = false;
	if (!f)
		return -errno;
	k = kscen_xcalloc(1, sizeof(*k));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (addr)
			nonzero = true;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (!strcmp(name, "_etext") && addr > k->end)
			k->end = addr;
		if (k->n == cap) {
			cap = cap ? cap * 2 : 4096;
			k->s = kscen_xrealloc(k->s, cap * sizeof(*k->s));
		}
		/*
		 * Aliases (__do_sys_getppid, __ia32_sys_getppid,
		 * __x64_sys_getppid): a global one over a static one, then
		 * the last listed, which for system calls is the entry the
		 * x86-64 table calls, the name perf report shows.
		 */
		k->s[k->n].addr = addr;
		k->s[k->n].size = 0;
		k->s[k->n].rank = (type == 'T' || type == 'W' ? 1LL << 40 : 0) + k->n;
		k->s[k->n++].name = kscen_xstrdup(name);
	}
	fclose(f);
	if (k->n > 1)
		qsort(k->s, k->n, sizeof(*k->s), sym_cmp);
	if (k->n && !k->end)
		k->end = k->s[k->n - 1].addr + 4096;
	/* Module text lies above _etext: keep every symbol reachable. */
	if (k->n && k->s[k->n - 1].addr >= k->end)
		k->end = k->s[k->n - 1].addr + 4096;
	*hidden = !nonzero;
	*out = k;
	return 0;
}

const char *kscen_ksyms_find(const struct kscen_ksyms *k, uint64_t addr)
{
	const struct sym *s;

	if (!k || !k->n || addr >= k->end)
		return NULL;
	s = sym_search(k->s, k->n, addr);
	return s && s->addr ? s->name : NULL;
}

void kscen_ksyms_free(struct kscen_ksyms *k)
{
	if (!k)
		return;
	for (unsigned i = 0; i < k->n; i++)
		free(k->s[i].name);
	free(k->s);
	free(k);
}

/* ---- User space ---------------------------------------------------------- */

struct load_seg {
	uint64_t off, vaddr, filesz;
};

struct object {
	char *path;
	char build_id[41];
	bool loaded;
	struct sym *s;
	unsigned n;
	struct load_seg *seg;
	unsigned nr_seg;
};

struct mapping {
	uint64_t start, end, pgoff;
	struct object *obj;
};

struct proc {
	pid_t pid;
	char comm[17];
	struct mapping *m;
	unsigned n;
};

struct kscen_usyms {
	struct proc *p;
	unsigned nr_p;
	struct object **o;
	unsigned nr_o;
};

struct kscen_usyms *kscen_usyms_new(void)
{
	elf_version(EV_CURRENT);
	return kscen_xcalloc(1, sizeof(struct kscen_usyms));
}

void kscen_usyms_free(struct kscen_usyms *u)
{
	if (!u)
		return;
	for (unsigned i = 0; i < u->nr_p; i++)
		free(u->p[i].m);
	free(u->p);
	for (unsigned i = 0; i < u->nr_o; i++) {
		struct object *o = u->o[i];

		for (unsigned j = 0; j < o->n; j++)
			free(o->s[j].name);
		free(o->s);
		free(o->seg);
		free(o->path);
		free(o);
	}
	free(u->o);
	free(u);
}

static struct object *object_get(struct kscen_usyms *u, const char *path)
{
	struct object *o;

	for (unsigned i = 0; i < u->nr_o; i++)
		if (!strcmp(u->o[i]->path, path))
			return u->o[i];
	o = kscen_xcalloc(1, sizeof(*o));
	o->path = kscen_xstrdup(path);
	u->o = kscen_xrealloc(u->o, (u->nr_o + 1) * sizeof(*u->o));
	u->o[u->nr_o++] = o;
	return o;
}

static void read_build_id(Elf *e, Elf_Scn *scn, struct object *o)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *desc = (const unsigned char *)d->d_buf + desc_off;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4))
			continue;
		for (unsigned i = 0; i < nh.n_descsz && i < 20; i++)
			snprintf(o->build_id + 2 * i, 3, "%02x", desc[i]);
		return;
	}
	(void)e;
}

static void read_symtab(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct object *o)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t nr = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (size_t i = 0; d && i < nr; i++) {
		const char *name;
		int type;

		if (!gelf_getsym(d, i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		o->s = kscen_xrealloc(o->s, (o->n + 1) * sizeof(*o->s));
		o->s[o->n].addr = sym.st_value;
		o->s[o->n].size = sym.st_size;
		o->s[o->n].rank = name_rank(name);
		o->s[o->n++].name = kscen_xstrdup(name);
	}
}

/* The .symtab of @o's separate debug file, found by build id; 0 if read. */
static int load_debug_symtab(struct object *o)
{
	char path[128];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int fd, ret = -ENOENT;
	Elf *e;

	if (strlen(o->build_id) < 3)
		return -ENOENT;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 o->build_id, o->build_id + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			read_symtab(e, scn, &sh, o);
			ret = o->n ? 0 : -ENOENT;
			break;
		}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* Read @o's symbols, load segments and build id once; errors leave it empty. */
static void object_load(struct object *o)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symsh, dynsh;
	size_t nr_ph = 0;
	Elf *e;
	int fd;

	if (o->loaded)
		return;
	o->loaded = true;
	fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF)
		goto out;
	if (!elf_getphdrnum(e, &nr_ph)) {
		for (size_t i = 0; i < nr_ph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			o->seg = kscen_xrealloc(o->seg, (o->nr_seg + 1) * sizeof(*o->seg));
			o->seg[o->nr_seg++] = (struct load_seg){
				ph.p_offset, ph.p_vaddr, ph.p_filesz };
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = sh;
		} else if (sh.sh_type == SHT_NOTE && !o->build_id[0]) {
			read_build_id(e, scn, o);
		}
	}
	/* A stripped object keeps only .dynsym: its exported functions. */
	if (symtab)
		read_symtab(e, symtab, &symsh, o);
	else if (load_debug_symtab(o) && dynsym)
		read_symtab(e, dynsym, &dynsh, o);
	if (o->n > 1)
		qsort(o->s, o->n, sizeof(*o->s), sym_cmp);
out:
	if (e)
		elf_end(e);
	close(fd);
}

static struct proc *proc_find(const struct kscen_usyms *u, pid_t pid,
			      const char *comm)
{
	for (unsigned i = 0; i < u->nr_p; i++)
		if (u->p[i].pid == pid && !strncmp(u->p[i].comm, comm, 16))
			return &u->p[i];
	return NULL;
}

bool kscen_usyms_has_pid(const struct kscen_usyms *u, pid_t pid, const char *comm)
{
	return proc_find(u, pid, comm) != NULL;
}

static struct proc *proc_new(struct kscen_usyms *u, pid_t pid, const char *comm)
{
	struct proc *p;

	u->p = kscen_xrealloc(u->p, (u->nr_p + 1) * sizeof(*u->p));
	p = &u->p[u->nr_p++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return p;
}

static int read_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return 0;
}

int kscen_usyms_add_pid(struct kscen_usyms *u, pid_t pid, const char *comm)
{
	char path[64], line[4096], perms[8], file[4096], now[32];
	unsigned long long start, end, pgoff;
	struct proc *p;
	int ret;
	FILE *f;

	if ((ret = read_comm(pid, now, sizeof(now))))
		return ret;
	if (comm && strncmp(now, comm, 15))
		return -ESRCH;
	if (proc_find(u, pid, now))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	p = proc_new(u, pid, now);
	while (fgets(line, sizeof(line), f)) {
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end,
			   perms, &pgoff, &pos) < 4 || !pos)
			continue;
		if (perms[2] != 'x' || line[pos] != '/')
			continue;
		snprintf(file, sizeof(file), "%s", line + pos);
		file[strcspn(file, "\n")] = '\0';
		p->m = kscen_xrealloc(p->m, (p->n + 1) * sizeof(*p->m));
		p->m[p->n++] = (struct mapping){ start, end, pgoff,
						 object_get(u, file) };
	}
	fclose(f);
	return 0;
}

void kscen_usyms_alias_pid(struct kscen_usyms *u, pid_t pid, const char *comm,
			   pid_t from, const char *from_comm)
{
	struct proc *src = proc_find(u, from, from_comm), *p;
	unsigned i;

	if (!src || proc_find(u, pid, comm))
		return;
	i = src - u->p;
	p = proc_new(u, pid, comm);	/* may move u->p */
	src = &u->p[i];
	p->n = src->n;
	p->m = kscen_xcalloc(p->n + 1, sizeof(*p->m));
	memcpy(p->m, src->m, p->n * sizeof(*p->m));
}

const char *kscen_usyms_find(struct kscen_usyms *u, pid_t pid, const char *comm,
			     uint64_t addr, const char **dso)
{
	struct proc *p = proc_find(u, pid, comm);
	const struct sym *s;

	if (dso)
		*dso = NULL;
	for (unsigned i = 0; p && i < p->n; i++) {
		struct mapping *m = &p->m[i];
		struct object *o = m->obj;
		uint64_t off, vaddr;
		bool in_seg = false;

		if (addr < m->start || addr >= m->end)
			continue;
		if (dso) {
			const char *slash = strrchr(o->path, '/');

			*dso = slash ? slash + 1 : o->path;
		}
		object_load(o);
		off = addr - m->start + m->pgoff;
		vaddr = off;
		for (unsigned j = 0; j < o->nr_seg; j++)
			if (off >= o->seg[j].off &&
			    off < o->seg[j].off + o->seg[j].filesz) {
				vaddr = off - o->seg[j].off + o->seg[j].vaddr;
				in_seg = true;
				break;
			}
		if (!in_seg && o->nr_seg)
			return NULL;
		s = sym_search(o->s, o->n, vaddr);
		/* A sized symbol must hold it; a size-0 one is a label: take it. */
		if (!s || (s->size && vaddr >= s->addr + s->size))
			return NULL;
		return s->name;
	}
	return NULL;
}

bool kscen_usyms_object(const struct kscen_usyms *u, unsigned i,
			const char **path, const char **build_id)
{
	unsigned k = 0;

	for (unsigned j = 0; j < u->nr_o; j++) {
		if (!u->o[j]->loaded)
			continue;
		if (k++ == i) {
			*path = u->o[j]->path;
			*build_id = u->o[j]->build_id;
			return true;
		}
	}
	return false;
}
