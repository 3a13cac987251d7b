/*
 * ops_bitops.c — single-bit access and bit scans: bt, bts, btr, btc (one
 * handler, the op says what happens to the bit), bsf, bsr, lzcnt, tzcnt,
 * popcnt (one handler, the op says what is counted).
 *
 * bt* with a memory operand and a register bit offset addresses outside the
 * operand: the offset is signed and moves the address in operand-size
 * units (with a 0x67 prefix the adjusted address wraps to 32 bits, as
 * measured natively). Flags the SDM leaves undefined, as this project's
 * Intel Xeon sets them (tests/unit/test_emu_bitops.c checks it natively):
 *   - bt*: only CF changes.
 *   - bsf, bsr: a zero source sets ZF and PF and leaves the destination
 *     (all 64 bits of it) unchanged; otherwise PF is the parity of the
 *     index found. CF, OF, SF, AF are cleared.
 *   - lzcnt, tzcnt: OF, SF, AF, PF are cleared.
 */
#include "binding.h"
#include "operand.h"

enum bit_test_op { BIT_TEST, BIT_SET, BIT_RESET, BIT_COMPLEMENT };

static void note_lock(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	if (insn->attr & EMU_ATTR_LOCK)
		emu_note_sync(cpu, EMU_SYNC_LOCK, insn->addr);
}

static uint64_t bit_test_result(enum bit_test_op op, uint64_t v, uint64_t mask)
{
	switch (op) {
	case BIT_SET: return v | mask;
	case BIT_RESET: return v & ~mask;
	case BIT_COMPLEMENT: return v ^ mask;
	default: return v;
	}
}

/* bt/bts/btr/btc r/m, r|imm8. */
static int bit_test(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size, bits = size * 8;
	uint64_t offset, v;
	int r;
	note_lock(cpu, insn);
	if ((r = emu_opnd_read(cpu, insn, 1, &offset)) != EMU_OK)
		return r;
	bool far = emu_opnd_is_mem(insn, 0) && insn->opnd[1].kind == EMU_OPND_GPR;
	uint64_t addr = 0;
	if (far) {
		/* The signed offset selects the operand-sized unit holding
		 * the bit, below the operand for negative offsets. The unit's
		 * displacement belongs to the effective address: with a 0x67
		 * prefix the sum (not the operand alone) wraps to 32 bits, and
		 * only then is the segment base added. */
		int64_t o = emu_sign_extend(offset, insn->opnd[1].size);
		int64_t unit = o >= 0 ? o / (int64_t)bits : -((-(o + 1)) / (int64_t)bits) - 1;
		uint64_t seg_base = emu_seg_addr(cpu, insn, 0);
		uint64_t ea = emu_mem_addr(cpu, insn) - seg_base + (uint64_t)unit * size;
		if (insn->mem.addr32)
			ea = (uint32_t)ea;
		addr = ea + seg_base;
		if ((r = emu_mem_read_uint(cpu, addr, size, &v)) != EMU_OK)
			return r;
	} else if ((r = emu_opnd_read(cpu, insn, 0, &v)) != EMU_OK) {
		return r;
	}
	uint64_t mask = 1ull << (offset & (bits - 1));
	uint64_t res = bit_test_result(insn->op, v, mask);
	if (insn->op != BIT_TEST) {
		r = far ? emu_mem_write_uint(cpu, addr, size, res)
			: emu_opnd_write(cpu, insn, 0, res);
		if (r != EMU_OK)
			return r;
	}
	emu_set_flags_masked(cpu, (v & mask) ? EMU_CF : 0, EMU_CF);
	return EMU_OK;
}

enum bit_count_op { COUNT_BSF, COUNT_BSR, COUNT_TZCNT, COUNT_LZCNT, COUNT_POPCNT };

static unsigned trailing_zeros(uint64_t v, unsigned bits)
{
	return v ? (unsigned)__builtin_ctzll(v) : bits;
}

static unsigned leading_zeros(uint64_t v, unsigned bits)
{
	return v ? (unsigned)__builtin_clzll(v) - (64 - bits) : bits;
}

/* bsf, bsr, tzcnt, lzcnt, popcnt r, r/m. */
static int bit_count(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size, bits = size * 8;
	uint64_t v;
	int r = emu_opnd_read(cpu, insn, 1, &v);
	if (r != EMU_OK)
		return r;
	v &= emu_size_mask(size);
	uint64_t flags, result;
	switch (insn->op) {
	case COUNT_BSF:
	case COUNT_BSR:
		if (v == 0) {
			emu_set_status_flags(cpu, EMU_ZF | EMU_PF);
			return EMU_OK;
		}
		result = insn->op == COUNT_BSF ? trailing_zeros(v, bits)
					       : bits - 1 - leading_zeros(v, bits);
		flags = emu_parity_flag(result);
		break;
	case COUNT_TZCNT:
	case COUNT_LZCNT:
		result = insn->op == COUNT_TZCNT ? trailing_zeros(v, bits)
						 : leading_zeros(v, bits);
		flags = v == 0 ? EMU_CF : 0;
		if (result == 0)
			flags |= EMU_ZF;
		break;
	default: /* COUNT_POPCNT */
		result = (uint64_t)__builtin_popcountll(v);
		flags = v == 0 ? EMU_ZF : 0;
		break;
	}
	emu_gpr_set(cpu, insn->opnd[0].reg, size, result);
	emu_set_status_flags(cpu, flags);
	return EMU_OK;
}

static bool is_rm(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR || o->kind == EMU_OPND_MEM;
}

static emu_handler *bind_bit_test(struct emu_insn *insn)
{
	if (insn->nopnd == 2 && is_rm(&insn->opnd[0]) &&
	    (insn->opnd[1].kind == EMU_OPND_GPR || insn->opnd[1].kind == EMU_OPND_IMM))
		return bit_test;
	return NULL;
}

static emu_handler *bind_bit_count(struct emu_insn *insn)
{
	if (insn->nopnd == 2 && insn->opnd[0].kind == EMU_OPND_GPR && is_rm(&insn->opnd[1]))
		return bit_count;
	return NULL;
}

static const struct emu_binding bitops_bindings[] = {
	{ ZYDIS_MNEMONIC_BT, BIT_TEST, NULL, bind_bit_test },
	{ ZYDIS_MNEMONIC_BTS, BIT_SET, NULL, bind_bit_test },
	{ ZYDIS_MNEMONIC_BTR, BIT_RESET, NULL, bind_bit_test },
	{ ZYDIS_MNEMONIC_BTC, BIT_COMPLEMENT, NULL, bind_bit_test },
	{ ZYDIS_MNEMONIC_BSF, COUNT_BSF, NULL, bind_bit_count },
	{ ZYDIS_MNEMONIC_BSR, COUNT_BSR, NULL, bind_bit_count },
	{ ZYDIS_MNEMONIC_TZCNT, COUNT_TZCNT, NULL, bind_bit_count },
	{ ZYDIS_MNEMONIC_LZCNT, COUNT_LZCNT, NULL, bind_bit_count },
	{ ZYDIS_MNEMONIC_POPCNT, COUNT_POPCNT, NULL, bind_bit_count },
};

EMU_FAMILY(emu_family_bitops, bitops_bindings);
