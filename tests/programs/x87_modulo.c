/*
 * x87_modulo.c — the float modulo a JIT compiler emits (V8 on x86-64):
 * both operands loaded on the x87 stack, fprem until the status word's C2
 * says the reduction is complete (fnstsw ax; sahf; jp), the result stored.
 * Runs often enough to be translated; also stores the control and status
 * words to memory. Prints the results and the words.
 */
#include <stdint.h>
#include <stdio.h>

static double x87_mod(double a, double b)
{
	double r;
	__asm__ volatile(
		"fldl %[b]\n\t"
		"fldl %[a]\n"
		"1:\n\t"
		"fprem\n\t"
		"fnstsw %%ax\n\t"
		"sahf\n\t"
		"jp 1b\n\t"
		"fstp %%st(1)\n\t"
		"fstpl %[r]\n\t"
		: [r] "=m"(r)
		: [a] "m"(a), [b] "m"(b)
		: "rax", "cc", "st");
	return r;
}

int main(void)
{
	double s = 0;
	uint64_t sum = 0;
	for (int i = 0; i < 200000; i++) {
		s = x87_mod(s + (double)i * i, 1000003.0);
		sum += (uint64_t)s;
	}
	/* Exponents far apart: fprem reduces in several passes. */
	double far = x87_mod(1e300, 3.0);
	uint16_t cw, sw;
	__asm__ volatile("fnstcw %0\n\tfnstsw %1" : "=m"(cw), "=m"(sw));
	printf("%.1f %llu %.1f cw %#x sw %#x\n", s, (unsigned long long)sum, far, cw, sw);
	return 0;
}
