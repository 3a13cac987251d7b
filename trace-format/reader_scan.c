/*
 * reader_scan.c — finds the chunks of a trace: from the index when the
 * trailer and index are intact, otherwise by scanning from the end of the
 * file header, resynchronising on the chunk magic after damage. Every
 * chunk's header and payload checksum is verified here, once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "trace-format/bytes.h"
#include "trace-format/crc32c.h"
#include "trace-format/reader_internal.h"

bool reader_pread(const struct idna_reader *r, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;
	if (off > r->file_size || n > r->file_size - off)
		return false;
	while (n) {
		ssize_t k = pread(r->fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return true;
}

void reader_warn(struct idna_reader *r, const char *fmt, ...)
{
	if (r->warning[0])
		return; /* the first problem is the one to report */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->warning, sizeof(r->warning), fmt, ap);
	va_end(ap);
}

struct chunk_table {
	struct reader_chunk *items;
	size_t n, cap;
};

static void table_clear(struct chunk_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->items[i].checkpoints);
	t->n = 0;
}

static bool table_add(struct chunk_table *t, const struct reader_chunk *c)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct reader_chunk *items = realloc(t->items, cap * sizeof(*items));
		if (!items) {
			free(c->checkpoints);
			return false;
		}
		t->items = items;
		t->cap = cap;
	}
	t->items[t->n++] = *c;
	return true;
}

/* Reads and validates the chunk header at off, whose chunk must end by
 * limit. 1: *out filled; 0: no valid chunk there; -1: out of memory. */
static int read_chunk_at(struct idna_reader *r, uint64_t off, uint64_t limit, struct reader_chunk *out)
{
	static const size_t cps_size = CHUNK_MAX_CHECKPOINTS * sizeof(struct chunk_checkpoint);
	uint8_t fixed[8];
	if (off + CHUNK_HEADER_FIXED + 4 > limit || !reader_pread(r, fixed, 8, off))
		return 0;
	size_t hsize = chunk_header_size(fixed);
	if (!hsize || off + hsize > limit)
		return 0;
	uint8_t *buf = malloc(hsize);
	struct chunk_checkpoint *cps = malloc(cps_size);
	if (!buf || !cps) {
		free(buf);
		free(cps);
		return -1;
	}
	struct chunk_header h;
	char err[128];
	int ok = reader_pread(r, buf, hsize, off) && chunk_header_decode(buf, hsize, &h, cps, err, sizeof(err)) &&
		 off + hsize + h.csize <= limit && h.usize <= r->header.max_chunk_bytes &&
		 h.csize <= ZSTD_compressBound(r->header.max_chunk_bytes);
	free(buf);
	if (!ok) {
		free(cps);
		return 0;
	}
	struct chunk_checkpoint *kept = NULL;
	if (h.n_checkpoints) {
		kept = malloc(h.n_checkpoints * sizeof(*kept));
		if (!kept) {
			free(cps);
			return -1;
		}
		memcpy(kept, cps, h.n_checkpoints * sizeof(*kept));
	}
	free(cps);
	*out = (struct reader_chunk){
		.info = {.file_offset = off, .seq = h.seq, .stream = h.stream, .flags = h.flags,
			 .stream_chunk_no = h.stream_chunk_no, .first_global_seq = h.first_global_seq,
			 .first_icount = h.first_icount, .compressed_size = h.csize,
			 .uncompressed_size = h.usize, .n_records = h.n_records,
			 .n_checkpoints = h.n_checkpoints},
		.header_size = (uint32_t)hsize,
		.payload_crc = h.payload_crc,
		.checkpoints = kept,
	};
	return 1;
}

/* The chunks the index lists; false when there is no intact trailer and
 * index, or it names anything but valid chunks before the index. */
static bool read_index(struct idna_reader *r, struct chunk_table *t)
{
	uint8_t tr[TRAILER_SIZE];
	if (r->file_size < r->data_start + TRAILER_SIZE ||
	    !reader_pread(r, tr, TRAILER_SIZE, r->file_size - TRAILER_SIZE) ||
	    memcmp(tr, TRAILER_MAGIC, 8) != 0)
		return false;
	uint64_t off = load_le(tr + 8, 8), len = load_le(tr + 16, 4);
	if (off < r->data_start || off > r->file_size - TRAILER_SIZE || len != r->file_size - TRAILER_SIZE - off ||
	    len < 9)
		return false;
	uint8_t *buf = malloc(len);
	if (!buf)
		return false;
	bool ok = reader_pread(r, buf, len, off) && crc32c(0, buf, len) == load_le(tr + 20, 4) &&
		  memcmp(buf, INDEX_MAGIC, 8) == 0;
	struct byte_reader br = {buf + 8, buf + len, false};
	uint64_t n = ok ? br_varint(&br) : 0;
	ok = ok && !br.bad && n <= br_left(&br);
	for (uint64_t i = 0; ok && i < n; i++) {
		struct reader_chunk c;
		uint64_t at = br_varint(&br);
		ok = !br.bad && read_chunk_at(r, at, off, &c) == 1 && table_add(t, &c);
	}
	free(buf);
	if (!ok)
		table_clear(t);
	return ok;
}

