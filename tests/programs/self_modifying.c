/*
 * self_modifying.c — code written into an RWX page, run, rewritten in
 * place, run again: the second run must execute the new bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef uint32_t (*fn)(uint32_t);

/* lea eax, [rdi + imm32]; ret */
static void emit_add(uint8_t *code, uint32_t imm)
{
	static const uint8_t prefix[] = { 0x8d, 0x87 };
	memcpy(code, prefix, sizeof(prefix));
	memcpy(code + 2, &imm, 4);
	code[6] = 0xc3;
}

int main(void)
{
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return perror("mmap"), 1;
	fn f = (fn)(uintptr_t)code;
	uint32_t acc = 0;
	for (uint32_t round = 1; round <= 50; round++) {
		emit_add(code, round * 1000);
		acc = f(acc);
		/* Only the immediate changes: a stale decode would repeat it. */
		code[2] = (uint8_t)round;
		acc = f(acc);
	}
	printf("accumulated %u\n", acc);
	/* Rewrite the instruction itself: xor eax, eax; not eax; ret */
	static const uint8_t other[] = { 0x31, 0xc0, 0xf7, 0xd0, 0xc3 };
	memcpy(code, other, sizeof(other));
	printf("rewritten returns %#x\n", f(5));
	return 0;
}
