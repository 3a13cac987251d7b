/*
 * packets_file.c — Host I/O (vFile:*): gdb reads the program's files
 * (executable, libraries) through the stub, so that it gets the files the
 * recording ran, not whatever this machine has at those paths now. Files
 * are read-only: anything that would write gets EROFS. Without the
 * target's file callbacks every vFile packet is unsupported and gdb reads
 * its own files.
 */
#include <errno.h>
#include <string.h>

#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

/* Errno values of gdb's File-I/O protocol. */
enum {
	FILEIO_EPERM = 1, FILEIO_ENOENT = 2, FILEIO_EBADF = 9, FILEIO_EACCES = 13,
	FILEIO_EISDIR = 21, FILEIO_EINVAL = 22, FILEIO_EMFILE = 24, FILEIO_EROFS = 30,
	FILEIO_ENAMETOOLONG = 91, FILEIO_EUNKNOWN = 9999,
};
/* Open flags of that protocol that ask for writing. */
#define FILEIO_WRITE_FLAGS (0x1 | 0x2 | 0x8 | 0x200 | 0x400 | 0x800)
#define PATH_MAX_BYTES 4096

static int fileio_errno(int linux_errno)
{
	switch (linux_errno) {
	case EPERM: return FILEIO_EPERM;
	case ENOENT: return FILEIO_ENOENT;
	case EBADF: return FILEIO_EBADF;
	case EACCES: return FILEIO_EACCES;
	case EISDIR: return FILEIO_EISDIR;
	case EINVAL: return FILEIO_EINVAL;
	case EMFILE: case ENFILE: return FILEIO_EMFILE;
	case EROFS: return FILEIO_EROFS;
	case ENAMETOOLONG: return FILEIO_ENAMETOOLONG;
	default: return FILEIO_EUNKNOWN;
	}
}

static void reply_file_error(struct gdbstub *stub, int fileio_err)
{
	rsp_buf_clear(&stub->reply);
	reply_printf(stub, "F-1,%x", fileio_err);
}

/* "N1,N2,...": count hex numbers separated by commas, nothing after. */
static bool parse_numbers(const char *p, const char *end, uint64_t *out, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (i && !hex_expect(&p, end, ','))
			return false;
		if (!hex_parse_u64(&p, end, &out[i]))
			return false;
	}
	return p == end;
}

static void vfile_open(struct gdbstub *stub, const char *args, const char *end)
{
	const struct gdbstub_target_ops *ops = stub->target.ops;
	const char *comma = memchr(args, ',', (size_t)(end - args));
	uint64_t flags_mode[2];
	size_t hex_len = comma ? (size_t)(comma - args) : 0;
	char path[PATH_MAX_BYTES + 1];
	if (!comma || hex_len % 2 || !parse_numbers(comma + 1, end, flags_mode, 2)) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (hex_len / 2 > PATH_MAX_BYTES) {
		reply_file_error(stub, FILEIO_ENAMETOOLONG);
		return;
	}
	if (!hex_decode(args, hex_len / 2, (uint8_t *)path)) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	path[hex_len / 2] = 0;
	if (strlen(path) != hex_len / 2) { /* an embedded NUL */
		reply_file_error(stub, FILEIO_EINVAL);
		return;
	}
	if (flags_mode[0] & FILEIO_WRITE_FLAGS) {
		reply_file_error(stub, FILEIO_EROFS);
		return;
	}
	int h = ops->file_open(stub->target.ctx, path);
	if (h < 0)
		reply_file_error(stub, fileio_errno(-h));
	else
		reply_printf(stub, "F%x", h);
}

static void vfile_pread(struct gdbstub *stub, const char *args, const char *end)
{
	uint64_t n[3]; /* handle, count, offset */
	if (!parse_numbers(args, end, n, 3) || n[0] > INT32_MAX) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	/* The reply is "F<count>;" and the bytes, escaped when framed. */
	static uint8_t buf[GDBSTUB_PACKET_SIZE - 32];
	size_t len = n[1] < sizeof(buf) ? (size_t)n[1] : sizeof(buf);
	int64_t got = stub->target.ops->file_pread(stub->target.ctx, (int)n[0], buf, len, n[2]);
	if (got < 0) {
		reply_file_error(stub, fileio_errno((int)-got));
		return;
	}
	reply_printf(stub, "F%llx;", (unsigned long long)got);
	reply_bytes(stub, buf, (size_t)got);
}

static void put_be(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* The protocol's struct stat: 64 big-endian bytes, what gdb looks at is
 * the size and the mode (a read-only regular file). */
static void vfile_fstat(struct gdbstub *stub, const char *args, const char *end)
{
	uint64_t h;
	if (!parse_numbers(args, end, &h, 1) || h > INT32_MAX) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	int64_t size = stub->target.ops->file_size(stub->target.ctx, (int)h);
	if (size < 0) {
		reply_file_error(stub, fileio_errno((int)-size));
		return;
	}
	uint8_t st[64] = { 0 };
	put_be(st + 8, 0100444, 4);     /* st_mode */
	put_be(st + 12, 1, 4);          /* st_nlink */
	put_be(st + 28, (uint64_t)size, 8);
	put_be(st + 36, 4096, 8);       /* st_blksize */
	put_be(st + 44, ((uint64_t)size + 511) / 512, 8);
	reply_printf(stub, "F%zx;", sizeof(st));
	reply_bytes(stub, st, sizeof(st));
}

static void vfile_close(struct gdbstub *stub, const char *args, const char *end)
{
	uint64_t h;
	if (!parse_numbers(args, end, &h, 1) || h > INT32_MAX) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	int r = stub->target.ops->file_close(stub->target.ctx, (int)h);
	if (r < 0)
		reply_file_error(stub, fileio_errno(-r));
	else
		reply_str(stub, "F0");
}

void handle_vfile(struct gdbstub *stub, const char *args, const char *end)
{
	const struct gdbstub_target_ops *ops = stub->target.ops;
	if (!ops->file_open || !ops->file_pread || !ops->file_size || !ops->file_close)
		return; /* unsupported: gdb reads its own files */
	static const struct {
		const char *name;
		void (*handle)(struct gdbstub *, const char *, const char *);
	} calls[] = {
		{ "open:", vfile_open }, { "pread:", vfile_pread },
		{ "fstat:", vfile_fstat }, { "close:", vfile_close },
	};
	size_t len = (size_t)(end - args);
	/* One filesystem: whatever process gdb names, the recorded files. */
	if (len >= 6 && memcmp(args, "setfs:", 6) == 0) {
		reply_str(stub, "F0");
		return;
	}
	if ((len >= 7 && memcmp(args, "pwrite:", 7) == 0) ||
	    (len >= 7 && memcmp(args, "unlink:", 7) == 0)) {
		reply_file_error(stub, FILEIO_EROFS);
		return;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		size_t n = strlen(calls[i].name);
		if (len >= n && memcmp(args, calls[i].name, n) == 0) {
			calls[i].handle(stub, args + n, end);
			return;
		}
	}
	/* readlink and the rest: unsupported (empty reply). */
}
