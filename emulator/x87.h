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

#endif
