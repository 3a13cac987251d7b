/*
 * ops_shift.c — shifts and rotates (shl/sal shr sar rol ror rcl rcr, by 1,
 * imm8 or cl) and the double shifts shld, shrd (imm8 or cl). The op selects
 * the operation. shl, shr and sar leave their flags pending (flags.h) and
 * have a handler per operation and shape; the rest share one handler.
 *
 * The count is masked to 5 bits (6 for 64-bit operands); a masked count of
 * 0 changes neither the destination nor any flag. Flags the SDM leaves
 * undefined, as this project's Intel Xeon sets them (found by running the
 * instructions natively; tests/unit/test_emu_shift.c keeps checking it):
 *   - OF for counts above 1 is what a count of 1 would give, computed from
 *     the original operand (shl/rol/rcl: top two bits differ; shr: top bit;
 *     sar: 0; ror: top and bottom bits differ; rcr: top bit differs from
 *     the carry in).
 *     Except rol and ror by an immediate other than 1: they leave OF alone
 *     (by cl they do not).
 *   - shl, shr, sar clear AF; rotates leave AF, SF, ZF, PF alone.
 *   - shl/shr past the operand width shift zeros in; CF is the last bit
 *     shifted out, 0 once only zeros remain.
 */
#include "binding.h"
#include "operand.h"

enum shift_op { SHIFT_SHL, SHIFT_SHR, SHIFT_SAR, SHIFT_ROL, SHIFT_ROR, SHIFT_RCL,
		SHIFT_RCR, SHIFT_SHLD, SHIFT_SHRD };

static uint64_t bit(uint64_t v, unsigned n)
{
	return n < 64 ? (v >> n) & 1 : 0;
}

/* The OF a count of 1 would give, from the operand before the shift. */
static uint64_t overflow_of_single_step(enum shift_op op, uint64_t a, unsigned bits,
					uint64_t carry_in)
{
	uint64_t top = bit(a, bits - 1);
	switch (op) {
	case SHIFT_SHL: case SHIFT_ROL: case SHIFT_RCL: case SHIFT_SHLD:
		return top ^ bit(a, bits - 2);
	case SHIFT_SHR: case SHIFT_SHRD:
		return top;
	case SHIFT_ROR:
		return top ^ (a & 1);
	case SHIFT_RCR:
		return top ^ carry_in;
	default:
		return 0;
	}
}

/* Rotates the bits+1 wide value carry:a left by n (0 <= n <= bits). */
static uint64_t rotate_through_carry_left(uint64_t a, uint64_t *carry, unsigned n,
					  unsigned bits)
{
	if (n == 0)
		return a;
	/* After the rotation, bit bits-n of a is the carry, the old carry sits
	 * at bit n-1, a's low bits move up by n and its high bits wrap. */
	uint64_t m = emu_size_mask(bits / 8);
	uint64_t r = (n < 64 ? a << n : 0) | (*carry << (n - 1));
	if (n > 1)
		r |= a >> (bits - n + 1);
	*carry = bit(a, bits - n);
	return r & m;
}

/* shl, shr or sar of `a` (bits wide, masked) by count (masked, not zero);
 * *cf gets the last bit shifted out. */
static inline __attribute__((always_inline)) uint64_t plain_shift(enum shift_op op, uint64_t a,
								  unsigned count, unsigned bits,
								  uint64_t *cf)
{
	switch (op) {
	case SHIFT_SHL:
		*cf = count <= bits ? bit(a, bits - count) : 0;
		return count < 64 ? a << count : 0;
	case SHIFT_SHR:
		*cf = bit(a, count - 1);
		return a >> count;
	default: { /* SHIFT_SAR */
		int64_t s = emu_sign_extend(a, bits / 8);
		*cf = (uint64_t)(s >> (count - 1)) & 1;
		return (uint64_t)(s >> count);
	}
	}
}

