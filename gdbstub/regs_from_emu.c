/*
 * regs_from_emu.c — emulator state to GDB's amd64 register view and back
 * (see regs_from_emu.h).
 */
#include <string.h>

#include "gdbstub/regs_from_emu.h"

/* GDB lists the general registers as rax rbx rcx rdx rsi rdi rbp rsp. */
static const enum emu_gpr gdb_gpr_order[16] = {
	EMU_RAX, EMU_RBX, EMU_RCX, EMU_RDX, EMU_RSI, EMU_RDI, EMU_RBP, EMU_RSP,
	EMU_R8, EMU_R9, EMU_R10, EMU_R11, EMU_R12, EMU_R13, EMU_R14, EMU_R15,
};

void gdbstub_regs_from_emu(const struct emu_regs *in, uint64_t orig_rax,
			   struct gdbstub_regs *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 16; i++)
		out->gpr[i] = in->gpr[gdb_gpr_order[i]];
	out->rip = in->rip;
	out->eflags = (uint32_t)in->rflags;
	out->cs = in->seg_cs;
	out->ss = in->seg_ss;
	out->ds = in->seg_ds;
	out->es = in->seg_es;
	out->fs = in->seg_fs;
	out->gs = in->seg_gs;
	/* GDB's st(i) is relative to the top of the x87 stack; the emulator
	 * keeps physical registers. */
	unsigned top = (in->fsw >> 11) & 7;
	for (unsigned i = 0; i < 8; i++)
		memcpy(out->st[i], in->st[(top + i) & 7].bytes, 10);
	out->fctrl = in->fcw;
	out->fstat = in->fsw;
	out->ftag = in->ftw;
	out->fop = in->fop;
	/* 64-bit FXSAVE has no selectors; GDB shows the offsets' low halves. */
	out->fioff = (uint32_t)in->fip;
	out->fiseg = (uint32_t)(in->fip >> 32);
	out->fooff = (uint32_t)in->fdp;
	out->foseg = (uint32_t)(in->fdp >> 32);
	for (int i = 0; i < 16; i++) {
		memcpy(out->xmm[i], in->zmm[i].b, 16);
		memcpy(out->ymm_hi[i], in->zmm[i].b + 16, 16);
	}
	out->mxcsr = in->mxcsr;
	out->orig_rax = orig_rax;
	out->fs_base = in->fs_base;
	out->gs_base = in->gs_base;
}

void gdbstub_regs_to_emu(const struct gdbstub_regs *in, struct emu_regs *out)
{
	for (int i = 0; i < 16; i++)
		out->gpr[gdb_gpr_order[i]] = in->gpr[i];
	out->rip = in->rip;
	out->rflags = in->eflags;
	out->seg_cs = (uint16_t)in->cs;
	out->seg_ss = (uint16_t)in->ss;
	out->seg_ds = (uint16_t)in->ds;
	out->seg_es = (uint16_t)in->es;
	out->seg_fs = (uint16_t)in->fs;
	out->seg_gs = (uint16_t)in->gs;
	out->fcw = (uint16_t)in->fctrl;
	out->fsw = (uint16_t)in->fstat;
	out->ftw = (uint16_t)in->ftag;
	out->fop = (uint16_t)in->fop;
	unsigned top = (out->fsw >> 11) & 7;
	for (unsigned i = 0; i < 8; i++)
		memcpy(out->st[(top + i) & 7].bytes, in->st[i], 10);
	out->fip = (uint64_t)in->fiseg << 32 | in->fioff;
	out->fdp = (uint64_t)in->foseg << 32 | in->fooff;
	for (int i = 0; i < 16; i++) {
		memcpy(out->zmm[i].b, in->xmm[i], 16);
		memcpy(out->zmm[i].b + 16, in->ymm_hi[i], 16);
	}
	out->mxcsr = in->mxcsr;
	out->fs_base = in->fs_base;
	out->gs_base = in->gs_base;
}
