/*
 * model_specific.h — what the differential tests (the per-family suites in
 * tests/unit and the harness in tests/diff) share about results that are
 * model-specific: the emulator computes them as the modelled vendor's CPUs
 * do (emu_modelled_vendor()), and a test on a CPU of another vendor
 * accepts that CPU's choice for exactly these, and compares the rest.
 * What the emulator itself can describe (MXCSR_MASK, rep strings with a
 * zero count, 0F 0D) is emu_model_specific() in emulator/emu.h; here is
 * what needs the CPU's own description or the test's inputs:
 *
 * - the XSAVE standard-format layout (CPUID leaf 0xD), translated;
 * - which NaN a dot product returns when several are possible.
 */
#ifndef TTREC_TESTS_MODEL_SPECIFIC_H
#define TTREC_TESTS_MODEL_SPECIFIC_H

#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The state components this machine's kernel has XSAVE keep (XCR0): a
 * test can compare with the CPU only what the CPU holds (on one without
 * AVX-512, no opmask and no upper halves of the vector registers). */
static inline uint64_t host_xcr0(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return 3; /* x87 and SSE: an FXSAVE image */
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return lo | (uint64_t)hi << 32;
}

/*
 * The standard-format XSAVE layout is model-specific: CPUID leaf 0xD
 * enumerates each component's offset. The emulator uses the modelled
 * CPU's offsets, below; AMD's leave out the MPX hole and put opmask at
 * 832, ZMM_Hi256 at 896 and Hi16_ZMM at 1408. Native standard images are
 * translated to and from the host's layout by a permutation of the image's
 * bytes: each component's bytes to the host's offsets, the bytes between
 * in their order. On the modelled CPU it is the identity. The compacted
 * format depends on sizes and alignments only, the same on both.
 */
#define XSAVE_STD_SIZE 2688 /* the modelled CPU's standard format through Hi16_ZMM */
static const struct { unsigned comp, off, len; } xsave_model_components[] = {
	{ 2, 576, 256 }, { 5, 1088, 64 }, { 6, 1152, 512 }, { 7, 1664, 1024 },
};
static uint16_t xsave_model_to_host_offset[XSAVE_STD_SIZE];

/* Builds the permutation; false when the host's components do not have
 * the model's sizes or do not fit in XSAVE_STD_SIZE bytes. A component
 * the host lacks (CPUID reports no size: AVX-512's on a CPU without it)
 * has no place of its own there: its bytes are laid out with those
 * between components (the host's XSAVE never writes them). */
static inline bool xsave_std_layout_init(void)
{
	static int done; /* 0 not yet, 1 built, -1 unusable */
	bool model_byte[XSAVE_STD_SIZE] = { false }, host_byte[XSAVE_STD_SIZE] = { false };
	if (done)
		return done > 0;
	done = -1;
	for (size_t c = 0; c < sizeof(xsave_model_components) / sizeof(xsave_model_components[0]); c++) {
		unsigned eax, ebx, ecx, edx;
		__cpuid_count(0xd, xsave_model_components[c].comp, eax, ebx, ecx, edx);
		if (eax == 0)
			continue;
		if (eax != xsave_model_components[c].len || ebx + eax > XSAVE_STD_SIZE)
			return false;
		for (unsigned i = 0; i < eax; i++) {
			xsave_model_to_host_offset[xsave_model_components[c].off + i] = (uint16_t)(ebx + i);
			model_byte[xsave_model_components[c].off + i] = host_byte[ebx + i] = true;
		}
	}
	for (unsigned m = 0, h = 0; m < XSAVE_STD_SIZE; m++) {
		if (model_byte[m])
			continue;
		while (host_byte[h])
			h++;
		xsave_model_to_host_offset[m] = (uint16_t)h++;
	}
	done = 1;
	return true;
}

/* Whether the host's layout differs from the model's. */
static inline bool xsave_std_layout_differs(void)
{
	if (!xsave_std_layout_init())
		return false;
	for (unsigned i = 0; i < XSAVE_STD_SIZE; i++)
		if (xsave_model_to_host_offset[i] != i)
			return true;
	return false;
}

/* A standard-format image at `img` (XSAVE_STD_SIZE bytes) from the
 * model's layout to the host's, and back. */
