/*
 * mxcsr_exec.h — runs SSE floating-point operations on the host's own SSE2
 * unit under the guest's MXCSR, the one place where emulated floating point
 * touches host floating-point state.
 *
 * Why: the host is an x86-64 CPU, so its SSE2 scalar instructions give
 * results, NaN propagation, denormal handling (DAZ, FTZ) and exception flags
 * bit-exact with what the guest's instruction gives, in every rounding mode.
 * A scope loads the guest's rounding mode, DAZ and FTZ with every exception
 * masked and every flag clear, the operations run, and the scope ends by
 * collecting the flags raised and restoring the host's MXCSR.
 *
 * Only SSE/SSE2 instructions run here (every x86-64 host has them); later
 * extensions are composed from these element operations by the families.
 *
 * Ordering: every asm statement of a scope reads and writes the scope's
 * `order` token, so the compiler cannot move an operation outside the
 * ldmxcsr/stmxcsr bracket. Code between emu_mx_begin and emu_mx_end must not
 * do C floating-point arithmetic (it would run under the guest's MXCSR).
 */
#ifndef TTREC_EMU_MXCSR_EXEC_H
#define TTREC_EMU_MXCSR_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <emmintrin.h>

#include "internal.h"

/* MXCSR fields. */
enum {
	EMU_MX_IE = 1u << 0, EMU_MX_DE = 1u << 1, EMU_MX_ZE = 1u << 2,
	EMU_MX_OE = 1u << 3, EMU_MX_UE = 1u << 4, EMU_MX_PE = 1u << 5,
	EMU_MX_FLAGS = 0x3f,
	EMU_MX_DAZ = 1u << 6,
	EMU_MX_MASK_SHIFT = 7,
	EMU_MX_MASKS = 0x3fu << 7,
	EMU_MX_UM = 1u << 11,
	EMU_MX_RC_SHIFT = 13,
	EMU_MX_RC = 3u << 13,
	EMU_MX_FTZ = 1u << 15,
};

/* Element operations the host runs. */
enum emu_mx_op {
	EMU_MX_ADD, EMU_MX_SUB, EMU_MX_MUL, EMU_MX_DIV, EMU_MX_MIN, EMU_MX_MAX,
	EMU_MX_SQRT, EMU_MX_RCP, EMU_MX_RSQRT,
};

/* Scalar conversions the host runs: source kind to destination kind. */
enum emu_mx_cvt {
	EMU_CVT_I32_F32, EMU_CVT_I64_F32, EMU_CVT_I32_F64, EMU_CVT_I64_F64,
	EMU_CVT_F32_I32, EMU_CVT_F32_I64, EMU_CVT_F64_I32, EMU_CVT_F64_I64,
	EMU_CVT_F32_I32_TRUNC, EMU_CVT_F32_I64_TRUNC,
	EMU_CVT_F64_I32_TRUNC, EMU_CVT_F64_I64_TRUNC,
	EMU_CVT_F32_F64, EMU_CVT_F64_F32,
};

struct emu_mx {
	uint32_t host;  /* the host's MXCSR, restored by emu_mx_end */
	uint32_t guest; /* the guest's MXCSR the scope runs under */
	uint32_t order; /* dependency token threading the asm statements */
};

static inline void emu_mx_begin(struct emu_mx *mx, uint32_t guest_mxcsr)
{
	uint32_t run = (guest_mxcsr & (EMU_MX_DAZ | EMU_MX_RC | EMU_MX_FTZ)) |
		       EMU_MX_MASKS;
	mx->guest = guest_mxcsr;
	mx->order = 0;
	__asm__ volatile("stmxcsr %[h]" : [h] "=m"(mx->host), [t] "+r"(mx->order));
	__asm__ volatile("ldmxcsr %[r]" : [t] "+r"(mx->order) : [r] "m"(run));
}

