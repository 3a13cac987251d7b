/* For the replay tests: a function called after some millions of
 * instructions (beyond the part of the first pass that opening a trace
 * replays), then a long loop: a breakpoint in the function is reached
 * without replaying the loop. */
#include <stdio.h>

long marker;

__attribute__((noinline)) long early_function(long x)
{
	marker = x;
	return x * 2;
}

int main(void)
{
	volatile long sum = 0;
	for (long i = 0; i < 2000000; i++)
		sum += i;
	long r = early_function(sum & 0xff);
	for (long i = 0; i < 20000000; i++)
		sum += i;
	printf("%ld\n", sum + r + marker);
	return 0;
}
