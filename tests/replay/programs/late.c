/* For the replay tests: a global written once at the start, then a long
 * loop that never writes it, so "who wrote it?" must look far back. */
#include <stdio.h>

long marker;

int main(void)
{
	marker = 42;
	volatile long sum = 0;
	for (long i = 0; i < 30000000; i++)
		sum += i;
	printf("%ld\n", sum + marker);
	return 0;
}
