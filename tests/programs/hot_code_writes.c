/*
 * hot_code_writes.c — a hot loop that rewrites the immediate of a function
 * in an RWX page with a plain 4-byte store, then calls it: the store is one
 * translated code makes inline, to a page whose code the recording has
 * logged (it must be logged again before the next call runs it).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef uint32_t (*fn)(void);

int main(void)
{
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return perror("mmap"), 1;
	static const uint8_t body[] = { 0xb8, 0, 0, 0, 0, 0xc3 }; /* mov eax, imm32; ret */
	memcpy(code, body, sizeof(body));
	fn f = (fn)(uintptr_t)code;
	volatile uint32_t *imm = (volatile uint32_t *)(void *)(code + 1);
	uint64_t sum = 0;
	for (uint32_t i = 1; i <= 5000; i++) {
		*imm = i * 3;
		sum += f();
	}
	printf("sum %llu\n", (unsigned long long)sum);
	return sum == 3ull * 5000 * 5001 / 2 ? 0 : 1;
}
