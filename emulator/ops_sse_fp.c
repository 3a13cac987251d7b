/*
 * ops_sse_fp.c — SSE/AVX floating-point arithmetic and compares, scalar and
 * packed, single and double, legacy and VEX (128/256-bit) encodings:
 * add sub mul div min max sqrt rcp rsqrt, addsub, hadd/hsub, cmp (all
 * predicates), comis/ucomis.
 *
 * Every element operation runs on the host's SSE unit under the guest's
 * MXCSR (mxcsr_exec.h); a packed instruction is its elements' scalar
 * operations, whose exception flags the CPU ORs together the same way.
 * rcpps/rsqrtps results are this CPU model's approximation: a trace replayed
 * on a different model may compute different values there.
 */
#include "binding.h"
#include "sse_fp_operands.h"

/* One element operation. With underflow unmasked the CPU traps on exact
 * tiny results too, which the masked host run does not flag. */
static uint64_t fp_element(struct emu_mx *mx, enum emu_mx_op op, bool dbl,
			   uint64_t a, uint64_t b, uint32_t *extra_flags)
{
	uint64_t r = emu_mx_arith(mx, op, dbl, a, b);
	if (op <= EMU_MX_DIV)
		*extra_flags |= emu_mx_exact_tiny(mx->guest, dbl, r);
	return r;
}

static unsigned fp_count(const struct emu_insn *insn, unsigned width)
{
	if (emu_fp_scalar(insn))
		return 1;
	return width / (emu_fp_double(insn) ? 8 : 4);
}

/* Reads the two sources of a two-source form; for scalar forms the result
 * starts as the first source (its upper elements pass through). */
static int fp_read_sources(struct emu_cpu *cpu, const struct emu_insn *insn,
			   emu_vec *a, emu_vec *b)
{
	unsigned s2 = emu_fp_src2(insn);
	int r = emu_fp_check_alignment(cpu, insn, s2);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, emu_fp_src1(insn), a);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, s2, b);
	return r;
}

/* add sub mul div min max sqrt rcp rsqrt: dst[i] = a[i] op b[i]. */
static int fp_arith(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	bool dbl = emu_fp_double(insn);
	unsigned width = insn->opnd[0].size, n = fp_count(insn, width);
	enum emu_mx_op op = (enum emu_mx_op)emu_fp_select(insn);
	emu_vec a, b;
	int r = fp_read_sources(cpu, insn, &a, &b);
	if (r != EMU_OK)
		return r;
	emu_vec res = a;
	uint32_t extra = 0;
	struct emu_mx mx;
	emu_mx_begin(&mx, cpu->regs.mxcsr);
	for (unsigned i = 0; i < n; i++)
		emu_elem_set(&res, dbl, i, fp_element(&mx, op, dbl, emu_elem_get(&a, dbl, i),
						       emu_elem_get(&b, dbl, i), &extra));
	uint32_t flags = emu_mx_end(&mx) | extra;
	return emu_fp_commit(cpu, insn, 0, width, &res, flags);
}

enum horizontal_op { HORIZ_ADD, HORIZ_SUB, HORIZ_ADDSUB };

/*
 * haddps/hsubps (and pd): within each 128-bit lane, the low half of the
 * result is a's adjacent pairs combined, the high half b's.
 * addsubps/pd: even elements a - b, odd elements a + b.
 */
static int fp_horizontal(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	bool dbl = emu_fp_double(insn);
	unsigned width = insn->opnd[0].size, per_lane = dbl ? 2 : 4;
	unsigned n = width / (dbl ? 8 : 4);
	enum horizontal_op hop = (enum horizontal_op)emu_fp_select(insn);
	emu_vec a, b, res;
	int r = fp_read_sources(cpu, insn, &a, &b);
	if (r != EMU_OK)
		return r;
	memset(&res, 0, sizeof(res));
	uint32_t extra = 0;
	struct emu_mx mx;
	emu_mx_begin(&mx, cpu->regs.mxcsr);
	for (unsigned i = 0; i < n; i++) {
		uint64_t x, y;
		enum emu_mx_op op;
		if (hop == HORIZ_ADDSUB) {
			x = emu_elem_get(&a, dbl, i);
			y = emu_elem_get(&b, dbl, i);
			op = (i & 1) ? EMU_MX_ADD : EMU_MX_SUB;
		} else {
			unsigned lane = i / per_lane, j = i % per_lane, half = per_lane / 2;
			const emu_vec *src = j < half ? &a : &b;
			unsigned k = lane * per_lane + (j % half) * 2;
			x = emu_elem_get(src, dbl, k);
			y = emu_elem_get(src, dbl, k + 1);
			op = hop == HORIZ_ADD ? EMU_MX_ADD : EMU_MX_SUB;
		}
		emu_elem_set(&res, dbl, i, fp_element(&mx, op, dbl, x, y, &extra));
	}
	uint32_t flags = emu_mx_end(&mx) | extra;
	return emu_fp_commit(cpu, insn, 0, width, &res, flags);
}

