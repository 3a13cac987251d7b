/*
 * flags.h — arithmetic flag computation and condition evaluation, shared by
 * every family that sets or tests RFLAGS. Flags are exact (the emulator must
 * be bit-exact with the CPU); those of add/sub/logic are computed lazily:
 * handlers read RFLAGS only through emu_rflags() or emu_cond(), which see
 * the pending operation (cpu->lazy), and emu_run leaves none pending.
 */
#ifndef TTREC_EMU_FLAGS_H
#define TTREC_EMU_FLAGS_H

#include "internal.h"

/* Mask of the low `size` bytes. */
static inline uint64_t emu_size_mask(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

static inline uint64_t emu_sign_bit(unsigned size)
{
	return 1ull << (size * 8 - 1);
}

/* Sign-extends the low `size` bytes of v. */
static inline int64_t emu_sign_extend(uint64_t v, unsigned size)
{
	unsigned shift = 64 - size * 8;
	return (int64_t)(v << shift) >> shift;
}

static inline uint64_t emu_parity_flag(uint64_t result)
{
	return (__builtin_parity((unsigned)(result & 0xff)) ? 0 : EMU_PF);
}

/* ZF, SF and PF of a result of `size` bytes. */
static inline uint64_t emu_flags_zsp(uint64_t result, unsigned size)
{
	uint64_t r = result & emu_size_mask(size);
	uint64_t f = emu_parity_flag(r);
	if (r == 0)
		f |= EMU_ZF;
	if (r & emu_sign_bit(size))
		f |= EMU_SF;
	return f;
}

/* All six status flags of a + b + carry_in = r. */
static inline uint64_t emu_flags_add(uint64_t a, uint64_t b, uint64_t r,
				     unsigned carry_in, unsigned size)
{
	uint64_t m = emu_size_mask(size), sign = emu_sign_bit(size);
	a &= m; b &= m; r &= m;
	uint64_t f = emu_flags_zsp(r, size);
	if (r < a || (carry_in && r == a))
		f |= EMU_CF;
	if ((a ^ b ^ r) & 0x10)
		f |= EMU_AF;
	if ((~(a ^ b) & (a ^ r)) & sign)
		f |= EMU_OF;
	return f;
}

/* All six status flags of a - b - borrow_in = r. */
static inline uint64_t emu_flags_sub(uint64_t a, uint64_t b, uint64_t r,
				     unsigned borrow_in, unsigned size)
{
	uint64_t m = emu_size_mask(size), sign = emu_sign_bit(size);
	a &= m; b &= m; r &= m;
	uint64_t f = emu_flags_zsp(r, size);
	if (a < b || (borrow_in && a == b))
		f |= EMU_CF;
	if ((a ^ b ^ r) & 0x10)
		f |= EMU_AF;
	if (((a ^ b) & (a ^ r)) & sign)
		f |= EMU_OF;
	return f;
}

/* Flags of a logical operation: CF=OF=0, AF cleared (as this CPU does). */
static inline uint64_t emu_flags_logic(uint64_t r, unsigned size)
{
	return emu_flags_zsp(r, size);
}

/* --- lazy status flags --------------------------------------------------- */

/* The six status flags of the pending operation. */
static inline uint64_t emu_lazy_status(const struct emu_lazy_flags *l)
{
	uint64_t f;
	switch (l->kind) {
	case EMU_LAZY_ADD: f = emu_flags_add(l->a, l->b, l->res, l->carry_in, l->size); break;
	case EMU_LAZY_SUB: f = emu_flags_sub(l->a, l->b, l->res, l->carry_in, l->size); break;
	case EMU_LAZY_SHIFT:
		f = emu_flags_zsp(l->res, l->size) | (l->a ? EMU_CF : 0) | (l->b ? EMU_OF : 0);
		break;
	default: f = emu_flags_logic(l->res, l->size); break;
	}
	if (l->keep_cf)
		f = (f & ~(uint64_t)EMU_CF) | (l->cf_value ? EMU_CF : 0);
	return f;
}

/* Writes the pending operation's flags into regs.rflags. */
static inline void emu_flags_materialise(struct emu_cpu *cpu)
{
	if (cpu->lazy.kind != EMU_LAZY_NONE) {
		cpu->regs.rflags = (cpu->regs.rflags & ~(uint64_t)EMU_STATUS_FLAGS) |
				   emu_lazy_status(&cpu->lazy);
		cpu->lazy.word = EMU_LAZY_NONE;
	}
}

/* RFLAGS as the architecture has it now, for readers that may not write. */
static inline uint64_t emu_rflags_of(const struct emu_cpu *cpu)
{
	if (cpu->lazy.kind == EMU_LAZY_NONE)
		return cpu->regs.rflags;
	return (cpu->regs.rflags & ~(uint64_t)EMU_STATUS_FLAGS) | emu_lazy_status(&cpu->lazy);
}

/* RFLAGS as the architecture has it now: every read by a handler. */
static inline uint64_t emu_rflags(struct emu_cpu *cpu)
{
	emu_flags_materialise(cpu);
	return cpu->regs.rflags;
}

/* CF alone (adc, sbb, inc, dec need only it), without materialising. */
static inline unsigned emu_carry_flag(const struct emu_cpu *cpu)
{
	const struct emu_lazy_flags *l = &cpu->lazy;
	uint64_t m = emu_size_mask(l->size);
	if (l->kind == EMU_LAZY_NONE)
		return (cpu->regs.rflags & EMU_CF) != 0;
	if (l->keep_cf)
		return l->cf_value;
	switch (l->kind) {
	case EMU_LAZY_ADD:
		return (l->res & m) < (l->a & m) || (l->carry_in && (l->res & m) == (l->a & m));
	case EMU_LAZY_SUB:
		return (l->a & m) < (l->b & m) || (l->carry_in && (l->a & m) == (l->b & m));
	case EMU_LAZY_SHIFT: return (unsigned)l->a;
	default: return 0;
	}
}

/* Leaves the status flags to be computed from a op b (- carry_in) = res
 * when read; keep_cf: CF stays cf_value (inc, dec). */
static inline void emu_set_lazy_flags_carry(struct emu_cpu *cpu, enum emu_lazy_kind kind,
					    uint64_t a, uint64_t b, uint64_t res, unsigned size,
					    unsigned carry_in, bool keep_cf, unsigned cf_value)
{
	struct emu_lazy_flags *l = &cpu->lazy;
	l->a = a;
	l->b = b;
	l->res = res;
	l->cf_value = (uint8_t)cf_value;
	l->word = (uint32_t)kind | (uint32_t)size << 8 | (uint32_t)carry_in << 16 |
		  (uint32_t)keep_cf << 24;
}

/* Leaves the status flags to be computed from a op b = res when read. */
static inline void emu_set_lazy_flags(struct emu_cpu *cpu, enum emu_lazy_kind kind,
				      uint64_t a, uint64_t b, uint64_t res, unsigned size)
{
	emu_set_lazy_flags_carry(cpu, kind, a, b, res, size, 0, false, 0);
}

/* Replaces the status flags in rflags with `status`. */
static inline void emu_set_status_flags(struct emu_cpu *cpu, uint64_t status)
{
	cpu->lazy.word = EMU_LAZY_NONE; /* every status flag is replaced */
	cpu->regs.rflags = (cpu->regs.rflags & ~(uint64_t)EMU_STATUS_FLAGS) |
			   (status & EMU_STATUS_FLAGS);
}

/* Replaces only the flags in `mask`. */
static inline void emu_set_flags_masked(struct emu_cpu *cpu, uint64_t value,
					uint64_t mask)
{
	emu_flags_materialise(cpu);
	cpu->regs.rflags = (cpu->regs.rflags & ~mask) | (value & mask);
}

/* Evaluates condition code cc (0..15: o no b nb z nz be nbe s ns p np l nl le nle). */
static inline bool emu_condition(uint64_t fl, unsigned cc)
{
	bool r;
	switch (cc >> 1) {
	case 0: r = fl & EMU_OF; break;
	case 1: r = fl & EMU_CF; break;
	case 2: r = fl & EMU_ZF; break;
	case 3: r = fl & (EMU_CF | EMU_ZF); break;
	case 4: r = fl & EMU_SF; break;
	case 5: r = fl & EMU_PF; break;
	case 6: r = !(fl & EMU_SF) != !(fl & EMU_OF); break;
	default: r = (fl & EMU_ZF) || (!(fl & EMU_SF) != !(fl & EMU_OF)); break;
	}
	return (cc & 1) ? !r : r;
}

/* Condition cc of the current flags. After a compare or a logical
 * operation (the usual case before jcc, setcc, cmovcc) it is decided from
 * the operands, without computing the flags. Always inlined: callers pass
 * a constant cc, and the switches fold away. */
static inline __attribute__((always_inline)) bool emu_cond(struct emu_cpu *cpu,
								    unsigned cc)
{
	const struct emu_lazy_flags *l = &cpu->lazy;
	unsigned size = l->size;
	uint64_t m = emu_size_mask(size);
	bool r;
	if (l->kind == EMU_LAZY_SUB && !l->carry_in && !l->keep_cf) {
		uint64_t a = l->a & m, b = l->b & m;
		switch (cc >> 1) {
		case 1: r = a < b; break;                   /* CF */
		case 2: r = a == b; break;                  /* ZF */
		case 3: r = a <= b; break;                  /* CF or ZF */
		case 4: r = (l->res & emu_sign_bit(size)) != 0; break; /* SF */
		case 6: r = emu_sign_extend(a, size) < emu_sign_extend(b, size); break;
		case 7: r = emu_sign_extend(a, size) <= emu_sign_extend(b, size); break;
		default: return emu_condition(emu_rflags(cpu), cc);
		}
		return (cc & 1) ? !r : r;
	}
	if (l->kind == EMU_LAZY_LOGIC) {
		/* CF = OF = 0: below is never, less is negative. */
		uint64_t res = l->res & m;
		bool neg = (res & emu_sign_bit(size)) != 0;
		switch (cc >> 1) {
		case 0: case 1: r = false; break;
		case 2: case 3: r = res == 0; break;
		case 4: case 6: r = neg; break;
		case 7: r = res == 0 || neg; break;
		default: return emu_condition(emu_rflags(cpu), cc);
		}
		return (cc & 1) ? !r : r;
	}
	return emu_condition(emu_rflags(cpu), cc);
}

#endif
