/*
 * reader_iter.c — iterates one stream's records: decompresses one chunk at
 * a time (memory bounded by the largest chunk), follows the stream's
 * chunks in order and refuses to step over a missing or damaged one.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "trace-format/crc32c.h"
#include "trace-format/miss_cursor.h"
#include "trace-format/reader_internal.h"
#include "trace-format/record_codec.h"

/* A decompressed chunk's bytes, shared by an iterator with its twin
 * (idna_iter_pair) while both read that chunk. */
struct chunk_bytes {
	unsigned users;
	uint32_t cap;
	uint8_t b[];
};

struct idna_iter {
	struct idna_reader *r;
	const struct reader_stream *stream;
	size_t next; /* position in stream->chunks of the chunk to load next */
	/* Made on the first chunk, grown to the chunks the stream has (most
	 * streams' are far smaller than the trace's largest), and released
	 * once the last chunk is in (dctx, cbuf) and read (ubuf): memory
	 * follows the streams being read, not every stream ever opened. */
	ZSTD_DCtx *dctx;
	uint8_t *cbuf;
	uint32_t cbuf_cap;
	struct chunk_bytes *chunk; /* the loaded chunk's bytes (ubuf) */
	const uint8_t *ubuf;
	struct idna_iter *twin; /* idna_iter_pair */
	struct byte_reader cur;
	bool loaded;
	bool started_mid_stream; /* from a checkpoint: no gap check before it */
	uint32_t cur_chunk;
	const struct reader_chunk *prev; /* the chunk before cur, for gap checks */
	uint32_t last_offset, last_size;
	/* idna_iter_skip_regs_before: in chunk skip_chunk, records before
	 * skip_before come without registers. */
	bool skipping;
	uint32_t skip_chunk, skip_before;
	/* idna_iter_want: the types returned (0: every type), and those of
	 * the others decoded for their delta state only. */
	uint32_t want, state_writers;
	char error[256];
	/* Last: its text buffer (64 KiB, for the strings of a record) is
	 * written before it is read, so it is left unzeroed and stays
	 * uncommitted memory until a record needs it. */
	struct record_decoder dec;
};

static const struct reader_stream *find_stream(const struct idna_reader *r, uint32_t id)
{
	for (size_t i = 0; i < r->n_streams; i++)
		if (r->streams[i].id == id)
			return &r->streams[i];
	return NULL;
}

static int fail(struct idna_iter *it, const char *fmt, unsigned long long a, unsigned long long b)
{
	snprintf(it->error, sizeof(it->error), fmt, a, b);
	return -1;
}

/* Copies chunk idx's bytes from the reader's recent chunks: false when
 * it is not among them. */
static bool cached_chunk(struct idna_reader *r, uint32_t idx, uint8_t *out, uint32_t usize)
{
	pthread_mutex_lock(&r->recent_lock);
	bool hit = false;
	for (unsigned i = 0; i < READER_RECENT_CHUNKS && !hit; i++)
		if (r->recent[i].valid && r->recent[i].idx == idx) {
			memcpy(out, r->recent[i].bytes, usize);
			hit = true;
		}
	pthread_mutex_unlock(&r->recent_lock);
	return hit;
}

/* How many recent chunks the reader keeps (READER_RECENT_BYTES). */
static unsigned recent_slots(const struct idna_reader *r)
{
	uint32_t largest = r->header.max_chunk_bytes ? r->header.max_chunk_bytes : 1;
	uint32_t n = READER_RECENT_BYTES / largest;
	return n < 1 ? 1 : n > READER_RECENT_CHUNKS ? READER_RECENT_CHUNKS : (unsigned)n;
}

static void keep_chunk(struct idna_reader *r, uint32_t idx, const uint8_t *bytes, uint32_t usize)
{
	pthread_mutex_lock(&r->recent_lock);
	struct reader_recent_chunk *c = &r->recent[r->recent_next];
	r->recent_next = (r->recent_next + 1) % recent_slots(r);
	if (!c->bytes)
		c->bytes = malloc(r->header.max_chunk_bytes);
	c->valid = c->bytes && usize <= r->header.max_chunk_bytes;
	if (c->valid) {
		memcpy(c->bytes, bytes, usize);
		c->idx = idx;
	}
	pthread_mutex_unlock(&r->recent_lock);
}

