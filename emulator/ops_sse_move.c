/*
 * ops_sse_move.c — SSE/AVX data movement: whole-vector moves (aligned,
 * unaligned, non-temporal), movd/movq between vector, MMX and general
 * registers and memory, single-element moves that merge or zero (movss,
 * movsd, movlps, movhps, movhlps, movlhps, ...), sign-mask extraction,
 * byte-masked stores, duplicating loads, zero/sign-extending loads,
 * broadcasts, 128-bit lane inserts/extracts/permutes, masked loads and
 * stores, and vzeroupper/vzeroall.
 */
#include "binding.h"
#include "sse_shape.h"

/* --- whole vectors --------------------------------------------------------- */

enum { COPY_UNALIGNED, COPY_ALIGNED };

/* movdqa/movdqu/movaps/movups/...: dst = src, `vl` bytes. The aligned
 * forms fault on a memory operand not aligned to its size. */
static int vec_copy(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl;
	emu_vec v;
	int st;
	if (insn->op == COPY_ALIGNED &&
	    ((st = emu_vec_check_aligned(cpu, insn, 0, width)) != EMU_OK ||
	     (st = emu_vec_check_aligned(cpu, insn, 1, width)) != EMU_OK))
		return st;
	if ((st = emu_vec_read(cpu, insn, 1, width, &v)) != EMU_OK)
		return st;
	return emu_vec_write(cpu, insn, 0, width, &v);
}

/* movd/movq/movq2dq/movdq2q: the low 4 or 8 bytes of the source; a vector
 * register destination is zero-extended to 128 bits. */
static int vec_move_low(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned n = insn->opnd[0].size < insn->opnd[1].size ? insn->opnd[0].size
							      : insn->opnd[1].size;
	if (n > 8)
		n = 8;
	emu_vec v;
	int st = emu_vec_read(cpu, insn, 1, n, &v);
	if (st != EMU_OK)
		return st;
	return emu_vec_write(cpu, insn, 0, insn->opnd[0].kind == EMU_OPND_VEC ? 16 : n, &v);
}

/* movnti: a plain integer store (the non-temporal hint changes nothing a
 * single thread can observe). */
static int move_nontemporal_int(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t v;
	int st = emu_opnd_read(cpu, insn, 1, &v);
	if (st != EMU_OK)
		return st;
	return emu_opnd_write(cpu, insn, 0, v);
}

/* --- one element ---------------------------------------------------------- */

/* The op of the element moves: element size, which destination element is
 * written (the register element a store writes out), which source element
 * is read, and whether a load zeroes the rest of the register. */
#define ELEM_QWORD 1u
#define ELEM_DST_HIGH 2u
#define ELEM_SRC_HIGH 4u
#define ELEM_LOAD_ZEROES 8u

/*
 * Register destination: result = base with element k replaced by element j
 * of the last operand. base is src1 for the VEX three-operand forms, zero
 * for the loads of movss/movsd, else the destination itself.
 * Memory destination: the register's element k is stored.
 */
static int vec_move_element(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->op & ELEM_QWORD ? 8 : 4;
	unsigned k = insn->op & ELEM_DST_HIGH ? 1 : 0, j = insn->op & ELEM_SRC_HIGH ? 1 : 0;
	unsigned last = insn->nopnd - 1;
	emu_vec base, src;
	int st;
	if (insn->opnd[0].kind == EMU_OPND_MEM) {
		if ((st = emu_vec_read(cpu, insn, last, 16, &src)) != EMU_OK)
			return st;
		sse_set(&base, 0, size, sse_get(&src, k, size));
		return emu_vec_write(cpu, insn, 0, size, &base);
	}
	bool mem_src = insn->opnd[last].kind == EMU_OPND_MEM;
	if ((st = emu_vec_read(cpu, insn, last, mem_src ? size : 16, &src)) != EMU_OK)
		return st;
	if (mem_src && (insn->op & ELEM_LOAD_ZEROES))
		memset(&base, 0, sizeof(base));
	else if ((st = emu_vec_read(cpu, insn, last == 2 ? 1 : 0, 16, &base)) != EMU_OK)
		return st;
	sse_set(&base, k, size, sse_get(&src, j, size));
	return emu_vec_write(cpu, insn, 0, 16, &base);
}

