// SPDX-License-Identifier: GPL-2.0
/*
 * test_deploy.c - deploy/k8s/kscen-job.yaml has the shape of what it claims
 * to be: an Indexed batch/v1 Job whose completions, parallelism and
 * KSCEN_SHARDS agree (a mismatch would silently run some shards twice or
 * never), privileged, writing to a volume it declares, and a merge Job
 * on the same volume. Read with libyaml, as kscen reads its own files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/util.h"
#include "tests.h"

#define MANIFEST "deploy/k8s/kscen-job.yaml"

/* The node at dotted @path under @n ("spec.template.spec"); "0" indexes a list. */
static yaml_node_t *at(yaml_document_t *d, yaml_node_t *n, const char *path)
{
	char *p = kscen_xstrdup(path), *save = NULL;

	for (char *k = strtok_r(p, ".", &save); k && n; k = strtok_r(NULL, ".", &save)) {
		yaml_node_t *next = NULL;

		if (n->type == YAML_SEQUENCE_NODE) {
			long i = strtol(k, NULL, 10);

			if (i >= 0 && i < n->data.sequence.items.top - n->data.sequence.items.start)
				next = yaml_document_get_node(d, n->data.sequence.items.start[i]);
		} else if (n->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
			     q < n->data.mapping.pairs.top; q++) {
				yaml_node_t *key = yaml_document_get_node(d, q->key);

				if (key->type == YAML_SCALAR_NODE &&
				    !strcmp((char *)key->data.scalar.value, k))
					next = yaml_document_get_node(d, q->value);
			}
		}
		n = next;
	}
	free(p);
	return n;
}

static const char *scalar_at(yaml_document_t *d, yaml_node_t *n, const char *path)
{
	n = at(d, n, path);
	return n && n->type == YAML_SCALAR_NODE ? (char *)n->data.scalar.value : NULL;
}

static bool is(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

/* The value of env var @name of container @c, or NULL. */
static const char *env_of(yaml_document_t *d, yaml_node_t *c, const char *name)
{
	yaml_node_t *env = at(d, c, "env");

	for (int i = 0; env && env->type == YAML_SEQUENCE_NODE &&
	     i < env->data.sequence.items.top - env->data.sequence.items.start; i++) {
		char idx[64];

		snprintf(idx, sizeof(idx), "%d", i);
		if (is(scalar_at(d, env, strcat(idx, ".name")), name)) {
			snprintf(idx, sizeof(idx), "%d.value", i);
			return scalar_at(d, env, idx);
		}
	}
	return NULL;
}

/* Does pod spec @ps mount a volume @ps declares at /results, from the PVC? */
static bool results_volume(yaml_document_t *d, yaml_node_t *ps)
{
	const char *name = NULL;
	yaml_node_t *mounts = at(d, ps, "containers.0.volumeMounts");
	yaml_node_t *vols = at(d, ps, "volumes");
	char idx[64];

	for (int i = 0; mounts && i < 8; i++) {
		snprintf(idx, sizeof(idx), "%d.mountPath", i);
		if (is(scalar_at(d, mounts, idx), "/results")) {
			snprintf(idx, sizeof(idx), "%d.name", i);
			name = scalar_at(d, mounts, idx);
		}
	}
	for (int i = 0; name && vols && i < 8; i++) {
		snprintf(idx, sizeof(idx), "%d.name", i);
		if (!is(scalar_at(d, vols, idx), name))
			continue;
		snprintf(idx, sizeof(idx), "%d.persistentVolumeClaim.claimName", i);
		return is(scalar_at(d, vols, idx), "kscen-results");
	}
	return false;
}

void test_deploy_k8s_indexed_job_shape(void **state)
{
	FILE *f = fopen(MANIFEST, "r");
	yaml_parser_t parser;
	bool shards = false, merge = false, pvc = false;

	assert_true(f != NULL);
	if (!f)
		return;
	assert_true(yaml_parser_initialize(&parser));
	yaml_parser_set_input_file(&parser, f);
	for (;;) {
		yaml_document_t d;
		yaml_node_t *root, *ps, *c;
		const char *kind, *name;
		long completions, parallelism;

		if (!yaml_parser_load(&parser, &d)) {
			assert_true(!"manifest parses");
			break;
		}
		root = yaml_document_get_root_node(&d);
		if (!root) {
			yaml_document_delete(&d);
			break;
		}
		kind = scalar_at(&d, root, "kind");
		name = scalar_at(&d, root, "metadata.name");
		if (is(kind, "PersistentVolumeClaim") && is(name, "kscen-results")) {
			pvc = is(scalar_at(&d, root, "spec.accessModes.0"), "ReadWriteMany");
		} else if (is(kind, "Job")) {
			assert_true(is(scalar_at(&d, root, "apiVersion"), "batch/v1"));
			ps = at(&d, root, "spec.template.spec");
			c = at(&d, ps, "containers.0");
			assert_true(c != NULL);
			assert_true(is(scalar_at(&d, ps, "restartPolicy"), "Never"));
			assert_true(results_volume(&d, ps));
			completions = strtol(scalar_at(&d, root, "spec.completions") ?: "0", NULL, 10);
			parallelism = strtol(scalar_at(&d, root, "spec.parallelism") ?: "0", NULL, 10);
			assert_true(parallelism >= 1 && parallelism <= completions);
			if (is(name, "kscen-shards")) {
				shards = true;
				assert_true(is(scalar_at(&d, root, "spec.completionMode"), "Indexed"));
				assert_true(completions >= 2);
				/* kscen's shard count is the Job's completions. */
				assert_true(env_of(&d, c, "KSCEN_SHARDS") &&
					atol(env_of(&d, c, "KSCEN_SHARDS")) == completions);
				/* Kubernetes sets the index; the manifest must not. */
				assert_true(!env_of(&d, c, "JOB_COMPLETION_INDEX"));
				assert_true(strstr(scalar_at(&d, c, "args.0") ?: "",
					       "--shards \"$KSCEN_SHARDS\""));
				assert_true(is(scalar_at(&d, c, "securityContext.privileged"), "true"));
			} else if (is(name, "kscen-merge")) {
				merge = true;
				assert_true(completions == 1);
				assert_true(strstr(scalar_at(&d, c, "args.0") ?: "", "kscen merge"));
				assert_true(is(env_of(&d, c, "KSCEN_SHARDS"), "4"));
			}
		}
		yaml_document_delete(&d);
	}
	assert_true(shards && merge && pvc);
	yaml_parser_delete(&parser);
	fclose(f);
}
