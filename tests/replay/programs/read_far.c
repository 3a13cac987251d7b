/* For the read-watch tests: a variable on a page of its own, read once,
 * then a long loop that reads and writes other memory only, then read
 * again and written; so a read watch must look far in either
 * direction. */
#include <stdio.h>

/* The loop's length (BENCHMARKS.md builds it with -DLOOPS=62000000: a
 * billion instructions). */
#ifndef LOOPS
#define LOOPS 6000000
#endif

/* A whole page: the loop touches nothing on it. */
static volatile long watched[512] __attribute__((aligned(4096)));
static volatile long busy[64];

__attribute__((noinline)) static long first_read(void)
{
	return watched[0];
}

__attribute__((noinline)) static long second_read(void)
{
	return watched[0];
}

__attribute__((noinline)) static void then_write(long v)
{
	watched[0] = v;
}

int main(void)
{
	long sum = first_read();
	for (long i = 0; i < LOOPS; i++)
		busy[i & 63] += i;
	sum += second_read();
	then_write(sum + 1);
	printf("%ld\n", sum + busy[3]);
	return 0;
}