/* --- masks ------------------------------------------------------------------- */

/* movmskps/movmskpd/pmovmskb: the sign bit of each element into a GPR. */
static int vec_sign_mask(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	emu_vec v;
	int st = emu_vec_read(cpu, insn, 1, width, &v);
	if (st != EMU_OK)
		return st;
	uint64_t mask = 0;
	if (size == 1) {
		/* Gathers the eight sign bits of a quadword into one byte. */
		for (unsigned q = 0; q < width / 8; q++)
			mask |= (((v.q[q] & 0x8080808080808080ull) * 0x0002040810204081ull) >> 56) << (8 * q);
	} else {
		for (unsigned i = 0; i < width / size; i++)
			mask |= (uint64_t)(v.b[i * size + size - 1] >> 7) << i;
	}
	emu_gpr_set(cpu, insn->opnd[0].reg, insn->opnd[0].size, mask);
	return emu_vec_complete(cpu, insn);
}

/* maskmovdqu/maskmovq: stores the bytes of src whose mask byte has its top
 * bit set to [rdi]; unselected bytes are not touched at all, so the store
 * is made of the selected runs. */
static int vec_masked_byte_store(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl;
	emu_vec src, mask;
	int st;
	if ((st = emu_vec_read(cpu, insn, 0, width, &src)) != EMU_OK ||
	    (st = emu_vec_read(cpu, insn, 1, width, &mask)) != EMU_OK)
		return st;
	uint64_t rdi = cpu->regs.gpr[EMU_RDI];
	if (insn->mem.addr32)
		rdi = (uint32_t)rdi;
	uint64_t addr = emu_seg_addr(cpu, insn, rdi);
	for (unsigned i = 0; i < width;) {
		if (!(mask.b[i] & 0x80)) {
			i++;
			continue;
		}
		unsigned end = i;
		while (end < width && (mask.b[end] & 0x80))
			end++;
		if ((st = emu_mem_write(cpu, addr + i, src.b + i, end - i)) != EMU_OK)
			return st;
		i = end;
	}
	return emu_vec_complete(cpu, insn);
}

/* vmaskmovps/pd, vpmaskmovd/q: elements whose mask element has its top bit
 * set are loaded (others become zero) or stored (others untouched). Masked
 * elements are never accessed, so they cannot fault. */
static int vec_masked_elements(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op);
	bool store = insn->opnd[0].kind == EMU_OPND_MEM;
	uint64_t addr = emu_mem_addr(cpu, insn);
	emu_vec mask, v;
	int st;
	if ((st = emu_vec_read(cpu, insn, 1, width, &mask)) != EMU_OK)
		return st;
	if (store && (st = emu_vec_read(cpu, insn, 2, width, &v)) != EMU_OK)
		return st;
	if (!store)
		memset(&v, 0, sizeof(v));
	for (unsigned i = 0; i < width / size; i++) {
		if (!(mask.b[i * size + size - 1] & 0x80))
			continue;
		st = store ? emu_mem_write(cpu, addr + i * size, v.b + i * size, size)
			   : emu_mem_read(cpu, addr + i * size, v.b + i * size, size);
		if (st != EMU_OK)
			return st;
	}
	return store ? EMU_OK : emu_vec_write(cpu, insn, 0, width, &v);
}

/* --- rearranging loads ------------------------------------------------------- */

/* movddup/movsldup/movshdup: element i takes the even (or odd) element of
 * its pair. op: element size and ELEM_SRC_HIGH for the odd one. */
