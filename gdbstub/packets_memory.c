/*
 * packets_memory.c — memory packets: m (hex), x (binary, "b" + data) and
 * the writes M (hex) and X (binary), which the target may refuse (EROFS
 * without a write_memory callback). A read that stops
 * early returns the bytes before the first unreadable one, as GDB expects;
 * one that cannot read a single byte is an error.
 */
#include <string.h>

#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

/* "ADDR,LENGTH" with nothing after it. */
static bool parse_range(const char *args, const char *end, uint64_t *addr,
			uint64_t *len)
{
	return hex_parse_u64(&args, end, addr) && hex_expect(&args, end, ',') &&
	       hex_parse_u64(&args, end, len) && args == end;
}

/* Reads at most max bytes of [addr, addr+len) into buf; replies an error
 * and returns 0 when none could be read. */
static size_t read_range(struct gdbstub *stub, const char *args, const char *end,
			 uint8_t *buf, size_t max)
{
	uint64_t addr, len;
	if (!parse_range(args, end, &addr, &len)) {
		reply_error(stub, GDBSTUB_EINVAL);
		return 0;
	}
	if (len == 0) {
		/* An empty reply would read as "unsupported". */
		reply_error(stub, GDBSTUB_EINVAL);
		return 0;
	}
	if (len > max)
		len = max;
	if (len - 1 > UINT64_MAX - addr) /* up to the last byte of the space */
		len = UINT64_MAX - addr + 1;
	size_t done = 0;
	enum gdbstub_mem_status st =
		stub->target.ops->read_memory(stub->target.ctx, addr, buf, len, &done);
	if (done > len)
		done = len;
	if (done == 0)
		reply_error(stub, st == GDBSTUB_MEM_UNAVAILABLE ? GDBSTUB_EUNAVAIL
								: GDBSTUB_EFAULT);
	return done;
}

void handle_read_memory_hex(struct gdbstub *stub, const char *args, const char *end)
{
	uint8_t buf[GDBSTUB_PACKET_SIZE / 2];
	size_t n = read_range(stub, args, end, buf, sizeof(buf));
	reply_hex(stub, buf, n);
}

void handle_read_memory_binary(struct gdbstub *stub, const char *args, const char *end)
{
	/* Escaping may double every byte. */
	uint8_t buf[GDBSTUB_PACKET_SIZE / 2 - 1];
	uint64_t addr, len;
	if (parse_range(args, end, &addr, &len) && len == 0) {
		reply_str(stub, "b"); /* a probe for x support */
		return;
	}
	size_t n = read_range(stub, args, end, buf, sizeof(buf));
	if (n) {
		reply_str(stub, "b");
		reply_bytes(stub, buf, n);
	}
}

/* "Maddr,len:hex" and "Xaddr,len:binary" (escapes already undone). */
static void write_memory(struct gdbstub *stub, bool binary, const char *args, const char *end)
{
	uint8_t buf[GDBSTUB_PACKET_SIZE];
	uint64_t addr, len;
	const char *colon = memchr(args, ':', (size_t)(end - args));
	if (!colon || !parse_range(args, colon, &addr, &len) || len > sizeof(buf)) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (!stub->target.ops->write_memory) {
		reply_error(stub, GDBSTUB_EROFS);
		return;
	}
	const char *data = colon + 1;
	size_t n = (size_t)(end - data);
	if (binary ? n != len : (n != 2 * len || !hex_decode(data, len, buf))) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (binary)
		memcpy(buf, data, n);
	if (len > 0 && stub->target.ops->write_memory(stub->target.ctx, addr, buf, len) < 0)
		reply_error(stub, GDBSTUB_EFAULT);
	else
		reply_ok(stub);
}

void handle_write_memory_hex(struct gdbstub *stub, const char *args, const char *end)
{
	write_memory(stub, false, args, end);
}

void handle_write_memory_binary(struct gdbstub *stub, const char *args, const char *end)
{
	write_memory(stub, true, args, end);
}
