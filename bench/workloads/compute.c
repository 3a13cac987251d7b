/* A CPU-bound workload for the benchmarks: integer hashing, a sort and
 * some floating point, sized by its argument. */
#include <stdio.h>
#include <stdlib.h>

static int compare(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned *v = malloc(sizeof(unsigned) * 65536);
	if (!v)
		return 1;
	unsigned h = 2166136261u;
	double acc = 0;
	for (long i = 0; i < n; i++) {
		h = (h ^ (unsigned)i) * 16777619u;
		v[i & 65535] = h;
		acc += (double)(h & 1023) / 1024.0;
	}
	qsort(v, 65536, sizeof(unsigned), compare);
	printf("%u %u %.6f\n", v[0], v[65535], acc);
	free(v);
	return 0;
}
