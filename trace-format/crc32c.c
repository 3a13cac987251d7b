/*
 * crc32c.c — CRC-32C: the x86 crc32 instruction (SSE4.2, the same
 * polynomial) where the CPU has it, else a table eight bytes per step in
 * plain C; both give the same sums (tests/unit/test_crc32c.c), so a
 * trace verifies the same on any machine. The replay checks every chunk
 * it reads: the table took 2.3% of a replay of sort -n (BENCHMARKS.md).
 */
#include "trace-format/crc32c.h"

#include <pthread.h>
#include <string.h>

static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & -(c & 1));
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

uint32_t crc32c_portable(uint32_t crc, const void *data, size_t n)
{
	pthread_once(&crc_table_once, crc_table_init);
	const uint8_t *p = data;
	crc = ~crc;
	while (n >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][p[4]] ^ crc_table[2][p[5]] ^ crc_table[1][p[6]] ^ crc_table[0][p[7]];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const void *data,
								 size_t n)
{
	const uint8_t *p = data;
	uint64_t c = ~crc;
	for (; n >= 8; p += 8, n -= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	uint32_t c32 = (uint32_t)c;
	for (; n; p++, n--)
		c32 = __builtin_ia32_crc32qi(c32, *p);
	return ~c32;
}
#endif

uint32_t crc32c(uint32_t crc, const void *data, size_t n)
{
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_sse42(crc, data, n);
#endif
	return crc32c_portable(crc, data, n);
}
