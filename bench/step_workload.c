/*
 * step_workload.c — a small program to step through backwards
 * (bench/step_latency.sh): a loop of short functions, each making a system
 * call through a libc wrapper. Prints the same line natively and recorded.
 */
#include <stdio.h>
#include <unistd.h>

static long total;

static long mix(long x)
{
	long y = x * 31 + 7;
	y ^= y >> 3;
	return y;
}

static void work(int i)
{
	long v = mix(i);
	v += getppid() > 0;
	total += v;
}

int main(void)
{
	for (int i = 0; i < 200; i++)
		work(i);
	printf("total %ld\n", total);
	return 0;
}
