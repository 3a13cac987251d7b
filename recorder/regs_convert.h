/*
 * regs_convert.h — conversion between the kernel's view of a thread's
 * registers (user_regs_struct and the standard-format XSAVE area of
 * NT_X86_XSTATE) and the emulator's struct emu_regs, in both directions.
 */
#ifndef TTREC_REGS_CONVERT_H
#define TTREC_REGS_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "emulator/emu.h"

/* Fills all of *out. XSAVE components that are absent from the buffer or
 * marked as in their initial configuration (XSTATE_BV) read as their
 * initial values. The full x87 tag word is derived from the abridged one
 * and the register contents, as FSTENV reports it. */
void regs_from_kernel(const struct user_regs_struct *kregs, const void *xstate,
		      size_t xstate_size, struct emu_regs *out);

/* Stores *in into the kernel structures, which must hold the thread's
 * current state: what emu_regs does not describe (orig_rax, other XSAVE
 * components such as PKRU or AMX tiles) is kept as it is. */
void regs_to_kernel(const struct emu_regs *in, struct user_regs_struct *kregs,
		    void *xstate, size_t xstate_size);

/* The abridged (FXSAVE) tag byte for a full tag word: bit i set when
 * physical register i is not empty. */
uint8_t regs_abridged_tag(uint16_t ftw);

#endif
