/*
 * elf_image.c — ELF header and program headers of a mapped image, read
 * from memory the way the dynamic loader sees them.
 */
#include <elf.h>
#include <string.h>

#include "replayer/elf_image.h"

#define MAX_PHDRS 64

static bool read_all(elf_image_reader *read, void *ctx, uint64_t addr, void *buf, size_t len)
{
	return read(ctx, addr, buf, len) == len;
}

bool elf_image_read(elf_image_reader *read, void *ctx, uint64_t base, struct elf_image *out)
{
	memset(out, 0, sizeof(*out));
	Elf64_Ehdr eh;
	if (!read_all(read, ctx, base, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > MAX_PHDRS)
		return false;
	Elf64_Phdr ph[MAX_PHDRS];
	/* The headers lie in the first loadable segment, which maps the
	 * file's start at base. */
	if (!read_all(read, ctx, base + eh.e_phoff, ph, eh.e_phnum * sizeof(ph[0])))
		return false;
	bool have_bias = false;
	uint64_t interp_vaddr = 0, interp_size = 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		switch (ph[i].p_type) {
		case PT_LOAD:
			if (!have_bias && ph[i].p_offset == 0) {
				out->bias = base - ph[i].p_vaddr;
				have_bias = true;
			}
			break;
		case PT_PHDR: out->phdr = ph[i].p_vaddr; break;
		case PT_DYNAMIC: out->dynamic = ph[i].p_vaddr; break;
		case PT_INTERP:
			interp_vaddr = ph[i].p_vaddr;
			interp_size = ph[i].p_filesz;
			break;
		}
	}
	if (!have_bias)
		return false;
	out->entry = eh.e_entry ? out->bias + eh.e_entry : 0;
	/* Without PT_PHDR the headers are where the first segment put them. */
	out->phdr = out->phdr ? out->bias + out->phdr : base + eh.e_phoff;
	out->phnum = eh.e_phnum;
	if (out->dynamic)
		out->dynamic += out->bias;
	if (interp_size > 1 && interp_size <= sizeof(out->interp) &&
	    read_all(read, ctx, out->bias + interp_vaddr, out->interp, interp_size))
		out->interp[interp_size - 1] = '\0';
	else
		out->interp[0] = '\0';
	return true;
}
