/*
 * ops_sse_string.c — the SSE4.2 string and text instructions pcmpestri,
 * pcmpestrm, pcmpistri, pcmpistrm (and VEX forms) with every imm8 mode, and
 * crc32 (CRC-32C) over 8-, 16-, 32- and 64-bit sources.
 *
 * pcmpXstrX is one computation parameterised by the binding's op (explicit
 * or implicit lengths, index or mask output) and the instruction's imm8:
 * element format, aggregation, polarity and output selection.
 */
#include "binding.h"
#include "vector.h"

enum { STR_EXPLICIT = 1, STR_MASK = 2 };

/* imm8 fields. */
enum { AGG_EQUAL_ANY, AGG_RANGES, AGG_EQUAL_EACH, AGG_EQUAL_ORDERED };
enum { POL_POSITIVE, POL_NEGATIVE, POL_MASKED_POSITIVE, POL_MASKED_NEGATIVE };
enum { IMM_WORDS = 1, IMM_SIGNED = 2, IMM_MOST_SIGNIFICANT = 0x40 };

struct str_operand {
	int32_t elem[16];
	unsigned len; /* valid elements */
};

static void str_elements(const emu_vec *v, unsigned imm, struct str_operand *s)
{
	unsigned n = (imm & IMM_WORDS) ? 8 : 16;
	for (unsigned i = 0; i < n; i++) {
		if (imm & IMM_WORDS)
			s->elem[i] = (imm & IMM_SIGNED) ? (int16_t)v->w[i] : v->w[i];
		else
			s->elem[i] = (imm & IMM_SIGNED) ? (int8_t)v->b[i] : v->b[i];
	}
}

/* An explicit length: the absolute value of the signed register, clipped
 * to the element count. */
static unsigned explicit_length(uint64_t reg, unsigned size, unsigned n)
{
	int64_t v = size == 8 ? (int64_t)reg : (int32_t)reg;
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	return mag > n ? n : (unsigned)mag;
}

/* An implicit length: elements before the first zero element. */
static unsigned implicit_length(const struct str_operand *s, unsigned n)
{
	unsigned i = 0;
	while (i < n && s->elem[i] != 0)
		i++;
	return i;
}

/* The aggregated result IntRes1 for a (the register operand, "needles" or
 * ranges) and b (the register-or-memory operand, the text). */
static unsigned aggregate(unsigned agg, const struct str_operand *a,
			  const struct str_operand *b, unsigned n)
{
	unsigned res = 0;
	for (unsigned j = 0; j < n; j++) {
		bool bit = false;
		bool b_valid = j < b->len;
		switch (agg) {
		case AGG_EQUAL_ANY:
			for (unsigned i = 0; i < a->len && b_valid && !bit; i++)
				bit = a->elem[i] == b->elem[j];
			break;
		case AGG_RANGES:
			/* Pairs (low, high) of a; a pair with an invalid
			 * element matches nothing. */
			for (unsigned i = 0; i + 1 < a->len && b_valid && !bit; i += 2)
				bit = b->elem[j] >= a->elem[i] && b->elem[j] <= a->elem[i + 1];
			break;
		case AGG_EQUAL_EACH: {
			bool a_valid = j < a->len;
			bit = (!a_valid && !b_valid) ||
			      (a_valid && b_valid && a->elem[j] == b->elem[j]);
			break;
		}
		default: /* equal ordered: a occurs in b starting at j */
			bit = true;
			for (unsigned i = 0; i < n - j && bit; i++) {
				if (i >= a->len)
					break; /* the rest of a is invalid: true */
				bit = j + i < b->len && a->elem[i] == b->elem[j + i];
			}
			break;
		}
		res |= (unsigned)bit << j;
	}
	return res;
}

static unsigned apply_polarity(unsigned polarity, unsigned res, unsigned b_len, unsigned n)
{
	unsigned all = (1u << n) - 1;
	switch (polarity) {
	case POL_NEGATIVE: return ~res & all;
	case POL_MASKED_NEGATIVE: return res ^ ((1u << b_len) - 1);
	default: return res;
	}
}

