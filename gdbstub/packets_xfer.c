/*
 * packets_xfer.c — qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH for the objects
 * the stub offers: features (target.xml), auxv, exec-file, libraries-svr4
 * and threads. Each object is produced whole and sliced: the reply is "m"
 * and a slice when more follows, "l" and the last slice otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

/* Room for "<thread id=... core=.../>" per thread. */
#define THREADS_XML_MAX 8192

static void reply_slice(struct gdbstub *stub, const void *object, size_t size,
			uint64_t offset, uint64_t length)
{
	/* The reply is escaped on the wire, so keep it within half a packet. */
	uint64_t max = GDBSTUB_PACKET_SIZE / 2 - 1;
	if (length > max)
		length = max;
	if (offset >= size) {
		reply_str(stub, "l");
		return;
	}
	uint64_t n = size - offset < length ? size - offset : length;
	reply_str(stub, offset + n < size ? "m" : "l");
	reply_bytes(stub, (const uint8_t *)object + offset, n);
}

static size_t threads_xml(struct gdbstub *stub, char *buf, size_t cap)
{
	int64_t tids[256];
	size_t n = stub->target.ops->threads(stub->target.ctx, tids, 256);
	if (n > 256)
		n = 256;
	size_t len = (size_t)snprintf(buf, cap, "<?xml version=\"1.0\"?>\n<threads>\n");
	char pid[32] = "";
	if (stub->multiprocess)
		snprintf(pid, sizeof(pid), "p%llx.", (unsigned long long)stub->pid);
	for (size_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len,
					"<thread id=\"%s%llx\" core=\"0\"/>\n", pid,
					(unsigned long long)tids[i]);
	if (len < cap)
		len += (size_t)snprintf(buf + len, cap - len, "</threads>\n");
	return len < cap ? len : cap - 1;
}

static bool match(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - *p) < n || memcmp(*p, word, n) != 0)
		return false;
	*p += n;
	return true;
}

void handle_qxfer(struct gdbstub *stub, const char *args, const char *end)
{
	const struct gdbstub_target_ops *ops = stub->target.ops;
	void *ctx = stub->target.ctx;
	enum { FEATURES, AUXV, EXEC_FILE, LIBRARIES, THREADS } object;
	if (match(&args, end, "features:read:"))
		object = FEATURES;
	else if (match(&args, end, "auxv:read:"))
		object = AUXV;
	else if (match(&args, end, "exec-file:read:"))
		object = EXEC_FILE;
	else if (match(&args, end, "libraries-svr4:read:"))
		object = LIBRARIES;
	else if (match(&args, end, "threads:read:"))
		object = THREADS;
	else
		return; /* an object or operation we do not offer */

	/* The annex runs to the last ':' (it may name a file). */
	const char *colon = NULL;
	for (const char *q = args; q < end; q++)
		if (*q == ':')
			colon = q;
	uint64_t offset, length;
	const char *p = colon ? colon + 1 : end;
	if (!colon || !hex_parse_u64(&p, end, &offset) || !hex_expect(&p, end, ',') ||
	    !hex_parse_u64(&p, end, &length) || p != end) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	size_t annex_len = (size_t)(colon - args);

	const void *data = NULL;
	size_t size = 0;
	char threads[THREADS_XML_MAX];
	switch (object) {
	case FEATURES:
		if (annex_len != strlen("target.xml") ||
		    memcmp(args, "target.xml", annex_len) != 0) {
			reply_error(stub, GDBSTUB_EINVAL);
			return;
		}
		data = gdbstub_target_xml(&size);
		break;
	case AUXV:
		if (ops->auxv)
			data = ops->auxv(ctx, &size);
		break;
	case EXEC_FILE:
		/* The annex is a process id: there is only one process. */
		if (ops->exec_file && (data = ops->exec_file(ctx)))
			size = strlen(data);
		break;
	case LIBRARIES:
		if (ops->libraries_svr4_xml && (data = ops->libraries_svr4_xml(ctx)))
			size = strlen(data);
		break;
	case THREADS:
		size = threads_xml(stub, threads, sizeof(threads));
		data = threads;
		break;
	}
	if (!data) {
		reply_error(stub, GDBSTUB_EIO);
		return;
	}
	reply_slice(stub, data, size, offset, length);
}
