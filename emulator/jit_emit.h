/*
 * jit_emit.h — a small x86-64 assembler for the block translator: host
 * instructions are encoded by Zydis's encoder from (mnemonic, operands);
 * branches inside one translation are rel32 and patched once their target
 * is known. Nothing here knows about guest state.
 */
#ifndef TTREC_EMU_JIT_EMIT_H
#define TTREC_EMU_JIT_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

/* Host registers by hardware number (the same order as enum emu_gpr). */
enum jit_reg {
	JR_RAX, JR_RCX, JR_RDX, JR_RBX, JR_RSP, JR_RBP, JR_RSI, JR_RDI,
	JR_R8, JR_R9, JR_R10, JR_R11, JR_R12, JR_R13, JR_R14, JR_R15,
	JR_NONE = -1,
};

enum jit_opnd_kind { JIT_NONE, JIT_REG, JIT_MEM, JIT_IMM };

/* One operand of a host instruction; size in bytes. */
struct jit_opnd {
	uint8_t kind;
	uint8_t size;
	int8_t reg;        /* JIT_REG */
	int8_t base, index; /* JIT_MEM: JR_NONE when absent */
	uint8_t scale;
	int64_t value;     /* JIT_MEM: displacement; JIT_IMM: the immediate */
};

static inline struct jit_opnd jit_r(int reg, unsigned size)
{
	return (struct jit_opnd){ .kind = JIT_REG, .size = (uint8_t)size, .reg = (int8_t)reg };
}

/* Host register xmm`n`. */
static inline struct jit_opnd jit_x(int n)
{
	return jit_r(n, 16);
}

static inline struct jit_opnd jit_m(int base, int index, unsigned scale, int64_t disp,
				    unsigned size)
{
	return (struct jit_opnd){ .kind = JIT_MEM, .size = (uint8_t)size, .base = (int8_t)base,
				  .index = (int8_t)index, .scale = (uint8_t)scale, .value = disp };
}

static inline struct jit_opnd jit_i(int64_t imm)
{
	return (struct jit_opnd){ .kind = JIT_IMM, .value = imm };
}

static inline struct jit_opnd jit_none(void)
{
	return (struct jit_opnd){ .kind = JIT_NONE };
}

/* An instruction's bytes at most. */
#define JIT_ENCODED_MAX 15

/* Code being assembled into a caller's buffer; `failed` once anything did
 * not encode or fit (the translation is then abandoned). With a cache
 * (jit_encode_cache.h; NULL: none), requests made before are copied
 * from it, not encoded again. */
struct jit_asm {
	uint8_t *buf;
	size_t pos, cap;
	bool failed;
	struct jit_encode_cache *cache;
};

/* mn x, y (y may be jit_none() for one-operand forms, both for none). */
void jit_op(struct jit_asm *a, ZydisMnemonic mn, struct jit_opnd x, struct jit_opnd y);
/* mn x, y, z (imul r, r/m, imm). */
void jit_op3(struct jit_asm *a, ZydisMnemonic mn, struct jit_opnd x, struct jit_opnd y,
	     struct jit_opnd z);
/* mov reg64, imm64 (the shortest form that loads exactly imm). */
void jit_mov_imm(struct jit_asm *a, int reg, uint64_t imm);
/* call fn, through rax. */
void jit_call(struct jit_asm *a, const void *fn);
/* jcc / jmp rel32 to a place not known yet: returns where to patch. */
size_t jit_jcc_forward(struct jit_asm *a, unsigned cc);
size_t jit_jmp_forward(struct jit_asm *a);
/* Points the rel32 at `at` to `target`, or to the current position. */
void jit_point(struct jit_asm *a, size_t at, size_t target);
void jit_bind(struct jit_asm *a, size_t at);
void jit_bytes(struct jit_asm *a, const void *bytes, size_t n);

/* Host condition codes as the jcc opcode's low nibble (the guest's are the
 * same: emu_jcc_condition numbers them alike). */
enum { JIT_CC_AE = 3, JIT_CC_Z = 4, JIT_CC_NZ = 5 };

#endif
