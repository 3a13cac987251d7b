/*
 * vector_first_reads.c — 16-byte loads are the first accesses to bytes of
 * a fresh mapping (zeros the prediction cache predicts), across 8-byte
 * words and a page boundary: the replay learns those bytes from the
 * loads alone, so gdb at `done` must show them as zeros.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

uint8_t *fresh;
volatile uint64_t loaded;

static void load16(const uint8_t *p)
{
	uint64_t v[2];
	__asm__ volatile("movdqu (%1), %%xmm0\n\tmovdqu %%xmm0, (%0)"
			 : : "r"(v), "r"(p) : "xmm0", "memory");
	loaded += v[0] + v[1];
}

void done(void)
{
}

int main(void)
{
	fresh = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fresh == MAP_FAILED)
		return 1;
	load16(fresh + 3);
	load16(fresh + 4096 - 11);
	done();
	return (int)loaded;
}
