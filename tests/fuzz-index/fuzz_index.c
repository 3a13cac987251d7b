/*
 * fuzz_index.c — libFuzzer target for the replay index's reader
 * (replayer/replay_index_read.c): any byte string, written as a file, is
 * read as the index of a fixed trace. Built only by tests/fuzz/run.sh
 * (clang, -fsanitize=fuzzer); fuzz_index_tool.c makes its seeds.
 *
 * The header's trace identity and checksum are set to the expected ones
 * before reading, so that mutations reach the directory's decoder instead
 * of stopping at the header. An index that opens then has each snapshot
 * read, in order (each based on the one before) and each on the first
 * (a wrong base for all but the second: its pages of kind 1 may name
 * pages that base lacks).
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
	struct replay_index_file *file;
	char why[160];
	if (replay_index_open(fd, size, &sample_index_expect, &c, &file, why, sizeof(why)) !=
	    REPLAY_INDEX_LOADED) {
		close(fd);
		return 0;
	}
	struct resim_state first = { 0 }, prev = { 0 }, st;
	bool have_first = replay_index_read_snapshot(file, 0, NULL, &first, why, sizeof(why)) == 0;
	for (size_t k = 1; k < c.n_snapshots; k++) {
		if (have_first && replay_index_read_snapshot(file, k, &first, &st, why, sizeof(why)) == 0)
			resim_state_free(&st);
		const struct resim_state *base = k == 1 ? &first : &prev;
		if ((k == 1 ? have_first : prev.image != NULL) &&
		    replay_index_read_snapshot(file, k, base, &st, why, sizeof(why)) == 0) {
			resim_state_free(&prev);
			prev = st;
		} else
			resim_state_free(&prev);
	}
	resim_state_free(&prev);
	resim_state_free(&first);
	replay_index_file_close(file);
	replay_index_contents_free(&c);
	close(fd);
	return 0;
}