/* Offset of the next chunk magic at or after from (before limit), or limit. */
static uint64_t find_magic(struct idna_reader *r, uint64_t from, uint64_t limit)
{
	uint8_t buf[65536];
	while (from + 4 <= limit) {
		size_t n = limit - from < sizeof(buf) ? (size_t)(limit - from) : sizeof(buf);
		if (!reader_pread(r, buf, n, from))
			return limit;
		uint8_t *hit = memmem(buf, n, CHUNK_MAGIC, 4);
		if (hit)
			return from + (uint64_t)(hit - buf);
		from += n - 3; /* a magic may straddle two blocks */
	}
	return limit;
}

static int scan(struct idna_reader *r, struct chunk_table *t, uint64_t limit)
{
	uint64_t pos = r->data_start;
	bool ring = r->header.flags & IDNA_FLAG_RING;
	while (pos < limit) {
		struct reader_chunk c;
		int got = read_chunk_at(r, pos, limit, &c);
		if (got < 0)
			return -1;
		if (got) {
			if (!table_add(t, &c))
				return -1;
			pos += c.header_size + c.info.compressed_size;
			continue;
		}
		uint64_t next = find_magic(r, pos + 1, limit);
		/* In a ring, stale bytes between chunks are expected; after a
		 * killed writer, a partial last chunk is too. */
		if (!ring && next < limit)
			reader_warn(r, "damaged data at offset %llu (%llu bytes skipped)", (unsigned long long)pos,
				    (unsigned long long)(next - pos));
		else if (!ring && pos + 4 <= limit)
			reader_warn(r, "incomplete chunk at offset %llu (trace was not closed)",
				    (unsigned long long)pos);
		pos = next;
	}
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	const struct reader_chunk *x = a, *y = b;
	return x->info.seq < y->info.seq ? -1 : x->info.seq > y->info.seq;
}

static void verify_payloads(struct idna_reader *r)
{
	uint8_t *buf = malloc(ZSTD_compressBound(r->header.max_chunk_bytes));
	for (size_t i = 0; i < r->n_chunks; i++) {
		struct reader_chunk *c = &r->chunks[i];
		uint64_t at = c->info.file_offset + c->header_size;
		c->info.damaged = !buf || !reader_pread(r, buf, c->info.compressed_size, at) ||
				  crc32c(0, buf, c->info.compressed_size) != c->payload_crc;
		if (c->info.damaged)
			reader_warn(r, "chunk %zu (stream %u, offset %llu) is damaged: checksum mismatch", i,
				    c->info.stream, (unsigned long long)c->info.file_offset);
	}
	free(buf);
}

int reader_load_chunks(struct idna_reader *r, char *err, size_t errlen)
{
	struct chunk_table t = {0};
	if (!read_index(r, &t)) {
		r->index_rebuilt = true;
		if (scan(r, &t, r->file_size) < 0) {
			table_clear(&t);
			free(t.items);
			snprintf(err, errlen, "out of memory while scanning the trace");
			return -1;
		}
	}
	if (t.n)
		qsort(t.items, t.n, sizeof(*t.items), by_seq);
	/* Two chunks claiming one sequence number: keep the first found. */
	size_t kept = 0;
	for (size_t i = 0; i < t.n; i++)
		if (kept == 0 || t.items[i].info.seq != t.items[kept - 1].info.seq)
			t.items[kept++] = t.items[i];
		else {
			reader_warn(r, "duplicate chunk sequence number %llu", (unsigned long long)t.items[i].info.seq);
			free(t.items[i].checkpoints);
		}
	r->chunks = t.items;
	r->n_chunks = kept;
	verify_payloads(r);
	return 0;
}

static int by_offset(const void *a, const void *b)
{
	const struct reader_chunk *x = *(const struct reader_chunk *const *)a;
	const struct reader_chunk *y = *(const struct reader_chunk *const *)b;
	return x->info.file_offset < y->info.file_offset ? -1 : x->info.file_offset > y->info.file_offset;
}

bool idna_reader_complete(const struct idna_reader *r, uint64_t *intact_bytes)
{
	bool damaged = false;
	for (size_t i = 0; i < r->n_chunks; i++)
		damaged |= r->chunks[i].info.damaged;
	if (!r->index_rebuilt && !damaged) {
		*intact_bytes = r->file_size;
		return true;
	}
	/* The chunks that follow each other from the header on without a gap
	 * or damage (a ring's wrapped layout aside, as it is written). */
	uint64_t end = r->data_start;
	const struct reader_chunk **order = malloc((r->n_chunks ? r->n_chunks : 1) * sizeof(*order));
	if (order) {
		for (size_t i = 0; i < r->n_chunks; i++)
			order[i] = &r->chunks[i];
		qsort(order, r->n_chunks, sizeof(*order), by_offset);
		for (size_t i = 0; i < r->n_chunks; i++) {
			const struct reader_chunk *c = order[i];
			if (c->info.file_offset != end || c->info.damaged)
				break;
			end += c->header_size + c->info.compressed_size;
		}
		free(order);
	}
	*intact_bytes = end;
	return false;
}
