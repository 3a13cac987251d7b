/*
 * stepping.c — what step, next, finish, until and advance meet, forwards
 * and backwards: recursion, calls into the C library (a first call through
 * the lazy-binding resolver, a callback from qsort), a function called on
 * consecutive lines, and a loop.
 */
#include <stdlib.h>
#include <string.h>

int depth_seen;
int sorted[6] = { 5, 3, 9, 1, 7, 2 };
size_t name_length;

static int factorial(int n)
{
	if (n > depth_seen)
		depth_seen = n;
	if (n <= 1)
		return 1;
	return n * factorial(n - 1);
}

static int compare(const void *a, const void *b)
{
	int x = *(const int *)a;
	int y = *(const int *)b;
	return (x > y) - (x < y);
}

static int add(int a, int b)
{
	int sum = a + b;
	return sum;
}

int main(void)
{
	int total = 0;
	int f = factorial(5);
	name_length = strlen(getenv("HOME") ? "home-is-set" : "no-home");
	qsort(sorted, 6, sizeof(int), compare);
	total = add(total, 1);
	total = add(total, 2);
	total = add(total, 3);
	for (int i = 0; i < 4; i++)
		total += i;
	total += f;
	return total == 132 ? 0 : 1;
}
