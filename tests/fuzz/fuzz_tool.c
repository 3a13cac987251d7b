/*
 * fuzz_tool.c — the fuzzer's companion program (build/tests/bin/fuzz, and
 * the seed tool of tests/fuzz/run.sh):
 *   fuzz seeds DIR     writes the seed corpus: small valid traces (every
 *                      record type, several streams) so mutations start
 *                      from real structure;
 *   fuzz run FILE...   runs the fuzz target once on each file, without
 *                      libFuzzer: how a crash artifact is replayed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-format/idna.h"

static int seed(const char *dir, const char *name, const struct idna_writer_options *o, int streams, int per)
{
	char path[512], err[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	const char *argv[] = {"app"};
	struct idna_cpuid_entry cpuid = {1, 0, 0x906ea, 0, 0, 0};
	struct idna_header_info info = {1, argv, "/", 1, 1, &cpuid, 0};
	struct idna_writer *w = idna_writer_open(path, o, &info, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "fuzz: %s\n", err);
		return 1;
	}
	struct idna_regs regs;
	memset(&regs, 0, sizeof(regs));
	uint8_t bytes[64] = {0x90, 0xc3, 1, 2, 3};
	struct idna_mem_effect eff = {0x1000, 8, bytes};
	for (int i = 0; i < per; i++)
		for (int s = 0; s < streams; s++) {
			struct idna_record r = {.type = 1 + (uint32_t)(i % (IDNA_REC_TYPE_COUNT - 1))};
			regs.rip = 0x401000 + (uint64_t)i;
			switch (r.type) {
			case IDNA_REC_MISS: r.u.miss.value = bytes; r.u.miss.len = 1 + i % 8; r.u.miss.hits_before = (uint64_t)i; break;
			case IDNA_REC_KEY_FRAME: r.u.key.global_seq = (uint64_t)i; r.u.key.icount = 10 * (uint64_t)i; break;
			case IDNA_REC_CHECKPOINT: r.u.checkpoint.regs = &regs; r.u.checkpoint.icount = 10 * (uint64_t)i; break;
			case IDNA_REC_KERNEL: r.u.kernel.regs = &regs; r.u.kernel.nr = 1; break;
			case IDNA_REC_NONDET: r.u.nondet.n_out = 1; r.u.nondet.out[0] = 12345; break;
			case IDNA_REC_NATIVE: r.u.native.regs = &regs; r.u.native.insn = bytes; r.u.native.insn_len = 2;
				r.u.native.n_writes = 1; r.u.native.writes = &eff; break;
			case IDNA_REC_CODE_PAGE: r.u.code_page.bytes = bytes; r.u.code_page.len = 64; break;
			case IDNA_REC_THREAD_CREATE: r.u.thread_create.regs = &regs; r.u.thread_create.tid = 7; break;
			case IDNA_REC_MODULE_LOAD: r.u.module_load.path = "/lib/x.so"; r.u.module_load.build_id = bytes;
				r.u.module_load.build_id_len = 4; break;
			case IDNA_REC_EXECVE: r.u.execve.path = "/bin/true"; break;
			default: break;
			}
			if (idna_writer_append(w, (uint32_t)s, &r) < 0) {
				fprintf(stderr, "fuzz: %s\n", idna_writer_error(w));
				idna_writer_abandon(w);
				return 1;
			}
		}
	if (idna_writer_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz: %s\n", err);
		return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "seeds") == 0) {
		int rc = seed(argv[2], "types.idna", NULL, 1, 15);
		return rc | seed(argv[2], "streams.idna", NULL, 3, 30);
	}
	if (argc >= 3 && strcmp(argv[1], "run") == 0) {
		int rc = 0;
		for (int i = 2; i < argc; i++)
			rc |= run_file(argv[i]);
		return rc;
	}
	fprintf(stderr, "usage: fuzz seeds DIR | fuzz run FILE...\n");
	return 2;
}
