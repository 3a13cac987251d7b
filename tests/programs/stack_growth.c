/*
 * stack_growth.c — the stack grows far below its first mapping: a 2 MB
 * local array written from its low end and summed, then a recursion
 * whose frames reach a few MB further down a page at a time. The kernel
 * grows the [stack] mapping on the faults; recorded, the emulator must
 * go on there (not step every access natively, which took minutes).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_BYTES (2u << 20)
#define FRAME_BYTES 1024u
#define DEPTH 3000 /* ~3 MB of frames */

static uint64_t __attribute__((noinline)) big_array(unsigned seed)
{
	volatile uint8_t a[ARRAY_BYTES];
	for (size_t i = 0; i < ARRAY_BYTES; i++)
		a[i] = (uint8_t)(i * seed + (i >> 12));
	uint64_t sum = 0;
	for (size_t i = 0; i < ARRAY_BYTES; i++)
		sum += a[i];
	return sum;
}

static uint64_t __attribute__((noinline)) recurse(unsigned depth)
{
	volatile uint8_t frame[FRAME_BYTES];
	for (unsigned i = 0; i < FRAME_BYTES; i += 64)
		frame[i] = (uint8_t)(depth + i);
	uint64_t below = depth ? recurse(depth - 1) : 0;
	uint64_t sum = below;
	for (unsigned i = 0; i < FRAME_BYTES; i += 64)
		sum += frame[i];
	return sum;
}

int main(void)
{
	printf("array sum %llu\n", (unsigned long long)big_array(7));
	printf("recursion sum %llu\n", (unsigned long long)recurse(DEPTH));
	return 0;
}
