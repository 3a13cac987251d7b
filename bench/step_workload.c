/*
 * step_workload.c — a small program to step through backwards
 * (bench/step_latency.sh): a loop of short functions, each making a system
 * call through a libc wrapper; N iterations (default 200). Prints the same
 * line natively and recorded.
 */
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	for (int i = 0; i < n; i++)
		work(i);
	printf("total %ld\n", total);
	return 0;
}
