/*
 * writer_sink.c — the output side of the writer, run on the compression
 * thread: compresses a chunk, places it in the file, writes it whole with
 * one pwrite, and at the end writes the index and trailer.
 *
 * Ring mode: chunks go into a circular region of ring_bytes after the
 * header. Placing a chunk evicts the oldest chunks it would overlap; an
 * evicted chunk's magic is zeroed first, so a scanning reader never finds
 * half-overwritten or stale chunks. Process-wide state carried by evicted
 * global-stream chunks (threads alive, modules mapped) is folded into a
 * baseline, written as a BASELINE chunk after every eviction that changed
 * it: with it and the kept chunks, replay can start at the oldest kept
 * checkpoint.
 */
#include "trace-format/writer_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "trace-format/bytes.h"
#include "trace-format/crc32c.h"
#include "trace-format/record_codec.h"

/* An encoded state record (thread or module) of the ring baseline. */
struct state_record {
	uint8_t *bytes;
	size_t len;
};

struct state_list {
	struct state_record *items;
	size_t n, cap;
};

struct placed_chunk {
	uint64_t offset, end, seq;
	bool global; /* a non-baseline chunk of stream 0 */
	struct state_list events; /* its state-changing records (ring mode) */
};

struct writer_sink {
	int fd;
	ZSTD_CCtx *cctx;
	uint8_t *cbuf; /* compressed payload */
	size_t cbuf_cap;
	uint8_t header[CHUNK_HEADER_MAX];
	uint64_t data_start, pos, high_water;
	uint64_t ring_bytes; /* 0: append only */
	uint32_t max_chunk_bytes;
	uint64_t next_seq, compressed_bytes;
	/* Chunks in the file in seq order (ring mode: only the live ones). */
	struct placed_chunk *chunks;
	size_t n_chunks, cap_chunks, first_live;
	/* Ring mode. */
	struct state_list baseline;
	uint64_t folded_global_chunks;
	struct record_decoder *decoder;
};

struct writer_sink *writer_sink_new(int fd, uint64_t header_size, uint64_t ring_bytes,
				    uint32_t max_chunk_bytes, int zstd_level)
{
	struct writer_sink *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = fd;
	s->data_start = s->pos = s->high_water = header_size;
	s->ring_bytes = ring_bytes;
	s->max_chunk_bytes = max_chunk_bytes;
	s->cbuf_cap = ZSTD_compressBound(max_chunk_bytes);
	s->cbuf = malloc(s->cbuf_cap);
	s->cctx = ZSTD_createCCtx();
	if (ring_bytes)
		s->decoder = malloc(sizeof(*s->decoder));
	if (!s->cbuf || !s->cctx || (ring_bytes && !s->decoder) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(s->cctx, ZSTD_c_compressionLevel, zstd_level))) {
		writer_sink_free(s);
		return NULL;
	}
	return s;
}

static void state_list_clear(struct state_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].bytes);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static bool state_list_add(struct state_list *l, const uint8_t *bytes, size_t len)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct state_record *items = realloc(l->items, cap * sizeof(*items));
		if (!items)
			return false;
		l->items = items;
		l->cap = cap;
	}
	uint8_t *copy = malloc(len);
	if (!copy)
		return false;
	memcpy(copy, bytes, len);
	l->items[l->n++] = (struct state_record){copy, len};
	return true;
}

static void state_list_remove(struct state_list *l, size_t i)
{
	free(l->items[i].bytes);
	l->items[i] = l->items[--l->n];
}

void writer_sink_free(struct writer_sink *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	for (size_t i = 0; i < s->n_chunks; i++)
		state_list_clear(&s->chunks[i].events);
	free(s->chunks);
	state_list_clear(&s->baseline);
	ZSTD_freeCCtx(s->cctx);
	free(s->cbuf);
	free(s->decoder);
	free(s);
}

uint64_t writer_sink_compressed_bytes(const struct writer_sink *s)
{
	return s->compressed_bytes;
}

