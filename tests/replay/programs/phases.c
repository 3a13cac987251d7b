/* For the replay index test: a global changed at the start of each of
 * four phases, each phase a loop of several snapshot segments that never
 * writes it, so going back (breakpoints, watchpoints, who wrote it) uses
 * the snapshots and segment summaries of the whole history. */
#include <stdio.h>

long counter;

static void touch(long k)
{
	counter = counter * 3 + k;
}

static long spin(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	return s;
}

int main(void)
{
	long total = 0;
	for (long k = 1; k <= 4; k++) {
		touch(k);
		total += spin(2000000);
	}
	printf("%ld %ld\n", counter, total);
	return 0;
}