/* Makes *buf hold need bytes. */
static bool fit(uint8_t **buf, uint32_t *cap, uint32_t need)
{
	if (*buf && *cap >= need)
		return true;
	uint8_t *b = realloc(*buf, need ? need : 1);
	if (!b)
		return false;
	*buf = b;
	*cap = need;
	return true;
}

static void drop_bytes(struct idna_iter *it)
{
	if (it->chunk && --it->chunk->users == 0)
		free(it->chunk);
	it->chunk = NULL;
	it->ubuf = NULL;
}

/* Makes it->chunk bytes of its own, of at least need bytes. */
static bool own_bytes(struct idna_iter *it, uint32_t need)
{
	if (it->chunk && it->chunk->users == 1 && it->chunk->cap >= need)
		return true;
	drop_bytes(it);
	it->chunk = malloc(sizeof(*it->chunk) + (need ? need : 1));
	if (!it->chunk)
		return false;
	it->chunk->users = 1;
	it->chunk->cap = need;
	return true;
}

/* Takes the twin's bytes when it holds chunk idx loaded: the pair
 * decompresses each chunk once. */
static bool share_twins_bytes(struct idna_iter *it, uint32_t idx)
{
	const struct idna_iter *tw = it->twin;
	if (!tw || !tw->loaded || tw->cur_chunk != idx || !tw->chunk || tw->chunk == it->chunk)
		return false;
	drop_bytes(it);
	it->chunk = tw->chunk;
	it->chunk->users++;
	return true;
}

static void release_decompression(struct idna_iter *it)
{
	ZSTD_freeDCtx(it->dctx);
	free(it->cbuf);
	it->dctx = NULL;
	it->cbuf = NULL;
	it->cbuf_cap = 0;
}

static int load_chunk(struct idna_iter *it, size_t k)
{
	uint32_t idx = it->stream->chunks[k];
	const struct reader_chunk *c = &it->r->chunks[idx];
	if (c->info.damaged)
		return fail(it, "chunk %llu at offset %llu is damaged (checksum mismatch)", idx, c->info.file_offset);
	/* Chunks of a stream are numbered from 0; a baseline chunk carries the
	 * number of the first global chunk after it. A ring trace may start
	 * anywhere; any other gap means lost records. */
	uint64_t expect = !it->prev ? 0
			  : it->prev->info.stream_chunk_no + !(it->prev->info.flags & IDNA_CHUNK_BASELINE);
	bool ring_start = !it->prev && ((it->r->header.flags & IDNA_FLAG_RING) || it->started_mid_stream);
	if (!ring_start && !(c->info.flags & IDNA_CHUNK_BASELINE) && c->info.stream_chunk_no != expect)
		return fail(it, "records missing before chunk %llu (stream chunk %llu)", idx, c->info.stream_chunk_no);
	uint32_t usize = c->info.uncompressed_size;
	if (usize > it->r->header.max_chunk_bytes)
		return fail(it, "chunk %llu at offset %llu is larger than the trace's largest", idx, c->info.file_offset);
	if (share_twins_bytes(it, idx)) {
		/* decoded from the twin's copy */
	} else if (!own_bytes(it, usize)) {
		return fail(it, "out of memory for chunk %llu at offset %llu", idx, c->info.file_offset);
	} else if (!cached_chunk(it->r, idx, it->chunk->b, usize)) {
		uint32_t csize = c->info.compressed_size;
		if ((!it->dctx && !(it->dctx = ZSTD_createDCtx())) || !fit(&it->cbuf, &it->cbuf_cap, csize))
			return fail(it, "out of memory for chunk %llu at offset %llu", idx, c->info.file_offset);
		if (!reader_pread(it->r, it->cbuf, csize, c->info.file_offset + c->header_size) ||
		    crc32c(0, it->cbuf, csize) != c->payload_crc)
			return fail(it, "chunk %llu at offset %llu cannot be read or changed on disk", idx, c->info.file_offset);
		size_t n = ZSTD_decompressDCtx(it->dctx, it->chunk->b, usize, it->cbuf, csize);
		if (ZSTD_isError(n) || n != usize)
			return fail(it, "chunk %llu at offset %llu does not decompress to its size", idx, c->info.file_offset);
		keep_chunk(it->r, idx, it->chunk->b, usize);
	}
	it->ubuf = it->chunk->b;
	it->cur = (struct byte_reader){it->ubuf, it->ubuf + usize, false};
	it->cur_chunk = idx;
	it->loaded = true;
	it->prev = c;
	it->next = k + 1;
	if (it->next >= it->stream->n_chunks)
		release_decompression(it);
	record_codec_reset(&it->dec.state);
	return 0;
}

