/*
 * exact_fp.h — IEEE binary16/32/64 arithmetic done exactly in integers and
 * rounded once, with the MXCSR's rounding, DAZ/FTZ and flag rules.
 *
 * Why not the host's SSE unit (mxcsr_exec.h): a fused multiply-add rounds
 * once, which no SSE2 operation does, and half precision has no SSE2
 * operation at all; the host may lack FMA and F16C. So the families of
 * those instructions compute the exact value here and round it as the CPU
 * does: tininess detected after rounding (with an unbounded exponent),
 * underflow flagged for inexact tiny results (for every tiny result when
 * underflow is unmasked), FTZ flushing tiny results to zero with UE and PE.
 */
#ifndef TTREC_EMU_EXACT_FP_H
#define TTREC_EMU_EXACT_FP_H

#include <stdbool.h>
#include <stdint.h>

/* A binary interchange format. */
struct xfp_format {
	uint8_t exp_bits;
	uint8_t frac_bits;
};

extern const struct xfp_format xfp_half, xfp_single, xfp_double;

enum xfp_class { XFP_ZERO, XFP_FINITE, XFP_INF, XFP_QNAN, XFP_SNAN };

/* An unpacked value: (-1)^sign * sig * 2^exp for finite ones. */
struct xfp_value {
	bool sign;
	bool denormal; /* a denormal encoding (kept when DAZ made it zero) */
	uint8_t cls;   /* enum xfp_class */
	int32_t exp;
	uint64_t sig;
	uint64_t bits; /* the encoding, for NaN propagation */
};

/* Unpacks an encoding; with `daz` a denormal reads as a zero of its sign. */
struct xfp_value xfp_unpack(const struct xfp_format *f, uint64_t bits, bool daz);

static inline bool xfp_is_nan(const struct xfp_value *v)
{
	return v->cls == XFP_QNAN || v->cls == XFP_SNAN;
}

/* The NaN with its quiet bit set. */
uint64_t xfp_quiet(const struct xfp_format *f, uint64_t nan_bits);

/* The default NaN (negative, quiet) an invalid operation returns. */
uint64_t xfp_default_nan(const struct xfp_format *f);

/* A zero of the given sign. */
uint64_t xfp_zero(const struct xfp_format *f, bool sign);

/* An infinity of the given sign. */
uint64_t xfp_inf(const struct xfp_format *f, bool sign);

/* Rounding and flush controls, from MXCSR or an instruction's immediate. */
struct xfp_env {
	unsigned rc;           /* 0 nearest, 1 down, 2 up, 3 toward zero */
	bool ftz;              /* flush tiny results to zero (underflow masked) */
	bool underflow_masked; /* MXCSR.UM */
};

/*
 * Rounds (-1)^sign * (sig + sticky) * 2^exp, where sig is nonzero and
 * `sticky` means nonzero bits lie below sig's last one, to the format.
 * ORs the exception flags (EMU_MX_*: OE UE PE) into *flags.
 */
uint64_t xfp_round(const struct xfp_format *f, const struct xfp_env *env, bool sign,
		   int32_t exp, unsigned __int128 sig, bool sticky, uint32_t *flags);

#endif
