/*
 * pack_store.c — TRACE.pack/BUILD-ID-HEX.zst: one zstd frame per file,
 * written under a temporary name and renamed, so a reader never sees half
 * a file; read back whole into an anonymous in-memory file and checked
 * against its build-id, so a damaged or planted copy is never used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "trace-format/idna.h"
#include "trace-format/pack_store.h"

#define PACK_ZSTD_LEVEL 9

/* A link to a trace (ttrec's latest.idna) names the pack of the trace it
 * points to: the next recording moves the link, and the pack must stay
 * with the trace whose files it holds. */
int pack_store_dir(const char *trace_path, char *out, size_t size)
{
	char target[4096];
	struct stat st;
	ssize_t len;
	int n;
	if (lstat(trace_path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    (len = readlink(trace_path, target, sizeof(target) - 1)) > 0) {
		target[len] = '\0';
		const char *slash = strrchr(trace_path, '/');
		if (target[0] == '/' || !slash)
			n = snprintf(out, size, "%s.pack", target);
		else
			n = snprintf(out, size, "%.*s/%s.pack", (int)(slash - trace_path), trace_path,
				     target);
	} else {
		n = snprintf(out, size, "%s.pack", trace_path);
	}
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* dir/BUILD-ID-HEX.zst */
static int stored_name(const char *dir, const uint8_t *id, size_t id_len, char *out,
		       size_t size)
{
	if (id_len == 0 || id_len > 64)
		return -1;
	char hex[129];
	for (size_t i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	int n = snprintf(out, size, "%s/%s.zst", dir, hex);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The whole of a regular file, at most `max` bytes. NULL with err. */
static uint8_t *read_whole(int fd, uint64_t max, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		return NULL;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(err, errlen, "larger than %llu bytes", (unsigned long long)max);
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	size_t done = 0;
	while (done < size) {
		ssize_t n = pread(fd, buf + done, size - done, (off_t)done);
		if (n <= 0) {
			snprintf(err, errlen, "%s", n < 0 ? strerror(errno) : "file shrank while read");
			free(buf);
			return NULL;
		}
		done += (size_t)n;
	}
	*len = size;
	return buf;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* dir exists as a folder of ours (made 0700 if missing), not a link. */
static int ensure_dir(const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	struct stat st;
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a folder", dir);
		return -1;
	}
	return 0;
}

int pack_store_put(const char *dir, const uint8_t *build_id, size_t build_id_len,
		   const char *src, uint64_t *stored_bytes, char *err, size_t errlen)
{
	char name[4096], tmp[4200];
	*stored_bytes = 0;
	if (stored_name(dir, build_id, build_id_len, name, sizeof(name)) != 0) {
		snprintf(err, errlen, "bad build-id or folder name");
		return -1;
	}
	if (ensure_dir(dir, err, errlen) != 0)
		return -1;
	struct stat st;
	if (lstat(name, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return -1;
	}
	size_t len = 0;
	char why[128];
	uint8_t *data = read_whole(in, PACK_STORE_MAX_FILE, &len, why, sizeof(why));
	close(in);
	if (!data) {
		snprintf(err, errlen, "%s: %s", src, why);
		return -1;
	}
	size_t cap = ZSTD_compressBound(len);
	uint8_t *packed = malloc(cap);
	size_t n = packed ? ZSTD_compress(packed, cap, data, len, PACK_ZSTD_LEVEL) : 0;
	free(data);
	if (!packed || ZSTD_isError(n)) {
		snprintf(err, errlen, "%s: cannot compress: %s", src,
			 packed ? ZSTD_getErrorName(n) : "out of memory");
		free(packed);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", name);
	int out = mkstemp(tmp);
	if (out < 0) {
		snprintf(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
		free(packed);
		return -1;
	}
	int r = write_all(out, packed, n);
	int saved = errno;
	free(packed);
	if (close(out) != 0 && r == 0) {
		r = -1;
		saved = errno;
	}
	if (r == 0 && rename(tmp, name) != 0) {
		r = -1;
		saved = errno;
	}
	if (r != 0) {
		unlink(tmp);
		snprintf(err, errlen, "cannot write %s: %s", name, strerror(saved));
		return -1;
	}
	*stored_bytes = n;
	return 1;
}

int pack_store_open(const char *dir, const uint8_t *build_id, size_t build_id_len, char *err,
		    size_t errlen)
{
	char name[4096];
	err[0] = 0;
	if (stored_name(dir, build_id, build_id_len, name, sizeof(name)) != 0)
		return -1;
	int in = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return -1; /* not there: no message */
	size_t len = 0;
	char why[128];
	uint8_t *packed = read_whole(in, PACK_STORE_MAX_FILE, &len, why, sizeof(why));
	close(in);
	if (!packed) {
		snprintf(err, errlen, "%s: %s", name, why);
		return -1;
	}
	unsigned long long size = ZSTD_getFrameContentSize(packed, len);
	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
	    size > PACK_STORE_MAX_FILE) {
		snprintf(err, errlen, "%s: not a packed file", name);
		free(packed);
		return -1;
	}
	uint8_t *data = malloc(size ? (size_t)size : 1);
	size_t n = data ? ZSTD_decompress(data, (size_t)size, packed, len) : 0;
	free(packed);
	if (!data || ZSTD_isError(n) || n != size) {
		snprintf(err, errlen, "%s: %s", name, data ? "damaged" : "out of memory");
		free(data);
		return -1;
	}
	int fd = memfd_create("ttrec-packed-file", MFD_CLOEXEC);
	if (fd < 0 || write_all(fd, data, n) != 0) {
		snprintf(err, errlen, "%s: cannot unpack: %s", name, strerror(errno));
		free(data);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	free(data);
	/* The copy must be the file the trace names, not one planted under
	 * its name. */
	char self[64];
	uint8_t id[64];
	char why_id[128];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	int id_len = idna_read_build_id(self, id, sizeof(id), why_id, sizeof(why_id));
	if (id_len < 0 || (size_t)id_len != build_id_len || memcmp(id, build_id, build_id_len) != 0) {
		snprintf(err, errlen, "%s: its build-id is not its name", name);
		close(fd);
		return -1;
	}
	return fd;
}
