/*
 * gdb_objects.c — objects gdb reads that the trace holds only indirectly:
 * the auxiliary vector (from the initial stack as the replay knows it at the
 * start of history). A trace whose start a ring dropped has no initial
 * stack: the auxiliary vector and the list of shared libraries are then
 * made from the module list and the images' ELF headers.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/elf_image.h"
#include "replayer/gdb_target_internal.h"

/* Reads 8 bytes at the start of history: what the replay knows of them
 * there, from reads made later (see replay_session_read_memory). */
static bool load_word(struct replay_session *s, uint64_t addr, uint64_t *word)
{
	return replay_session_read_memory(s, addr, word, 8) == 8;
}

/* The auxiliary vector, from the initial stack as the replay knows it at
 * the start of history (the current time): the dynamic loader reads all
 * of it at start-up, within the first pass's opening part. */
void gdb_target_find_auxv(struct gdb_target *t)
{
	struct replay_session *s = t->s;
	if (s->sim.ring_start)
		return; /* history starts mid-run: rsp is not the initial stack */
	uint64_t rsp = emu_regs(s->sim.cpu)->gpr[EMU_RSP];
	uint64_t argc, word, addr = rsp;
	if (!load_word(s, addr, &argc) || argc > 4096)
		return;
	addr += 8 * (argc + 2); /* argc, argv[], NULL (never read: not known) */
	for (unsigned i = 0; i < 65536; i++, addr += 8) {
		if (!load_word(s, addr, &word))
			return;
		if (word == 0)
			break;
	}
	addr += 8;
	size_t n = 0;
	while (n + 16 <= sizeof(t->auxv)) {
		/* The loader reads every type but only the values it uses:
		 * an unknown value is given as 0. */
		uint64_t pair[2] = { 0, 0 };
		if (!load_word(s, addr + n, &pair[0]))
			return;
		load_word(s, addr + n + 8, &pair[1]);
		memcpy(t->auxv + n, pair, 16);
		n += 16;
		if (pair[0] == 0) {
			t->auxv_len = n;
			return;
		}
	}
}

static size_t read_replay_memory(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return replay_session_read_memory(ctx, addr, buf, len);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* What the walk over the mapped images collects. */
struct image_walk {
	struct gdb_target *t;
	struct elf_image program;
	bool have_program;
	uint64_t interp_base;
	FILE *xml; /* the library list, gdb's library-list-svr4 */
};

static void xml_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

static void find_program(void *ctx, const char *path, uint64_t base)
{
	struct image_walk *w = ctx;
	if (strcmp(path, w->t->exec_file) == 0 &&
	    elf_image_read(read_replay_memory, w->t->s, base, &w->program))
		w->have_program = true;
}

static void list_library(void *ctx, const char *path, uint64_t base)
{
	struct image_walk *w = ctx;
	struct elf_image img;
	if (strcmp(path, w->t->exec_file) == 0 ||
	    !elf_image_read(read_replay_memory, w->t->s, base, &img))
		return; /* the program, or not ELF (a data file mapped whole) */
	/* lm identifies the library to gdb; the loader's own link map is not
	 * known here, so the image's address stands for it. */
	fputs("<library name=\"", w->xml);
	xml_escaped(w->xml, path);
	fprintf(w->xml, "\" lm=\"0x%llx\" l_addr=\"0x%llx\" l_ld=\"0x%llx\" lmid=\"0x0\"/>",
		(unsigned long long)base, (unsigned long long)img.bias,
		(unsigned long long)img.dynamic);
	/* The interpreter may be listed under another name of the same file
	 * (/lib64 is a link to /usr/lib/x86_64-linux-gnu here). */
	if (w->program.interp[0] && strcmp(base_name(path), base_name(w->program.interp)) == 0)
		w->interp_base = base;
}

static void auxv_put(struct gdb_target *t, uint64_t type, uint64_t value)
{
	if (t->auxv_len + 16 > sizeof(t->auxv))
		return;
	memcpy(t->auxv + t->auxv_len, &type, 8);
	memcpy(t->auxv + t->auxv_len + 8, &value, 8);
	t->auxv_len += 16;
}

void gdb_target_images_from_modules(struct gdb_target *t)
{
	if (t->auxv_len || !t->exec_file[0] || !t->s->modules)
		return;
	struct image_walk w = { .t = t };
	char *xml = NULL;
	size_t xml_len = 0;
	w.xml = open_memstream(&xml, &xml_len);
	if (!w.xml)
		return;
	module_files_each_image(t->s->modules, find_program, &w);
	fputs("<library-list-svr4 version=\"1.0\">", w.xml);
	module_files_each_image(t->s->modules, list_library, &w);
	fputs("</library-list-svr4>", w.xml);
	if (fclose(w.xml) != 0 || !w.have_program) {
		free(xml);
		return;
	}
	t->libraries_xml = xml;
	auxv_put(t, AT_PHDR, w.program.phdr);
	auxv_put(t, AT_PHENT, sizeof(Elf64_Phdr));
	auxv_put(t, AT_PHNUM, w.program.phnum);
	auxv_put(t, AT_PAGESZ, 4096);
	auxv_put(t, AT_BASE, w.interp_base);
	auxv_put(t, AT_ENTRY, w.program.entry);
	auxv_put(t, AT_NULL, 0);
}
