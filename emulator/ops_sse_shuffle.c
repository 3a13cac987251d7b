/*
 * ops_sse_shuffle.c — SSE/AVX instructions that rearrange elements without
 * computing on them: shuffles and permutes (by immediate and by a vector
 * of indices), unpacks, packs with saturation, palignr, element inserts
 * and extracts (pinsr*, pextr*, insertps, extractps) and blends (by
 * immediate and by mask register).
 *
 * Except for vpermd/vpermq-style permutes, every instruction works within
 * 128-bit lanes (the whole register for MMX): `lane` below is 8 or 16.
 */
#include "binding.h"
#include "sse_shape.h"

static unsigned lane_bytes(unsigned width)
{
	return width < 16 ? width : 16;
}

/* Reads the two sources of a "dst = f(src1, src2)" form. */
static int read_sources(struct emu_cpu *cpu, const struct emu_insn *insn,
			emu_vec *a, emu_vec *b)
{
	int st = sse_read_source(cpu, insn, sse_src1(insn) + 1, insn->vl, b);
	if (st != EMU_OK)
		return st;
	return emu_vec_read(cpu, insn, sse_src1(insn), insn->vl, a);
}

/* --- one source, indices from the immediate ------------------------------------- */

enum imm_shuffle {
	SHUF_GROUPS_OF_4, /* pshufd, pshufw, vpermilps imm, vpermq, vpermpd */
	SHUF_LOW_WORDS,   /* pshuflw */
	SHUF_HIGH_WORDS,  /* pshufhw */
	SHUF_PAIRS,       /* vpermilpd imm: one bit per element */
};

/* The source element result element i takes. */
static unsigned imm_shuffle_index(enum imm_shuffle kind, unsigned i, unsigned imm)
{
	unsigned in_group = (imm >> (2 * (i & 3))) & 3;
	switch (kind) {
	case SHUF_GROUPS_OF_4: return (i & ~3u) + in_group;
	case SHUF_LOW_WORDS: return (i & 4) ? i : (i & ~3u) + in_group;
	case SHUF_HIGH_WORDS: return (i & 4) ? (i & ~3u) + in_group : i;
	default: return (i & ~1u) + ((imm >> i) & 1);
	}
}

