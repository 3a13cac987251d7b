/*
 * flags.h — arithmetic flag computation and condition evaluation, shared by
 * every family that sets or tests RFLAGS. Flags are computed eagerly and
 * exactly: the emulator must be bit-exact with the CPU.
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

/* Replaces the status flags in rflags with `status`. */
static inline void emu_set_status_flags(struct emu_cpu *cpu, uint64_t status)
{
	cpu->regs.rflags = (cpu->regs.rflags & ~(uint64_t)EMU_STATUS_FLAGS) |
			   (status & EMU_STATUS_FLAGS);
}

/* Replaces only the flags in `mask`. */
static inline void emu_set_flags_masked(struct emu_cpu *cpu, uint64_t value,
					uint64_t mask)
{
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

#endif
