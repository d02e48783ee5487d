// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_file.c - the passes of scenario loading that need no tree
 * (scenario.c walks the tree): reading the file with its size capped,
 * and libyaml's event stream to refuse hostile input cheaply, which keeps
 * the values of long axes on the way (scenario_axis.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "lib/util.h"
#include "scenario_load.h"
#include "scenario_axis.h"

#define MAX_FILE_SIZE (1 << 20)
#define MAX_DEPTH 16
#define MAX_EVENTS 200000
#define START ((struct kscen_mark){ 1, 1 })

static struct kscen_mark mark_of(yaml_mark_t m)
{
	return (struct kscen_mark){ m.line + 1, m.column + 1 };
}

/* Read the whole file, refusing what cannot be a scenario. */
int kscen_scenario_read(const char *path, char **out, size_t *len)
{
	char *buf;
	int ret;

	ret = kscen_read_regular(path, MAX_FILE_SIZE, &buf, len);
	if (ret == -EFBIG) {
		kscen_file_error(path, START, "too large: the limit is %d bytes",
				 MAX_FILE_SIZE);
		return -EINVAL;
	}
	if (ret) {
		kscen_file_error(path, START, "%s%s",
			ret == -ENODEV || ret == -EISDIR || ret == -EAGAIN ?
			"" : "cannot open: ", kscen_read_strerror(ret));
		return -EINVAL;
	}
	*out = buf;
	return 0;
}

/* What any scenario's text must be, whatever it came from. */
int kscen_scenario_check_text(const char *file, const char *buf, size_t len)
{
	if (len > MAX_FILE_SIZE) {
		kscen_file_error(file, START, "too large: the limit is %d bytes",
				 MAX_FILE_SIZE);
		return -EINVAL;
	}
	if (memchr(buf, '\0', len)) {
		kscen_file_error(file, START, "a binary file, not YAML");
		return -EINVAL;
	}
	return 0;
}

int kscen_scenario_read_fd(const char *name, int fd, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = kscen_xmalloc(cap + 1);
	ssize_t r;

	for (;;) {
		if (n == cap) {
			if (cap > MAX_FILE_SIZE) {
				kscen_file_error(name, START, "too large: the limit is %d bytes",
						 MAX_FILE_SIZE);
				free(buf);
				return -EINVAL;
			}
			cap *= 2;
			buf = kscen_xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR && !kscen_interrupted)
			continue;
		if (r < 0) {
			kscen_file_error(name, START, "cannot read: %s", strerror(errno));
			free(buf);
			return -EINVAL;
		}
		if (!r)
			break;
		n += r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

void kscen_yaml_error(const char *file, yaml_parser_t *p)
{
	struct kscen_mark m = mark_of(p->problem_mark);

	/*
	 * The reader (bad UTF-8) knows only the byte offset, and its mark is
	 * not advanced: count lines and characters up to the offset. The input
	 * is the string the parser was given.
	 */
	if (p->error == YAML_READER_ERROR && p->input.string.start) {
		const unsigned char *c = p->input.string.start;
		const unsigned char *end = c + p->problem_offset;

		if (end > p->input.string.end)
			end = p->input.string.end;
		m = (struct kscen_mark){ 1, 1 };
		for (; c < end; c++) {
			if (*c == '\n')
				m.line++, m.col = 1;
			else if ((*c & 0xc0) != 0x80)
				m.col++;
		}
	}

	kscen_file_error(file, m, "%s%s%s", p->problem ? p->problem : "bad YAML",
			 p->context ? " " : "", p->context ? p->context : "");
}

/*
 * Pass 1: syntax, aliases, depth and size, before any tree is built; and
 * into @out, the long axes (scenario_axis.c). With @pre, the lists lexed
 * before it from the text @buf was made of: each must be found where an
 * axis is, and then its words count as nodes too; if one is not, or
 * anything is wrong, -EAGAIN without a word (the caller reads the whole
 * text, and that pass says what is wrong where).
 */
static int prescan(const char *file, const char *buf, size_t len,
		   struct kscen_streamed *out, struct kscen_streamed *pre)
{
	struct kscen_axis_scan sc = { .buf = buf, .len = len, .out = out, .pre = pre };
	yaml_parser_t p;
	yaml_event_t ev;
	unsigned depth = 0, events = 0, docs = 0;
	bool quiet = pre != NULL;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; pre && i < pre->nr; i++)
		events += pre->axis[i].nr;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			if (!quiet)
				kscen_yaml_error(file, &p);
			ret = -EINVAL;
			break;
		}
		struct kscen_mark m = mark_of(ev.start_mark);
		yaml_event_type_t t = ev.type;
		/* "true\0rm ...": every reader would stop at the NUL */
		bool nul = t == YAML_SCALAR_EVENT &&
			   memchr(ev.data.scalar.value, 0, ev.data.scalar.length);

		if (!nul)
			kscen_axis_scan_event(&sc, &ev);
		else if (!quiet)
			kscen_file_error(file, m, "a NUL character (\\0) in a value: it would "
					 "end the text there (\"%.40s\"), not at the value's end",
					 (const char *)ev.data.scalar.value);
		yaml_event_delete(&ev);
		if (nul) {
			ret = -EINVAL;
			break;
		}
		if (t == YAML_STREAM_END_EVENT)
			break;
		if (++events > MAX_EVENTS) {
			if (!quiet)
				kscen_file_error(file, m, "too many YAML nodes (limit %d)",
						 MAX_EVENTS);
			ret = -EINVAL;
			break;
		}
		if (t == YAML_ALIAS_EVENT) {
			if (!quiet)
				kscen_file_error(file, m, "YAML aliases are not allowed in a scenario");
			ret = -EINVAL;
			break;
		}
		if (t == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			if (!quiet)
				kscen_file_error(file, m, "only one YAML document is allowed");
			ret = -EINVAL;
			break;
		}
		if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
			if (++depth > MAX_DEPTH) {
				if (!quiet)
					kscen_file_error(file, m, "nested too deeply (limit %d)",
							 MAX_DEPTH);
				ret = -EINVAL;
				break;
			}
		} else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
			depth--;
		}
	}
	yaml_parser_delete(&p);
	if (!kscen_axis_scan_end(&sc, ret != 0) || (ret && quiet))
		return -EAGAIN;
	return ret;
}

/*
 * Lists of plain words lexed first (a 10^5-value axis is then not 10^5
 * events of libyaml's), when pass 1 over the text without them finds
 * each where an axis is; else pass 1 over the text as it is.
 */
int kscen_scenario_prescan(const char *file, const char *buf, size_t len,
			   struct kscen_streamed *out)
{
	struct kscen_streamed pre;

	if (kscen_axis_prelex_on && kscen_axis_prelex(buf, len, &pre)) {
		unsigned lexed = pre.nr;
		int ret = prescan(file, pre.text, pre.len, out, &pre);

		kscen_streamed_fini(&pre);
		if (!ret) {
			out->lexed = lexed;
			return 0;
		}
	}
	return prescan(file, buf, len, out, NULL);
}
