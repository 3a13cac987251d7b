/*
 * trace_regs.h — the emulator's register state to and from the trace
 * format's register block. Both hold the complete user-mode state; only the
 * layout differs.
 */
#ifndef TTREC_TRACE_REGS_H
#define TTREC_TRACE_REGS_H

#include "emulator/emu.h"
#include "trace-format/idna.h"

void trace_regs_from_emu(const struct emu_regs *in, struct idna_regs *out);
void trace_regs_to_emu(const struct idna_regs *in, struct emu_regs *out);

#endif