static int vec_duplicate(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = SSE_OP_SIZE(insn->op), odd = insn->op >> 2 & 1;
	emu_vec s, r;
	int st = sse_read_source(cpu, insn, 1, width, &s);
	if (st != EMU_OK)
		return st;
	for (unsigned i = 0; i < width / size; i++)
		sse_set(&r, i, size, sse_get(&s, (i & ~1u) | odd, size));
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* pmovzx/pmovsx: op bits 0-1 log2 of the source element, 2-3 of the
 * destination element, bit 4 sign-extends. */
static int vec_extend(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, ssize = 1u << (insn->op & 3), dsize = 1u << (insn->op >> 2 & 3);
	unsigned n = width / dsize;
	emu_vec s, r;
	int st = emu_vec_read(cpu, insn, 1, n * ssize, &s);
	if (st != EMU_OK)
		return st;
	for (unsigned i = 0; i < n; i++) {
		uint64_t x = sse_get(&s, i, ssize);
		if (insn->op & 16)
			x = (uint64_t)emu_sign_extend(x, ssize);
		sse_set(&r, i, dsize, x);
	}
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* vbroadcast*, vpbroadcast*: element 0 of the source (op: log2 of its
 * size, 4 for a 128-bit lane) into every element. */
static int vec_broadcast(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->vl, size = 1u << insn->op;
	emu_vec s, r;
	int st = emu_vec_read(cpu, insn, 1, size, &s);
	if (st != EMU_OK)
		return st;
	for (unsigned i = 0; i < width; i += size)
		memcpy(r.b + i, s.b, size);
	return emu_vec_write(cpu, insn, 0, width, &r);
}

/* --- 128-bit lanes ------------------------------------------------------------- */

/* vinsertf128/vinserti128: src1 with lane imm[0] replaced by src2. */
static int vec_insert_lane(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_vec a, b;
	int st;
	if ((st = emu_vec_read(cpu, insn, 2, 16, &b)) != EMU_OK ||
	    (st = emu_vec_read(cpu, insn, 1, 32, &a)) != EMU_OK)
		return st;
	memcpy(a.b + (insn->imm & 1) * 16, b.b, 16);
	return emu_vec_write(cpu, insn, 0, 32, &a);
}

/* vextractf128/vextracti128: lane imm[0] of the source. */
static int vec_extract_lane(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_vec a, r;
	int st = emu_vec_read(cpu, insn, 1, 32, &a);
	if (st != EMU_OK)
		return st;
	memset(&r, 0, sizeof(r));
	memcpy(r.b, a.b + (insn->imm & 1) * 16, 16);
	return emu_vec_write(cpu, insn, 0, 16, &r);
}

/* vperm2f128/vperm2i128: each result lane is one of the four source
 * lanes, or zero when bit 3 of its selector is set. */
static int vec_permute_lanes(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_vec a, b, r;
	int st;
	if ((st = emu_vec_read(cpu, insn, 2, 32, &b)) != EMU_OK ||
	    (st = emu_vec_read(cpu, insn, 1, 32, &a)) != EMU_OK)
		return st;
	memset(&r, 0, sizeof(r));
	for (unsigned half = 0; half < 2; half++) {
		unsigned sel = (insn->imm >> (4 * half)) & 0xf;
		if (!(sel & 8))
			memcpy(r.b + 16 * half, (sel & 2 ? b.b : a.b) + 16 * (sel & 1), 16);
	}
	return emu_vec_write(cpu, insn, 0, 32, &r);
}

/* vzeroupper (op 0) clears bits 128 and up of registers 0-15, vzeroall
 * (op 1) all of them; registers 16-31 are not affected. */
static int vec_zero_registers(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned from = insn->op ? 0 : 16;
	for (unsigned i = 0; i < 16; i++)
		memset(cpu->regs.zmm[i].b + from, 0, sizeof(emu_vec) - from);
	return EMU_OK;
}

/* --- binders ---------------------------------------------------------------------- */

static bool is_vec_or_mem(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_VEC || o->kind == EMU_OPND_MEM;
}

static emu_handler *bind_copy(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 2 || insn->vl < 16 ||
	    !is_vec_or_mem(&insn->opnd[0]) || !is_vec_or_mem(&insn->opnd[1]))
		return NULL;
	return vec_copy;
}

static emu_handler *bind_move_low(struct emu_insn *insn)
{
	if (insn->attr & EMU_ATTR_EVEX || insn->nopnd != 2)
		return NULL;
	for (unsigned i = 0; i < 2; i++) {
		unsigned k = insn->opnd[i].kind;
		if (k != EMU_OPND_VEC && k != EMU_OPND_MMX && k != EMU_OPND_MEM && k != EMU_OPND_GPR)
			return NULL;
	}
	return vec_move_low;
}

static emu_handler *bind_movnti(struct emu_insn *insn)
{
	if (insn->nopnd != 2 || insn->opnd[0].kind != EMU_OPND_MEM ||
	    insn->opnd[1].kind != EMU_OPND_GPR)
		return NULL;
	return move_nontemporal_int;
}

static emu_handler *bind_element(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd < 2 || insn->nopnd > 3)
		return NULL;
	if (insn->opnd[0].kind == EMU_OPND_MEM && insn->nopnd != 2)
		return NULL;
	return vec_move_element;
}

