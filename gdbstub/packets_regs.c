/*
 * packets_regs.c — register packets: g (all registers, in register-number
 * order as the target description numbers them), p (one register); G and P
 * are refused because history is read-only.
 */
#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

static bool read_thread_registers(struct gdbstub *stub, struct gdbstub_regs *regs)
{
	int64_t tid = stub_reg_thread(stub);
	if (stub->target.ops->read_registers(stub->target.ctx, tid, regs) < 0) {
		reply_error(stub, GDBSTUB_ESRCH);
		return false;
	}
	return true;
}

/* The host is x86-64, so the struct's fields are already in the target's
 * little-endian byte order. */
static void reply_register(struct gdbstub *stub, const struct gdbstub_regs *regs,
			   const struct gdbstub_reg_desc *r)
{
	reply_hex(stub, (const uint8_t *)regs + r->offset, r->bits / 8);
}

void handle_read_all_registers(struct gdbstub *stub, const char *args, const char *end)
{
	struct gdbstub_regs regs;
	if (args != end) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (!read_thread_registers(stub, &regs))
		return;
	for (size_t i = 0; i < gdbstub_reg_count(); i++)
		reply_register(stub, &regs, gdbstub_reg(i));
}

void handle_read_register(struct gdbstub *stub, const char *args, const char *end)
{
	uint64_t regnum;
	struct gdbstub_regs regs;
	if (!hex_parse_u64(&args, end, &regnum) || args != end) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	const struct gdbstub_reg_desc *r = gdbstub_reg(regnum);
	if (!r) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (read_thread_registers(stub, &regs))
		reply_register(stub, &regs, r);
}

void handle_write_all_registers(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args;
	(void)end;
	reply_error(stub, GDBSTUB_EROFS);
}

void handle_write_register(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args;
	(void)end;
	reply_error(stub, GDBSTUB_EROFS);
}