/* The result of a shift or rotate of `a` (bits wide) by count (masked, not
 * zero); *flags gets the new status flags from old_flags. */
static uint64_t shift_compute(enum shift_op op, uint64_t a, unsigned count, unsigned bits,
			      uint64_t old_flags, uint64_t *flags)
{
	uint64_t m = emu_size_mask(bits / 8);
	uint64_t carry_in = (old_flags & EMU_CF) != 0;
	uint64_t r, cf;
	a &= m;
	/* A rotation through carry by a multiple of its width changes
	 * nothing, flags included. */
	if ((op == SHIFT_RCL || op == SHIFT_RCR) && count % (bits + 1) == 0) {
		*flags = old_flags;
		return a;
	}
	switch (op) {
	case SHIFT_SHL:
	case SHIFT_SHR:
	case SHIFT_SAR:
		r = plain_shift(op, a, count, bits, &cf);
		break;
	case SHIFT_ROL: {
		unsigned n = count % bits;
		r = n ? (a << n | a >> (bits - n)) : a;
		cf = r & 1;
		break;
	}
	case SHIFT_ROR: {
		unsigned n = count % bits;
		r = n ? (a >> n | a << (bits - n)) : a;
		cf = bit(r & m, bits - 1);
		break;
	}
	case SHIFT_RCL:
		cf = carry_in;
		r = rotate_through_carry_left(a, &cf, count % (bits + 1), bits);
		break;
	default: /* SHIFT_RCR: a right rotation by n is a left one by width - n */
		cf = carry_in;
		r = rotate_through_carry_left(a, &cf, (bits + 1 - count % (bits + 1)) % (bits + 1),
					      bits);
		break;
	}
	r &= m;
	uint64_t of = overflow_of_single_step(op, a, bits, carry_in);
	uint64_t f;
	if (op == SHIFT_SHL || op == SHIFT_SHR || op == SHIFT_SAR)
		f = emu_flags_zsp(r, bits / 8);
	else
		f = old_flags & (EMU_SF | EMU_ZF | EMU_PF | EMU_AF);
	*flags = f | (cf ? EMU_CF : 0) | (of ? EMU_OF : 0);
	return r;
}

static unsigned count_mask(unsigned size)
{
	return size == 8 ? 63 : 31;
}

/* A masked count of 0 changes no flag, but a 32-bit register destination
 * is still written: its upper half is cleared, as the CPU does. */
static int unchanged_destination(struct emu_cpu *cpu, const struct emu_insn *insn,
				 uint64_t a)
{
	if (insn->opnd[0].kind == EMU_OPND_GPR)
		emu_gpr_set(cpu, insn->opnd[0].reg, insn->opnd[0].size, a);
	return EMU_OK;
}

/* The destination (operand 0) and the count (operand 1, masked) of a
 * shift or rotate; EMU_OK or the fault. */
static int read_destination_and_count(struct emu_cpu *cpu, const struct emu_insn *insn,
				      uint64_t *a, uint64_t *count)
{
	int r;
	if ((r = emu_opnd_read(cpu, insn, 1, count)) != EMU_OK)
		return r;
	if ((r = emu_opnd_read(cpu, insn, 0, a)) != EMU_OK)
		return r;
	*count &= count_mask(insn->opnd[0].size);
	return EMU_OK;
}

/*
 * shl, shr, sar: they replace every status flag (AF is cleared), so the
 * flags before them do not matter and theirs are left pending (flags.h).
 * One handler per operation and shape, as in ops_alu.c: a register shifted
 * by an immediate (the common form) reads no operand descriptor.
 */
enum shift_shape { SHIFT_SHAPE_REG_IMM, SHIFT_SHAPE_ANY };

