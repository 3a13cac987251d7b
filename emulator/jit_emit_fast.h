/*
 * jit_emit_fast.h — the translator's common host instructions encoded
 * without Zydis, to the same bytes (jit_emit.c tries this first).
 */
#ifndef TTREC_EMU_JIT_EMIT_FAST_H
#define TTREC_EMU_JIT_EMIT_FAST_H

#include "jit_emit.h"

#define JIT_FAST_MAX 16 /* an instruction is 15 bytes at most */

/* mn x, y (z must be none): its length in out, or 0 for a form or an
 * operand left to Zydis. */
size_t jit_encode_fast(uint8_t out[JIT_FAST_MAX], ZydisMnemonic mn, struct jit_opnd x,
		       struct jit_opnd y, struct jit_opnd z);

#endif
