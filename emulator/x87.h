/*
 * x87.h — x87 status-word facts shared by the x87 family and the FPU
 * state family (fxsave/xsave and friends).
 */
#ifndef TTREC_EMU_X87_H
#define TTREC_EMU_X87_H

#include "internal.h"

enum {
	X87_SW_EXCEPTIONS = 0x3f, /* IE DE ZE OE UE PE */
	X87_SW_SF = 1u << 6,
	X87_SW_ES = 1u << 7,
	X87_SW_B = 1u << 15,
	X87_CW_MASKS = 0x3f,
};

/*
 * The emulator whose x87 registers and tags the host's x87 unit holds on
 * this thread (ops_x87.c), if any: its cpu->regs.st and ftw are stale
 * until emu_x87_release puts them back (and empties the host unit).
 * emu_x87_settle is for every reader or writer of those fields outside
 * the x87 escape instructions.
 */
extern __thread struct emu_cpu *emu_x87_holder;
void emu_x87_release(struct emu_cpu *cpu);

static inline void emu_x87_settle(struct emu_cpu *cpu)
{
	if (EMU_UNLIKELY(emu_x87_holder == cpu))
		emu_x87_release(cpu);
}

static inline unsigned x87_top(uint16_t fsw)
{
	return (fsw >> 11) & 7;
}

/*
 * A waiting x87 instruction raises #MF when an unmasked exception is
 * pending. The CPU keys this on ES; an exception flag whose mask is clear
 * counts too, because the CPU sets ES from exactly that whenever it loads
 * a status or control word.
 */
static inline bool x87_pending(const struct emu_regs *r)
{
	return (r->fsw & X87_SW_ES) ||
	       (r->fsw & ~r->fcw & X87_SW_EXCEPTIONS);
}

/*
 * Control and status words as fxrstor/xrstor load them from memory
 * (measured over every control word and random status words): the control
 * word's reserved bits 7 and 13..15 read as zero and bit 6 as one; the
 * status word's ES (bit 7) and B (bit 15) are not loaded but recomputed,
 * both set exactly when an exception flag is set whose mask in the loaded
 * control word is clear.
 */
static inline uint16_t x87_loaded_cw(uint16_t v)
{
	return (uint16_t)((v & 0x1f3f) | 0x40);
}

static inline uint16_t x87_loaded_sw(uint16_t sw, uint16_t cw)
{
	sw &= (uint16_t)~(X87_SW_ES | X87_SW_B);
	if (sw & ~cw & X87_SW_EXCEPTIONS)
		sw |= X87_SW_ES | X87_SW_B;
	return sw;
}

/* The tag a non-empty register gets from its contents, as fnstenv shows
 * it: 00 valid, 01 zero, 10 special (NaN, infinity, denormal, unnormal). */
static inline unsigned x87_tag_of(const emu_x87_reg *r)
{
	uint64_t mant;
	uint16_t se;
	__builtin_memcpy(&mant, r->bytes, 8);
	__builtin_memcpy(&se, r->bytes + 8, 2);
	unsigned exp = se & 0x7fff;
	if (exp == 0)
		return mant == 0 ? 1 : 2;
	if (exp == 0x7fff || !(mant >> 63))
		return 2;
	return 0;
}

/* The full tag word from the abridged one fxsave stores (bit i set: physical
 * register i is not empty). */
static inline uint16_t x87_full_tag(const struct emu_regs *r, uint8_t abridged)
{
	uint16_t ftw = 0;
	for (unsigned i = 0; i < 8; i++)
		ftw |= (uint16_t)(((abridged >> i) & 1 ? x87_tag_of(&r->st[i]) : 3) << (2 * i));
	return ftw;
}

static inline uint8_t x87_abridged_tag(uint16_t ftw)
{
	uint8_t a = 0;
	for (unsigned i = 0; i < 8; i++)
		if (((ftw >> (2 * i)) & 3) != 3)
			a |= (uint8_t)(1u << i);
	return a;
}

#endif
