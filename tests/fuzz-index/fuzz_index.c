/*
 * fuzz_index.c — libFuzzer target for the replay index's reader
 * (replayer/replay_index_read.c): any byte string, written as a file, is
 * read as the index of a fixed trace. Built only by tests/fuzz/run.sh
 * (clang, -fsanitize=fuzzer); fuzz_index_tool.c makes its seeds.
 *
 * The header's trace identity and checksum are set to the expected ones
 * before reading, so that mutations reach the payload's decoder instead
 * of stopping at the header.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replayer/replay_index.h"
#include "tests/fuzz-index/sample_index.h"
#include "trace-format/crc32c.h"

static char path[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		const char *dir = getenv("TMPDIR");
		snprintf(path, sizeof(path), "%s/idx-fuzz-%d.idx", dir && *dir ? dir : P_tmpdir,
			 (int)getpid());
	}
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (size >= REPLAY_INDEX_HEADER) {
		const struct replay_index_identity *id = &sample_index_expect.id;
		for (unsigned i = 0; i < 8; i++) {
			copy[16 + i] = (uint8_t)(id->trace_size >> (8 * i));
			copy[24 + i] = (uint8_t)(id->chunks >> (8 * i));
		}
		for (unsigned i = 0; i < 4; i++)
			copy[32 + i] = (uint8_t)(id->digest >> (8 * i));
		uint32_t crc = crc32c(0, copy, 60);
		for (unsigned i = 0; i < 4; i++)
			copy[60 + i] = (uint8_t)(crc >> (8 * i));
	}
	FILE *f = fopen(path, "wb");
	if (!f) {
		free(copy);
		return 0;
	}
	fwrite(copy, 1, size, f);
	fclose(f);
	free(copy);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	struct replay_index_contents c;
	char why[160];
	if (replay_index_read(fd, size, &sample_index_expect, &c, why, sizeof(why)) ==
	    REPLAY_INDEX_LOADED)
		replay_index_contents_free(&c);
	close(fd);
	return 0;
}
