// SPDX-License-Identifier: GPL-2.0
/*
 * trust.c - open a file that will run as code with our privileges (a
 * workload module, the scenario a journal names) only if nobody but root
 * and the caller could have put it there.
 *
 * The path is walked one component at a time from / (openat() on O_PATH
 * descriptors, as sudo's sudo_secure_path() and the kernel's
 * protected_symlinks reason): every directory on the way is owned by root
 * or the caller and writable by neither its group (unless that is root's
 * group) nor the world, unless it is sticky (/tmp: nobody else can rename
 * or remove our entries there); every symlink followed is owned by root
 * or the caller, and its target is walked the same way; the file itself
 * is a regular file with the same owner and mode rules. The file is then
 * opened through the directory descriptor that was checked, so what is
 * read is what was checked; the path it resolves to is given back, so a
 * symlink resolved before the check (realpath(), as kscen did) cannot
 * hide a directory anyone may write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define MAX_LINKS 40	/* as the kernel's MAXSYMLINKS */

int kscen_errf(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * Why @st (of @what at @path) is one others may have changed, or NULL.
 * @uid: the caller's.
 */
static const char *untrusted(const struct stat *st, uid_t uid, char *buf, size_t len)
{
	bool dir = S_ISDIR(st->st_mode), sticky = dir && (st->st_mode & S_ISVTX);

	if (st->st_uid != 0 && st->st_uid != uid) {
		snprintf(buf, len, "owned by uid %u, not root or uid %u", (unsigned)st->st_uid,
			 (unsigned)uid);
		return buf;
	}
	if ((st->st_mode & S_IWOTH) && !sticky)
		return "world-writable";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0 && !sticky)
		return "group-writable";
	return NULL;
}

/* @path's resolved prefix @real grows by "/@name". */
static void push(char *real, const char *name)
{
	size_t n = strlen(real);

	snprintf(real + n, PATH_MAX - n, "%s%s", n == 1 ? "" : "/", name);
}

static void pop(char *real)
{
	char *slash = strrchr(real, '/');

	if (slash && slash != real)
		*slash = '\0';
	else
		strcpy(real, "/");
}

int kscen_open_trusted(const char *path, bool dir, char *real, char *err, size_t len)
{
	char *todo = NULL, *rest, why[96], cwd[PATH_MAX];
	uid_t uid = geteuid();
	unsigned links = 0;
	struct stat st;
	int fd, next, ret;

	if (!*path)
		return kscen_errf(err, len, -ENOENT, "%s: %s", path, strerror(ENOENT));
	if (path[0] == '/')
		todo = kscen_xstrdup(path);
	else if (getcwd(cwd, sizeof(cwd)))
		todo = kscen_xasprintf("%s/%s", cwd, path);
	else
		return kscen_errf(err, len, -errno, "%s: %s", path, strerror(errno));
	strcpy(real, "/");
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = kscen_errf(err, len, -errno, "/: %s", strerror(errno));
		goto out;
	}
	if (untrusted(&st, uid, why, sizeof(why))) {
		ret = kscen_errf(err, len, -EPERM, "%s: refused: the directory / is %s", path,
			  untrusted(&st, uid, why, sizeof(why)));
		goto out;
	}
	rest = todo;
	for (;;) {
		char *name, *slash;

		while (*rest == '/')
			rest++;
		if (!*rest)
			break;
		name = rest;
		slash = strchr(rest, '/');
		rest = slash ? slash + 1 : rest + strlen(rest);
		if (slash)
			*slash = '\0';
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			next = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (next < 0) {
				ret = kscen_errf(err, len, -errno, "%s: %s", path, strerror(errno));
				goto out;
			}
			close(fd);
			fd = next;
			pop(real);
			continue;
		}
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			ret = errno;
			push(real, name);
			ret = kscen_errf(err, len, -ret, "%s: %s", path, strerror(ret));
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX], *more;
			ssize_t n;
			const char *bad = untrusted(&st, uid, why, sizeof(why));

			push(real, name);
			if (bad) {
				ret = kscen_errf(err, len, -EPERM, "%s: refused: the symlink %s is %s",
					  path, real, bad);
				goto out;
			}
			pop(real);
			if (++links > MAX_LINKS) {
				ret = kscen_errf(err, len, -ELOOP, "%s: %s", path, strerror(ELOOP));
				goto out;
			}
			n = readlinkat(fd, name, target, sizeof(target) - 1);
			if (n <= 0) {
				ret = kscen_errf(err, len, n < 0 ? -errno : -ENOENT, "%s: %s", path,
					  strerror(n < 0 ? errno : ENOENT));
				goto out;
			}
			target[n] = '\0';
			/* the target, then what was left of the path */
			more = kscen_xasprintf("%s/%s", target, rest);
			free(todo);
			todo = rest = more;
			if (target[0] == '/') {
				close(fd);
				fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				strcpy(real, "/");
				if (fd < 0) {
					ret = kscen_errf(err, len, -errno, "/: %s", strerror(errno));
					goto out;
				}
			}
			continue;
		}
		push(real, name);
		{
			bool last = !*rest || !rest[strspn(rest, "/")];
			const char *bad = untrusted(&st, uid, why, sizeof(why));

			if (last && !dir && !S_ISREG(st.st_mode)) {
				ret = kscen_errf(err, len, -EINVAL, "%s: not a regular file", path);
				goto out;
			}
			if (!last && !S_ISDIR(st.st_mode)) {
				ret = kscen_errf(err, len, -ENOTDIR, "%s: %s", path, strerror(ENOTDIR));
				goto out;
			}
			if (last && dir && !S_ISDIR(st.st_mode)) {
				ret = kscen_errf(err, len, -ENOTDIR, "%s: %s", path, strerror(ENOTDIR));
				goto out;
			}
			if (bad) {
				ret = kscen_errf(err, len, -EPERM, "%s: refused: %s%s is %s", path,
					  S_ISDIR(st.st_mode) ? "the directory " : "the file",
					  S_ISDIR(st.st_mode) ? real : "", bad);
				goto out;
			}
			next = openat(fd, name, last ? (dir ? O_RDONLY | O_DIRECTORY :
							 O_RDONLY | O_NOFOLLOW | O_NONBLOCK) |
				      O_CLOEXEC : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (next < 0) {
				ret = kscen_errf(err, len, -errno, "%s: %s", path, strerror(errno));
				goto out;
			}
			close(fd);
			fd = next;
			if (last) {
				struct stat now;

				/* the file opened is the one checked */
				if (fstat(fd, &now) || now.st_dev != st.st_dev ||
				    now.st_ino != st.st_ino) {
					ret = kscen_errf(err, len, -EAGAIN, "%s: changed while it "
						  "was checked", path);
					goto out;
				}
				if (!dir)
					fcntl(fd, F_SETFL, 0);	/* blocking again */
				free(todo);
				return fd;
			}
		}
	}
	/* the path named a directory: "/" or a trailing "/" */
	if (!dir) {
		ret = kscen_errf(err, len, -EISDIR, "%s: %s", path, strerror(EISDIR));
		goto out;
	}
	next = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(fd);
	free(todo);
	return next < 0 ? kscen_errf(err, len, -errno, "%s: %s", path, strerror(errno)) : next;
out:
	if (fd >= 0)
		close(fd);
	free(todo);
	return ret;
}
