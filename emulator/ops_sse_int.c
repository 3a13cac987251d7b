/*
 * ops_sse_int.c — packed integer arithmetic and logic on MMX, SSE and AVX2
 * registers: add/sub (wrapping and saturating), multiplies, multiply-add,
 * sum of absolute differences, average, min/max, abs, sign, compares, the
 * bitwise logic ops (also their ps/pd spellings), shifts by immediate, by
 * register and per element, byte shifts, horizontal add/sub, ptest and
 * phminposuw.
 *
 * Most instructions compute each element from the same-position elements
 * of two sources: one handler (packed_lanewise) does that for every one of
 * them, the binding's op naming the lane operation and element size.
 */
#include "binding.h"
#include "sse_shape.h"

enum lane_op {
	LANE_ADD, LANE_ADDS, LANE_ADDUS, LANE_SUB, LANE_SUBS, LANE_SUBUS,
	LANE_MULLO, LANE_MULHS, LANE_MULHU, LANE_MULHRS, LANE_MULUDQ, LANE_MULDQ,
	LANE_MADDWD, LANE_MADDUBSW, LANE_SADBW, LANE_AVG,
	LANE_MINU, LANE_MINS, LANE_MAXU, LANE_MAXS, LANE_CMPEQ, LANE_CMPGT,
	LANE_AND, LANE_ANDN, LANE_OR, LANE_XOR, LANE_SIGN, LANE_ABS,
	LANE_SLL, LANE_SRL, LANE_SRA,
};