static int pcmpstr(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned imm = (unsigned)insn->imm & 0xff;
	unsigned n = (imm & IMM_WORDS) ? 8 : 16;
	emu_vec va, vb;
	int r = emu_vec_read(cpu, insn, 0, 16, &va);
	if (r == EMU_OK)
		r = emu_vec_read(cpu, insn, 1, 16, &vb);
	if (r != EMU_OK)
		return r;
	struct str_operand a, b;
	str_elements(&va, imm, &a);
	str_elements(&vb, imm, &b);
	if (insn->op & STR_EXPLICIT) {
		unsigned size = insn->opsize == 8 ? 8 : 4;
		a.len = explicit_length(cpu->regs.gpr[EMU_RAX], size, n);
		b.len = explicit_length(cpu->regs.gpr[EMU_RDX], size, n);
	} else {
		a.len = implicit_length(&a, n);
		b.len = implicit_length(&b, n);
	}
	unsigned res = aggregate((imm >> 2) & 3, &a, &b, n);
	res = apply_polarity((imm >> 4) & 3, res, b.len, n);

	if (insn->op & STR_MASK) {
		emu_vec *x0 = emu_vreg(cpu, 0);
		emu_vec m;
		memset(&m, 0, sizeof(m));
		if (!(imm & IMM_MOST_SIGNIFICANT))
			m.w[0] = (uint16_t)res;
		else
			for (unsigned i = 0; i < n; i++) {
				bool set = (res >> i) & 1;
				if (imm & IMM_WORDS)
					m.w[i] = set ? 0xffff : 0;
				else
					m.b[i] = set ? 0xff : 0;
			}
		memcpy(x0->b, m.b, 16);
		if (emu_vec_zero_upper(insn))
			memset(x0->b + 16, 0, sizeof(*x0) - 16);
	} else {
		unsigned index = n;
		if (res)
			index = (imm & IMM_MOST_SIGNIFICANT) ? 31 - (unsigned)__builtin_clz(res)
							     : (unsigned)__builtin_ctz(res);
		cpu->regs.gpr[EMU_RCX] = index;
	}
	uint64_t flags = 0;
	if (res)
		flags |= EMU_CF;
	if (b.len < n)
		flags |= EMU_ZF;
	if (a.len < n)
		flags |= EMU_SF;
	if (res & 1)
		flags |= EMU_OF;
	emu_set_status_flags(cpu, flags);
	return EMU_OK;
}

/* CRC-32C (Castagnoli), bit-reflected, as the crc32 instruction computes
 * it: no initial or final inversion. */
static uint32_t crc32c_update(uint32_t crc, uint64_t data, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++) {
		crc ^= (uint8_t)(data >> (8 * i));
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return crc;
}

static int crc32(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t acc, src;
	int r = emu_opnd_read(cpu, insn, 0, &acc);
	if (r == EMU_OK)
		r = emu_opnd_read(cpu, insn, 1, &src);
	if (r != EMU_OK)
		return r;
	uint32_t crc = crc32c_update((uint32_t)acc, src, insn->opnd[1].size);
	/* The 64-bit form also writes a 32-bit result, zero-extended. */
	cpu->regs.gpr[insn->opnd[0].reg / 8] = crc;
	return EMU_OK;
}

static emu_handler *bind_pcmpstr(struct emu_insn *insn)
{
	return insn->nopnd == 3 && insn->opnd[0].kind == EMU_OPND_VEC &&
	       (insn->opnd[1].kind == EMU_OPND_VEC || insn->opnd[1].kind == EMU_OPND_MEM)
	       ? pcmpstr : NULL;
}

static emu_handler *bind_crc32(struct emu_insn *insn)
{
	return insn->nopnd == 2 && insn->opnd[0].kind == EMU_OPND_GPR &&
	       (insn->opnd[1].kind == EMU_OPND_GPR || insn->opnd[1].kind == EMU_OPND_MEM)
	       ? crc32 : NULL;
}

static const struct emu_binding sse_string_bindings[] = {
	{ ZYDIS_MNEMONIC_PCMPESTRI, STR_EXPLICIT, NULL, bind_pcmpstr },
	{ ZYDIS_MNEMONIC_PCMPESTRM, STR_EXPLICIT | STR_MASK, NULL, bind_pcmpstr },
	{ ZYDIS_MNEMONIC_PCMPISTRI, 0, NULL, bind_pcmpstr },
	{ ZYDIS_MNEMONIC_PCMPISTRM, STR_MASK, NULL, bind_pcmpstr },
	{ ZYDIS_MNEMONIC_VPCMPESTRI, STR_EXPLICIT, NULL, bind_pcmpstr },
	{ ZYDIS_MNEMONIC_VPCMPESTRM, STR_EXPLICIT | STR_MASK, NULL, bind_pcmpstr },
	{ ZYDIS_MNEMONIC_VPCMPISTRI, 0, NULL, bind_pcmpstr },
	{ ZYDIS_MNEMONIC_VPCMPISTRM, STR_MASK, NULL, bind_pcmpstr },
	{ ZYDIS_MNEMONIC_CRC32, 0, NULL, bind_crc32 },
};

EMU_FAMILY(emu_family_sse_string, sse_string_bindings);