/* Ends the scope: returns the exception flags its operations raised. */
static inline uint32_t emu_mx_end(struct emu_mx *mx)
{
	uint32_t after;
	__asm__ volatile("stmxcsr %[a]" : [a] "=m"(after), [t] "+r"(mx->order));
	__asm__ volatile("ldmxcsr %[h]" : [t] "+r"(mx->order) : [h] "m"(mx->host));
	return after & EMU_MX_FLAGS;
}

#define EMU_MX_ASM_XX(mx, insn, x, y) \
	__asm__ volatile(insn " %[y], %[x]" : [x] "+x"(x), [t] "+r"((mx)->order) : [y] "x"(y))

/* An element operation: a op b on the low 32 (dbl false) or 64 bits. For the
 * one-source operations (sqrt, rcp, rsqrt) the source is b. */
static inline uint64_t emu_mx_arith(struct emu_mx *mx, enum emu_mx_op op,
				    bool dbl, uint64_t a, uint64_t b)
{
	__m128i x = _mm_cvtsi64_si128((long long)a);
	__m128i y = _mm_cvtsi64_si128((long long)b);
#define EMU_MX_PAIR(name) \
	if (dbl) EMU_MX_ASM_XX(mx, name "sd", x, y); else EMU_MX_ASM_XX(mx, name "ss", x, y); \
	break
	switch (op) {
	case EMU_MX_ADD: EMU_MX_PAIR("add");
	case EMU_MX_SUB: EMU_MX_PAIR("sub");
	case EMU_MX_MUL: EMU_MX_PAIR("mul");
	case EMU_MX_DIV: EMU_MX_PAIR("div");
	case EMU_MX_MIN: EMU_MX_PAIR("min");
	case EMU_MX_MAX: EMU_MX_PAIR("max");
	case EMU_MX_SQRT: EMU_MX_PAIR("sqrt");
	/* rcp and rsqrt exist only in single precision; their result is this
	 * CPU model's approximation (replay on another model may differ). */
	case EMU_MX_RCP: EMU_MX_ASM_XX(mx, "rcpss", x, y); break;
	case EMU_MX_RSQRT: EMU_MX_ASM_XX(mx, "rsqrtss", x, y); break;
	}
#undef EMU_MX_PAIR
	uint64_t r = (uint64_t)_mm_cvtsi128_si64(x);
	return dbl ? r : (uint32_t)r;
}

/*
 * Compares a with b as comiss/ucomiss (comisd/ucomisd) do: returns the ZF,
 * PF and CF bits they set (unordered: all three; less: CF; equal: ZF).
 * `signaling` raises invalid on quiet NaNs too.
 */
static inline uint64_t emu_mx_compare(struct emu_mx *mx, bool dbl,
				      bool signaling, uint64_t a, uint64_t b)
{
	__m128i x = _mm_cvtsi64_si128((long long)a);
	__m128i y = _mm_cvtsi64_si128((long long)b);
	bool z, p, c;
#define EMU_MX_CMP(insn) \
	__asm__ volatile(insn " %[y], %[x]" \
			 : "=@ccz"(z), "=@ccp"(p), "=@ccc"(c), [t] "+r"(mx->order) \
			 : [x] "x"(x), [y] "x"(y))
	if (dbl) {
		if (signaling) EMU_MX_CMP("comisd"); else EMU_MX_CMP("ucomisd");
	} else {
		if (signaling) EMU_MX_CMP("comiss"); else EMU_MX_CMP("ucomiss");
	}
#undef EMU_MX_CMP
	return (z ? EMU_ZF : 0) | (p ? EMU_PF : 0) | (c ? EMU_CF : 0);
}

/* A scalar conversion of the low element of `src` (an integer source is
 * its 32 or 64 bits). Integer results are zero-extended to 64 bits. */
