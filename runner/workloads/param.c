// SPDX-License-Identifier: GPL-2.0
/*
 * param.c - parameter values: strict parsing of the text a scenario gives,
 * and the params structs the runner allocates, fills and frees for a module
 * (the module only describes its parameters, fio-style, in a table).
 *
 * Strict means: "4x" is not 4, "2.5" is not an integer, "-1" is not a size,
 * and a number that does not fit is an error rather than a wrapped value.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include "registry.h"
#include "lib/diag.h"
#include "lib/util.h"

static const char *const ptype_names[] = {
	[KSCEN_P_INT] = "int",
	[KSCEN_P_SIZE] = "size",
	[KSCEN_P_TIME] = "time",
	[KSCEN_P_BOOL] = "bool",
	[KSCEN_P_STRING] = "string",
	[KSCEN_P_ENUM] = "enum",
};

const char *kscen_ptype_name(enum kscen_ptype t)
{
	return ptype_names[t];
}

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * Parse "[-]digits[.digits]" into an integer scaled by @mult, exactly: the
 * fraction must come out whole ("1.5k" is 1536, "1.3" bytes is an error).
 * Returns 0, -EINVAL (not a number, or not whole) or -ERANGE.
 */
static int parse_scaled(const char *s, const char *end, long long mult,
			bool allow_frac, long long *out)
{
	bool neg = false;
	long long ip = 0, frac = 0, den = 1;
	const char *p = s;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p == end || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		if (__builtin_mul_overflow(ip, 10, &ip) ||
		    __builtin_add_overflow(ip, *p - '0', &ip))
			return -ERANGE;
	}
	if (p < end && *p == '.') {
		if (!allow_frac)
			return -EINVAL;
		p++;
		if (p == end || !isdigit((unsigned char)*p))
			return -EINVAL;
		for (; p < end && isdigit((unsigned char)*p); p++) {
			if (den > LLONG_MAX / 10)
				return -ERANGE;
			frac = frac * 10 + (*p - '0');
			den *= 10;
		}
	}
	if (p != end)
		return -EINVAL;
	if (__builtin_mul_overflow(ip, mult, &ip))
		return -ERANGE;
	if (frac) {
		__int128 f = (__int128)frac * mult;

		if (f % den)
			return -EINVAL;
		if (__builtin_add_overflow(ip, (long long)(f / den), &ip))
			return -ERANGE;
	}
	*out = neg ? -ip : ip;
	return 0;
}

struct unit {
	const char *suffix;
	long long mult;
};

static const struct unit size_units[] = {
	{ "k", 1LL << 10 }, { "K", 1LL << 10 },
	{ "M", 1LL << 20 }, { "G", 1LL << 30 }, { "T", 1LL << 40 },
	{ "", 1 }, { NULL, 0 },
};

static const struct unit time_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	{ NULL, 0 },
};

static const struct unit *find_unit(const struct unit *u, const char *text,
				    size_t *numlen)
{
	size_t len = strlen(text);

	for (; u->suffix; u++) {
		size_t sl = strlen(u->suffix);

		if (sl > len)
			continue;
		/* "5ms" must not be read as "5m" + "s": digits must end it. */
		if (strcmp(text + len - sl, u->suffix) == 0 &&
		    (len == sl || isdigit((unsigned char)text[len - sl - 1]))) {
			*numlen = len - sl;
			return u;
		}
	}
	return NULL;
}

static int parse_number(const struct kscen_param *p, const char *text,
			long long *out, char *err, size_t len)
{
	const struct unit *u = NULL;
	size_t numlen = strlen(text);
	const char *what = "an integer";
	int ret;

	if (p->type == KSCEN_P_SIZE) {
		u = find_unit(size_units, text, &numlen);
		what = "a size (a whole number of bytes, k/M/G/T suffix)";
	} else if (p->type == KSCEN_P_TIME) {
		u = find_unit(time_units, text, &numlen);
		what = "a time with a unit: ns, us, ms or s (e.g. 60s)";
	}
	if (p->type != KSCEN_P_INT && !u)
		return fail(err, len, "%s: '%s' is not %s", p->name, text, what);
	ret = parse_scaled(text, text + numlen, u ? u->mult : 1,
			   p->type != KSCEN_P_INT, out);
	if (ret == -ERANGE)
		return fail(err, len, "%s: '%s' is too large", p->name, text);
	if (ret)
		return fail(err, len, "%s: '%s' is not %s", p->name, text, what);
	if (*out < p->min || *out > p->max)
		return fail(err, len, "%s: %s is out of range %lld..%lld",
			    p->name, text, p->min, p->max);
	return 0;
}

