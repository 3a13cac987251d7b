/*
 * random_insn.h — rdrand and rdseed executed by ttrec itself for the
 * program: the emulator stops at them (EMU_SPECIAL_RDRAND/RDSEED), the
 * recorder takes a number from this CPU, completes the instruction and
 * logs the number as a NONDET record, so replay reads it from the trace.
 */
#ifndef TTREC_RANDOM_INSN_H
#define TTREC_RANDOM_INSN_H

#include <stdbool.h>
#include <stdint.h>

/* Runs rdseed (seed) or rdrand on this CPU: 0 with *value and *valid (the
 * CPU's CF: false when it had no number ready), or -1 when this CPU lacks
 * the instruction (the program's own would raise #UD: the caller lets the
 * real process run it). */
int random_insn_run(bool seed, uint64_t *value, bool *valid);

#endif
