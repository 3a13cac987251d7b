/*
 * jit_lower_bit_count.c — bsf, bsr, tzcnt, lzcnt and popcnt of a 16-,
 * 32- or 64-bit register or memory operand as host code, as ops_bitops.c's
 * bit_count does them. Compilers make __builtin_ctz a tzcnt (liblzma's
 * match finder runs one per compared word), and through the handler each
 * one costs a call.
 *
 * The results come from the host's bsf, bsr and popcnt only: tzcnt and
 * lzcnt are not taken from the host, which may lack them (they then run
 * as bsf and bsr). The status flags are the handler's, all six replaced:
 * bsf/bsr with a zero source ZF and PF and the destination left as it
 * was (not even a 32-bit one's upper half cleared), else PF of the result
 * alone; tzcnt/lzcnt CF for a zero source and ZF for a zero result;
 * popcnt ZF for a zero source. The flags the manuals leave undefined are
 * the emulator's model's (undefined_flags.c), never the host's.
 */
#include <Zydis/Zydis.h>

#include "flags.h"
#include "jit_xlate.h"

enum bit_count { SCAN_FORWARD, SCAN_REVERSE, TRAILING_ZEROS, LEADING_ZEROS, POPULATION };

static const struct {
	ZydisMnemonic mnemonic;
	enum bit_count op;
} bit_counts[] = {
	{ ZYDIS_MNEMONIC_BSF, SCAN_FORWARD },   { ZYDIS_MNEMONIC_BSR, SCAN_REVERSE },
	{ ZYDIS_MNEMONIC_TZCNT, TRAILING_ZEROS }, { ZYDIS_MNEMONIC_LZCNT, LEADING_ZEROS },
	{ ZYDIS_MNEMONIC_POPCNT, POPULATION },
};

static int bit_count_of(unsigned mnemonic)
{
	for (unsigned i = 0; i < sizeof(bit_counts) / sizeof(bit_counts[0]); i++)
		if (bit_counts[i].mnemonic == mnemonic)
			return (int)bit_counts[i].op;
	return -1;
}

static bool whole_gpr(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR && o->reg % 8 == 0;
}

bool jit_bit_count_lowerable(const struct emu_insn *insn)
{
	int op = bit_count_of(insn->mnemonic);
	if (op < 0 || insn->attr & EMU_ATTR_LOCK || insn->nopnd != 2 ||
	    insn->handler == emu_handler_unimplemented || insn->handler == emu_handler_undefined)
		return false;
	if (op == POPULATION && !__builtin_cpu_supports("popcnt"))
		return false;
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	return whole_gpr(d) && d->size >= 2 && s->size == d->size &&
	       (whole_gpr(s) || s->kind == EMU_OPND_MEM);
}

static void emit(struct jit_xlate *x, ZydisMnemonic mn, struct jit_opnd a, struct jit_opnd b)
{
	jit_op(&x->a, mn, a, b);
}

/* reg32 = the byte reg8 (0 or 1) moved to status flag `flag`'s bit. */
static void byte_to_flag(struct jit_xlate *x, int reg, uint64_t flag)
{
	emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(reg, 4), jit_r(reg, 1));
	if (flag != 1)
		emit(x, ZYDIS_MNEMONIC_SHL, jit_r(reg, 4), jit_i(__builtin_ctzll(flag)));
}

/* bsf/bsr of rax: rcx the flags, and the register's whole new value in
 * the returned host register (the old one for a zero source). */
static int scan(struct jit_xlate *x, enum bit_count op, unsigned size, unsigned g)
{
	int old = jit_guest_in(x, g, JR_R8);
	emit(x, op == SCAN_FORWARD ? ZYDIS_MNEMONIC_BSF : ZYDIS_MNEMONIC_BSR, jit_r(JR_RDX, 8),
	     jit_r(JR_RAX, 8));
	int now = JR_RDX;
	if (size == 2) { /* the index merged into the old value's low half */
		emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_R10, 8), jit_r(old, 8));
		emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_R10, 2), jit_r(JR_RDX, 2));
		now = JR_R10;
	}
	emit(x, ZYDIS_MNEMONIC_CMOVZ, jit_r(now, 8), jit_r(old, 8));
	/* ZF | PF for a zero source, else PF of the index */
	emit(x, ZYDIS_MNEMONIC_SETZ, jit_r(JR_RCX, 1), jit_none());
	emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RDX, 1), jit_r(JR_RDX, 1));
	emit(x, ZYDIS_MNEMONIC_SETP, jit_r(JR_RAX, 1), jit_none());
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RAX, 1), jit_r(JR_RCX, 1));
	byte_to_flag(x, JR_RAX, EMU_PF);
	byte_to_flag(x, JR_RCX, EMU_ZF);
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4));
	return now;
}

/* tzcnt, lzcnt, popcnt of rax: the count in rdx, the flags in rcx. */
static void count(struct jit_xlate *x, enum bit_count op, unsigned bits)
{
	if (op == POPULATION) {
		emit(x, ZYDIS_MNEMONIC_POPCNT, jit_r(JR_RDX, 8), jit_r(JR_RAX, 8));
		emit(x, ZYDIS_MNEMONIC_SETZ, jit_r(JR_RCX, 1), jit_none());
		byte_to_flag(x, JR_RCX, EMU_ZF);
		return;
	}
	/* A zero source counts the operand's width, CF set. */
	emit(x, op == TRAILING_ZEROS ? ZYDIS_MNEMONIC_BSF : ZYDIS_MNEMONIC_BSR, jit_r(JR_R10, 8),
	     jit_r(JR_RAX, 8));
	emit(x, ZYDIS_MNEMONIC_SETZ, jit_r(JR_RCX, 1), jit_none());
	if (op == LEADING_ZEROS) { /* bits - 1 - the top set bit's index */
		emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDX, 4), jit_i(bits - 1));
		emit(x, ZYDIS_MNEMONIC_SUB, jit_r(JR_RDX, 4), jit_r(JR_R10, 4));
		emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_R10, 4), jit_r(JR_RDX, 4));
	}
	emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDX, 4), jit_i(bits));
	emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RCX, 1), jit_r(JR_RCX, 1));
	emit(x, ZYDIS_MNEMONIC_CMOVZ, jit_r(JR_RDX, 4), jit_r(JR_R10, 4));
	byte_to_flag(x, JR_RCX, EMU_CF);
	emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RDX, 4), jit_r(JR_RDX, 4));
	emit(x, ZYDIS_MNEMONIC_SETZ, jit_r(JR_RAX, 1), jit_none());
	byte_to_flag(x, JR_RAX, EMU_ZF);
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4));
}

void jit_lower_bit_count(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	unsigned size = d->size, g = d->reg / 8u;
	enum bit_count op = (enum bit_count)bit_count_of(insn->mnemonic);
	/* the source, zero-extended, in rax */
	if (s->kind == EMU_OPND_MEM) {
		jit_address_to_rsi(x, insn);
		jit_read_at_rsi(x, size);
	} else {
		int v = jit_guest_in(x, s->reg / 8u, JR_RAX);
		if (size == 2)
			emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RAX, 4), jit_r(v, 2));
		else if (v != JR_RAX || size == 4)
			emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, size), jit_r(v, size));
	}
	if (op == SCAN_FORWARD || op == SCAN_REVERSE) {
		int now = scan(x, op, size, g);
		jit_status_flags_from_rcx(x);
		jit_guest_out(x, g, 8, now);
		return;
	}
	count(x, op, size * 8);
	jit_status_flags_from_rcx(x);
	jit_guest_out(x, g, size, JR_RDX);
}