static inline uint64_t emu_mx_convert(struct emu_mx *mx, enum emu_mx_cvt cvt,
				      uint64_t src)
{
	__m128i x = _mm_setzero_si128();
	__m128i y = _mm_cvtsi64_si128((long long)src);
	uint32_t i32 = (uint32_t)src;
	uint64_t i64 = src;
#define EMU_MX_TO_FP(insn, in) \
	__asm__ volatile(insn " %[i], %[x]" : [x] "+x"(x), [t] "+r"(mx->order) : [i] "r"(in))
#define EMU_MX_TO_INT(insn, out) \
	__asm__ volatile(insn " %[y], %[o]" : [o] "=r"(out), [t] "+r"(mx->order) : [y] "x"(y))
	switch (cvt) {
	case EMU_CVT_I32_F32: EMU_MX_TO_FP("cvtsi2ssl", i32); break;
	case EMU_CVT_I64_F32: EMU_MX_TO_FP("cvtsi2ssq", i64); break;
	case EMU_CVT_I32_F64: EMU_MX_TO_FP("cvtsi2sdl", i32); break;
	case EMU_CVT_I64_F64: EMU_MX_TO_FP("cvtsi2sdq", i64); break;
	case EMU_CVT_F32_I32: EMU_MX_TO_INT("cvtss2si", i32); return i32;
	case EMU_CVT_F32_I64: EMU_MX_TO_INT("cvtss2si", i64); return i64;
	case EMU_CVT_F64_I32: EMU_MX_TO_INT("cvtsd2si", i32); return i32;
	case EMU_CVT_F64_I64: EMU_MX_TO_INT("cvtsd2si", i64); return i64;
	case EMU_CVT_F32_I32_TRUNC: EMU_MX_TO_INT("cvttss2si", i32); return i32;
	case EMU_CVT_F32_I64_TRUNC: EMU_MX_TO_INT("cvttss2si", i64); return i64;
	case EMU_CVT_F64_I32_TRUNC: EMU_MX_TO_INT("cvttsd2si", i32); return i32;
	case EMU_CVT_F64_I64_TRUNC: EMU_MX_TO_INT("cvttsd2si", i64); return i64;
	case EMU_CVT_F32_F64: EMU_MX_ASM_XX(mx, "cvtss2sd", x, y); break;
	case EMU_CVT_F64_F32: EMU_MX_ASM_XX(mx, "cvtsd2ss", x, y); break;
	}
#undef EMU_MX_TO_FP
#undef EMU_MX_TO_INT
	uint64_t r = (uint64_t)_mm_cvtsi128_si64(x);
	bool dbl_result = cvt == EMU_CVT_I32_F64 || cvt == EMU_CVT_I64_F64 ||
			  cvt == EMU_CVT_F32_F64;
	return dbl_result ? r : (uint32_t)r;
}

/*
 * The host ran with every exception masked. With underflow unmasked the CPU
 * traps on any tiny result, exact or not, where the masked response flags
 * only inexact tiny ones (or, with FTZ, all tiny ones). An exact tiny result
 * shows up as a nonzero denormal: this returns the underflow flag for it.
 */
static inline uint32_t emu_mx_exact_tiny(uint32_t guest_mxcsr, bool dbl,
					 uint64_t result)
{
	if (guest_mxcsr & EMU_MX_UM)
		return 0;
	uint64_t exp = dbl ? (result >> 52) & 0x7ff : (result >> 23) & 0xff;
	uint64_t frac = dbl ? result & ((1ull << 52) - 1) : result & ((1u << 23) - 1);
	return exp == 0 && frac != 0 ? EMU_MX_UE : 0;
}

/* True when `flags` include an exception the guest's MXCSR leaves unmasked:
 * the instruction raises #XM and must change nothing. */
static inline bool emu_mx_unmasked(uint32_t guest_mxcsr, uint32_t flags)
{
	return (flags & ~(guest_mxcsr >> EMU_MX_MASK_SHIFT) & EMU_MX_FLAGS) != 0;
}

#endif
