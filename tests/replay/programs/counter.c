/* A program for the replay tests: recursion, a global changed in several
 * places, library calls. */
#include <stdio.h>
#include <stdlib.h>

long counter;

static long factorial(long n)
{
	counter += n;
	return n <= 1 ? 1 : n * factorial(n - 1);
}

static void bump(long by)
{
	counter = counter * 2 + by;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5;
	long f = factorial(n);
	bump(3);
	printf("factorial(%ld) = %ld, counter = %ld\n", n, f, counter);
	bump(4);
	return (int)(counter % 7);
}
