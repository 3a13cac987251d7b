/*
 * getrandom.c — the kernel fills a buffer the program then reads: the
 * values differ from run to run, so only their properties are printed.
 */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

int main(void)
{
	unsigned char a[256], b[256];
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	if (getrandom(a, sizeof(a), 0) != (ssize_t)sizeof(a) ||
	    getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return perror("getrandom"), 1;
	unsigned distinct = 0, zero_a = 0;
	unsigned char seen[256] = { 0 };
	for (size_t i = 0; i < sizeof(a); i++) {
		zero_a += a[i] == 0;
		if (!seen[a[i]]++)
			distinct++;
	}
	/* 256 random bytes have ~162 distinct values; fewer than 100 would
	 * mean the program read stale bytes. */
	printf("buffers differ: %s\n", memcmp(a, b, sizeof(a)) ? "yes" : "no");
	printf("many distinct values: %s\n", distinct > 100 ? "yes" : "no");
	printf("mostly non-zero: %s\n", zero_a < 16 ? "yes" : "no");
	return 0;
}
