/*
 * ops_bmi.c — BMI1 (andn bextr blsi blsmsk blsr), BMI2 (bzhi mulx pdep
 * pext rorx sarx shlx shrx) and ADX (adcx adox). tzcnt lives with the bit
 * scans in ops_bitops.c.
 *
 * Every BMI form but mulx computes dst = f(a, b) from its second and third
 * operands (or the second alone), so one handler reads those and the op
 * picks f. Flags the SDM leaves undefined, as this project's Intel Xeon sets
 * them (tests/unit/test_emu_bmi.c checks it natively): andn, blsi, blsmsk,
 * blsr, bzhi clear AF and PF; bextr clears SF, AF and PF.
 */
#include "binding.h"
#include "operand.h"

enum bmi_op { BMI_ANDN, BMI_BEXTR, BMI_BLSI, BMI_BLSMSK, BMI_BLSR, BMI_BZHI, BMI_PDEP,
	      BMI_PEXT, BMI_RORX, BMI_SARX, BMI_SHLX, BMI_SHRX };

static uint64_t deposit_bits(uint64_t src, uint64_t mask)
{
	uint64_t r = 0;
	for (uint64_t bit = 1; mask; bit <<= 1, mask &= mask - 1)
		if (src & bit)
			r |= mask & -mask;
	return r;
}

static uint64_t extract_bits(uint64_t src, uint64_t mask)
{
	uint64_t r = 0;
	for (uint64_t bit = 1; mask; bit <<= 1, mask &= mask - 1)
		if (src & mask & -mask)
			r |= bit;
	return r;
}

