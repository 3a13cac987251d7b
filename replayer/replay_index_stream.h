/*
 * replay_index_stream.h — the replay index's payload as a stream of
 * LEB128 varints and raw bytes inside one zstd frame (man/ttreplay-index.5),
 * written from a payload gathered in memory (one frame at a time), read
 * without holding the whole payload in memory.
 *
 * The reader never trusts a length: every count is checked against the
 * payload bytes left (index_in_fits) before anything is allocated for it,
 * and reading past the declared payload, a decompression error or a
 * frame checksum mismatch set `bad` with a reason. Like trace-format's
 * byte cursors, a bad stream yields zeros, so decoders check once in a while.
 */
#ifndef TTREC_REPLAY_INDEX_STREAM_H
#define TTREC_REPLAY_INDEX_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A frame's payload, gathered in memory so that it can be compressed
 * on another thread (replay_index_pool.h) while the next is gathered. */
struct index_out {
	uint8_t *buf;
	size_t used, cap;
	bool bad; /* out of memory */
};

/* 0, or -1 (out of memory). */
int index_out_open(struct index_out *o);
void index_out_bytes(struct index_out *o, const void *p, size_t n);
void index_out_varint(struct index_out *o, uint64_t v);
void index_out_signed(struct index_out *o, int64_t v);
void index_out_free(struct index_out *o);

/* A compressed frame: its bytes, their CRC-32C, the payload's length. */
struct index_frame {
	uint8_t *bytes;
	size_t len, cap;
	uint64_t payload;
	uint32_t crc;
};

/* Compresses n payload bytes into one zstd frame with its checksum, the
 * same bytes on any thread. Safe to call from several threads at once.
 * 0, or -1 (z then holds nothing). */
int index_compress(const uint8_t *raw, size_t n, struct index_frame *z);
void index_frame_free(struct index_frame *z);

struct index_in {
	int fd;
	struct ZSTD_DCtx_s *z;
	uint8_t *ibuf, *obuf;
	size_t ipos, ilen;      /* compressed bytes read, not yet decompressed */
	size_t opos, olen;      /* decompressed bytes not yet consumed */
	uint64_t compressed_left; /* in the file */
	uint64_t left;          /* payload bytes not yet consumed, as declared */
	uint32_t crc, want_crc; /* of the compressed bytes read; declared */
	bool frame_ended;
	bool bad;
	char why[128];
};

/* Reads a frame of `payload` bytes from fd's `compressed` next bytes,
 * whose CRC-32C must be crc. */
int index_in_open(struct index_in *in, int fd, uint64_t compressed, uint64_t payload,
		  uint32_t crc);
void index_in_close(struct index_in *in);
bool index_in_bytes(struct index_in *in, void *p, size_t n);
uint64_t index_in_varint(struct index_in *in);
int64_t index_in_signed(struct index_in *in);
bool index_in_bool(struct index_in *in);
/* A count read from the stream, refused (0 and bad) unless n items of at
 * least min_bytes each could still follow, and n <= max. */
uint64_t index_in_count(struct index_in *in, uint64_t min_bytes, uint64_t max);
/* Marks the stream bad with a reason (the first one sticks). */
void index_in_fail(struct index_in *in, const char *why);
/* Whether the payload was read exactly to its end and both checksums
 * hold: zstd's of the payload, and the CRC of the compressed bytes (an
 * edit that leaves the payload as it was, in an entropy table, say,
 * changes the file all the same). */
bool index_in_finish(struct index_in *in);

/* a ^= b, n bytes: pages and cache blocks are stored as their difference
 * from the previous snapshot's. */
static inline void index_xor(void *a, const void *b, size_t n)
{
	uint8_t *x = a;
	const uint8_t *y = b;
	for (size_t i = 0; i < n; i++)
		x[i] ^= y[i];
}

#endif
