/* A loop hot enough to be translated long before a breakpoint is put in
 * it (tests/breakpoints_translated.sh). */
#include <stdio.h>

volatile unsigned long sink;

__attribute__((noinline)) void marker(unsigned long v)
{
	sink = v;
}

int main(void)
{
	unsigned long sum = 0;
	for (unsigned long i = 0; i < 200000; i++) {
		sum += i * 7 + (i >> 3); /* the loop's body */
		if (i == 150000)
			marker(sum);
	}
	marker(sum);
	printf("%lu\n", sum);
	return 0;
}