/* The index of @text among '|'-separated @choices, or -1. */
static int choice_index(const char *choices, const char *text)
{
	size_t tl = strlen(text);
	int i = 0;

	for (const char *c = choices; *c; i++) {
		size_t cl = strcspn(c, "|");

		if (cl == tl && strncmp(c, text, tl) == 0)
			return i;
		c += cl;
		if (*c == '|')
			c++;
	}
	return -1;
}

int kscen_value_parse(const struct kscen_param *p, const char *text,
		      struct kscen_value *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	switch (p->type) {
	case KSCEN_P_INT:
	case KSCEN_P_SIZE:
	case KSCEN_P_TIME:
		return parse_number(p, text, &out->i, err, len);
	case KSCEN_P_BOOL:
		if (strcmp(text, "true") == 0)
			out->i = 1;
		else if (strcmp(text, "false") != 0)
			return fail(err, len, "%s: '%s' is not true or false",
				    p->name, text);
		return 0;
	case KSCEN_P_ENUM:
		out->i = choice_index(p->choices, text);
		if (out->i < 0)
			return fail(err, len, "%s: '%s' is not one of %s",
				    p->name, text, p->choices);
		return 0;
	case KSCEN_P_STRING:
		out->s = kscen_xstrdup(text);
		return 0;
	}
	return fail(err, len, "%s: unknown parameter type", p->name);
}

void kscen_value_fini(struct kscen_value *v)
{
	free(v->s);
	v->s = NULL;
}

bool kscen_value_equal(const struct kscen_param *p, const struct kscen_value *a,
		       const struct kscen_value *b)
{
	if (p->type == KSCEN_P_STRING)
		return strcmp(a->s ? a->s : "", b->s ? b->s : "") == 0;
	return a->i == b->i;
}

void kscen_value_store(const struct kscen_param *p, void *params,
		       struct kscen_value *v)
{
	char *at = (char *)params + p->offset;

	switch (p->type) {
	case KSCEN_P_INT:
	case KSCEN_P_SIZE:
	case KSCEN_P_TIME:
		*(long long *)at = v->i;
		break;
	case KSCEN_P_BOOL:
		*(bool *)at = v->i;
		break;
	case KSCEN_P_ENUM:
		*(int *)at = (int)v->i;
		break;
	case KSCEN_P_STRING:
		free(*(char **)at);
		*(char **)at = v->s;
		v->s = NULL;
		break;
	}
}

const struct kscen_param *kscen_param_find(const struct kscen_workload *w,
					   const char *name)
{
	for (unsigned i = 0; i < w->nr_params; i++)
		if (strcmp(w->params[i].name, name) == 0)
			return &w->params[i];
	return NULL;
}

void *kscen_params_new(const struct kscen_workload *w)
{
	void *params = kscen_xcalloc(1, w->params_size ? w->params_size : 1);
	char err[256];

	for (unsigned i = 0; i < w->nr_params; i++) {
		const struct kscen_param *p = &w->params[i];
		struct kscen_value v;

		if (!p->def)	/* required: the scenario must give it */
			continue;
		if (kscen_value_parse(p, p->def, &v, err, sizeof(err))) {
			kscen_diag(KSCEN_DIAG_ERROR, NULL, NOWHERE,
				   "%s: bad default: %s", w->name, err);
			kscen_params_free(w, params);
			return NULL;
		}
		kscen_value_store(p, params, &v);
	}
	return params;
}

void kscen_params_free(const struct kscen_workload *w, void *params)
{
	if (!params)
		return;
	for (unsigned i = 0; i < w->nr_params; i++)
		if (w->params[i].type == KSCEN_P_STRING)
			free(*(char **)((char *)params + w->params[i].offset));
	free(params);
}

/*
 * The value of @p in a filled params struct as canonical text: numbers in
 * their base unit (bytes, nanoseconds), booleans as true/false, enums by
 * name. Equal values give equal texts, so two runs can be checked to have
 * measured the same thing whatever spelling their scenarios used.
 */
char *kscen_value_text(const struct kscen_param *p, const void *params)
{
	const char *at = (const char *)params + p->offset;
	const char *c;
	int idx;

	switch (p->type) {
	case KSCEN_P_INT:
	case KSCEN_P_SIZE:
	case KSCEN_P_TIME:
		return kscen_xasprintf("%lld", *(const long long *)at);
	case KSCEN_P_BOOL:
		return kscen_xstrdup(*(const bool *)at ? "true" : "false");
	case KSCEN_P_ENUM:
		idx = *(const int *)at;
		for (c = p->choices; c && idx > 0; idx--) {
			c = strchr(c, '|');
			c = c ? c + 1 : NULL;
		}
		return c ? kscen_xasprintf("%.*s", (int)strcspn(c, "|"), c) :
			   kscen_xasprintf("%d", *(const int *)at);
	case KSCEN_P_STRING:
		return kscen_xstrdup(*(char *const *)at ? *(char *const *)at : "");
	}
	return kscen_xstrdup("");
}