static inline void xsave_std_model_to_host(uint8_t *img)
{
	uint8_t tmp[XSAVE_STD_SIZE];
	xsave_std_layout_init();
	memcpy(tmp, img, XSAVE_STD_SIZE);
	for (unsigned i = 0; i < XSAVE_STD_SIZE; i++)
		img[xsave_model_to_host_offset[i]] = tmp[i];
}

static inline void xsave_std_host_to_model(uint8_t *img)
{
	uint8_t tmp[XSAVE_STD_SIZE];
	xsave_std_layout_init();
	memcpy(tmp, img, XSAVE_STD_SIZE);
	for (unsigned i = 0; i < XSAVE_STD_SIZE; i++)
		img[i] = tmp[xsave_model_to_host_offset[i]];
}

static inline bool dot_is_nan(uint64_t x, bool dbl)
{
	return dbl ? (x & ~(1ull << 63)) > 0x7ff0000000000000ull : (x & 0x7fffffffu) > 0x7f800000u;
}

static inline bool dot_is_inf(uint64_t x, bool dbl)
{
	return dbl ? (x & ~(1ull << 63)) == 0x7ff0000000000000ull : (x & 0x7fffffffu) == 0x7f800000u;
}

/*
 * Which NaN a dpps/dppd element returns when its sum could return more
 * than one is model-specific: the modelled CPU sums each element's
 * products in its own operand order (ops_sse_round_dot.c), AMD's in
 * another. On another vendor's CPU an element may differ only when the
 * native and the emulated values are both among its candidates, and there
 * are at least two: the quieted NaN inputs of the lane's selected
 * products, and the default NaN when one can arise (an infinite input, or
 * a product large enough to overflow). Everything else, MXCSR flags
 * included, is compared.
 *
 * dot_nan_choice: `lanes` 128-bit lanes (1, or 2 for the ymm form) of
 * single (`dbl` false) or double elements; src1, src2: the sources, imm
 * the immediate; gives each element of `emulated` where this applies the
 * value in `native`. Returns whether it changed anything.
 */
static inline bool dot_nan_choice(bool dbl, unsigned lanes, unsigned imm, const uint8_t *src1,
				  const uint8_t *src2, const uint8_t *native, uint8_t *emulated)
{
	unsigned size = dbl ? 8 : 4, per_lane = 16 / size;
	bool changed = false;
	for (unsigned lane = 0; lane < lanes; lane++) {
		uint64_t cand[9];
		unsigned ncand = 0;
		bool default_nan = false;
		for (unsigned j = 0; j < per_lane; j++) {
			if (!((imm >> (4 + j)) & 1))
				continue;
			uint64_t x[2] = { 0, 0 };
			double v[2];
			memcpy(&x[0], src1 + 16 * lane + size * j, size);
			memcpy(&x[1], src2 + 16 * lane + size * j, size);
			for (int k = 0; k < 2; k++) {
				if (dot_is_nan(x[k], dbl))
					cand[ncand++] = x[k] | (dbl ? 1ull << 51 : 1ull << 22);
				default_nan |= dot_is_inf(x[k], dbl);
				if (dbl) {
					memcpy(&v[k], &x[k], 8);
				} else {
					float f;
					memcpy(&f, &x[k], 4);
					v[k] = f;
				}
			}
			/* Finite products whose sum may overflow to +-inf. */
			default_nan |= !dot_is_nan(x[0], dbl) && !dot_is_nan(x[1], dbl) &&
				       (__builtin_fabs(v[0]) * __builtin_fabs(v[1]) >=
					(dbl ? 0x1p1022 : 0x1p126));
		}
		if (default_nan)
			cand[ncand++] = dbl ? 0xfff8000000000000ull : 0xffc00000u;
		for (unsigned j = 0; j < per_lane; j++) {
			uint64_t n = 0, e = 0;
			unsigned off = 16 * lane + size * j;
			memcpy(&n, native + off, size);
			memcpy(&e, emulated + off, size);
			bool n_in = false, e_in = false, several = false;
			for (unsigned c = 0; c < ncand; c++) {
				n_in |= cand[c] == n;
				e_in |= cand[c] == e;
				several |= cand[c] != cand[0];
			}
			if (n != e && n_in && e_in && several) {
				memcpy(emulated + off, &n, size);
				changed = true;
			}
		}
	}
	return changed;
}

#endif