static inline int64_t sext(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* One element of a op b; a and b are zero-extended elements of `bits`. The
 * result may carry bits above the element; the caller truncates. */
static inline __attribute__((always_inline))
uint64_t lane(enum lane_op op, uint64_t a, uint64_t b, unsigned bits)
{
	int64_t sa = sext(a, bits), sb = sext(b, bits);
	switch (op) {
	case LANE_ADD: return a + b;
	case LANE_ADDS: return sse_saturate_signed(sa + sb, bits);
	case LANE_ADDUS: return sse_saturate_unsigned((int64_t)(a + b), bits);
	case LANE_SUB: return a - b;
	case LANE_SUBS: return sse_saturate_signed(sa - sb, bits);
	case LANE_SUBUS: return sse_saturate_unsigned((int64_t)a - (int64_t)b, bits);
	case LANE_MULLO: return a * b;
	case LANE_MULHS: return (uint64_t)((sa * sb) >> bits);
	case LANE_MULHU: return (a * b) >> bits;
	case LANE_MULHRS: return (uint64_t)((((sa * sb) >> 14) + 1) >> 1);
	case LANE_MULUDQ: return (uint64_t)(uint32_t)a * (uint32_t)b;
	case LANE_MULDQ: return (uint64_t)((int64_t)(int32_t)a * (int32_t)b);
	case LANE_MADDWD:
		return (uint64_t)((int64_t)(int16_t)a * (int16_t)b +
				  (int64_t)(int16_t)(a >> 16) * (int16_t)(b >> 16));
	case LANE_MADDUBSW:
		return sse_saturate_signed((int64_t)(uint8_t)a * (int8_t)b +
					   (int64_t)(uint8_t)(a >> 8) * (int8_t)(b >> 8), 16);
	case LANE_SADBW: {
		uint64_t sum = 0;
		for (unsigned i = 0; i < 64; i += 8) {
			int d = (int)(uint8_t)(a >> i) - (int)(uint8_t)(b >> i);
			sum += (uint64_t)(d < 0 ? -d : d);
		}
		return sum;
	}
	case LANE_AVG: return (a + b + 1) >> 1;
	case LANE_MINU: return a < b ? a : b;
	case LANE_MINS: return sa < sb ? a : b;
	case LANE_MAXU: return a > b ? a : b;
	case LANE_MAXS: return sa > sb ? a : b;
	case LANE_CMPEQ: return a == b ? ~0ull : 0;
	case LANE_CMPGT: return sa > sb ? ~0ull : 0;
	case LANE_AND: return a & b;
	case LANE_ANDN: return ~a & b;
	case LANE_OR: return a | b;
	case LANE_XOR: return a ^ b;
	case LANE_SIGN: return sb < 0 ? 0 - a : sb == 0 ? 0 : a;
	case LANE_ABS: return sb < 0 ? 0 - b : b;
	/* Shift counts are unsigned and whole: anything past the element
	 * width empties it (or fills it with the sign). */
	case LANE_SLL: return b >= bits ? 0 : a << b;
	case LANE_SRL: return b >= bits ? 0 : a >> b;
	case LANE_SRA: return (uint64_t)(sa >> (b >= bits ? bits - 1 : b));
	}
	return 0;
}

static inline __attribute__((always_inline))
void lanewise_loop(emu_vec *r, const emu_vec *a, const emu_vec *b, unsigned width,
		   enum lane_op op, unsigned size)
{
	for (unsigned i = 0; i < width / size; i++)
		sse_set(r, i, size, lane(op, sse_get(a, i, size), sse_get(b, i, size), size * 8));
}

/* dst[i] = lane(src1[i], src2[i]) for every element. */
static int packed_lanewise(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	enum lane_op op = SSE_OP_KIND(insn->op);
	emu_vec a, b, r;
	int st;
	unsigned s2 = sse_src1(insn) + 1;
	if ((st = sse_read_source(cpu, insn, s2, width, &b)) != EMU_OK)
		return st;
	if ((st = emu_vec_read(cpu, insn, sse_src1(insn), width, &a)) != EMU_OK)
		return st;
	switch (insn->op) {
	/* The operations glibc's string functions loop on get a copy of the
	 * loop specialised for them (the compiler folds lane() away). */
#define HOT(kind, lg) \
	case SSE_OP(kind, lg): lanewise_loop(&r, &a, &b, width, kind, 1u << (lg)); break;
	HOT(LANE_CMPEQ, 0) HOT(LANE_CMPEQ, 2) HOT(LANE_CMPGT, 0) HOT(LANE_MINU, 0)
	HOT(LANE_MINU, 2) HOT(LANE_ADD, 0) HOT(LANE_SUB, 0) HOT(LANE_AND, 3)
	HOT(LANE_ANDN, 3) HOT(LANE_OR, 3) HOT(LANE_XOR, 3)
#undef HOT
	default:
		lanewise_loop(&r, &a, &b, width, op, size);
		break;
	}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* pabs*: dst[i] = |src[i]|, one source in both encodings. */
static int packed_unary(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	emu_vec b, r;
	int st = sse_read_source(cpu, insn, 1, width, &b);
	if (st != EMU_OK)
		return st;
	memset(&r, 0, sizeof(r));
	for (unsigned i = 0; i < width / size; i++)
		sse_set(&r, i, size, lane(SSE_OP_KIND(insn->op), 0, sse_get(&b, i, size), size * 8));
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* psll/psrl/psra by an immediate or by the low quadword of a vector: every
 * element shifts by the same count. */
static int packed_shift_uniform(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	unsigned src = insn->nopnd == 3 ? 1 : 0, last = insn->nopnd - 1;
	uint64_t count;
	emu_vec a, c, r;
	int st;
	if (insn->opnd[last].kind == EMU_OPND_IMM) {
		count = insn->imm & 0xff;
	} else {
		if ((st = sse_read_source(cpu, insn, last, width < 16 ? width : 16, &c)) != EMU_OK)
			return st;
		count = c.q[0];
	}
	if ((st = emu_vec_read(cpu, insn, src, width, &a)) != EMU_OK)
		return st;
	memset(&r, 0, sizeof(r));
	for (unsigned i = 0; i < width / size; i++)
		sse_set(&r, i, size, lane(SSE_OP_KIND(insn->op), sse_get(&a, i, size), count, size * 8));
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* pslldq/psrldq: whole bytes within each 128-bit lane; op 0 left, 1 right. */
static int packed_byte_shift(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, count = insn->imm & 0xff;
	emu_vec a, r;
	int st = emu_vec_read(cpu, insn, insn->nopnd == 3 ? 1 : 0, width, &a);
	if (st != EMU_OK)
		return st;
	memset(&r, 0, sizeof(r));
	for (unsigned base = 0; base < width; base += 16)
		for (unsigned i = 0; i < 16; i++) {
			unsigned from = insn->op ? i + count : i - count;
			if (from < 16)
				r.b[base + i] = a.b[base + from];
		}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* phadd/phsub: within each 128-bit block (the whole register for MMX), the
 * low half of the result combines adjacent pairs of src1, the high half
 * adjacent pairs of src2. */
static int packed_horizontal(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op), bits = size * 8;
	unsigned block = width < 16 ? width : 16, n = block / size;
	enum lane_op op = SSE_OP_KIND(insn->op);
	emu_vec a, b, r;
	int st;
	if ((st = sse_read_source(cpu, insn, sse_src1(insn) + 1, width, &b)) != EMU_OK)
		return st;
	if ((st = emu_vec_read(cpu, insn, sse_src1(insn), width, &a)) != EMU_OK)
		return st;
	memset(&r, 0, sizeof(r));
	for (unsigned base = 0; base < width / size; base += n)
		for (unsigned i = 0; i < n / 2; i++) {
			unsigned j = base + 2 * i;
			sse_set(&r, base + i, size,
				lane(op, sse_get(&a, j, size), sse_get(&a, j + 1, size), bits));
			sse_set(&r, base + n / 2 + i, size,
				lane(op, sse_get(&b, j, size), sse_get(&b, j + 1, size), bits));
		}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* ptest: ZF = (a AND b) == 0, CF = (NOT a AND b) == 0, the other status
 * flags cleared. */
static int packed_test(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl;
	emu_vec a, b;
	int st;
	if ((st = sse_read_source(cpu, insn, 1, width, &b)) != EMU_OK)
		return st;
	if ((st = emu_vec_read(cpu, insn, 0, width, &a)) != EMU_OK)
		return st;
	uint64_t and = 0, andn = 0;
	for (unsigned i = 0; i < width / 8; i++) {
		and |= a.q[i] & b.q[i];
		andn |= ~a.q[i] & b.q[i];
	}
	emu_set_status_flags(cpu, (and ? 0 : EMU_ZF) | (andn ? 0 : EMU_CF));
	return EMU_OK;
}

/* phminposuw: the smallest unsigned word and its (lowest) index. */
static int packed_min_position(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_vec s, r;
	int st = sse_read_source(cpu, insn, 1, 16, &s);
	if (st != EMU_OK)
		return st;
	unsigned best = 0;
	for (unsigned i = 1; i < 8; i++)
		if (s.w[i] < s.w[best])
			best = i;
	memset(&r, 0, sizeof(r));
	r.w[0] = s.w[best];
	r.w[1] = (uint16_t)best;
	return emu_vec_write(cpu, insn, 0, 16, &r);
}

/* mpsadbw: eight sums of absolute differences of 4-byte groups per 128-bit
 * lane; imm picks the src2 group and the src1 window per lane. */
static int packed_mpsadbw(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, imm = insn->imm & 0xff;
	emu_vec a, b, r;
	int st;
	if ((st = sse_read_source(cpu, insn, sse_src1(insn) + 1, width, &b)) != EMU_OK)
		return st;
	if ((st = emu_vec_read(cpu, insn, sse_src1(insn), width, &a)) != EMU_OK)
		return st;
	memset(&r, 0, sizeof(r));
	for (unsigned lane_no = 0; lane_no < width / 16; lane_no++) {
		unsigned sel = imm >> (3 * lane_no);
		const uint8_t *pa = a.b + lane_no * 16 + (sel & 4);
		const uint8_t *pb = b.b + lane_no * 16 + (sel & 3) * 4;
		for (unsigned i = 0; i < 8; i++) {
			unsigned sum = 0;
			for (unsigned k = 0; k < 4; k++) {
				int d = (int)pa[i + k] - (int)pb[k];
				sum += (unsigned)(d < 0 ? -d : d);
			}
			r.w[lane_no * 8 + i] = (uint16_t)sum;
		}
	}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

static bool has_vector_operands(const struct emu_insn *insn, unsigned from, unsigned to)
{
	for (unsigned i = from; i < to; i++)
		if (insn->opnd[i].kind != EMU_OPND_VEC && insn->opnd[i].kind != EMU_OPND_MMX &&
		    insn->opnd[i].kind != EMU_OPND_MEM)
			return false;
	return insn->opnd[0].kind != EMU_OPND_MEM;
}

/* Two sources: legacy (dst, src) or VEX (dst, src1, src2). */
static emu_handler *bind_binary_shape(struct emu_insn *insn, emu_handler *h)
{
	unsigned want = sse_is_vex(insn) ? 3 : 2;
	if (!sse_bind_common(insn) || insn->nopnd != want || !has_vector_operands(insn, 0, want))
		return NULL;
	return h;
}

static emu_handler *bind_lanewise(struct emu_insn *insn)
{
	return bind_binary_shape(insn, packed_lanewise);
}

static emu_handler *bind_horizontal(struct emu_insn *insn)
{
	return bind_binary_shape(insn, packed_horizontal);
}

static emu_handler *bind_unary(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 2 || !has_vector_operands(insn, 0, 2))
		return NULL;
	return packed_unary;
}

static emu_handler *bind_min_position(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 2 || insn->opnd[0].kind != EMU_OPND_VEC)
		return NULL;
	return packed_min_position;
}

static emu_handler *bind_ptest(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 2 || insn->opnd[0].kind != EMU_OPND_VEC)
		return NULL;
	return packed_test;
}

static emu_handler *bind_shift(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != (sse_is_vex(insn) ? 3u : 2u) ||
	    insn->opnd[0].kind == EMU_OPND_MEM)
		return NULL;
	return packed_shift_uniform;
}

static emu_handler *bind_byte_shift(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || !sse_last_is_imm(insn) || insn->vl < 16)
		return NULL;
	return packed_byte_shift;
}

static emu_handler *bind_mpsadbw(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || !sse_last_is_imm(insn) ||
	    insn->nopnd != (sse_is_vex(insn) ? 4u : 3u))
		return NULL;
	return packed_mpsadbw;
}