/* Low n bits set, n up to 64. */
static uint64_t low_bits(unsigned n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* dst = f(a, b); *flags gets the new status flags (old ones where the
 * operation keeps them). */
static uint64_t bmi_compute(enum bmi_op op, uint64_t a, uint64_t b, unsigned size,
			    uint64_t old_flags, uint64_t *flags)
{
	unsigned bits = size * 8;
	uint64_t m = emu_size_mask(size), r;
	uint64_t cf = 0;
	a &= m;
	b &= m;
	switch (op) {
	case BMI_ANDN: r = ~a & b; break;
	case BMI_BEXTR: {
		unsigned start = b & 0xff, len = (b >> 8) & 0xff;
		r = start < bits ? (a >> start) & low_bits(len) : 0;
		break;
	}
	case BMI_BLSI: r = a & -a; cf = a != 0; break;
	case BMI_BLSMSK: r = a ^ (a - 1); cf = a == 0; break;
	case BMI_BLSR: r = a & (a - 1); cf = a == 0; break;
	case BMI_BZHI: {
		unsigned n = b & 0xff;
		r = n < bits ? a & low_bits(n) : a;
		cf = n > bits - 1;
		break;
	}
	case BMI_PDEP: r = deposit_bits(a, b); break;
	case BMI_PEXT: r = extract_bits(a, b); break;
	case BMI_RORX: {
		unsigned n = b & (bits - 1);
		r = n ? (a >> n | a << (bits - n)) : a;
		break;
	}
	case BMI_SARX: r = (uint64_t)(emu_sign_extend(a, size) >> (b & (bits - 1))); break;
	case BMI_SHLX: r = a << (b & (bits - 1)); break;
	default: /* BMI_SHRX */ r = a >> (b & (bits - 1)); break;
	}
	r &= m;
	switch (op) {
	case BMI_ANDN: case BMI_BLSI: case BMI_BLSMSK: case BMI_BLSR: case BMI_BZHI:
		/* ZF, SF from the result (blsmsk's ZF is 0 since its result
		 * never is), CF as computed; OF, AF and PF cleared. */
		*flags = (emu_flags_zsp(r, size) & (EMU_ZF | EMU_SF)) | (cf ? EMU_CF : 0);
		break;
	case BMI_BEXTR:
		/* ZF from the result; SF, CF, OF, AF and PF cleared. */
		*flags = r ? 0 : EMU_ZF;
		break;
	default:
		*flags = old_flags;
		break;
	}
	return r;
}

static int bmi_three_operand(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t a, b = 0, flags;
	int r;
	if ((r = emu_opnd_read(cpu, insn, 1, &a)) != EMU_OK)
		return r;
	if (insn->nopnd == 3 && (r = emu_opnd_read(cpu, insn, 2, &b)) != EMU_OK)
		return r;
	uint64_t res = bmi_compute(insn->op, a, b, size, emu_rflags(cpu), &flags);
	emu_gpr_set(cpu, insn->opnd[0].reg, size, res);
	emu_set_status_flags(cpu, flags);
	return EMU_OK;
}

/* mulx hi, lo, r/m: hi:lo = rdx * r/m, no flags; when hi and lo are the
 * same register it gets the high half. */
static int mulx(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t src;
	int r = emu_opnd_read(cpu, insn, 2, &src);
	if (r != EMU_OK)
		return r;
	unsigned __int128 p = (unsigned __int128)emu_gpr_get(cpu, EMU_GPR_OFF(EMU_RDX), size) *
			      (src & emu_size_mask(size));
	emu_gpr_set(cpu, insn->opnd[1].reg, size, (uint64_t)p);
	emu_gpr_set(cpu, insn->opnd[0].reg, size, (uint64_t)(p >> (size * 8)));
	return EMU_OK;
}

/* adcx (op = EMU_CF) and adox (op = EMU_OF): dst += src + flag, the carry
 * out goes to that flag alone. */
static int add_with_flag(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t flag = insn->op == 0 ? EMU_CF : EMU_OF;
	uint64_t m = emu_size_mask(size), a, b;
	int r;
	if ((r = emu_opnd_read(cpu, insn, 1, &b)) != EMU_OK)
		return r;
	a = emu_gpr_get(cpu, insn->opnd[0].reg, size);
	b &= m;
	unsigned carry_in = (emu_rflags(cpu) & flag) != 0;
	uint64_t res = (a + b + carry_in) & m;
	bool carry = res < a || (carry_in && res == a);
	emu_gpr_set(cpu, insn->opnd[0].reg, size, res);
	emu_set_flags_masked(cpu, carry ? flag : 0, flag);
	return EMU_OK;
}

static bool is_rm(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR || o->kind == EMU_OPND_MEM;
}

static emu_handler *bind_bmi(struct emu_insn *insn)
{
	if (insn->opnd[0].kind != EMU_OPND_GPR || insn->nopnd < 2 || !is_rm(&insn->opnd[1]))
		return NULL;
	if (insn->nopnd == 2)
		return bmi_three_operand;
	const struct emu_operand *third = &insn->opnd[2];
	if (third->kind == EMU_OPND_GPR || third->kind == EMU_OPND_MEM ||
	    (third->kind == EMU_OPND_IMM && insn->op == BMI_RORX))
		return bmi_three_operand;
	return NULL;
}

static emu_handler *bind_mulx(struct emu_insn *insn)
{
	if (insn->nopnd == 3 && insn->opnd[0].kind == EMU_OPND_GPR &&
	    insn->opnd[1].kind == EMU_OPND_GPR && is_rm(&insn->opnd[2]))
		return mulx;
	return NULL;
}

static emu_handler *bind_add_with_flag(struct emu_insn *insn)
{
	if (insn->nopnd == 2 && insn->opnd[0].kind == EMU_OPND_GPR && is_rm(&insn->opnd[1]))
		return add_with_flag;
	return NULL;
}

static const struct emu_binding bmi_bindings[] = {
	{ ZYDIS_MNEMONIC_ANDN, BMI_ANDN, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_BEXTR, BMI_BEXTR, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_BLSI, BMI_BLSI, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_BLSMSK, BMI_BLSMSK, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_BLSR, BMI_BLSR, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_BZHI, BMI_BZHI, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_PDEP, BMI_PDEP, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_PEXT, BMI_PEXT, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_RORX, BMI_RORX, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_SARX, BMI_SARX, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_SHLX, BMI_SHLX, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_SHRX, BMI_SHRX, NULL, bind_bmi },
	{ ZYDIS_MNEMONIC_MULX, 0, NULL, bind_mulx },
	{ ZYDIS_MNEMONIC_ADCX, 0, NULL, bind_add_with_flag },
	{ ZYDIS_MNEMONIC_ADOX, 1, NULL, bind_add_with_flag },
};

EMU_FAMILY(emu_family_bmi, bmi_bindings);