static int write_all(int fd, const void *buf, size_t n, uint64_t off, char *err, size_t errlen)
{
	const uint8_t *p = buf;
	while (n) {
		ssize_t k = pwrite(fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, errlen, "writing the trace: %s", k < 0 ? strerror(errno) : "no progress");
			return -1;
		}
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* Records that change which threads and modules exist. */
static bool is_state_record(uint32_t type)
{
	return type == IDNA_REC_THREAD_CREATE || type == IDNA_REC_THREAD_EXIT ||
	       type == IDNA_REC_MODULE_LOAD || type == IDNA_REC_MODULE_UNMAP || type == IDNA_REC_EXECVE;
}

static bool collect_state_events(const struct chunk_buf *c, struct state_list *out)
{
	struct byte_reader r = {c->data, c->data + c->len, false};
	while (br_left(&r)) {
		const uint8_t *start = r.p;
		uint32_t type, len;
		if (!record_skip(&r, &type, &len))
			return false;
		if (is_state_record(type) && !state_list_add(out, start, (size_t)(r.p - start)))
			return false;
	}
	return true;
}

static bool decode_state(struct writer_sink *s, const struct state_record *sr, struct idna_record *rec)
{
	char err[8];
	struct byte_reader r = {sr->bytes, sr->bytes + sr->len, false};
	record_codec_reset(&s->decoder->state);
	return record_decode(s->decoder, &r, rec, err, sizeof(err)) == 1;
}

/* Applies one evicted state record to the baseline. */
static bool fold_event(struct writer_sink *s, const struct state_record *ev)
{
	struct idna_record e, b;
	if (!decode_state(s, ev, &e))
		return false;
	uint64_t lo = 0, hi = 0, tid = 0;
	switch (e.type) {
	case IDNA_REC_THREAD_CREATE:
	case IDNA_REC_MODULE_LOAD:
		return state_list_add(&s->baseline, ev->bytes, ev->len);
	case IDNA_REC_THREAD_EXIT:
		tid = e.u.thread_exit.tid;
		break;
	case IDNA_REC_MODULE_UNMAP:
		lo = e.u.module_unmap.addr;
		hi = lo + e.u.module_unmap.size;
		break;
	case IDNA_REC_EXECVE:
		hi = UINT64_MAX; /* a new address space: every module goes */
		break;
	}
	for (size_t i = s->baseline.n; i-- > 0;) {
		if (!decode_state(s, &s->baseline.items[i], &b))
			return false;
		bool gone = (b.type == IDNA_REC_THREAD_CREATE && e.type == IDNA_REC_THREAD_EXIT &&
			     b.u.thread_create.tid == tid) ||
			    (b.type == IDNA_REC_MODULE_LOAD && e.type != IDNA_REC_THREAD_EXIT &&
			     b.u.module_load.addr >= lo && b.u.module_load.addr < hi);
		if (gone)
			state_list_remove(&s->baseline, i);
	}
	return true;
}

/* Evicts the oldest live chunk; returns whether it changed the baseline. */
static int evict_oldest(struct writer_sink *s, char *err, size_t errlen)
{
	struct placed_chunk *pc = &s->chunks[s->first_live++];
	static const uint8_t zeros[4];
	if (write_all(s->fd, zeros, 4, pc->offset, err, errlen) < 0)
		return -1;
	int changed = 0;
	if (pc->global) {
		for (size_t i = 0; i < pc->events.n; i++)
			if (!fold_event(s, &pc->events.items[i])) {
				snprintf(err, errlen, "ring baseline: out of memory");
				return -1;
			}
		s->folded_global_chunks++;
		changed = 1;
	}
	state_list_clear(&pc->events);
	return changed;
}

/* Chooses where a chunk of len bytes goes, evicting what it overlaps.
 * Returns 1 when the baseline changed, 0 when not, -1 on error. */
static int place(struct writer_sink *s, uint64_t len, uint64_t *where, char *err, size_t errlen)
{
	if (!s->ring_bytes) {
		*where = s->pos;
		return 0;
	}
	if (len > s->ring_bytes / 4) {
		snprintf(err, errlen, "ring of %llu bytes too small for a %llu-byte chunk",
			 (unsigned long long)s->ring_bytes, (unsigned long long)len);
		return -1;
	}
	int changed = 0;
	if (s->pos + len > s->data_start + s->ring_bytes) {
		/* Wrap: everything between here and the region's end is older
		 * than what the new chunk will overwrite at the start. */
		while (s->first_live < s->n_chunks && s->chunks[s->first_live].offset >= s->pos) {
			int c = evict_oldest(s, err, errlen);
			if (c < 0)
				return -1;
			changed |= c;
		}
		s->pos = s->data_start;
	}
	while (s->first_live < s->n_chunks && s->chunks[s->first_live].offset < s->pos + len &&
	       s->chunks[s->first_live].offset >= s->pos) {
		int c = evict_oldest(s, err, errlen);
		if (c < 0)
			return -1;
		changed |= c;
	}
	*where = s->pos;
	return changed;
}

static bool remember_chunk(struct writer_sink *s, const struct placed_chunk *pc)
{
	if (s->first_live > 0 && s->first_live * 2 >= s->n_chunks) {
		/* Drop evicted entries so the table stays as small as the ring. */
		memmove(s->chunks, s->chunks + s->first_live, (s->n_chunks - s->first_live) * sizeof(*s->chunks));
		s->n_chunks -= s->first_live;
		s->first_live = 0;
	}
	if (s->n_chunks == s->cap_chunks) {
		size_t cap = s->cap_chunks ? 2 * s->cap_chunks : 256;
		struct placed_chunk *t = realloc(s->chunks, cap * sizeof(*t));
		if (!t)
			return false;
		s->chunks = t;
		s->cap_chunks = cap;
	}
	s->chunks[s->n_chunks++] = *pc;
	return true;
}

static int put_one(struct writer_sink *s, const struct chunk_buf *c, int *baseline_changed, char *err,
		   size_t errlen)
{
	size_t csize = ZSTD_compress2(s->cctx, s->cbuf, s->cbuf_cap, c->data, c->len);
	if (ZSTD_isError(csize)) {
		snprintf(err, errlen, "compressing a chunk: %s", ZSTD_getErrorName(csize));
		return -1;
	}
	struct chunk_header h = {
		.seq = s->next_seq,
		.stream = c->stream,
		.flags = c->flags,
		.stream_chunk_no = c->stream_chunk_no,
		.first_global_seq = c->first_global_seq,
		.first_icount = c->first_icount,
		.csize = (uint32_t)csize,
		.usize = (uint32_t)c->len,
		.n_records = c->n_records,
		.n_checkpoints = c->n_checkpoints,
		.payload_crc = crc32c(0, s->cbuf, csize),
		.checkpoints = c->checkpoints,
	};
	size_t hsize = chunk_header_encode(&h, s->header);
	uint64_t at;
	int changed = place(s, hsize + csize, &at, err, errlen);
	if (changed < 0)
		return -1;
	*baseline_changed |= changed;
	struct placed_chunk pc = {at, at + hsize + csize, h.seq,
				  c->stream == 0 && !(c->flags & IDNA_CHUNK_BASELINE), {0}};
	if (s->ring_bytes && pc.global && !collect_state_events(c, &pc.events)) {
		state_list_clear(&pc.events);
		snprintf(err, errlen, "ring mode: cannot index a global chunk");
		return -1;
	}
	/* One write per part; a reader ignores a chunk until both are whole. */
	if (write_all(s->fd, s->header, hsize, at, err, errlen) < 0 ||
	    write_all(s->fd, s->cbuf, csize, at + hsize, err, errlen) < 0 || !remember_chunk(s, &pc)) {
		state_list_clear(&pc.events);
		/* Disk full mid-chunk: the file ends with its last whole chunk
		 * again, so readers find no partial one. */
		if (at >= s->high_water) {
			int unused = ftruncate(s->fd, (off_t)at); /* else a reader skips it */
			(void)unused;
		}
		if (!err[0])
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->next_seq++;
	s->pos = pc.end;
	if (pc.end > s->high_water)
		s->high_water = pc.end;
	s->compressed_bytes += hsize + csize;
	return 0;
}

static int put_baseline(struct writer_sink *s, int *changed, char *err, size_t errlen)
{
	struct chunk_buf b = {.stream = 0, .flags = IDNA_CHUNK_BASELINE,
			      .stream_chunk_no = s->folded_global_chunks};
	for (size_t i = 0; i < s->baseline.n; i++)
		b.len += s->baseline.items[i].len;
	if (b.len > s->max_chunk_bytes) {
		snprintf(err, errlen, "ring mode: live threads and modules exceed one chunk");
		return -1;
	}
	/* A baseline chunk must hold at least one record. */
	static const uint8_t empty_stats[] = {IDNA_REC_CACHE_STATS, 2, 0, 0};
	b.data = malloc(b.len + sizeof(empty_stats));
	if (!b.data) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b.len = 0;
	for (size_t i = 0; i < s->baseline.n; i++) {
		memcpy(b.data + b.len, s->baseline.items[i].bytes, s->baseline.items[i].len);
		b.len += s->baseline.items[i].len;
	}
	b.n_records = (uint32_t)s->baseline.n;
	if (!b.n_records) {
		memcpy(b.data, empty_stats, sizeof(empty_stats));
		b.len = sizeof(empty_stats);
		b.n_records = 1;
	}
	*changed = 0;
	int rc = put_one(s, &b, changed, err, errlen);
	free(b.data);
	return rc;
}

int writer_sink_put(struct writer_sink *s, const struct chunk_buf *c, char *err, size_t errlen)
{
	err[0] = 0;
	int changed = 0;
	if (put_one(s, c, &changed, err, errlen) < 0)
		return -1;
	/* Writing a baseline may itself evict global chunks: repeat until
	 * the newest baseline covers everything evicted. Each round evicts
	 * at least one chunk, so this ends. */
	while (changed)
		if (put_baseline(s, &changed, err, errlen) < 0)
			return -1;
	return 0;
}

int writer_sink_finish(struct writer_sink *s, char *err, size_t errlen)
{
	size_t n = s->n_chunks - s->first_live;
	size_t cap = 8 + 10 + n * 10;
	uint8_t *buf = malloc(cap + TRAILER_SIZE);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct byte_writer w = {buf, buf + cap, false};
	bw_bytes(&w, INDEX_MAGIC, 8);
	bw_varint(&w, n);
	for (size_t i = s->first_live; i < s->n_chunks; i++)
		bw_varint(&w, s->chunks[i].offset);
	size_t len = (size_t)(w.p - buf);
	uint8_t *t = buf + len;
	memcpy(t, TRAILER_MAGIC, 8);
	store_le(t + 8, s->high_water, 8);
	store_le(t + 16, len, 4);
	store_le(t + 20, crc32c(0, buf, len), 4);
	int rc = write_all(s->fd, buf, len + TRAILER_SIZE, s->high_water, err, errlen);
	if (rc == 0 && ftruncate(s->fd, (off_t)(s->high_water + len + TRAILER_SIZE)) < 0) {
		snprintf(err, errlen, "truncating the trace: %s", strerror(errno));
		rc = -1;
	}
	free(buf);
	return rc;
}
