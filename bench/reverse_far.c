/* reverse_far.c — a function called once at the start, a variable written
 * there and never again, then about 10^9 instructions of arithmetic
 * (bench/reverse_far.sh goes back to them from the end). */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long written_once;

__attribute__((noinline)) void called_once(void)
{
	written_once = 42;
}

static unsigned long mix(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = (x * 6364136223846793005ul + 1442695040888963407ul) ^ (x >> 13);
	return x;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 125000000ul;
	called_once();
	printf("%lu\n", mix(n));
	return 0;
}