struct idna_iter *idna_iter_open(struct idna_reader *r, uint32_t stream, const struct idna_checkpoint *from,
				 char *err, size_t errlen)
{
	const struct reader_stream *s = find_stream(r, stream);
	if (!s) {
		snprintf(err, errlen, "no stream %u in the trace", stream);
		return NULL;
	}
	struct idna_iter *it = malloc(sizeof(*it));
	if (!it) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(it, 0, offsetof(struct idna_iter, dec));
	memset(&it->dec, 0, offsetof(struct record_decoder, text));
	it->dec.skip_regs = false;
	it->r = r;
	it->stream = s;
	if (from) {
		size_t k = 0;
		while (k < s->n_chunks && s->chunks[k] != from->chunk)
			k++;
		if (from->stream != stream || k == s->n_chunks || from->offset >= r->chunks[from->chunk].info.uncompressed_size) {
			idna_iter_close(it);
			snprintf(err, errlen, "checkpoint does not belong to stream %u", stream);
			return NULL;
		}
		it->started_mid_stream = true;
		if (load_chunk(it, k) < 0) {
			snprintf(err, errlen, "%s", it->error);
			idna_iter_close(it);
			return NULL;
		}
		it->cur.p += from->offset;
	}
	return it;
}

void idna_iter_want(struct idna_iter *it, uint32_t types)
{
	it->want = types;
	it->state_writers = record_state_writers(types);
}

/* Decodes the record at the iterator's place; false with the error set. */
static bool decode_here(struct idna_iter *it, struct idna_record *rec, bool skip_regs)
{
	if (record_decode_miss(&it->cur, rec))
		return true;
	const uint8_t *start = it->cur.p;
	it->dec.skip_regs = skip_regs;
	char why[160];
	if (record_decode(&it->dec, &it->cur, rec, why, sizeof(why)) < 0) {
		snprintf(it->error, sizeof(it->error), "chunk %u offset %zu: %s", it->cur_chunk,
			 (size_t)(start - it->ubuf), why);
		return false;
	}
	return true;
}

/* Whether the next record is one to return; steps over the others (for
 * the chunk's state, decoding those that carry what a wanted one reads).
 * false on error. */
static bool reach_wanted(struct idna_iter *it, bool *wanted)
{
	/* Runs of MISS records, the bulk of a stream, stepped over in one
	 * loop: a type byte and a one-byte length (a miss's payload is at
	 * most 10 + IDNA_MAX_READ bytes). */
	if (!(it->want & idna_type_bit(IDNA_REC_MISS))) {
		const uint8_t *p = it->cur.p, *end = it->cur.end;
		while (end - p >= 2 && p[0] == IDNA_REC_MISS && p[1] < 0x80 && p[1] <= end - p - 2)
			p += 2 + p[1];
		it->cur.p = p;
		if (p == end) {
			*wanted = false;
			return true;
		}
	}
	/* A wanted type below 128 is known by its first byte. */
	if (it->cur.p[0] < 0x80 && (it->want & idna_type_bit(it->cur.p[0]))) {
		*wanted = true;
		return true;
	}
	struct byte_reader ahead = it->cur;
	uint32_t type, len;
	/* A malformed header: record_decode says so. */
	*wanted = !record_skip(&ahead, &type, &len) || (it->want & idna_type_bit(type));
	if (*wanted)
		return true;
	if (!(it->state_writers & idna_type_bit(type))) {
		it->cur = ahead;
		return true;
	}
	struct idna_record scratch;
	return decode_here(it, &scratch, true);
}

