/*
 * image.c — loads a static x86-64 ELF executable with libelf into the test
 * target's memory and builds the initial stack (see image.h).
 */
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image.h"

#define STACK_TOP 0x7ffffffff000ull
#define STACK_SIZE (256 * 1024)
#define PAGE_SIZE 4096


static struct region *add_region(struct image *img, uint64_t start, uint64_t size)
{
	struct region *r = realloc(img->regions, (img->count + 1) * sizeof(*r));
	if (!r)
		return NULL;
	img->regions = r;
	r = &img->regions[img->count];
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->size = size;
	r->bytes = calloc(1, size ? size : 1);
	if (!r->bytes)
		return NULL;
	img->count++;
	return r;
}

struct region *image_find(struct image *img, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < img->count; i++) {
		struct region *r = &img->regions[i];
		if (addr >= r->start && len <= r->size && addr - r->start <= r->size - len)
			return r;
	}
	return NULL;
}

static bool overlaps_existing(struct image *img, uint64_t start, uint64_t size)
{
	for (size_t i = 0; i < img->count; i++) {
		struct region *r = &img->regions[i];
		if (start < r->start + r->size && r->start < start + size)
			return true;
	}
	return false;
}

static bool load_segments(struct image *img, Elf *elf, const char *path,
			  uint64_t *phdr_vaddr)
{
	size_t raw_size, phnum;
	const uint8_t *raw = (const uint8_t *)elf_rawfile(elf, &raw_size);
	GElf_Ehdr eh;
	if (!raw || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) != 0) {
		fprintf(stderr, "%s: not a readable ELF file\n", path);
		return false;
	}
	if (gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
	    eh.e_type != ET_EXEC) {
		fprintf(stderr, "%s: not a static x86-64 executable\n", path);
		return false;
	}
	*phdr_vaddr = 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			return false;
		if (ph.p_type == PT_INTERP) {
			fprintf(stderr, "%s: dynamically linked; the test target runs only static programs\n", path);
			return false;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_filesz > ph.p_memsz || ph.p_offset > raw_size ||
		    ph.p_filesz > raw_size - ph.p_offset || ph.p_memsz > (1u << 30) ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr ||
		    overlaps_existing(img, ph.p_vaddr, ph.p_memsz)) {
			fprintf(stderr, "%s: bad PT_LOAD segment %zu\n", path, i);
			return false;
		}
		struct region *r = add_region(img, ph.p_vaddr, ph.p_memsz);
		if (!r)
			return false;
		memcpy(r->bytes, raw + ph.p_offset, ph.p_filesz);
		r->writable = ph.p_flags & PF_W;
		r->executable = ph.p_flags & PF_X;
		/* The program headers are mapped where the segment holding
		 * them at file offset e_phoff is. */
		if (eh.e_phoff >= ph.p_offset && eh.e_phoff < ph.p_offset + ph.p_filesz)
			*phdr_vaddr = ph.p_vaddr + (eh.e_phoff - ph.p_offset);
	}
	if (img->count == 0) {
		fprintf(stderr, "%s: no loadable segment\n", path);
		return false;
	}
	img->entry = eh.e_entry;
	return true;
}

/* Pushes bytes below *sp in the stack region; returns their address. */
static uint64_t push_bytes(struct region *stack, uint64_t *sp, const void *data,
			   size_t len)
{
	*sp -= len;
	memcpy(stack->bytes + (*sp - stack->start), data, len);
	return *sp;
}

static bool build_stack(struct image *img, Elf *elf, uint64_t phdr_vaddr)
{
	struct region *stack = add_region(img, STACK_TOP - STACK_SIZE, STACK_SIZE);
	if (!stack)
		return false;
	stack->writable = true;
	uint64_t sp = STACK_TOP;
	uint64_t execfn = push_bytes(stack, &sp, img->path, strlen(img->path) + 1);
	/* Fixed "random" bytes: the history must be the same every run. */
	static const uint8_t random_bytes[16] = { 1, 2, 3, 4, 5, 6, 7, 8,
						  9, 10, 11, 12, 13, 14, 15, 16 };
	uint64_t at_random = push_bytes(stack, &sp, random_bytes, 16);
	sp &= ~15ull;

	GElf_Ehdr eh;
	size_t phnum = 0;
	gelf_getehdr(elf, &eh);
	elf_getphdrnum(elf, &phnum);
	const uint64_t auxv[][2] = {
		{ AT_PHDR, phdr_vaddr }, { AT_PHENT, sizeof(Elf64_Phdr) },
		{ AT_PHNUM, phnum }, { AT_PAGESZ, PAGE_SIZE }, { AT_ENTRY, eh.e_entry },
		{ AT_RANDOM, at_random }, { AT_EXECFN, execfn }, { AT_NULL, 0 },
	};
	memcpy(img->auxv, auxv, sizeof(auxv));
	img->auxv_len = sizeof(auxv);

	/* From the top down: auxv, envp (empty), argv, argc; rsp is 16-byte
	 * aligned at argc, as the ABI requires at process entry. */
	size_t words = 1 + 2 + 1 + sizeof(auxv) / 8;
	if ((sp - words * 8) % 16)
		sp -= 8;
	push_bytes(stack, &sp, auxv, sizeof(auxv));
	const uint64_t vectors[] = { 1, execfn, 0, 0 }; /* argc argv[0] NULL NULL */
	push_bytes(stack, &sp, vectors, sizeof(vectors));
	img->initial_rsp = sp;
	return true;
}

bool image_load(struct image *img, const char *path)
{
	memset(img, 0, sizeof(*img));
	char resolved[PATH_MAX];
	if (!realpath(path, resolved) || !(img->path = strdup(resolved))) {
		perror(path);
		return false;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return false;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	bool ok = elf && elf_kind(elf) == ELF_K_ELF;
	uint64_t phdr_vaddr = 0;
	if (!ok)
		fprintf(stderr, "%s: not an ELF file\n", path);
	ok = ok && load_segments(img, elf, path, &phdr_vaddr) &&
	     build_stack(img, elf, phdr_vaddr);
	elf_end(elf);
	close(fd);
	if (!ok)
		image_free(img);
	return ok;
}

void image_free(struct image *img)
{
	for (size_t i = 0; i < img->count; i++)
		free(img->regions[i].bytes);
	free(img->regions);
	free(img->path);
	memset(img, 0, sizeof(*img));
}
