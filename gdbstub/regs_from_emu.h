/*
 * regs_from_emu.h — the stub's register view from the emulator's
 * architectural state and back, for targets built on the emulator (the
 * replayer and the test target). The only place the stub touches emulator
 * types.
 */
#ifndef TTREC_GDBSTUB_REGS_FROM_EMU_H
#define TTREC_GDBSTUB_REGS_FROM_EMU_H

#include "emulator/emu.h"
#include "gdbstub/target.h"

/* orig_rax is not CPU state: the caller passes it (-1 outside a syscall). */
void gdbstub_regs_from_emu(const struct emu_regs *in, uint64_t orig_rax,
			   struct gdbstub_regs *out);

/* The registers gdb sees, written back into *out; what gdb does not see
 * (the upper halves of zmm, zmm16-31, opmasks, orig_rax) stays as it was. */
void gdbstub_regs_to_emu(const struct gdbstub_regs *in, struct emu_regs *out);

#endif