/* Zydis gives the string instruction movsd (no visible operands) and the
 * SSE2 scalar move the same mnemonic; the string family binds the former
 * (the decoder tries every family that binds a mnemonic). */
static emu_handler *bind_movsd(struct emu_insn *insn)
{
	return insn->nopnd != 0 ? bind_element(insn) : NULL;
}

static emu_handler *bind_sign_mask(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 2 || insn->opnd[0].kind != EMU_OPND_GPR)
		return NULL;
	return vec_sign_mask;
}

static emu_handler *bind_masked_byte_store(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 2)
		return NULL;
	return vec_masked_byte_store;
}

static emu_handler *bind_masked_elements(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 3 ||
	    (insn->opnd[0].kind == EMU_OPND_MEM) == (insn->opnd[2].kind == EMU_OPND_MEM))
		return NULL;
	return vec_masked_elements;
}

static emu_handler *bind_to_vector(struct emu_insn *insn, emu_handler *h,
				   unsigned nopnd)
{
	if (!sse_bind_common(insn) || insn->nopnd != nopnd || insn->opnd[0].kind != EMU_OPND_VEC)
		return NULL;
	return h;
}

static emu_handler *bind_duplicate(struct emu_insn *insn)
{
	return bind_to_vector(insn, vec_duplicate, 2);
}

static emu_handler *bind_extend(struct emu_insn *insn)
{
	return bind_to_vector(insn, vec_extend, 2);
}

static emu_handler *bind_broadcast(struct emu_insn *insn)
{
	return bind_to_vector(insn, vec_broadcast, 2);
}

static emu_handler *bind_insert_lane(struct emu_insn *insn)
{
	return bind_to_vector(insn, vec_insert_lane, 4);
}

static emu_handler *bind_permute_lanes(struct emu_insn *insn)
{
	return bind_to_vector(insn, vec_permute_lanes, 4);
}

static emu_handler *bind_extract_lane(struct emu_insn *insn)
{
	if (!sse_bind_common(insn) || insn->nopnd != 3)
		return NULL;
	return vec_extract_lane;
}

static emu_handler *bind_zero_registers(struct emu_insn *insn)
{
	return (insn->attr & EMU_ATTR_VEX) && insn->nopnd == 0 ? vec_zero_registers : NULL;
}

