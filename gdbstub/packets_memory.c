/*
 * packets_memory.c — memory packets: m (hex), x (binary, "b" + data) and
 * the refused writes M and X (history is read-only). A read that stops
 * early returns the bytes before the first unreadable one, as GDB expects;
 * one that cannot read a single byte is an error.
 */
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

void handle_write_memory(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args;
	(void)end;
	reply_error(stub, GDBSTUB_EROFS);
}
