/*
 * vector_stores.c — 16-byte stores (movdqu, movaps) at every offset
 * within and across 8-byte words and across a page boundary, each read
 * back with 1-, 2-, 4- and 8-byte loads at every offset around it, and
 * 64-byte copies (four stores) the same way. The replay stores such
 * writes a word's piece at a time: a piece put in the wrong place, the
 * wrong size or with the wrong bytes shows as another checksum here or
 * as a replay that no longer matches the recording.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static uint64_t sum;

static void mix(uint64_t v)
{
	sum = (sum ^ v) * 0x100000001b3ull;
}

static void store16(uint8_t *p, uint64_t lo, uint64_t hi)
{
	uint64_t v[2] = { lo, hi };
	__asm__ volatile("movdqu (%1), %%xmm0\n\tmovdqu %%xmm0, (%0)"
			 : : "r"(p), "r"(v) : "xmm0", "memory");
}

static void store16_aligned(uint8_t *p, uint64_t lo, uint64_t hi)
{
	uint64_t v[2] __attribute__((aligned(16))) = { lo, hi };
	__asm__ volatile("movaps (%1), %%xmm1\n\tmovaps %%xmm1, (%0)"
			 : : "r"(p), "r"(v) : "xmm1", "memory");
}

/* Every load width at every offset of [p - 8, p + len + 8). */
static void read_around(const volatile uint8_t *p, size_t len)
{
	for (const volatile uint8_t *q = p - 8; q < p + len + 8; q++) {
		mix(q[0]);
		mix(*(const volatile uint16_t *)q);
		mix(*(const volatile uint32_t *)q);
		mix(*(const volatile uint64_t *)q);
	}
}

int main(void)
{
	uint8_t *area = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 1;
	uint8_t *edge = area + 4096; /* page boundary at edge + 4096 */
	for (int round = 0; round < 3; round++) {
		for (unsigned off = 0; off < 48; off++) {
			uint8_t *p = edge + 4096 - 24 + off;
			uint64_t k = (uint64_t)round << 32 | off;
			store16(p, 0x0123456789abcdefull ^ k, 0xfedcba9876543210ull + k);
			read_around(p, 16);
		}
		for (unsigned off = 0; off < 64; off += 16) {
			uint8_t *p = edge + 4096 - 32 + off;
			store16_aligned(p, 0x1111111111111111ull * (off + 1), ~(uint64_t)round);
			read_around(p, 16);
		}
		for (unsigned off = 0; off < 16; off++) {
			uint8_t src[64];
			for (unsigned i = 0; i < sizeof(src); i++)
				src[i] = (uint8_t)(i * 7 + off + round);
			uint8_t *p = edge + 4096 - 40 + off;
			for (unsigned i = 0; i < sizeof(src); i += 16) {
				uint64_t lo, hi;
				memcpy(&lo, src + i, 8);
				memcpy(&hi, src + i + 8, 8);
				store16(p + i, lo, hi);
			}
			read_around(p, sizeof(src));
		}
	}
	printf("vector stores: %016llx\n", (unsigned long long)sum);
	return 0;
}
