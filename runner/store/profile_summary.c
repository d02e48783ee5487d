// SPDX-License-Identifier: GPL-2.0
/*
 * profile_summary.c - a job's profile as data: the defaults of a profile
 * spec, freeing, and the summary of its folded stacks into the top symbols
 * by self and by children time (what profile.c collects, report prints).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "profile.h"

#define NR_SYM_BUCKETS 4096

void kscen_folded_free(struct kscen_folded *f, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		free(f[i].stack);
	free(f);
}

void kscen_profile_free(struct kscen_profile *p)
{
	if (!p)
		return;
	free(p->reason);
	free(p->source);
	free(p->event);
	free(p->scope);
	free(p->stacks);
	free(p->note);
	for (unsigned i = 0; i < p->nr_sym; i++)
		free(p->sym[i].name);
	free(p->sym);
	for (unsigned i = 0; i < p->nr_objects; i++)
		free(p->objects[i]);
	free(p->objects);
	kscen_folded_free(p->folded, p->nr_folded);
	free(p);
}

/* ---- Folding and the symbol table ----------------------------------------- */

static int folded_cmp(const void *a, const void *b)
{
	const struct kscen_folded *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

struct symacc {
	char *name;		/* with its "_[k]" */
	unsigned long long self, children;
	unsigned last;		/* the stack that last counted it as a child */
	struct symacc *next;
};

static unsigned str_hash(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static struct symacc *sym_get(struct symacc **b, const char *s, size_t n,
			      unsigned *count)
{
	unsigned h = str_hash(s, n) % NR_SYM_BUCKETS;
	struct symacc *a;

	for (a = b[h]; a; a = a->next)
		if (strlen(a->name) == n && !memcmp(a->name, s, n))
			return a;
	a = kscen_xcalloc(1, sizeof(*a));
	a->name = kscen_xmalloc(n + 1);
	memcpy(a->name, s, n);
	a->name[n] = '\0';
	a->last = ~0u;
	a->next = b[h];
	b[h] = a;
	(*count)++;
	return a;
}

static int symacc_cmp(const void *a, const void *b)
{
	const struct symacc *x = *(struct symacc *const *)a;
	const struct symacc *y = *(struct symacc *const *)b;

	/* Symbols with self time first, then by self and by children. */
	if (!x->self != !y->self)
		return x->self ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	return strcmp(x->name, y->name);
}

void kscen_profile_summarize(struct kscen_profile *p)
{
	struct symacc **b = kscen_xcalloc(NR_SYM_BUCKETS, sizeof(*b));
	struct symacc **all;
	unsigned nr = 0, k = 0, depth_max = 0, w = 0;
	unsigned long long total = 0;

	/* Merge equal stacks (two processes, one path) and sort them. */
	if (p->nr_folded > 1)
		qsort(p->folded, p->nr_folded, sizeof(*p->folded), folded_cmp);
	for (unsigned i = 0; i < p->nr_folded; i++) {
		if (w && !strcmp(p->folded[w - 1].stack, p->folded[i].stack)) {
			p->folded[w - 1].count += p->folded[i].count;
			free(p->folded[i].stack);
			continue;
		}
		p->folded[w++] = p->folded[i];
	}
	p->nr_folded = w;

	for (unsigned i = 0; i < p->nr_folded; i++) {
		const char *s = strchr(p->folded[i].stack, ';');
		unsigned long long c = p->folded[i].count;
		struct symacc *a = NULL;
		unsigned depth = 0;

		total += c;
		/* The first frame is the command: not a symbol. */
		while (s) {
			const char *f = s + 1, *e = strchr(f, ';');
			size_t n = e ? (size_t)(e - f) : strlen(f);

			a = sym_get(b, f, n, &nr);
			if (a->last != i) {
				a->last = i;
				a->children += c;
			}
			depth++;
			s = e;
		}
		if (a)
			a->self += c;
		if (depth > depth_max)
			depth_max = depth;
	}
	all = kscen_xcalloc(nr + 1, sizeof(*all));
	for (unsigned h = 0; h < NR_SYM_BUCKETS; h++)
		for (struct symacc *a = b[h]; a; a = a->next)
			all[k++] = a;
	qsort(all, nr, sizeof(*all), symacc_cmp);

	p->samples = total;
	/* One-frame stacks make children equal self: say nothing then. */
	p->children = depth_max > 1;
	for (unsigned i = 0; i < p->nr_sym; i++)
		free(p->sym[i].name);
	free(p->sym);
	p->nr_sym = 0;
	/*
	 * The KEEP largest by self time, then (for perf report --children
	 * and the diffs) the KEEP largest by children time among the rest:
	 * do_syscall_64 has no self time but is on most stacks.
	 */
	p->sym = kscen_xcalloc(2 * KSCEN_PROFILE_KEEP + 1, sizeof(*p->sym));
	for (unsigned i = 0, kept = 0; i < nr && total; i++) {
		struct kscen_profile_sym *s = &p->sym[p->nr_sym];
		size_t n = strlen(all[i]->name);

		if (all[i]->self ? p->nr_sym >= KSCEN_PROFILE_KEEP :
		    !p->children || kept++ >= KSCEN_PROFILE_KEEP)
			continue;
		s->kernel = n > 4 && !strcmp(all[i]->name + n - 4, "_[k]");
		s->name = kscen_xstrdup(all[i]->name);
		if (s->kernel)
			s->name[n - 4] = '\0';
		s->self = 100.0 * all[i]->self / total;
		s->children = p->children ? 100.0 * all[i]->children / total : NAN;
		p->nr_sym++;
	}
	for (unsigned i = 0; i < nr; i++) {
		free(all[i]->name);
		free(all[i]);
	}
	free(all);
	free(b);
}
