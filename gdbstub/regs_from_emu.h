/*
 * regs_from_emu.h — fills the stub's register view from the emulator's
 * architectural state, for targets built on the emulator (the replayer and
 * the test target). The only place the stub touches emulator types.
 */
#ifndef TTREC_GDBSTUB_REGS_FROM_EMU_H
#define TTREC_GDBSTUB_REGS_FROM_EMU_H

#include "emulator/emu.h"
#include "gdbstub/target.h"

/* orig_rax is not CPU state: the caller passes it (-1 outside a syscall). */
void gdbstub_regs_from_emu(const struct emu_regs *in, uint64_t orig_rax,
			   struct gdbstub_regs *out);

#endif
