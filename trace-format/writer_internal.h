/*
 * writer_internal.h — what the writer's producer side (writer.c) and its
 * output side (writer_sink.c, on the compression thread) share.
 */
#ifndef TTREC_IDNA_WRITER_INTERNAL_H
#define TTREC_IDNA_WRITER_INTERNAL_H

#include "trace-format/file_format.h"

/* Checkpoints one chunk may index; the chunk is ended early past this. */
#define WRITER_CHUNK_CHECKPOINTS 64

/* One chunk of records, filled by the producer, written by the sink. */
struct chunk_buf {
	uint8_t *data;
	size_t len, cap;
	uint32_t stream, flags;
	uint64_t stream_chunk_no, first_global_seq, first_icount;
	uint32_t n_records, n_checkpoints;
	struct chunk_checkpoint checkpoints[WRITER_CHUNK_CHECKPOINTS];
	struct chunk_buf *next_free;
};

struct writer_sink;

/* Takes over fd (already holding the header of header_size bytes). */
struct writer_sink *writer_sink_new(int fd, uint64_t header_size, uint64_t ring_bytes,
				    uint32_t max_chunk_bytes, int zstd_level);
/* Compresses and writes one chunk with the next sequence number. Returns
 * 0, or -1 with the message in err. */
int writer_sink_put(struct writer_sink *s, const struct chunk_buf *c, char *err, size_t errlen);
/* Writes the index and trailer. */
int writer_sink_finish(struct writer_sink *s, char *err, size_t errlen);
uint64_t writer_sink_compressed_bytes(const struct writer_sink *s);
/* Closes the file and frees everything. */
void writer_sink_free(struct writer_sink *s);

#endif