#define B(m, kind, lg) { ZYDIS_MNEMONIC_##m, SSE_OP(LANE_##kind, lg), NULL, bind_lanewise }, \
		       { ZYDIS_MNEMONIC_V##m, SSE_OP(LANE_##kind, lg), NULL, bind_lanewise }
#define H(m, kind, lg) { ZYDIS_MNEMONIC_##m, SSE_OP(LANE_##kind, lg), NULL, bind_horizontal }, \
		       { ZYDIS_MNEMONIC_V##m, SSE_OP(LANE_##kind, lg), NULL, bind_horizontal }
#define U(m, kind, lg) { ZYDIS_MNEMONIC_##m, SSE_OP(LANE_##kind, lg), NULL, bind_unary }, \
		       { ZYDIS_MNEMONIC_V##m, SSE_OP(LANE_##kind, lg), NULL, bind_unary }
#define S(m, kind, lg) { ZYDIS_MNEMONIC_##m, SSE_OP(LANE_##kind, lg), NULL, bind_shift }, \
		       { ZYDIS_MNEMONIC_V##m, SSE_OP(LANE_##kind, lg), NULL, bind_shift }
#define AVX2_ONLY(m, kind, lg) { ZYDIS_MNEMONIC_##m, SSE_OP(LANE_##kind, lg), NULL, bind_lanewise }

static const struct emu_binding sse_int_bindings[] = {
	B(PADDB, ADD, 0), B(PADDW, ADD, 1), B(PADDD, ADD, 2), B(PADDQ, ADD, 3),
	B(PADDSB, ADDS, 0), B(PADDSW, ADDS, 1), B(PADDUSB, ADDUS, 0), B(PADDUSW, ADDUS, 1),
	B(PSUBB, SUB, 0), B(PSUBW, SUB, 1), B(PSUBD, SUB, 2), B(PSUBQ, SUB, 3),
	B(PSUBSB, SUBS, 0), B(PSUBSW, SUBS, 1), B(PSUBUSB, SUBUS, 0), B(PSUBUSW, SUBUS, 1),
	B(PMULLW, MULLO, 1), B(PMULLD, MULLO, 2), B(PMULHW, MULHS, 1), B(PMULHUW, MULHU, 1),
	B(PMULHRSW, MULHRS, 1), B(PMULUDQ, MULUDQ, 3), B(PMULDQ, MULDQ, 3),
	B(PMADDWD, MADDWD, 2), B(PMADDUBSW, MADDUBSW, 1), B(PSADBW, SADBW, 3),
	B(PAVGB, AVG, 0), B(PAVGW, AVG, 1),
	B(PMINUB, MINU, 0), B(PMINUW, MINU, 1), B(PMINUD, MINU, 2),
	B(PMINSB, MINS, 0), B(PMINSW, MINS, 1), B(PMINSD, MINS, 2),
	B(PMAXUB, MAXU, 0), B(PMAXUW, MAXU, 1), B(PMAXUD, MAXU, 2),
	B(PMAXSB, MAXS, 0), B(PMAXSW, MAXS, 1), B(PMAXSD, MAXS, 2),
	B(PCMPEQB, CMPEQ, 0), B(PCMPEQW, CMPEQ, 1), B(PCMPEQD, CMPEQ, 2), B(PCMPEQQ, CMPEQ, 3),
	B(PCMPGTB, CMPGT, 0), B(PCMPGTW, CMPGT, 1), B(PCMPGTD, CMPGT, 2), B(PCMPGTQ, CMPGT, 3),
	B(PAND, AND, 3), B(PANDN, ANDN, 3), B(POR, OR, 3), B(PXOR, XOR, 3),
	/* The floating-point spellings of the logic ops are the same bits. */
	B(ANDPS, AND, 3), B(ANDPD, AND, 3), B(ANDNPS, ANDN, 3), B(ANDNPD, ANDN, 3),
	B(ORPS, OR, 3), B(ORPD, OR, 3), B(XORPS, XOR, 3), B(XORPD, XOR, 3),
	B(PSIGNB, SIGN, 0), B(PSIGNW, SIGN, 1), B(PSIGND, SIGN, 2),
	U(PABSB, ABS, 0), U(PABSW, ABS, 1), U(PABSD, ABS, 2),
	{ ZYDIS_MNEMONIC_PHMINPOSUW, 0, NULL, bind_min_position },
	{ ZYDIS_MNEMONIC_VPHMINPOSUW, 0, NULL, bind_min_position },
	H(PHADDW, ADD, 1), H(PHADDD, ADD, 2), H(PHADDSW, ADDS, 1),
	H(PHSUBW, SUB, 1), H(PHSUBD, SUB, 2), H(PHSUBSW, SUBS, 1),
	S(PSLLW, SLL, 1), S(PSLLD, SLL, 2), S(PSLLQ, SLL, 3),
	S(PSRLW, SRL, 1), S(PSRLD, SRL, 2), S(PSRLQ, SRL, 3),
	S(PSRAW, SRA, 1), S(PSRAD, SRA, 2),
	AVX2_ONLY(VPSLLVD, SLL, 2), AVX2_ONLY(VPSLLVQ, SLL, 3),
	AVX2_ONLY(VPSRLVD, SRL, 2), AVX2_ONLY(VPSRLVQ, SRL, 3), AVX2_ONLY(VPSRAVD, SRA, 2),
	{ ZYDIS_MNEMONIC_PSLLDQ, 0, NULL, bind_byte_shift },
	{ ZYDIS_MNEMONIC_VPSLLDQ, 0, NULL, bind_byte_shift },
	{ ZYDIS_MNEMONIC_PSRLDQ, 1, NULL, bind_byte_shift },
	{ ZYDIS_MNEMONIC_VPSRLDQ, 1, NULL, bind_byte_shift },
	{ ZYDIS_MNEMONIC_PTEST, 0, NULL, bind_ptest },
	{ ZYDIS_MNEMONIC_VPTEST, 0, NULL, bind_ptest },
	{ ZYDIS_MNEMONIC_MPSADBW, 0, NULL, bind_mpsadbw },
	{ ZYDIS_MNEMONIC_VMPSADBW, 0, NULL, bind_mpsadbw },
};

EMU_FAMILY(emu_family_sse_int, sse_int_bindings);
