/*
 * record_workload.c — a compute-heavy C program for bench/record_bench.sh,
 * which runs it natively and under `ttrec run`: integer hashing, a sort,
 * and double-precision arithmetic, with few syscalls. Prints a checksum so
 * the two runs can be compared.
 *
 *   build/bench/record_workload [SCALE]   (default 1: ~0.1 s natively)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long scale = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	if (scale < 1 || scale > 1000) {
		fprintf(stderr, "usage: record_workload [SCALE 1..1000]\n");
		return 2;
	}
	uint64_t seed = 88172645463325252ull, sum = 0;
	size_t n = 200000;
	uint32_t *v = malloc(n * sizeof(*v));
	if (!v)
		return perror("malloc"), 1;
	double acc = 0;
	for (long round = 0; round < scale; round++) {
		for (size_t i = 0; i < n; i++)
			v[i] = (uint32_t)xorshift(&seed);
		qsort(v, n, sizeof(*v), compare_u32);
		for (size_t i = 0; i < n; i += 97)
			sum = sum * 31 + v[i];
		for (int i = 1; i < 300000; i++)
			acc += 1.0 / ((double)i * i) + (double)(v[i % n] & 0xff) * 1e-9;
	}
	printf("checksum %016llx %.12f\n", (unsigned long long)sum, acc);
	free(v);
	return 0;
}
