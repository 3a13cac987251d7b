/*
 * step_workload.c — a small program to step through backwards
 * (bench/step_latency.sh): a loop of short functions, each making a system
 * call through a libc wrapper; N iterations (default 200); with a second
 * argument "pure", the calls make no system call. Prints the same line
 * natively and recorded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long total;

static long mix(long x)
{
	long y = x * 31 + 7;
	y ^= y >> 3;
	return y;
}

static int with_syscall = 1;

static void work(int i)
{
	long v = mix(i);
	if (with_syscall)
		v += getppid() > 0;
	total += v;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	with_syscall = !(argc > 2 && strcmp(argv[2], "pure") == 0);
	for (int i = 0; i < n; i++)
		work(i);
	printf("total %ld\n", total);
	return 0;
}
