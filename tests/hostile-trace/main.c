/*
 * hostile-trace — writes a well-formed trace whose contents are hostile,
 * for tests/faults.sh to check that ttreplay and ttdump stay bounded on it.
 * Usage: hostile-trace KIND FILE
 *   spin       the thread's code page is `jmp $` (eb fe) and a nondet record
 *              is pending, so the emulator never stops by itself; the stream
 *              declares a key frame 100000 instructions on
 *   spin-tail  the same with nothing after the nondet record
 *   big-cache  spin with the largest prediction cache the format allows
 *              (2^24 entries, 128 MiB per thread) for 40 M instructions
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/emu.h"
#include "trace-format/trace_regs.h"
#include "trace-format/idna.h"

#define CODE 0x10000u
#define PAGE 4096u

static struct idna_writer *w;

static void append(uint32_t stream, const struct idna_record *r)
{
	if (idna_writer_append(w, stream, r) != 0) {
		fprintf(stderr, "hostile-trace: %s\n", idna_writer_error(w));
		exit(1);
	}
}

static void spin(bool declare_end, uint64_t end)
{
	static struct emu_regs regs;
	regs.rip = CODE;
	struct idna_regs image;
	trace_regs_from_emu(&regs, &image);
	struct idna_record cp = { .type = IDNA_REC_CHECKPOINT };
	cp.u.checkpoint.regs = &image;
	append(1, &cp);
	static uint8_t code[PAGE];
	for (size_t i = 0; i < PAGE; i += 2)
		memcpy(code + i, "\xeb\xfe", 2); /* jmp $ */
	struct idna_record page = { .type = IDNA_REC_CODE_PAGE };
	page.u.code_page.addr = CODE;
	page.u.code_page.bytes = code;
	page.u.code_page.len = PAGE;
	append(1, &page);
	struct idna_record cpuid = { .type = IDNA_REC_NONDET };
	cpuid.u.nondet.kind = 0;
	cpuid.u.nondet.n_in = 2;
	cpuid.u.nondet.n_out = 4;
	append(1, &cpuid);
	if (declare_end) {
		struct idna_record key = { .type = IDNA_REC_KEY_FRAME };
		key.u.key.reason = IDNA_KEY_KERNEL;
		key.u.key.global_seq = 1;
		key.u.key.icount = end;
		append(1, &key);
	}
	struct idna_record exit_rec = { .type = IDNA_REC_PROCESS_EXIT };
	append(0, &exit_rec);
}

int main(int argc, char **argv)
{
	bool big = argc == 3 && strcmp(argv[1], "big-cache") == 0;
	if (argc != 3 || (strcmp(argv[1], "spin") != 0 && strcmp(argv[1], "spin-tail") != 0 && !big)) {
		fprintf(stderr, "usage: hostile-trace spin|spin-tail|big-cache FILE\n");
		return 64;
	}
	char err[256];
	const char *args[] = { "hostile" };
	struct idna_header_info info = { .argc = 1, .argv = args, .cwd = "/" };
	struct idna_writer_options opt = { .cache_log2_entries = big ? 24 : 0 };
	w = idna_writer_open(argv[2], &opt, &info, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "hostile-trace: %s\n", err);
		return 1;
	}
	spin(strcmp(argv[1], "spin-tail") != 0, big ? 40000000 : 100000);
	if (idna_writer_close(w, err, sizeof(err)) != 0) {
		fprintf(stderr, "hostile-trace: %s\n", err);
		return 1;
	}
	return 0;
}
