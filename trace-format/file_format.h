/*
 * file_format.h — the fixed parts of the file (man/idna.5, "FILE
 * LAYOUT"): the file header, chunk headers, the index and the trailer,
 * with their encoders and validating decoders.
 */
#ifndef TTREC_IDNA_FILE_FORMAT_H
#define TTREC_IDNA_FILE_FORMAT_H

#include "trace-format/idna.h"

#define IDNA_FILE_MAGIC "IDNATRC\x1a"
#define IDNA_VERSION_MAJOR 1
#define IDNA_VERSION_MINOR 6 /* 1: kernel-write records, 2: the pid, 3: a ring's switch key
                              * frames un-log the code pages, 4: kernel-write ranges,
                              * 5: the cache hashes 64-byte blocks, 6: the cache is
                              * direct-mapped (man/idna.5) */
#define IDNA_ARCH_X86_64 62
#define IDNA_FLAG_RING 1u

#define FILE_HEADER_PREFIX 16              /* magic, version, size */
#define FILE_HEADER_MAX (1u << 20)

#define CHUNK_MAGIC "ICHK"
#define CHUNK_HEADER_FIXED 64
#define CHUNK_CHECKPOINT_ENTRY 24
#define CHUNK_MAX_CHECKPOINTS 4096
#define CHUNK_MAX_USIZE (4u << 20)          /* readers refuse larger chunks */
#define CHUNK_HEADER_MAX (CHUNK_HEADER_FIXED + CHUNK_MAX_CHECKPOINTS * CHUNK_CHECKPOINT_ENTRY + 4)

#define INDEX_MAGIC "IDNAIDX1"
#define TRAILER_MAGIC "IDNAEND1"
#define TRAILER_SIZE 24

struct chunk_checkpoint {
	uint32_t offset;
	uint64_t global_seq, icount;
};

struct chunk_header {
	uint32_t header_size;
	uint64_t seq;
	uint32_t stream, flags;
	uint64_t stream_chunk_no;
	uint64_t first_global_seq, first_icount;
	uint32_t csize, usize, n_records, n_checkpoints;
	uint32_t payload_crc;
	const struct chunk_checkpoint *checkpoints; /* n_checkpoints entries */
};

/* Encodes the file header into a malloc'ed buffer; NULL on no memory. */
uint8_t *file_header_encode(const struct idna_header *h, size_t *size);

/* Decodes and validates the header at the start of a file of file_size
 * bytes. buf holds min(file_size, FILE_HEADER_MAX) bytes. Strings are
 * malloc'ed into h; free them with file_header_free. Returns the header's
 * size, or 0 with a message. */
size_t file_header_decode(const uint8_t *buf, size_t len, uint64_t file_size, struct idna_header *h,
			  char *err, size_t errlen);
void file_header_free(struct idna_header *h);

/* Encodes a chunk header; buf holds CHUNK_HEADER_MAX bytes. Returns its size. */
size_t chunk_header_encode(const struct chunk_header *c, uint8_t *buf);

/* Size of a chunk header whose first 8 bytes are at buf, or 0 when they
 * are not the start of a plausible chunk header. */
size_t chunk_header_size(const uint8_t *buf);

/* Decodes a complete chunk header (chunk_header_size bytes at buf) into c,
 * its checkpoints into cps (CHUNK_MAX_CHECKPOINTS entries). false with a
 * message when it is damaged or implausible. */
bool chunk_header_decode(const uint8_t *buf, size_t size, struct chunk_header *c,
			 struct chunk_checkpoint *cps, char *err, size_t errlen);

#endif
