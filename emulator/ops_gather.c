/*
 * ops_gather.c — the AVX2 gathers: vpgatherdd/dq/qd/qq and
 * vgatherdps/dpd/qps/qpd (VEX forms; the EVEX ones with opmasks are
 * AVX-512 and not emulated).
 *
 * dst[i] = mem[base + disp + sext(index[i]) * scale] for every element i
 * whose mask element has its top bit set; elements whose mask is clear keep
 * their value. The decoder leaves the VSIB index's vector register number
 * in insn->mem.index.
 *
 * Unlike other handlers, a gather that faults has changed state: the
 * architecture makes it restartable instead. As measured on the CPU: before
 * any load, the mask's elements across the whole vector length become all
 * ones or zeros (from their top bit) and the mask is zeroed above it; the
 * elements are loaded in order, each load writing the destination at the
 * vector length (a 128-bit form zeroes its upper half) and clearing its mask
 * element; a fault stops at the faulting element with the earlier ones done
 * and the later ones untouched. On completion the destination is zeroed
 * above the gathered elements and the mask is all zeros.
 */
#include "binding.h"
#include "vector.h"

/* The binding's op: element size and index size, in bytes. */
#define GATHER_OP(elem, index) ((uint8_t)((elem) | (index) << 4))
#define GATHER_ELEM(op) ((unsigned)(op) & 0xf)
#define GATHER_INDEX(op) ((unsigned)(op) >> 4)

static uint64_t element_get(const emu_vec *v, unsigned size, unsigned i)
{
	return size == 8 ? v->q[i] : v->d[i];
}

static void element_set(emu_vec *v, unsigned size, unsigned i, uint64_t x)
{
	if (size == 8)
		v->q[i] = x;
	else
		v->d[i] = (uint32_t)x;
}

/* Address of element i: the VSIB operand with the index register's
 * sign-extended element i in place of a general register. */
static uint64_t element_address(const struct emu_cpu *cpu, const struct emu_insn *insn,
				const emu_vec *index, unsigned index_size, unsigned i)
{
	const struct emu_mem_operand *m = &insn->mem;
	int64_t idx = index_size == 8 ? (int64_t)index->q[i] : (int64_t)(int32_t)index->d[i];
	uint64_t a = (uint64_t)m->disp + (uint64_t)idx * m->scale;
	if (m->base != EMU_NO_REG)
		a += cpu->regs.gpr[m->base];
	if (m->addr32)
		a = (uint32_t)a;
	return emu_seg_addr(cpu, insn, a);
}

static int gather(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned esize = GATHER_ELEM(insn->op), isize = GATHER_INDEX(insn->op);
	unsigned vl = insn->vl;
	unsigned dst_count = insn->opnd[0].size / esize, index_count = vl / isize;
	unsigned n = dst_count < index_count ? dst_count : index_count;
	emu_vec *dst = emu_vreg(cpu, insn->opnd[0].reg);
	emu_vec *mask = emu_vreg(cpu, insn->opnd[2].reg);
	const emu_vec index = *emu_vreg(cpu, insn->mem.index);

	/* The whole vector length of the mask is normalised, even where the
	 * destination is narrower (vpgatherqd), and zeroed beyond it. */
	uint64_t top = 1ull << (esize * 8 - 1), ones = esize == 8 ? ~0ull : 0xffffffffull;
	for (unsigned i = 0; i < vl / esize; i++)
		element_set(mask, esize, i, (element_get(mask, esize, i) & top) ? ones : 0);
	memset(mask->b + vl, 0, sizeof(*mask) - vl);

	for (unsigned i = 0; i < n; i++) {
		if (!element_get(mask, esize, i))
			continue;
		uint64_t v = 0;
		int r = emu_mem_read(cpu, element_address(cpu, insn, &index, isize, i), &v, esize);
		if (r != EMU_OK)
			return r;
		/* Each load writes the destination at the vector length. */
		element_set(dst, esize, i, v);
		memset(dst->b + vl, 0, sizeof(*dst) - vl);
		element_set(mask, esize, i, 0);
	}
	unsigned bytes = n * esize;
	memset(dst->b + bytes, 0, sizeof(*dst) - bytes);
	memset(mask, 0, sizeof(*mask));
	return EMU_OK;
}

/* VEX form: dst, VSIB memory, mask. The CPU raises #UD when any two of the
 * destination, index and mask registers are the same. */
static emu_handler *bind_gather(struct emu_insn *insn)
{
	if (!(insn->attr & EMU_ATTR_VEX) || insn->nopnd != 3 ||
	    insn->opnd[0].kind != EMU_OPND_VEC || insn->opnd[1].kind != EMU_OPND_MEM ||
	    insn->opnd[2].kind != EMU_OPND_VEC || insn->mem.index == EMU_NO_REG ||
	    (insn->vl != 16 && insn->vl != 32))
		return NULL;
	uint8_t d = insn->opnd[0].reg, m = insn->opnd[2].reg, x = insn->mem.index;
	if (d == m || d == x || m == x)
		return emu_handler_undefined;
	return gather;
}

static const struct emu_binding gather_bindings[] = {
	{ ZYDIS_MNEMONIC_VPGATHERDD, GATHER_OP(4, 4), NULL, bind_gather },
	{ ZYDIS_MNEMONIC_VPGATHERDQ, GATHER_OP(8, 4), NULL, bind_gather },
	{ ZYDIS_MNEMONIC_VPGATHERQD, GATHER_OP(4, 8), NULL, bind_gather },
	{ ZYDIS_MNEMONIC_VPGATHERQQ, GATHER_OP(8, 8), NULL, bind_gather },
	{ ZYDIS_MNEMONIC_VGATHERDPS, GATHER_OP(4, 4), NULL, bind_gather },
	{ ZYDIS_MNEMONIC_VGATHERDPD, GATHER_OP(8, 4), NULL, bind_gather },
	{ ZYDIS_MNEMONIC_VGATHERQPS, GATHER_OP(4, 8), NULL, bind_gather },
	{ ZYDIS_MNEMONIC_VGATHERQPD, GATHER_OP(8, 8), NULL, bind_gather },
};

EMU_FAMILY(emu_family_gather, gather_bindings);