/* Relations a compare can find, as bits of the predicate truth table. */
enum { REL_LT = 1, REL_EQ = 2, REL_GT = 4, REL_UN = 8 };

/* Which relations make predicate p (low four bits) true: EQ LT LE UNORD
 * NEQ NLT NLE ORD, then the AVX extensions EQ_U NGE NGT FALSE NEQ_O GE GT
 * TRUE. Predicates 16..31 repeat 0..15 with the opposite signalling. */
static const uint8_t predicate_truth[16] = {
	REL_EQ, REL_LT, REL_LT | REL_EQ, REL_UN,
	REL_LT | REL_GT | REL_UN, REL_EQ | REL_GT | REL_UN, REL_GT | REL_UN,
	REL_LT | REL_EQ | REL_GT,
	REL_EQ | REL_UN, REL_LT | REL_UN, REL_LT | REL_EQ | REL_UN, 0,
	REL_LT | REL_GT, REL_EQ | REL_GT, REL_GT, REL_LT | REL_EQ | REL_GT | REL_UN,
};

/* Predicates 0..15 that raise invalid on quiet NaNs (LT LE NLT NLE and
 * their AVX counterparts NGE NGT GE GT). */
#define SIGNALING_PREDICATES 0x6666u

static unsigned relation_of(uint64_t zpc)
{
	if ((zpc & (EMU_ZF | EMU_PF | EMU_CF)) == (EMU_ZF | EMU_PF | EMU_CF))
		return REL_UN;
	if (zpc & EMU_CF)
		return REL_LT;
	return (zpc & EMU_ZF) ? REL_EQ : REL_GT;
}

/* cmpps/pd/ss/sd and the VEX forms: each element becomes all ones when the
 * predicate holds. The relation comes from the host's (u)comis, which
 * raises exactly the invalid and denormal flags the compare raises. */
static int fp_compare(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	bool dbl = emu_fp_double(insn);
	unsigned width = insn->opnd[0].size, n = fp_count(insn, width);
	unsigned p = (unsigned)insn->imm & (emu_vec_zero_upper(insn) ? 31 : 7);
	bool signaling = ((SIGNALING_PREDICATES >> (p & 15)) & 1) ^ (p >> 4);
	uint64_t ones = dbl ? ~0ull : 0xffffffffull;
	emu_vec a, b;
	int r = fp_read_sources(cpu, insn, &a, &b);
	if (r != EMU_OK)
		return r;
	emu_vec res = a;
	struct emu_mx mx;
	emu_mx_begin(&mx, cpu->regs.mxcsr);
	for (unsigned i = 0; i < n; i++) {
		uint64_t zpc = emu_mx_compare(&mx, dbl, signaling, emu_elem_get(&a, dbl, i),
					      emu_elem_get(&b, dbl, i));
		bool holds = predicate_truth[p & 15] & relation_of(zpc);
		emu_elem_set(&res, dbl, i, holds ? ones : 0);
	}
	uint32_t flags = emu_mx_end(&mx);
	return emu_fp_commit(cpu, insn, 0, width, &res, flags);
}

enum { COMPARE_QUIET, COMPARE_SIGNALING };

/* comiss/comisd (signalling) and ucomiss/ucomisd (quiet): ZF PF CF from the
 * comparison, OF SF AF cleared. */
static int fp_compare_flags(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	bool dbl = emu_fp_double(insn);
	emu_vec a, b;
	int r = emu_fp_read(cpu, insn, 0, &a);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, 1, &b);
	if (r != EMU_OK)
		return r;
	struct emu_mx mx;
	emu_mx_begin(&mx, cpu->regs.mxcsr);
	uint64_t zpc = emu_mx_compare(&mx, dbl, emu_fp_select(insn) == COMPARE_SIGNALING,
				      emu_elem_get(&a, dbl, 0), emu_elem_get(&b, dbl, 0));
	uint32_t flags = emu_mx_end(&mx);
	if (emu_mx_unmasked(cpu->regs.mxcsr, flags))
		return emu_fault(cpu, EMU_FAULT_XM);
	cpu->regs.mxcsr |= flags;
	emu_set_status_flags(cpu, zpc);
	return EMU_OK;
}

/* Forms this family implements: legacy and VEX with vector/memory operands
 * (EVEX forms with masks and broadcast are AVX-512: not emulated). */
