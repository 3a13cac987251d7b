/*
 * ops_muldiv.c — integer multiply and divide: mul, imul (one-, two- and
 * three-operand forms), div, idiv. The op says signed or unsigned.
 *
 * Flags the SDM leaves undefined, as this project's Intel Xeon sets them
 * (pinned by running the instructions natively over random operands and
 * entry flags; tests/unit/test_emu_muldiv.c keeps checking it):
 *   mul, imul: SF = top bit of the low half of the product (the part
 *              written to the destination, AL/AX/EAX/RAX for one-operand
 *              forms), PF = parity of its low byte, ZF = 0, AF = 0.
 *   div, idiv: all six status flags are left unchanged.
 */
#include "binding.h"
#include "operand.h"

enum muldiv_op { MULDIV_UNSIGNED, MULDIV_SIGNED };

#define INT128_MIN ((__int128)((unsigned __int128)1 << 127))

/* The full 2*size-byte product of a and b (each `size` bytes) as low and
 * high halves; returns whether the high half carries information (CF=OF). */
static bool multiply(enum muldiv_op op, uint64_t a, uint64_t b, unsigned size,
		     uint64_t *low, uint64_t *high)
{
	uint64_t m = emu_size_mask(size);
	unsigned bits = size * 8;
	unsigned __int128 p;
	if (op == MULDIV_SIGNED)
		p = (unsigned __int128)((__int128)emu_sign_extend(a, size) *
					 emu_sign_extend(b, size));
	else
		p = (unsigned __int128)(a & m) * (b & m);
	*low = (uint64_t)p & m;
	*high = (uint64_t)(p >> bits) & m;
	if (op == MULDIV_SIGNED)
		return *high != ((*low & emu_sign_bit(size)) ? m : 0);
	return *high != 0;
}

static uint64_t multiply_flags(uint64_t low, unsigned size, bool overflow)
{
	uint64_t f = emu_parity_flag(low);
	if (low & emu_sign_bit(size))
		f |= EMU_SF;
	if (overflow)
		f |= EMU_CF | EMU_OF;
	return f;
}

/* mul r/m, imul r/m: rDX:rAX = rAX * r/m (AX = AL * r/m8). */
static int multiply_accumulator(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t src, low, high;
	int r = emu_opnd_read(cpu, insn, 0, &src);
	if (r != EMU_OK)
		return r;
	uint64_t a = emu_gpr_get(cpu, EMU_GPR_OFF(EMU_RAX), size);
	bool overflow = multiply(insn->op, a, src, size, &low, &high);
	if (size == 1) {
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), 2, low | high << 8);
	} else {
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), size, low);
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RDX), size, high);
	}
	emu_set_status_flags(cpu, multiply_flags(low, size, overflow));
	return EMU_OK;
}

/* imul r, r/m and imul r, r/m, imm: the destination gets the low half. */
static int multiply_truncating(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	unsigned first = insn->nopnd == 3 ? 1 : 0;
	uint64_t a, b, low, high;
	int r;
	if ((r = emu_opnd_read(cpu, insn, first, &a)) != EMU_OK)
		return r;
	if ((r = emu_opnd_read(cpu, insn, first + 1, &b)) != EMU_OK)
		return r;
	bool overflow = multiply(MULDIV_SIGNED, a, b, size, &low, &high);
	emu_gpr_set(cpu, insn->opnd[0].reg, size, low);
	emu_set_status_flags(cpu, multiply_flags(low, size, overflow));
	return EMU_OK;
}

/* div r/m, idiv r/m: rAX = rDX:rAX / r/m, rDX = remainder (AL, AH from AX
 * for bytes). #DE on a zero divisor or a quotient that does not fit, with
 * nothing changed. */
static int divide(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size, bits = size * 8;
	uint64_t m = emu_size_mask(size);
	uint64_t divisor;
	int r = emu_opnd_read(cpu, insn, 0, &divisor);
	if (r != EMU_OK)
		return r;
	divisor &= m;
	if (divisor == 0)
		return emu_fault(cpu, EMU_FAULT_DE);
	uint64_t lo, hi;
	if (size == 1) {
		uint64_t ax = emu_gpr_get(cpu, EMU_GPR_OFF(EMU_RAX), 2);
		lo = ax & 0xff;
		hi = ax >> 8;
	} else {
		lo = emu_gpr_get(cpu, EMU_GPR_OFF(EMU_RAX), size);
		hi = emu_gpr_get(cpu, EMU_GPR_OFF(EMU_RDX), size);
	}
	unsigned __int128 dividend = (unsigned __int128)hi << bits | lo;
	uint64_t quotient, remainder;
	if (insn->op == MULDIV_SIGNED) {
		/* Sign-extend the 2*bits-wide dividend to 128 bits. */
		unsigned shift = 128 - 2 * bits;
		__int128 n = (__int128)(dividend << shift) >> shift;
		__int128 d = emu_sign_extend(divisor, size);
		/* The one quotient that would overflow the division itself. */
		if (d == -1 && n == INT128_MIN)
			return emu_fault(cpu, EMU_FAULT_DE);
		__int128 q = n / d, rem = n % d;
		__int128 limit = (__int128)1 << (bits - 1);
		if (q >= limit || q < -limit)
			return emu_fault(cpu, EMU_FAULT_DE);
		quotient = (uint64_t)q & m;
		remainder = (uint64_t)rem & m;
	} else {
		unsigned __int128 q = dividend / divisor;
		if (q > m)
			return emu_fault(cpu, EMU_FAULT_DE);
		quotient = (uint64_t)q;
		remainder = (uint64_t)(dividend % divisor);
	}
	if (size == 1) {
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), 2, quotient | remainder << 8);
	} else {
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), size, quotient);
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RDX), size, remainder);
	}
	return EMU_OK;
}

static bool is_rm(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR || o->kind == EMU_OPND_MEM;
}

static emu_handler *bind_mul(struct emu_insn *insn)
{
	return insn->nopnd == 1 && is_rm(&insn->opnd[0]) ? multiply_accumulator : NULL;
}

static emu_handler *bind_imul(struct emu_insn *insn)
{
	if (insn->nopnd == 1)
		return bind_mul(insn);
	if (insn->opnd[0].kind != EMU_OPND_GPR || !is_rm(&insn->opnd[1]))
		return NULL;
	if (insn->nopnd == 2 || (insn->nopnd == 3 && insn->opnd[2].kind == EMU_OPND_IMM))
		return multiply_truncating;
	return NULL;
}

static emu_handler *bind_div(struct emu_insn *insn)
{
	return insn->nopnd == 1 && is_rm(&insn->opnd[0]) ? divide : NULL;
}

static const struct emu_binding muldiv_bindings[] = {
	{ ZYDIS_MNEMONIC_MUL, MULDIV_UNSIGNED, NULL, bind_mul },
	{ ZYDIS_MNEMONIC_IMUL, MULDIV_SIGNED, NULL, bind_imul },
	{ ZYDIS_MNEMONIC_DIV, MULDIV_UNSIGNED, NULL, bind_div },
	{ ZYDIS_MNEMONIC_IDIV, MULDIV_SIGNED, NULL, bind_div },
};

EMU_FAMILY(emu_family_muldiv, muldiv_bindings);