static inline __attribute__((always_inline)) int shift_plain(struct emu_cpu *cpu,
							     const struct emu_insn *insn,
							     enum shift_op op,
							     enum shift_shape shape)
{
	unsigned size = insn->opnd[0].size, bits = size * 8;
	uint64_t a, count, cf;
	int r;
	if (shape == SHIFT_SHAPE_REG_IMM) {
		count = insn->imm & count_mask(size);
		a = emu_gpr_get(cpu, insn->opnd[0].reg, size);
	} else if ((r = read_destination_and_count(cpu, insn, &a, &count)) != EMU_OK) {
		return r;
	}
	if (count == 0)
		return unchanged_destination(cpu, insn, a);
	a &= emu_size_mask(size);
	uint64_t res = plain_shift(op, a, (unsigned)count, bits, &cf) & emu_size_mask(size);
	uint64_t of = overflow_of_single_step(op, a, bits, 0);
	if (shape == SHIFT_SHAPE_REG_IMM)
		emu_gpr_set(cpu, insn->opnd[0].reg, size, res);
	else if ((r = emu_opnd_write(cpu, insn, 0, res)) != EMU_OK)
		return r;
	emu_set_lazy_flags(cpu, EMU_LAZY_SHIFT, cf, of, res, size);
	return EMU_OK;
}

#define SHIFT_PLAIN_OPS(X) X(SHIFT_SHL) X(SHIFT_SHR) X(SHIFT_SAR)
#define SHIFT_PLAIN_HANDLERS(OP) \
	static int OP##_reg_imm(struct emu_cpu *c, const struct emu_insn *i) \
	{ return shift_plain(c, i, OP, SHIFT_SHAPE_REG_IMM); } \
	static int OP##_any(struct emu_cpu *c, const struct emu_insn *i) \
	{ return shift_plain(c, i, OP, SHIFT_SHAPE_ANY); }
SHIFT_PLAIN_OPS(SHIFT_PLAIN_HANDLERS)

#define SHIFT_PLAIN_ROW(OP) [OP] = { OP##_reg_imm, OP##_any },
static emu_handler *const shift_plain_handlers[][2] = { SHIFT_PLAIN_OPS(SHIFT_PLAIN_ROW) };

/* rol/ror/rcl/rcr r/m, 1|imm8|cl: they keep some of the flags before them. */
static int shift_rotate(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t a, count, flags;
	int r = read_destination_and_count(cpu, insn, &a, &count);
	if (r != EMU_OK)
		return r;
	if (count == 0)
		return unchanged_destination(cpu, insn, a);
	uint64_t res = shift_compute(insn->op, a, (unsigned)count, size * 8,
				     emu_rflags(cpu), &flags);
	if ((insn->op == SHIFT_ROL || insn->op == SHIFT_ROR) &&
	    insn->opnd[1].kind == EMU_OPND_IMM && count != 1)
		flags = (flags & ~(uint64_t)EMU_OF) | (emu_rflags(cpu) & EMU_OF);
	if ((r = emu_opnd_write(cpu, insn, 0, res)) != EMU_OK)
		return r;
	emu_set_status_flags(cpu, flags);
	return EMU_OK;
}

/*
 * shld dst, src, count: dst shifted left, its vacated low bits filled from
 * the top of src; shrd the mirror image. For 16-bit operands a count above
 * 16 keeps going as this CPU does: through the 48-bit value dst:src:dst
 * (shld) or dst:src:dst read from the other end (shrd).
 */
