/*
 * state_diff.h — comparing the emulator's register state with the CPU's and
 * printing the two side by side.
 */
#ifndef TTREC_STATE_DIFF_H
#define TTREC_STATE_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "emulator/emu.h"

/* Whether two states are architecturally the same. The x87 tag word is
 * compared as empty/non-empty per register: the finer tags are a function
 * of the register contents, not state of their own. */
bool state_equal(const struct emu_regs *a, const struct emu_regs *b);

/* Prints every general register and the differing others as columns
 * before | emulator | cpu, marking the rows where emulator and cpu differ. */
void state_print_diff(FILE *f, const struct emu_regs *before,
		      const struct emu_regs *emu, const struct emu_regs *cpu);

#endif