#define BOTH(m, op, bind) { ZYDIS_MNEMONIC_##m, op, NULL, bind }, \
			  { ZYDIS_MNEMONIC_V##m, op, NULL, bind }
#define ONE(m, op, bind) { ZYDIS_MNEMONIC_##m, op, NULL, bind }
#define EXTEND(m, s, d, sign) ONE(m, (s) | (d) << 2 | (sign) << 4, bind_extend), \
			      ONE(V##m, (s) | (d) << 2 | (sign) << 4, bind_extend)

static const struct emu_binding sse_move_bindings[] = {
	BOTH(MOVDQA, COPY_ALIGNED, bind_copy), BOTH(MOVAPS, COPY_ALIGNED, bind_copy),
	BOTH(MOVAPD, COPY_ALIGNED, bind_copy), BOTH(MOVNTDQ, COPY_ALIGNED, bind_copy),
	BOTH(MOVNTPS, COPY_ALIGNED, bind_copy), BOTH(MOVNTPD, COPY_ALIGNED, bind_copy),
	BOTH(MOVNTDQA, COPY_ALIGNED, bind_copy),
	BOTH(MOVDQU, COPY_UNALIGNED, bind_copy), BOTH(MOVUPS, COPY_UNALIGNED, bind_copy),
	BOTH(MOVUPD, COPY_UNALIGNED, bind_copy), BOTH(LDDQU, COPY_UNALIGNED, bind_copy),
	BOTH(MOVD, 0, bind_move_low), BOTH(MOVQ, 0, bind_move_low),
	ONE(MOVQ2DQ, 0, bind_move_low), ONE(MOVDQ2Q, 0, bind_move_low),
	ONE(MOVNTI, 0, bind_movnti),
	BOTH(MOVSS, ELEM_LOAD_ZEROES, bind_element),
	ONE(MOVSD, ELEM_QWORD | ELEM_LOAD_ZEROES, bind_movsd),
	ONE(VMOVSD, ELEM_QWORD | ELEM_LOAD_ZEROES, bind_element),
	BOTH(MOVLPS, ELEM_QWORD, bind_element), BOTH(MOVLPD, ELEM_QWORD, bind_element),
	BOTH(MOVHPS, ELEM_QWORD | ELEM_DST_HIGH, bind_element),
	BOTH(MOVHPD, ELEM_QWORD | ELEM_DST_HIGH, bind_element),
	BOTH(MOVHLPS, ELEM_QWORD | ELEM_SRC_HIGH, bind_element),
	BOTH(MOVLHPS, ELEM_QWORD | ELEM_DST_HIGH, bind_element),
	BOTH(MOVMSKPS, 2, bind_sign_mask), BOTH(MOVMSKPD, 3, bind_sign_mask),
	BOTH(PMOVMSKB, 0, bind_sign_mask),
	BOTH(MASKMOVDQU, 0, bind_masked_byte_store), ONE(MASKMOVQ, 0, bind_masked_byte_store),
	ONE(VMASKMOVPS, 2, bind_masked_elements), ONE(VMASKMOVPD, 3, bind_masked_elements),
	ONE(VPMASKMOVD, 2, bind_masked_elements), ONE(VPMASKMOVQ, 3, bind_masked_elements),
	BOTH(MOVDDUP, 3, bind_duplicate), BOTH(MOVSLDUP, 2, bind_duplicate),
	BOTH(MOVSHDUP, 2 | 4, bind_duplicate),
	EXTEND(PMOVZXBW, 0, 1, 0), EXTEND(PMOVZXBD, 0, 2, 0), EXTEND(PMOVZXBQ, 0, 3, 0),
	EXTEND(PMOVZXWD, 1, 2, 0), EXTEND(PMOVZXWQ, 1, 3, 0), EXTEND(PMOVZXDQ, 2, 3, 0),
	EXTEND(PMOVSXBW, 0, 1, 1), EXTEND(PMOVSXBD, 0, 2, 1), EXTEND(PMOVSXBQ, 0, 3, 1),
	EXTEND(PMOVSXWD, 1, 2, 1), EXTEND(PMOVSXWQ, 1, 3, 1), EXTEND(PMOVSXDQ, 2, 3, 1),
	ONE(VBROADCASTSS, 2, bind_broadcast), ONE(VBROADCASTSD, 3, bind_broadcast),
	ONE(VBROADCASTF128, 4, bind_broadcast), ONE(VBROADCASTI128, 4, bind_broadcast),
	ONE(VPBROADCASTB, 0, bind_broadcast), ONE(VPBROADCASTW, 1, bind_broadcast),
	ONE(VPBROADCASTD, 2, bind_broadcast), ONE(VPBROADCASTQ, 3, bind_broadcast),
	ONE(VINSERTF128, 0, bind_insert_lane), ONE(VINSERTI128, 0, bind_insert_lane),
	ONE(VEXTRACTF128, 0, bind_extract_lane), ONE(VEXTRACTI128, 0, bind_extract_lane),
	ONE(VPERM2F128, 0, bind_permute_lanes), ONE(VPERM2I128, 0, bind_permute_lanes),
	ONE(VZEROUPPER, 0, bind_zero_registers), ONE(VZEROALL, 1, bind_zero_registers),
};

EMU_FAMILY(emu_family_sse_move, sse_move_bindings);
