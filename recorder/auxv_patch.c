/*
 * auxv_patch.c — walks the initial stack (argc, argv..., NULL, envp...,
 * NULL, auxv pairs..., AT_NULL) and rewrites the vDSO's auxv entry.
 */
#include <elf.h>

#include "recorder/auxv_patch.h"

/* Bounds against a corrupt stack: the kernel limits argv+envp anyway. */
#define MAX_WORDS (1u << 20)

static int read_word(struct remote_memory *rm, uint64_t addr, uint64_t *v)
{
	return remote_memory_read(rm, addr, v, sizeof(*v)) == 0 ? 0 : -1;
}

int auxv_hide_vdso(struct remote_memory *rm, uint64_t rsp)
{
	uint64_t argc, word, addr = rsp;
	if (read_word(rm, addr, &argc) != 0 || argc > MAX_WORDS)
		return -1;
	addr += 8 * (argc + 2); /* argc, argv[argc], NULL */
	for (unsigned i = 0;; i++, addr += 8) { /* envp up to its NULL */
		if (i > MAX_WORDS || read_word(rm, addr, &word) != 0)
			return -1;
		if (word == 0)
			break;
	}
	addr += 8;
	for (unsigned i = 0; i < 256; i++, addr += 16) {
		uint64_t type;
		if (read_word(rm, addr, &type) != 0)
			return -1;
		if (type == AT_NULL)
			return 0;
		if (type == AT_SYSINFO_EHDR) {
			uint64_t ignore = AT_IGNORE;
			return remote_memory_write(rm, addr, &ignore, sizeof(ignore)) == 0 ? 1 : -1;
		}
	}
	return -1;
}
