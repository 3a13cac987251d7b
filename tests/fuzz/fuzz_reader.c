/*
 * fuzz_reader.c — libFuzzer target: any byte string, written as a file,
 * is opened as a trace and every stream is read to its end or its first
 * error. Built only by tests/fuzz/run.sh (clang, -fsanitize=fuzzer).
 *
 * LLVMFuzzerTestOneInput is libFuzzer's entry point; the file path is
 * chosen once per process, so runs in parallel do not collide.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace-format/idna.h"

static char path[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		const char *dir = getenv("TMPDIR");
		snprintf(path, sizeof(path), "%s/idna-fuzz-%d.idna", dir && *dir ? dir : P_tmpdir, (int)getpid());
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	char err[256];
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	if (!r)
		return 0;
	for (size_t i = 0; i < idna_reader_stream_count(r); i++) {
		struct idna_iter *it = idna_iter_open(r, idna_reader_stream_id(r, i), NULL, err, sizeof(err));
		if (!it)
			continue;
		struct idna_record rec;
		while (idna_iter_next(it, &rec) == 1)
			;
		idna_iter_close(it);
	}
	for (size_t i = 0; i < idna_reader_checkpoint_count(r); i++) {
		const struct idna_checkpoint *cp = idna_reader_checkpoint(r, i);
		struct idna_iter *it = idna_iter_open(r, cp->stream, cp, err, sizeof(err));
		struct idna_record rec;
		if (it && idna_iter_next(it, &rec) == 1 && rec.type != IDNA_REC_CHECKPOINT)
			abort(); /* a checkpoint entry must point at a checkpoint record */
		idna_iter_close(it);
	}
	idna_reader_close(r);
	return 0;
}
