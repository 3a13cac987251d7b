/* For the snapshot memory test: a megabyte of memory rewritten all
 * through a history of some forty snapshot segments, so that every
 * snapshot holds other bytes than the one before it, and a global changed
 * at the start of each round, for breakpoints and watchpoints far back. */
#include <stdio.h>

#define PAGES 256
#define WORDS 512

long cells[PAGES][WORDS];
long round_marker;
/* Written in three rounds only, on a page nothing else writes: only
 * the segments that wrote it may have the hit of a watchpoint on it. */
struct {
	long value;
	char rest[4096 - sizeof(long)];
} rare_marker __attribute__((aligned(4096)));

static void start_round(long k)
{
	round_marker = k;
	if (k % 13 == 0)
		rare_marker.value = k;
}

int main(void)
{
	for (long round = 1; round <= 40; round++) {
		start_round(round);
		for (long p = 0; p < PAGES; p++)
			for (long w = 0; w < WORDS; w++)
				cells[p][(w + round) % WORDS] += round * p + w;
	}
	long sum = 0;
	for (long p = 0; p < PAGES; p++)
		sum += cells[p][p];
	printf("%ld %ld\n", sum, round_marker);
	return 0;
}
