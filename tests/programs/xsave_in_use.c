/*
 * xsave_in_use.c — xsavec right after the SSE component was put back in
 * its initial configuration (every XMM register zero, MXCSR 1F80H) by
 * xrstor and then loaded with a zero by movaps, and an xrstor from what it
 * stored. The architecture leaves to the implementation whether a
 * component in its initial configuration counts as in use (XINUSE): a CPU
 * may set XSTATE_BV's SSE bit here (one that loaded an XMM register does,
 * on some CPUs, until the kernel next restores its registers), where the
 * emulator, which models "in use" as "differs from the initial
 * configuration", clears it. `ttrec run --verify` takes the CPU's header
 * then (tests/lockstep.sh). Prints one fixed line: what the CPU stored is
 * its own choice.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { X87 = 1, SSE = 2, HEADER = 512 };

static uint8_t initial[4096] __attribute__((aligned(64)));
static uint8_t saved[4096] __attribute__((aligned(64)));
static const uint8_t zero16[16] __attribute__((aligned(16)));

static int has_xsavec(void)
{
	unsigned a, b, c, d;
	const unsigned xsave = 1u << 26, osxsave = 1u << 27;
	if (!__get_cpuid(1, &a, &b, &c, &d) || (c & (xsave | osxsave)) != (xsave | osxsave))
		return 0;
	if (__get_cpuid_max(0, NULL) < 0xd)
		return 0;
	__cpuid_count(0xd, 1, a, b, c, d);
	return a >> 1 & 1;
}

int main(void)
{
	if (!has_xsavec()) {
		printf("no xsavec on this CPU: skipped\n");
		return 0;
	}
	/* Standard format: x87 and SSE loaded from their initial values. */
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80;
	uint64_t xstate_bv = X87 | SSE;
	memcpy(initial, &fcw, sizeof(fcw));
	memcpy(initial + 24, &mxcsr, sizeof(mxcsr));
	memcpy(initial + HEADER, &xstate_bv, sizeof(xstate_bv));
	for (int i = 0; i < 200; i++)
		__asm__ volatile("xrstor %[area]\n\t"
				 "movaps %[zero], %%xmm3\n\t"
				 "xsavec %[out]\n\t"
				 "xrstor %[out]"
				 : [out] "+m"(saved)
				 : [area] "m"(initial), [zero] "m"(zero16), "a"(X87 | SSE), "d"(0)
				 : "xmm3", "memory");
	printf("xsavec of an initial SSE state: done\n");
	return 0;
}
