/*
 * jit_emit.c — encoding host instructions for the block translator.
 */
#include <string.h>

#include "jit_emit.h"
#include "jit_emit_fast.h"
#include "jit_encode_cache.h"

/* Zydis's register of host register `reg` at `size` bytes. The byte forms
 * of rsp..rdi are spl..dil (the translator never uses ah..bh); 16 bytes
 * name xmm0..xmm15. */
static ZydisRegister host_register(int reg, unsigned size)
{
	static const ZydisRegister r8[16] = {
		ZYDIS_REGISTER_AL, ZYDIS_REGISTER_CL, ZYDIS_REGISTER_DL, ZYDIS_REGISTER_BL,
		ZYDIS_REGISTER_SPL, ZYDIS_REGISTER_BPL, ZYDIS_REGISTER_SIL, ZYDIS_REGISTER_DIL,
		ZYDIS_REGISTER_R8B, ZYDIS_REGISTER_R9B, ZYDIS_REGISTER_R10B, ZYDIS_REGISTER_R11B,
		ZYDIS_REGISTER_R12B, ZYDIS_REGISTER_R13B, ZYDIS_REGISTER_R14B, ZYDIS_REGISTER_R15B,
	};
	switch (size) {
	case 1: return r8[reg];
	case 2: return (ZydisRegister)(ZYDIS_REGISTER_AX + reg);
	case 4: return (ZydisRegister)(ZYDIS_REGISTER_EAX + reg);
	case 16: return (ZydisRegister)(ZYDIS_REGISTER_XMM0 + reg);
	default: return (ZydisRegister)(ZYDIS_REGISTER_RAX + reg);
	}
}

static void encoder_operand(ZydisEncoderOperand *o, struct jit_opnd x)
{
	switch (x.kind) {
	case JIT_REG:
		o->type = ZYDIS_OPERAND_TYPE_REGISTER;
		o->reg.value = host_register(x.reg, x.size);
		break;
	case JIT_MEM:
		o->type = ZYDIS_OPERAND_TYPE_MEMORY;
		o->mem.base = x.base == JR_NONE ? ZYDIS_REGISTER_NONE : host_register(x.base, 8);
		o->mem.index = x.index == JR_NONE ? ZYDIS_REGISTER_NONE : host_register(x.index, 8);
		o->mem.scale = x.index == JR_NONE ? 0 : x.scale;
		o->mem.displacement = x.value;
		o->mem.size = x.size;
		break;
	case JIT_IMM:
		o->type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
		o->imm.s = x.value;
		break;
	default:
		break;
	}
}

void jit_op(struct jit_asm *a, ZydisMnemonic mn, struct jit_opnd x, struct jit_opnd y)
{
	jit_op3(a, mn, x, y, jit_none());
}

/* The bytes of mn x, y, z by Zydis's encoder (the forms jit_emit_fast.c
 * does not make); 0 when it cannot encode them. */
static size_t encode_by_zydis(uint8_t out[JIT_ENCODED_MAX], ZydisMnemonic mn, struct jit_opnd x,
			      struct jit_opnd y, struct jit_opnd z)
{
	ZydisEncoderRequest rq;
	memset(&rq, 0, sizeof(rq));
	rq.machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	rq.mnemonic = mn;
	rq.operand_count =
		(ZyanU8)((x.kind != JIT_NONE) + (y.kind != JIT_NONE) + (z.kind != JIT_NONE));
	encoder_operand(&rq.operands[0], x);
	encoder_operand(&rq.operands[1], y);
	encoder_operand(&rq.operands[2], z);
	ZyanUSize n = JIT_ENCODED_MAX;
	if (!ZYAN_SUCCESS(ZydisEncoderEncodeInstruction(&rq, out, &n)))
		return 0;
	return n;
}

void jit_op3(struct jit_asm *a, ZydisMnemonic mn, struct jit_opnd x, struct jit_opnd y,
	     struct jit_opnd z)
{
	if (a->failed)
		return;
	/* A hit straight into the buffer: the cache copies all
	 * JIT_ENCODED_MAX bytes, those past the instruction's written over
	 * by the next one. */
	if (a->cache && a->cap - a->pos >= JIT_ENCODED_MAX) {
		size_t hit = jit_encode_cache_find(a->cache, mn, &x, &y, &z, a->buf + a->pos);
		if (hit) {
			a->pos += hit;
			return;
		}
	}
	uint8_t bytes[JIT_FAST_MAX];
	size_t len = a->cache && a->cap - a->pos < JIT_ENCODED_MAX
			     ? jit_encode_cache_find(a->cache, mn, &x, &y, &z, bytes) : 0;
	if (!len) {
		len = jit_encode_fast(bytes, mn, x, y, z);
		if (!len)
			len = encode_by_zydis(bytes, mn, x, y, z);
		if (!len) {
			a->failed = true;
			return;
		}
		if (a->cache)
			jit_encode_cache_store(a->cache, mn, &x, &y, &z, bytes, len);
	}
	jit_bytes(a, bytes, len);
}

void jit_bytes(struct jit_asm *a, const void *bytes, size_t n)
{
	if (a->failed || a->cap - a->pos < n) {
		a->failed = true;
		return;
	}
	memcpy(a->buf + a->pos, bytes, n);
	a->pos += n;
}

void jit_mov_imm(struct jit_asm *a, int reg, uint64_t imm)
{
	if (imm <= UINT32_MAX) /* mov r32, imm32 zero-extends; the encoder
				* takes imm32 in its signed range only */
		jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(reg, 4), jit_i((int32_t)(uint32_t)imm));
	else
		jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(reg, 8), jit_i((int64_t)imm));
}

void jit_call(struct jit_asm *a, const void *fn)
{
	jit_mov_imm(a, JR_RAX, (uint64_t)(uintptr_t)fn);
	jit_op(a, ZYDIS_MNEMONIC_CALL, jit_r(JR_RAX, 8), jit_none());
}

size_t jit_jcc_forward(struct jit_asm *a, unsigned cc)
{
	const uint8_t op[6] = { 0x0f, (uint8_t)(0x80 | (cc & 15)), 0, 0, 0, 0 };
	jit_bytes(a, op, sizeof(op));
	return a->pos - 4;
}

size_t jit_jmp_forward(struct jit_asm *a)
{
	const uint8_t op[5] = { 0xe9, 0, 0, 0, 0 };
	jit_bytes(a, op, sizeof(op));
	return a->pos - 4;
}

void jit_point(struct jit_asm *a, size_t at, size_t target)
{
	if (a->failed)
		return;
	int32_t rel = (int32_t)((int64_t)target - (int64_t)(at + 4));
	memcpy(a->buf + at, &rel, 4);
}

void jit_bind(struct jit_asm *a, size_t at)
{
	jit_point(a, at, a->pos);
}
