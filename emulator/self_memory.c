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

static int self_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	(void)ctx;
	memcpy(buf, (const void *)(uintptr_t)addr, size);
	return EMU_MEM_OK;
}

static int self_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	(void)ctx;
	memcpy((void *)(uintptr_t)addr, buf, size);
	return EMU_MEM_OK;
}

static size_t self_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	(void)ctx;
	memcpy(buf, (const void *)(uintptr_t)addr, size);
	return size;
}

const struct emu_memory_ops emu_self_memory_ops = {
	.read = self_read,
	.write = self_write,
	.fetch = self_fetch,
};
