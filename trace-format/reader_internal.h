/*
 * reader_internal.h — the reader's tables, shared by the files that build
 * them (reader_scan.c), serve them (reader.c) and iterate records
 * (reader_iter.c).
 */
#ifndef TTREC_IDNA_READER_INTERNAL_H
#define TTREC_IDNA_READER_INTERNAL_H

#include <pthread.h>

#include "trace-format/file_format.h"

struct reader_chunk {
	struct idna_chunk_info info;
	uint32_t header_size, payload_crc;
	struct chunk_checkpoint *checkpoints; /* info.n_checkpoints, malloc'ed */
};

struct reader_stream {
	uint32_t id;
	uint32_t *chunks; /* indices into the chunk table, in record order */
	size_t n_chunks;
};

/* Decompressed chunks kept for iterators that need them again: at most
 * this many, and at most READER_RECENT_BYTES of them (128 chunks of the
 * default 128 KiB). The events cursor of python3's loop runs up to about
 * 100 chunks ahead of the memory cursor: with 32 kept, a quarter of the
 * chunks were decompressed twice. */
#define READER_RECENT_CHUNKS 128
#define READER_RECENT_BYTES (16u << 20)

struct idna_reader {
	int fd;
	uint64_t file_size;
	struct idna_header header;
	uint64_t data_start;
	struct reader_chunk *chunks; /* sorted by seq */
	size_t n_chunks;
	struct reader_stream *streams; /* sorted by id */
	size_t n_streams;
	struct idna_checkpoint *checkpoints; /* by stream, then record order */
	size_t n_checkpoints;
	struct idna_thread_info *threads;
	size_t n_threads;
	bool initial_exited;         /* the initial thread's thread-exit was read */
	int64_t initial_exit_status;
	struct idna_module_info *modules;
	size_t n_modules;
	bool index_rebuilt;
	char warning[256];
	/* The chunks iterators decompressed last (reader_iter.c), the
	 * oldest replaced first. A replay going back to a saved position
	 * opens its streams' cursors there again and again, mostly in the
	 * same chunk; and of a replay's two cursors over one stream, the one
	 * for events runs ahead over chunks of memory records only, which
	 * the other then needs. Iterators of several threads may share the
	 * reader: the lock guards it. */
	pthread_mutex_t recent_lock;
	struct reader_recent_chunk {
		bool valid;
		uint32_t idx;
		uint8_t *bytes;      /* max_chunk_bytes, allocated on first use */
	} recent[READER_RECENT_CHUNKS];
	unsigned recent_next;        /* the slot replaced next */
};

/* Fills r->chunks from the index, or by scanning when the index is
 * missing or damaged; checks every payload's checksum. */
int reader_load_chunks(struct idna_reader *r, char *err, size_t errlen);

void reader_warn(struct idna_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads exactly n bytes at off; false on a short read or error. */
bool reader_pread(const struct idna_reader *r, void *buf, size_t n, uint64_t off);

#endif
