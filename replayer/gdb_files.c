/*
 * gdb_files.c — the files gdb reads through the stub (Host I/O): the
 * program and the libraries the trace maps, as recorded (this machine's
 * copy when its build-id matches, else the copy `ttrec pack` kept), and
 * separate debug files under /usr/lib/debug. Nothing else: a ttreplay
 * serving a port must not hand out the files of whoever runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replayer/gdb_target_internal.h"

#define DEBUG_FILE_DIR "/usr/lib/debug/"

/* gdb names a library by the path the loader used (/lib64/ld-linux...),
 * the trace by the one the kernel shows (symlinks resolved): try both. */
static int open_recorded(struct module_files *m, const char *path)
{
	int fd = module_files_open(m, path);
	if (fd != -EACCES)
		return fd;
	char real[PATH_MAX];
	if (realpath(path, real) && strcmp(real, path) != 0)
		return module_files_open(m, real);
	return -EACCES;
}

static int open_debug_file(const char *path)
{
	if (strncmp(path, DEBUG_FILE_DIR, strlen(DEBUG_FILE_DIR)) != 0 || strstr(path, "/../"))
		return -EACCES;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

int target_file_open(void *ctx, const char *path)
{
	struct gdb_target *t = ctx;
	size_t h = 0;
	while (h < MAX_OPEN_FILES && t->open_files[h] > 0)
		h++;
	if (h == MAX_OPEN_FILES)
		return -EMFILE;
	int fd = open_recorded(t->s->modules, path);
	if (fd == -EACCES)
		fd = open_debug_file(path);
	if (fd < 0)
		return fd;
	t->open_files[h] = fd + 1;
	return (int)h;
}

/* The descriptor of handle h, or -1. */
static int fd_of(const struct gdb_target *t, int h)
{
	return h >= 0 && h < MAX_OPEN_FILES && t->open_files[h] > 0 ? t->open_files[h] - 1 : -1;
}

int64_t target_file_pread(void *ctx, int handle, void *buf, size_t len, uint64_t offset)
{
	int fd = fd_of(ctx, handle);
	if (fd < 0)
		return -EBADF;
	if (offset > INT64_MAX)
		return -EINVAL;
	ssize_t n = pread(fd, buf, len, (off_t)offset);
	return n >= 0 ? n : -errno;
}

int64_t target_file_size(void *ctx, int handle)
{
	int fd = fd_of(ctx, handle);
	struct stat st;
	if (fd < 0)
		return -EBADF;
	return fstat(fd, &st) == 0 ? st.st_size : -errno;
}

int target_file_close(void *ctx, int handle)
{
	struct gdb_target *t = ctx;
	int fd = fd_of(t, handle);
	if (fd < 0)
		return -EBADF;
	close(fd);
	t->open_files[handle] = 0;
	return 0;
}

void target_files_close_all(struct gdb_target *t)
{
	for (int h = 0; h < MAX_OPEN_FILES; h++)
		if (fd_of(t, h) >= 0)
			target_file_close(t, h);
}

static void warn_mismatch(void *ctx, const char *path, bool missing, bool packed)
{
	const char *trace = ctx;
	const char *what = missing ? "is missing" : "is not the file recorded (another build-id)";
	if (packed)
		fprintf(stderr, "ttreplay: %s %s: the packed copy serves; a gdb given this "
			"machine's file would show wrong symbols: start gdb without naming the "
			"program (gdb -ex 'target remote | ttreplay %s')\n", path, what, trace);
	else
		fprintf(stderr, "ttreplay: warning: %s %s: gdb may show wrong symbols for it "
			"(ttrec pack %s, run where the recording was made, keeps the recorded "
			"files)\n", path, what, trace);
}

void target_files_check(struct gdb_target *t)
{
	module_files_report_mismatches(t->s->modules, warn_mismatch, t->s->path);
}