static uint64_t double_shift(enum shift_op op, uint64_t dst, uint64_t src, unsigned count,
			     unsigned size, uint64_t *flags)
{
	unsigned bits = size * 8;
	uint64_t m = emu_size_mask(size);
	dst &= m;
	src &= m;
	uint64_t r, cf;
	if (op == SHIFT_SHLD) {
		/* The concatenation dst:src, taken from the top. */
		unsigned __int128 cat = (unsigned __int128)dst << bits | src;
		if (size == 2)
			cat = cat << 16 | dst;
		unsigned width = size == 2 ? 48 : 2 * bits;
		r = (uint64_t)(cat >> (width - bits - count)) & m;
		cf = (uint64_t)(cat >> (width - count)) & 1;
	} else {
		/* src:dst, taken from the bottom. */
		unsigned __int128 cat = (unsigned __int128)src << bits | dst;
		if (size == 2)
			cat |= (unsigned __int128)dst << 32;
		r = (uint64_t)(cat >> count) & m;
		cf = (uint64_t)(cat >> (count - 1)) & 1;
	}
	/* OF as a count of 1 would give: the top bit changes. */
	uint64_t of = bit(dst, bits - 1) ^
		      (op == SHIFT_SHLD ? bit(dst, bits - 2) : (src & 1));
	*flags = emu_flags_zsp(r, size) | (cf ? EMU_CF : 0) | (of ? EMU_OF : 0);
	return r;
}

static int shift_double(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t a, b, count, flags;
	int r;
	if ((r = emu_opnd_read(cpu, insn, 2, &count)) != EMU_OK)
		return r;
	if ((r = emu_opnd_read(cpu, insn, 1, &b)) != EMU_OK)
		return r;
	if ((r = emu_opnd_read(cpu, insn, 0, &a)) != EMU_OK)
		return r;
	count &= count_mask(size);
	if (count == 0)
		return unchanged_destination(cpu, insn, a);
	uint64_t res = double_shift(insn->op, a, b, (unsigned)count, size, &flags);
	if ((r = emu_opnd_write(cpu, insn, 0, res)) != EMU_OK)
		return r;
	emu_set_status_flags(cpu, flags);
	return EMU_OK;
}

static bool is_rm(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR || o->kind == EMU_OPND_MEM;
}

static bool is_count(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_IMM || o->kind == EMU_OPND_GPR;
}

static emu_handler *bind_shift(struct emu_insn *insn)
{
	if (insn->nopnd != 2 || !is_rm(&insn->opnd[0]) || !is_count(&insn->opnd[1]))
		return NULL;
	if (insn->op == SHIFT_SHL || insn->op == SHIFT_SHR || insn->op == SHIFT_SAR) {
		bool reg_imm = insn->opnd[0].kind == EMU_OPND_GPR &&
			       insn->opnd[1].kind == EMU_OPND_IMM;
		return shift_plain_handlers[insn->op][reg_imm ? SHIFT_SHAPE_REG_IMM
							      : SHIFT_SHAPE_ANY];
	}
	return shift_rotate;
}

static emu_handler *bind_double_shift(struct emu_insn *insn)
{
	if (insn->nopnd == 3 && is_rm(&insn->opnd[0]) &&
	    insn->opnd[1].kind == EMU_OPND_GPR && is_count(&insn->opnd[2]))
		return shift_double;
	return NULL;
}

static const struct emu_binding shift_bindings[] = {
	{ ZYDIS_MNEMONIC_SHL, SHIFT_SHL, NULL, bind_shift },
	{ ZYDIS_MNEMONIC_SHR, SHIFT_SHR, NULL, bind_shift },
	{ ZYDIS_MNEMONIC_SAR, SHIFT_SAR, NULL, bind_shift },
	{ ZYDIS_MNEMONIC_ROL, SHIFT_ROL, NULL, bind_shift },
	{ ZYDIS_MNEMONIC_ROR, SHIFT_ROR, NULL, bind_shift },
	{ ZYDIS_MNEMONIC_RCL, SHIFT_RCL, NULL, bind_shift },
	{ ZYDIS_MNEMONIC_RCR, SHIFT_RCR, NULL, bind_shift },
	{ ZYDIS_MNEMONIC_SHLD, SHIFT_SHLD, NULL, bind_double_shift },
	{ ZYDIS_MNEMONIC_SHRD, SHIFT_SHRD, NULL, bind_double_shift },
};

EMU_FAMILY(emu_family_shift, shift_bindings);
