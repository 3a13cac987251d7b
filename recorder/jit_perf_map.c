/*
 * jit_perf_map.c — writes perf's map of JIT code for the emulator's
 * translations (jit_perf_map.h). The emulator only reports where each
 * translation's parts are (emu_set_jit_listener); files are this side's.
 * A line per part, named by the block's guest address and the part
 * ("guest_0x401000.body"), so a profile tells dispatch from work.
 */
#include "jit_perf_map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emulator/emu.h"

static FILE *map;
static char *map_path;
static bool close_registered;

static void fail(const char *what)
{
	fprintf(stderr, "ttrec: perf map %s: %s: %s (no map written)\n", map_path ? map_path : "",
		what, strerror(errno));
	jit_perf_map_close();
}

static void heard(void *ctx, uint64_t guest_rip, const struct emu_jit_part *parts, unsigned n)
{
	(void)ctx;
	for (unsigned i = 0; i < n; i++) {
		if (parts[i].size == 0)
			continue;
		if (fprintf(map, "%lx %zx guest_%#lx.%s\n", (unsigned long)(uintptr_t)parts[i].start,
			    parts[i].size, (unsigned long)guest_rip, parts[i].name) < 0) {
			fail("write");
			return;
		}
	}
}

/* A descriptor for writing `path` from its start: a new file, or one
 * already there that is a regular file of ours with no other name (a
 * map left by an earlier process with this pid), emptied. */
static int open_own(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0 || errno != EEXIST)
		return fd;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		close(fd);
		errno = EEXIST;
		return -1;
	}
	if (ftruncate(fd, 0) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

bool jit_perf_map_open(const char *path)
{
	jit_perf_map_close();
	map_path = strdup(path);
	if (!map_path)
		return false;
	int fd = open_own(path);
	if (fd < 0) {
		fail("open");
		return false;
	}
	map = fdopen(fd, "w");
	if (!map) {
		close(fd);
		fail("open");
		return false;
	}
	if (!close_registered)
		close_registered = atexit(jit_perf_map_close) == 0;
	emu_set_jit_listener(heard, NULL);
	return true;
}

void jit_perf_map_close(void)
{
	emu_set_jit_listener(NULL, NULL);
	if (map && fclose(map) != 0)
		fprintf(stderr, "ttrec: perf map %s: close: %s\n", map_path, strerror(errno));
	map = NULL;
	free(map_path);
	map_path = NULL;
}

void jit_perf_map_from_environment(void)
{
	const char *on = getenv("TTREC_PERF_MAP");
	if (!on || strcmp(on, "1") != 0)
		return;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%ld.map", (long)getpid());
	jit_perf_map_open(path);
}
