/*
 * random_insns.c — rdrand and rdseed, which the recorder emulates and logs
 * (their numbers differ from run to run: only their validity flags are
 * looked at), then, asked for on the command line, instructions the CPU
 * runs for the recorder: "xgetbv" (an instruction ttrec always lets the
 * CPU run) and "avx512" (EVEX instructions the emulator lacks; the caller
 * checks that the CPU has them: the default CPUID policy hides them from
 * the program). The labels name each block's first instruction for the
 * debugger tests, which step through every instruction of the blocks.
 */
#include <cpuid.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int has_random_insns(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 30)))
		return 0;
	if (__get_cpuid_max(0, 0) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	return (b & (1u << 18)) != 0;
}

int main(int argc, char **argv)
{
	if (!has_random_insns()) {
		printf("this CPU has no rdrand or rdseed\n");
		return 0;
	}
	unsigned long seed;
	unsigned first, second;
	bool ok;
	/* A random-number instruction may find none ready (CF=0): retried.
	 * Fixed registers keep the encodings, and so the tests' expected
	 * stops, whatever the compiler. */
	do
		__asm__ volatile("random_block: nop; rdrand %%eax; nop; rdrand %%edx; rdseed %%rcx; nop; nop"
				 : "=a"(first), "=d"(second), "=c"(seed), "=@ccc"(ok));
	while (!ok);
	printf("random numbers read\n");
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "xgetbv") == 0) {
			unsigned lo, hi;
			__asm__ volatile("xgetbv_block: nop; xgetbv; nop; nop"
					 : "=a"(lo), "=d"(hi) : "c"(0));
			printf("x87 state enabled: %s\n", (lo & 1) ? "yes" : "no");
		} else if (strcmp(argv[i], "avx512") == 0) {
			unsigned ones;
			__asm__ volatile("avx512_block: nop; vpternlogd $0xff, %%zmm1, %%zmm1, %%zmm1;"
					 " vpmovd2m %%zmm1, %%k1; kmovw %%k1, %%eax; nop"
					 : "=a"(ones) : : "xmm1");
			printf("mask of ones: %#x\n", ones);
		}
	}
	return 0;
}
