/*
 * packets_regs.c — register packets: g (all registers, in register-number
 * order as the target description numbers them), p (one register), and
 * the writes G and P, which the target may refuse (EROFS without a
 * write_registers callback). A write names some registers: the stub reads
 * the others and hands the target the whole set.
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

/* Writes the registers from regnum `first` on (G: 0, P: the one named)
 * with the hex values [hex, end): each register whole; G may stop early
 * (the others keep their values), P names exactly one. */
static void write_registers_from(struct gdbstub *stub, size_t first, bool just_one,
				 const char *hex, const char *end)
{
	struct gdbstub_regs regs;
	if (!stub->target.ops->write_registers) {
		reply_error(stub, GDBSTUB_EROFS);
		return;
	}
	if (!read_thread_registers(stub, &regs))
		return;
	size_t n = 0;
	for (size_t i = first; hex < end && i < gdbstub_reg_count(); i++) {
		const struct gdbstub_reg_desc *r = gdbstub_reg(i);
		size_t digits = r->bits / 4;
		if ((size_t)(end - hex) < digits ||
		    !hex_decode(hex, digits / 2, (uint8_t *)&regs + r->offset)) {
			reply_error(stub, GDBSTUB_EINVAL);
			return;
		}
		hex += digits;
		n++;
		if (just_one)
			break;
	}
	if (hex != end || n == 0) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (stub->target.ops->write_registers(stub->target.ctx, stub_reg_thread(stub), &regs) < 0)
		reply_error(stub, GDBSTUB_EROFS);
	else
		reply_ok(stub);
}

void handle_write_all_registers(struct gdbstub *stub, const char *args, const char *end)
{
	write_registers_from(stub, 0, false, args, end);
}

/* "Pn=value" */
void handle_write_register(struct gdbstub *stub, const char *args, const char *end)
{
	uint64_t regnum;
	if (!hex_parse_u64(&args, end, &regnum) || !hex_expect(&args, end, '=') ||
	    !gdbstub_reg(regnum)) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	write_registers_from(stub, (size_t)regnum, true, args, end);
}