static bool fp_form_ok(const struct emu_insn *insn, unsigned min_vec)
{
	return !(insn->attr & EMU_ATTR_EVEX) && insn->opnd[0].kind == EMU_OPND_VEC &&
	       emu_fp_nvec(insn) >= min_vec;
}

static emu_handler *bind_arith(struct emu_insn *insn)
{
	return fp_form_ok(insn, 2) ? fp_arith : NULL;
}

static emu_handler *bind_horizontal(struct emu_insn *insn)
{
	return fp_form_ok(insn, 2) ? fp_horizontal : NULL;
}

static emu_handler *bind_compare(struct emu_insn *insn)
{
	return fp_form_ok(insn, 2) && insn->opnd[insn->nopnd - 1].kind == EMU_OPND_IMM
	       ? fp_compare : NULL;
}

static emu_handler *bind_compare_flags(struct emu_insn *insn)
{
	return fp_form_ok(insn, 2) ? fp_compare_flags : NULL;
}

/* The legacy and VEX mnemonics of one operation in its four shapes. */
#define FP_SHAPES(M, sel, binder) \
	{ ZYDIS_MNEMONIC_##M##PS, EMU_FP_OP(sel, 0, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_##M##PD, EMU_FP_OP(sel, 1, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_##M##SS, EMU_FP_OP(sel, 0, 1), NULL, binder }, \
	{ ZYDIS_MNEMONIC_##M##SD, EMU_FP_OP(sel, 1, 1), NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M##PS, EMU_FP_OP(sel, 0, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M##PD, EMU_FP_OP(sel, 1, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M##SS, EMU_FP_OP(sel, 0, 1), NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M##SD, EMU_FP_OP(sel, 1, 1), NULL, binder }

/* Single-precision-only operations (rcp, rsqrt). */
#define FP_SINGLE_SHAPES(M, sel, binder) \
	{ ZYDIS_MNEMONIC_##M##PS, EMU_FP_OP(sel, 0, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_##M##SS, EMU_FP_OP(sel, 0, 1), NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M##PS, EMU_FP_OP(sel, 0, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M##SS, EMU_FP_OP(sel, 0, 1), NULL, binder }

/* Packed-only operations (horizontal, addsub). */
#define FP_PACKED_SHAPES(M, sel, binder) \
	{ ZYDIS_MNEMONIC_##M##PS, EMU_FP_OP(sel, 0, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_##M##PD, EMU_FP_OP(sel, 1, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M##PS, EMU_FP_OP(sel, 0, 0), NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M##PD, EMU_FP_OP(sel, 1, 0), NULL, binder }

/* Scalar-only compares setting RFLAGS. */
#define FP_COMPARE_FLAGS(M, sel) \
	{ ZYDIS_MNEMONIC_##M##SS, EMU_FP_OP(sel, 0, 1), NULL, bind_compare_flags }, \
	{ ZYDIS_MNEMONIC_##M##SD, EMU_FP_OP(sel, 1, 1), NULL, bind_compare_flags }, \
	{ ZYDIS_MNEMONIC_V##M##SS, EMU_FP_OP(sel, 0, 1), NULL, bind_compare_flags }, \
	{ ZYDIS_MNEMONIC_V##M##SD, EMU_FP_OP(sel, 1, 1), NULL, bind_compare_flags }

static const struct emu_binding sse_fp_bindings[] = {
	FP_SHAPES(ADD, EMU_MX_ADD, bind_arith),
	FP_SHAPES(SUB, EMU_MX_SUB, bind_arith),
	FP_SHAPES(MUL, EMU_MX_MUL, bind_arith),
	FP_SHAPES(DIV, EMU_MX_DIV, bind_arith),
	FP_SHAPES(MIN, EMU_MX_MIN, bind_arith),
	FP_SHAPES(MAX, EMU_MX_MAX, bind_arith),
	FP_SHAPES(SQRT, EMU_MX_SQRT, bind_arith),
	FP_SINGLE_SHAPES(RCP, EMU_MX_RCP, bind_arith),
	FP_SINGLE_SHAPES(RSQRT, EMU_MX_RSQRT, bind_arith),
	FP_SHAPES(CMP, 0, bind_compare),
	FP_PACKED_SHAPES(HADD, HORIZ_ADD, bind_horizontal),
	FP_PACKED_SHAPES(HSUB, HORIZ_SUB, bind_horizontal),
	FP_PACKED_SHAPES(ADDSUB, HORIZ_ADDSUB, bind_horizontal),
	FP_COMPARE_FLAGS(COMI, COMPARE_SIGNALING),
	FP_COMPARE_FLAGS(UCOMI, COMPARE_QUIET),
};

EMU_FAMILY(emu_family_sse_fp, sse_fp_bindings);
