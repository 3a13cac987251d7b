/*
 * self_memory.c — a memory interface backed by the calling process's own
 * address space, for the in-process tests and benchmarks: emulated code
 * reads and writes the same memory the native code would.
 *
 * It trusts its addresses: an access to unmapped memory crashes the host
 * process instead of faulting. Only code the caller controls may run on it.
 */
#include <string.h>

#include "emu.h"

#ifdef __SANITIZE_ADDRESS__
/* Emulated code built with AddressSanitizer writes its own shadow memory,
 * which the sanitizer's memcpy interceptor cannot check and faults on: copy
 * without instrumentation (volatile, so it does not become memcpy). */
__attribute__((no_sanitize_address)) static void copy_bytes(void *dst, const void *src,
							   size_t size)
{
	volatile uint8_t *d = dst;
	const volatile uint8_t *s = src;
	while (size--)
		*d++ = *s++;
}
#else
#define copy_bytes memcpy
#endif

static int self_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	(void)ctx;
	copy_bytes(buf, (const void *)(uintptr_t)addr, size);
	return EMU_MEM_OK;
}

static int self_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	(void)ctx;
	copy_bytes((void *)(uintptr_t)addr, buf, size);
	return EMU_MEM_OK;
}

static size_t self_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	(void)ctx;
	copy_bytes(buf, (const void *)(uintptr_t)addr, size);
	return size;
}

const struct emu_memory_ops emu_self_memory_ops = {
	.read = self_read,
	.write = self_write,
	.fetch = self_fetch,
};