int idna_iter_next(struct idna_iter *it, struct idna_record *rec)
{
	if (it->error[0])
		return -1;
	for (;;) {
		while (!it->loaded || br_left(&it->cur) == 0) {
			if (it->next >= it->stream->n_chunks) {
				/* The end: the last chunk's bytes are not needed any more. */
				drop_bytes(it);
				it->loaded = false;
				it->cur = (struct byte_reader){ NULL, NULL, false };
				return 0;
			}
			if (load_chunk(it, it->next) < 0)
				return -1;
		}
		bool wanted = true;
		if (it->want && !reach_wanted(it, &wanted))
			return -1;
		if (wanted)
			break;
	}
	const uint8_t *start = it->cur.p;
	bool skip_regs = it->skipping && it->cur_chunk == it->skip_chunk &&
			 (uint32_t)(start - it->ubuf) < it->skip_before;
	if (!decode_here(it, rec, skip_regs))
		return -1;
	it->last_offset = (uint32_t)(start - it->ubuf);
	it->last_size = (uint32_t)(it->cur.p - start);
	return 1;
}

int idna_iter_next_miss(struct idna_iter *it, struct idna_record *rec)
{
	if (!it->loaded || it->error[0] || (it->want && !(it->want & idna_type_bit(IDNA_REC_MISS))))
		return 0;
	const uint8_t *start = it->cur.p;
	if (!record_decode_miss(&it->cur, rec))
		return 0;
	it->last_offset = (uint32_t)(start - it->ubuf);
	it->last_size = (uint32_t)(it->cur.p - start);
	return 1;
}

void idna_iter_lend_misses(struct idna_iter *it, struct idna_miss_span *s)
{
	bool ok = it->loaded && !it->error[0] && (!it->want || (it->want & idna_type_bit(IDNA_REC_MISS)));
	*s = (struct idna_miss_span){ .p = ok ? it->cur.p : NULL,
				      .left = ok ? (size_t)(it->cur.end - it->cur.p) : 0 };
}

void idna_iter_took_misses(struct idna_iter *it, struct idna_miss_span *s)
{
	if (s->last) {
		it->cur.p = s->p;
		it->last_offset = (uint32_t)(s->last - it->ubuf);
		it->last_size = (uint32_t)(s->p - s->last);
	}
	*s = (struct idna_miss_span){ 0 };
}

void idna_iter_pair(struct idna_iter *a, struct idna_iter *b)
{
	if (a == b || a->r != b->r || a->stream != b->stream)
		return;
	if (a->twin)
		a->twin->twin = NULL;
	if (b->twin)
		b->twin->twin = NULL;
	a->twin = b;
	b->twin = a;
}

void idna_iter_skip_regs_before(struct idna_iter *it, uint32_t offset)
{
	it->skipping = true;
	it->skip_chunk = it->cur_chunk;
	it->skip_before = offset;
}

const char *idna_iter_error(const struct idna_iter *it)
{
	return it->error[0] ? it->error : NULL;
}

void idna_iter_position(const struct idna_iter *it, uint32_t *chunk, uint32_t *offset, uint32_t *encoded_size)
{
	*chunk = it->cur_chunk;
	*offset = it->last_offset;
	*encoded_size = it->last_size;
}

void idna_iter_close(struct idna_iter *it)
{
	if (!it)
		return;
	if (it->twin)
		it->twin->twin = NULL;
	release_decompression(it);
	drop_bytes(it);
	free(it);
}
