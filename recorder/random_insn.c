/*
 * random_insn.c — rdrand and rdseed run on ttrec's own CPU for the
 * program (random_insn.h).
 */
#include <cpuid.h>

#include "recorder/random_insn.h"

/* CPUID.1:ECX[30] is rdrand, CPUID.(7,0):EBX[18] rdseed (Intel SDM). */
static bool cpu_has(bool seed)
{
	unsigned a, b, c, d;
	if (!seed)
		return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 30));
	if (__get_cpuid_max(0, 0) < 7)
		return false;
	__cpuid_count(7, 0, a, b, c, d);
	return (b & (1u << 18)) != 0;
}

int random_insn_run(bool seed, uint64_t *value, bool *valid)
{
	static int has[2] = { -1, -1 };
	if (has[seed] < 0)
		has[seed] = cpu_has(seed);
	if (!has[seed])
		return -1;
	/* The 64-bit form: a narrower destination gets its low bits, as
	 * random as the CPU's own narrower form. */
	uint64_t v;
	unsigned char cf;
	if (seed)
		__asm__ volatile("rdseed %0; setc %1" : "=r"(v), "=qm"(cf) : : "cc");
	else
		__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(cf) : : "cc");
	*value = v;
	*valid = cf != 0;
	return 0;
}
