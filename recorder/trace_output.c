/*
 * trace_output.c — the trace file's name and its place on disk: new names
 * written in place, existing traces replaced through a temporary name, and
 * nothing else touched (trace_output.h).
 */
#include "recorder/trace_output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace-format/idna.h"

static bool name_is_free(const char *path)
{
	struct stat st;
	return lstat(path, &st) != 0 && errno == ENOENT;
}

void trace_output_default_name(const char *program, char *out, size_t size)
{
	char copy[PATH_MAX];
	snprintf(copy, sizeof(copy), "%s", program);
	const char *base = basename(copy);
	for (unsigned n = 0;; n++) {
		snprintf(out, size, "%s-%u.idna", base, n);
		if (name_is_free(out))
			return;
	}
}

/* Whether path is a regular file that begins with the trace magic. Opened
 * without following links and without blocking (it may be a FIFO). */
static bool is_trace_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	char magic[8];
	bool yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		   read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
		   idna_starts_with_magic(magic, sizeof(magic));
	close(fd);
	return yes;
}

/* STEM.partial.idna beside path (STEM: path without .idna), or
 * STEM.partial-N.idna with the first free N. */
static int temporary_name(const char *path, char *out, size_t size)
{
	size_t len = strlen(path);
	if (len > 5 && strcmp(path + len - 5, ".idna") == 0)
		len -= 5;
	for (unsigned n = 0; n < 1000; n++) {
		int k = n ? snprintf(out, size, "%.*s.partial-%u.idna", (int)len, path, n)
			  : snprintf(out, size, "%.*s.partial.idna", (int)len, path);
		if (k < 0 || (size_t)k >= size)
			return -1;
		if (name_is_free(out))
			return 0;
	}
	return -1;
}

int trace_output_prepare(struct trace_output *o, const char *path, bool force, char *err,
			 size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (snprintf(o->final_path, sizeof(o->final_path), "%s", path) >= (int)sizeof(o->final_path)) {
		snprintf(err, errlen, "%s: name too long", path);
		return -1;
	}
	struct stat st;
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		snprintf(o->write_path, sizeof(o->write_path), "%s", path);
		return 0;
	}
	/* Renaming replaces a link itself, never what it points to; any other
	 * kind of file (device, FIFO, directory, socket) is never replaced. */
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a regular file: not replaced", path);
		return -1;
	}
	if (!force && S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s is a symbolic link: not followed, not replaced "
			 "(--force replaces the link itself)", path);
		return -1;
	}
	if (!force && !is_trace_file(path)) {
		snprintf(err, errlen, "%s exists and is not a trace: not replaced (--force replaces it)",
			 path);
		return -1;
	}
	if (temporary_name(path, o->write_path, sizeof(o->write_path)) != 0) {
		snprintf(err, errlen, "%s: no free temporary name beside it", path);
		return -1;
	}
	o->replacing = true;
	return 0;
}

int trace_output_keep(const struct trace_output *o, char *err, size_t errlen)
{
	if (!o->replacing)
		return 0;
	if (rename(o->write_path, o->final_path) != 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s; the trace stays at %s",
			 o->write_path, o->final_path, strerror(errno), o->write_path);
		return -1;
	}
	return 0;
}

void trace_output_discard(const struct trace_output *o)
{
	unlink(o->write_path);
}

bool trace_output_update_latest(const char *trace)
{
	struct stat st;
	if (lstat("latest.idna", &st) == 0 && !S_ISLNK(st.st_mode))
		return false;
	/* A link of our own under a name nobody else uses, renamed over the
	 * old link: latest.idna is never missing in between. */
	char tmp[64];
	snprintf(tmp, sizeof(tmp), ".latest.idna.%d", (int)getpid());
	if (symlink(trace, tmp) != 0)
		return true; /* the name is taken: not ours to remove */
	if (rename(tmp, "latest.idna") != 0)
		unlink(tmp);
	return true;
}
