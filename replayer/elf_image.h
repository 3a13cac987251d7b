/*
 * elf_image.h — what a debugger needs to know of an ELF file mapped in the
 * replayed address space (its load bias, entry point, program headers,
 * dynamic section and interpreter), read through a memory reader: the
 * replay's memory, which holds the file's own bytes wherever the program
 * never touched them.
 */
#ifndef TTREC_ELF_IMAGE_H
#define TTREC_ELF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_image {
	uint64_t bias;    /* added to the file's virtual addresses */
	uint64_t entry;   /* addresses in memory, 0 when absent */
	uint64_t phdr;
	uint64_t phnum;
	uint64_t dynamic;
	char interp[256]; /* PT_INTERP, "" when absent */
};

/* Reads len bytes at addr; returns how many leading bytes it could. */
typedef size_t elf_image_reader(void *ctx, uint64_t addr, void *buf, size_t len);

/* The image whose first byte (file offset 0) is mapped at base. False when
 * that is not a 64-bit ELF file with a loadable segment at offset 0. */
bool elf_image_read(elf_image_reader *read, void *ctx, uint64_t base, struct elf_image *out);

#endif