static int shuffle_by_imm(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	emu_vec s, r;
	int st = sse_read_source(cpu, insn, 1, width, &s);
	if (st != EMU_OK)
		return st;
	for (unsigned i = 0; i < width / size; i++)
		sse_set(&r, i, size, sse_get(&s, imm_shuffle_index(SSE_OP_KIND(insn->op), i,
								    insn->imm & 0xff), size));
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* --- one data source, indices from a vector -------------------------------- */

enum var_shuffle { VAR_PSHUFB, VAR_PERMIL_PS, VAR_PERMIL_PD, VAR_PERM_CROSS };

static int shuffle_by_vector(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op), lane = lane_bytes(width);
	unsigned per_lane = lane / size;
	enum var_shuffle kind = SSE_OP_KIND(insn->op);
	emu_vec data, idx, r;
	int st = read_sources(cpu, insn, &data, &idx);
	if (st != EMU_OK)
		return st;
	/* vpermd/vpermps take the indices from src1 and the data from src2. */
	if (kind == VAR_PERM_CROSS) {
		emu_vec t = data;
		data = idx;
		idx = t;
	}
	for (unsigned i = 0; i < width / size; i++) {
		uint64_t x = sse_get(&idx, i, size);
		unsigned base = i - i % per_lane;
		switch (kind) {
		case VAR_PSHUFB:
			x = (x & 0x80) ? 0 : data.b[base + (x & (per_lane - 1))];
			break;
		case VAR_PERMIL_PS:
			x = data.d[base + (x & 3)];
			break;
		case VAR_PERMIL_PD:
			x = data.q[base + ((x >> 1) & 1)];
			break;
		default:
			x = sse_get(&data, x & (width / size - 1), size);
			break;
		}
		sse_set(&r, i, size, x);
	}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* --- two sources ----------------------------------------------------------------- */

/* shufps (op 2) / shufpd (op 3): the low half of each lane from src1, the
 * high half from src2, each element chosen by its immediate field. */
static int shuffle_two_sources(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, imm = insn->imm & 0xff;
	emu_vec a, b, r;
	int st = read_sources(cpu, insn, &a, &b);
	if (st != EMU_OK)
		return st;
	for (unsigned l = 0; l < width / 16; l++) {
		if (insn->op == 2) {
			for (unsigned i = 0; i < 4; i++)
				r.d[4 * l + i] = (i < 2 ? a : b).d[4 * l + ((imm >> (2 * i)) & 3)];
		} else {
			r.q[2 * l] = a.q[2 * l + ((imm >> (2 * l)) & 1)];
			r.q[2 * l + 1] = b.q[2 * l + ((imm >> (2 * l + 1)) & 1)];
		}
	}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* punpckl* and unpckl* (op kind 0), punpckh* and unpckh* (kind 1): interleave
 * the low or high halves of each lane of src1 and src2. */
static int unpack(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op), lane = lane_bytes(width);
	unsigned half = lane / size / 2;
	emu_vec a, b, r;
	int st = read_sources(cpu, insn, &a, &b);
	if (st != EMU_OK)
		return st;
	for (unsigned base = 0; base < width / size; base += 2 * half) {
		unsigned from = base + (SSE_OP_KIND(insn->op) ? half : 0);
		for (unsigned i = 0; i < half; i++) {
			sse_set(&r, base + 2 * i, size, sse_get(&a, from + i, size));
			sse_set(&r, base + 2 * i + 1, size, sse_get(&b, from + i, size));
		}
	}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* packss* and packus*: each lane's low half holds src1's elements narrowed
 * with saturation, its high half src2's. op: log2 of the source element,
 * kind 1 for unsigned saturation. */
static int pack(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op), lane = lane_bytes(width);
	unsigned n = lane / size, bits = size * 4;
	bool to_unsigned = SSE_OP_KIND(insn->op);
	emu_vec a, b, r;
	int st = read_sources(cpu, insn, &a, &b);
	if (st != EMU_OK)
		return st;
	for (unsigned l = 0; l < width / lane; l++)
		for (unsigned i = 0; i < 2 * n; i++) {
			int64_t x = emu_sign_extend(sse_get(i < n ? &a : &b, l * n + i % n, size), size);
			sse_set(&r, l * 2 * n + i, size / 2,
				to_unsigned ? sse_saturate_unsigned(x, bits)
					    : sse_saturate_signed(x, bits));
		}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* palignr: per lane, src1:src2 (src1 high) shifted right by imm bytes. */
static int align_right(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, lane = lane_bytes(width), shift = insn->imm & 0xff;
	emu_vec a, b, r;
	int st = read_sources(cpu, insn, &a, &b);
	if (st != EMU_OK)
		return st;
	for (unsigned base = 0; base < width; base += lane)
		for (unsigned i = 0; i < lane; i++) {
			unsigned k = i + shift;
			r.b[base + i] = k < lane ? b.b[base + k] : k < 2 * lane ? a.b[base + k - lane] : 0;
		}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* blendps/blendpd/pblendw/vpblendd: element i from src2 where imm bit
 * (i mod 8) is set (pblendw on YMM reuses the immediate per lane). */
static int blend_by_imm(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	emu_vec a, b;
	int st = read_sources(cpu, insn, &a, &b);
	if (st != EMU_OK)
		return st;
	for (unsigned i = 0; i < width / size; i++)
		if ((insn->imm >> (i % 8)) & 1)
			sse_set(&a, i, size, sse_get(&b, i, size));
	return emu_vec_write(cpu, insn, 0, width, &a);
}

/* blendvps/blendvpd/pblendvb: element from src2 where the mask element's
 * top bit is set; the mask is xmm0 in the legacy encoding, operand 3 in
 * the VEX one. */
static int blend_by_mask(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	emu_vec a, b, mask;
	int st = read_sources(cpu, insn, &a, &b);
	if (st != EMU_OK)
		return st;
	if (sse_is_vex(insn)) {
		if ((st = emu_vec_read(cpu, insn, 3, width, &mask)) != EMU_OK)
			return st;
	} else {
		memcpy(&mask, emu_vreg(cpu, 0), sizeof(mask));
	}
	for (unsigned i = 0; i < width / size; i++)
		if (mask.b[i * size + size - 1] & 0x80)
			sse_set(&a, i, size, sse_get(&b, i, size));
	return emu_vec_write(cpu, insn, 0, width, &a);
}

/* --- single elements ------------------------------------------------------------- */

/* pinsrb/w/d/q: src1 (the destination in the legacy form) with element
 * imm replaced by the low bytes of a GPR or memory. */
static int insert_element(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	unsigned value_opnd = insn->nopnd - 2;
	uint64_t v;
	emu_vec r;
	int st;
	if (insn->opnd[value_opnd].kind == EMU_OPND_MEM)
		st = emu_mem_read_uint(cpu, emu_mem_addr(cpu, insn), size, &v);
	else
		st = emu_opnd_read(cpu, insn, value_opnd, &v);
	if (st != EMU_OK)
		return st;
	if ((st = emu_vec_read(cpu, insn, sse_src1(insn), width, &r)) != EMU_OK)
		return st;
	sse_set(&r, (insn->imm & 0xff) % (width / size), size, v);
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* pextrb/w/d/q, extractps: element imm to a GPR (zero-extended) or memory. */
static int extract_element(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	emu_vec s;
	int st = emu_vec_read(cpu, insn, 1, width, &s);
	if (st != EMU_OK)
		return st;
	uint64_t v = sse_get(&s, (insn->imm & 0xff) % (width / size), size);
	if (insn->opnd[0].kind == EMU_OPND_MEM)
		return emu_mem_write_uint(cpu, emu_mem_addr(cpu, insn), size, v);
	emu_gpr_set(cpu, insn->opnd[0].reg, insn->opnd[0].size, v);
	return emu_vec_complete(cpu, insn);
}

/* insertps: dword imm[7:6] of a register source (or the memory dword) into
 * element imm[5:4] of src1, then the elements in imm[3:0] zeroed. */
static int insert_ps(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned imm = insn->imm & 0xff, src = insn->nopnd - 2;
	emu_vec s, r;
	int st;
	if (insn->opnd[src].kind == EMU_OPND_MEM) {
		st = emu_vec_read(cpu, insn, src, 4, &s);
	} else {
		st = emu_vec_read(cpu, insn, src, 16, &s);
		s.d[0] = s.d[imm >> 6];
	}
	if (st != EMU_OK)
		return st;
	if ((st = emu_vec_read(cpu, insn, sse_src1(insn), 16, &r)) != EMU_OK)
		return st;
	r.d[(imm >> 4) & 3] = s.d[0];
	for (unsigned i = 0; i < 4; i++)
		if (imm & (1u << i))
			r.d[i] = 0;
	return emu_vec_write(cpu, insn, 0, 16, &r);
}

/* --- binders --------------------------------------------------------------------- */

/* Destination a register, `legacy` operands in the legacy encoding and one
 * more (the separate src1) in the VEX encoding. */
static emu_handler *bind_shape(struct emu_insn *insn, emu_handler *h, unsigned legacy,
			       bool vex_adds_source)
{
	if (!sse_bind_common(insn))
		return NULL;
	unsigned want = legacy + (sse_is_vex(insn) && vex_adds_source);
	if (insn->nopnd != want || insn->opnd[0].kind == EMU_OPND_MEM ||
	    insn->opnd[0].kind == EMU_OPND_GPR)
		return NULL;
	return h;
}

static emu_handler *bind_shuffle_imm(struct emu_insn *insn)
{
	return bind_shape(insn, shuffle_by_imm, 3, false);
}

static emu_handler *bind_shuffle_vector(struct emu_insn *insn)
{
	return bind_shape(insn, shuffle_by_vector, 2, true);
}

/* vpermilps/vpermilpd come as an immediate form and a vector form. */
static emu_handler *bind_permil(struct emu_insn *insn)
{
	bool pd = insn->mnemonic == ZYDIS_MNEMONIC_VPERMILPD;
	if (sse_last_is_imm(insn)) {
		insn->op = pd ? SSE_OP(SHUF_PAIRS, 3) : SSE_OP(SHUF_GROUPS_OF_4, 2);
		return bind_shape(insn, shuffle_by_imm, 3, false);
	}
	insn->op = pd ? SSE_OP(VAR_PERMIL_PD, 3) : SSE_OP(VAR_PERMIL_PS, 2);
	return bind_shape(insn, shuffle_by_vector, 2, true);
}

static emu_handler *bind_two_sources(struct emu_insn *insn)
{
	return bind_shape(insn, shuffle_two_sources, 3, true);
}

static emu_handler *bind_unpack(struct emu_insn *insn)
{
	return bind_shape(insn, unpack, 2, true);
}

static emu_handler *bind_pack(struct emu_insn *insn)
{
	return bind_shape(insn, pack, 2, true);
}

static emu_handler *bind_align(struct emu_insn *insn)
{
	return bind_shape(insn, align_right, 3, true);
}

static emu_handler *bind_blend_imm(struct emu_insn *insn)
{
	return bind_shape(insn, blend_by_imm, 3, true);
}

static emu_handler *bind_blend_mask(struct emu_insn *insn)
{
	return bind_shape(insn, blend_by_mask, sse_is_vex(insn) ? 3 : 2, true);
}

static emu_handler *bind_insert(struct emu_insn *insn)
{
	return bind_shape(insn, insert_element, 3, true);
}

static emu_handler *bind_insert_ps(struct emu_insn *insn)
{
	return bind_shape(insn, insert_ps, 3, true);
}

static emu_handler *bind_extract(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 3 ||
	    (insn->opnd[0].kind != EMU_OPND_GPR && insn->opnd[0].kind != EMU_OPND_MEM))
		return NULL;
	return extract_element;
}

#define BOTH(m, op, bind) { ZYDIS_MNEMONIC_##m, op, NULL, bind }, \
			  { ZYDIS_MNEMONIC_V##m, op, NULL, bind }
#define ONE(m, op, bind) { ZYDIS_MNEMONIC_##m, op, NULL, bind }
#define UNPACK(m, high, lg) BOTH(m, SSE_OP(high, lg), bind_unpack)

static const struct emu_binding sse_shuffle_bindings[] = {
	BOTH(PSHUFD, SSE_OP(SHUF_GROUPS_OF_4, 2), bind_shuffle_imm),
	ONE(PSHUFW, SSE_OP(SHUF_GROUPS_OF_4, 1), bind_shuffle_imm),
	BOTH(PSHUFLW, SSE_OP(SHUF_LOW_WORDS, 1), bind_shuffle_imm),
	BOTH(PSHUFHW, SSE_OP(SHUF_HIGH_WORDS, 1), bind_shuffle_imm),
	ONE(VPERMQ, SSE_OP(SHUF_GROUPS_OF_4, 3), bind_shuffle_imm),
	ONE(VPERMPD, SSE_OP(SHUF_GROUPS_OF_4, 3), bind_shuffle_imm),
	BOTH(PSHUFB, SSE_OP(VAR_PSHUFB, 0), bind_shuffle_vector),
	ONE(VPERMD, SSE_OP(VAR_PERM_CROSS, 2), bind_shuffle_vector),
	ONE(VPERMPS, SSE_OP(VAR_PERM_CROSS, 2), bind_shuffle_vector),
	ONE(VPERMILPS, 0, bind_permil), ONE(VPERMILPD, 0, bind_permil),
	BOTH(SHUFPS, 2, bind_two_sources), BOTH(SHUFPD, 3, bind_two_sources),
	UNPACK(PUNPCKLBW, 0, 0), UNPACK(PUNPCKLWD, 0, 1), UNPACK(PUNPCKLDQ, 0, 2),
	UNPACK(PUNPCKLQDQ, 0, 3), UNPACK(PUNPCKHBW, 1, 0), UNPACK(PUNPCKHWD, 1, 1),
	UNPACK(PUNPCKHDQ, 1, 2), UNPACK(PUNPCKHQDQ, 1, 3),
	UNPACK(UNPCKLPS, 0, 2), UNPACK(UNPCKLPD, 0, 3), UNPACK(UNPCKHPS, 1, 2),
	UNPACK(UNPCKHPD, 1, 3),
	BOTH(PACKSSWB, SSE_OP(0, 1), bind_pack), BOTH(PACKSSDW, SSE_OP(0, 2), bind_pack),
	BOTH(PACKUSWB, SSE_OP(1, 1), bind_pack), BOTH(PACKUSDW, SSE_OP(1, 2), bind_pack),
	BOTH(PALIGNR, 0, bind_align),
	BOTH(BLENDPS, SSE_OP(0, 2), bind_blend_imm), BOTH(BLENDPD, SSE_OP(0, 3), bind_blend_imm),
	BOTH(PBLENDW, SSE_OP(0, 1), bind_blend_imm), ONE(VPBLENDD, SSE_OP(0, 2), bind_blend_imm),
	BOTH(BLENDVPS, SSE_OP(0, 2), bind_blend_mask), BOTH(BLENDVPD, SSE_OP(0, 3), bind_blend_mask),
	BOTH(PBLENDVB, SSE_OP(0, 0), bind_blend_mask),
	BOTH(PINSRB, SSE_OP(0, 0), bind_insert), BOTH(PINSRW, SSE_OP(0, 1), bind_insert),
	BOTH(PINSRD, SSE_OP(0, 2), bind_insert), BOTH(PINSRQ, SSE_OP(0, 3), bind_insert),
	BOTH(PEXTRB, SSE_OP(0, 0), bind_extract), BOTH(PEXTRW, SSE_OP(0, 1), bind_extract),
	BOTH(PEXTRD, SSE_OP(0, 2), bind_extract), BOTH(PEXTRQ, SSE_OP(0, 3), bind_extract),
	BOTH(EXTRACTPS, SSE_OP(0, 2), bind_extract),
	BOTH(INSERTPS, 0, bind_insert_ps),
};

EMU_FAMILY(emu_family_sse_shuffle, sse_shuffle_bindings);
