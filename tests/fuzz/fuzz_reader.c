/*
 * fuzz_reader.c — libFuzzer target: any byte string, written as a file,
 * is opened as a trace and every stream is read to its end or its first
 * error, whole and by two paired iterators of complementary types. Built only by tests/fuzz/run.sh (clang, -fsanitize=fuzzer).
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
	/* As a replay reads a stream: two paired iterators of complementary
	 * types, the first one ahead. */
	uint32_t memory = idna_type_bit(IDNA_REC_MISS) | idna_type_bit(IDNA_REC_CODE_PAGE);
	for (size_t i = 0; i < idna_reader_stream_count(r); i++) {
		uint32_t id = idna_reader_stream_id(r, i);
		struct idna_iter *a = idna_iter_open(r, id, NULL, err, sizeof(err));
		struct idna_iter *b = idna_iter_open(r, id, NULL, err, sizeof(err));
		if (a && b) {
			idna_iter_want(a, memory);
			idna_iter_want(b, ~memory);
			idna_iter_pair(a, b);
			struct idna_record rec;
			for (int more = 1; more;) {
				more = 0;
				for (int k = 0; k < 3; k++)
					more |= idna_iter_next(a, &rec) == 1;
				more |= idna_iter_next(b, &rec) == 1;
			}
		}
		idna_iter_close(a);
		idna_iter_close(b);
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
