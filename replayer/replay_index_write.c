/*
 * replay_index_write.c — encodes a replay index (man/ttreplay-index.5):
 * each snapshot's state in a zstd frame of its own, then the directory
 * (figures, future image, snapshot table, segment summaries, frames'
 * places and CRCs) in the last frame. Snapshots share most memory pages
 * with the one before (copy on write), so a snapshot's frame stores only
 * the pages that changed since it, except every REPLAY_INDEX_WHOLE_EVERY
 * snapshot, stored whole so that reading any one decodes a few frames.
 *
 * A frame's payload is gathered on the pool's threads (replay_index_pool.h)
 * with its compression: gathering only reads the states (an image's pages
 * are walked, never looked up: a lookup updates the image's cache of
 * recent pages, and two frames read the same image), and every state a
 * frame reads stays until the frame is taken, on the caller's thread,
 * which alone frees states, reads them back or changes page counts.
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/replay_index.h"
#include "replayer/replay_index_pool.h"
#include "replayer/replay_index_stream.h"
#include "replayer/wide_changes.h"
#include "trace-format/crc32c.h"

struct frame_ref {
	uint64_t offset, compressed, payload;
	uint32_t crc;
};

struct replay_index_writer {
	FILE *f;
	struct index_pool *pool; /* makes the snapshots' frames */
	struct frame_ref *frames;
	struct resim_state **owned; /* per frame: its state when the writer owns it */
	size_t n_frames, cap_frames;
	size_t n_written;        /* frames in the file so far */
	const struct resim_state *last; /* the state added last (the next one's base) */
	bool failed;
	unsigned jobs;
	size_t owned_in_flight;  /* owned states of frames not yet in the file */
};

/* What put_* write to. */
struct writer {
	struct index_out out;
	bool failed;
};

static void put_words(struct index_out *o, const uint64_t *w, size_t n)
{
	uint8_t b[512];
	while (n) {
		size_t k = n < sizeof(b) / 8 ? n : sizeof(b) / 8;
		for (size_t i = 0; i < k; i++)
			for (unsigned j = 0; j < 8; j++)
				b[8 * i + j] = (uint8_t)(w[i] >> (8 * j));
		index_out_bytes(o, b, 8 * k);
		w += k;
		n -= k;
	}
}

static int compare_views(const void *a, const void *b)
{
	uint64_t x = ((const struct memory_image_page_view *)a)->page_addr;
	uint64_t y = ((const struct memory_image_page_view *)b)->page_addr;
	return x < y ? -1 : x > y;
}

struct view_list {
	struct memory_image_page_view *v;
	size_t n;
};

static void collect_view(void *ctx, const struct memory_image_page_view *p)
{
	struct view_list *l = ctx;
	l->v[l->n++] = *p;
}

/* m's pages by address, into l (to free). false when memory is short. */
static bool sorted_views(const struct memory_image *m, struct view_list *l)
{
	*l = (struct view_list){ calloc(memory_image_page_count(m) + 1, sizeof(*l->v)), 0 };
	if (!l->v)
		return false;
	memory_image_for_each_page(m, collect_view, l);
	qsort(l->v, l->n, sizeof(*l->v), compare_views);
	return true;
}

/* A page stored in full, as its difference (XOR) from the base page: the
 * previous snapshot's page at the same address, which most often differs
 * in a few words (zstd then sees mostly zeros). */
static void put_page(struct writer *w, const struct memory_image_page_view *p,
		     const struct memory_image_page_view *b)
{
	static __thread uint64_t known[MEMORY_IMAGE_PAGE / 64];
	static __thread uint8_t data[MEMORY_IMAGE_PAGE];
	memcpy(known, p->known, sizeof(known));
	memcpy(data, p->data, sizeof(data));
	if (b) {
		index_xor(known, b->known, sizeof(known));
		index_xor(data, b->data, sizeof(data));
	}
	put_words(&w->out, known, MEMORY_IMAGE_PAGE / 64);
	index_out_bytes(&w->out, data, MEMORY_IMAGE_PAGE);
	if (p->valid_from)
		put_words(&w->out, p->valid_from, MEMORY_IMAGE_PAGE / 8);
}

/* Whether p is the base's page b: shared, or (a snapshot read back from
 * the spill file has copies) equal. */
static bool same_page(const struct memory_image_page_view *p, const struct memory_image_page_view *b)
{
	return p->identity == b->identity ||
	       (memcmp(p->known, b->known, MEMORY_IMAGE_PAGE / 8) == 0 &&
		memcmp(p->data, b->data, MEMORY_IMAGE_PAGE) == 0);
}

/* IMAGE: page count, then per page (by address) its page number's delta
 * and either 1 (the base's page at that address) or 0 and the page.
 * base: the previous snapshot's image (NULL: none, or a whole snapshot). */
static void put_image(struct writer *w, const struct memory_image *m,
		      const struct memory_image *base)
{
	struct view_list l, bl = { 0 };
	if (!sorted_views(m, &l) || (base && !sorted_views(base, &bl))) {
		free(l.v);
		w->failed = true;
		return;
	}
	index_out_varint(&w->out, l.n);
	uint64_t prev = 0;
	size_t j = 0; /* the base's first page not below p */
	for (size_t i = 0; i < l.n; i++) {
		const struct memory_image_page_view *p = &l.v[i];
		index_out_varint(&w->out, (p->page_addr >> 12) - prev);
		prev = p->page_addr >> 12;
		while (j < bl.n && bl.v[j].page_addr < p->page_addr)
			j++;
		const struct memory_image_page_view *b =
			j < bl.n && bl.v[j].page_addr == p->page_addr ? &bl.v[j] : NULL;
		if (b && same_page(p, b)) {
			index_out_varint(&w->out, 1);
			continue;
		}
		index_out_varint(&w->out, 0);
		put_page(w, p, b);
	}
	free(l.v);
	free(bl.v);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* PAGE SET: present flag, count, page numbers as ascending deltas. */
static void put_page_set(struct writer *w, const struct code_page_set *set)
{
	index_out_varint(&w->out, set != NULL);
	if (!set)
		return;
	size_t n = code_page_set_count(set);
	uint64_t *pages = malloc((n + 1) * sizeof(*pages));
	if (!pages) {
		w->failed = true;
		return;
	}
	code_page_set_list(set, pages);
	qsort(pages, n, sizeof(*pages), compare_u64);
	index_out_varint(&w->out, n);
	for (size_t i = 0; i < n; i++)
		index_out_varint(&w->out, pages[i] - (i ? pages[i - 1] : 0));
	free(pages);
}

static void put_regs(struct index_out *o, const struct emu_regs *r)
{
	put_words(o, r->gpr, EMU_GPR_COUNT);
	const uint64_t words[] = { r->rip, r->rflags, r->fs_base, r->gs_base, r->seg_cs, r->seg_ss,
				   r->seg_ds, r->seg_es, r->seg_fs, r->seg_gs, r->fcw, r->fsw,
				   r->ftw, r->fop, r->fip, r->fdp, r->mxcsr };
	put_words(o, words, sizeof(words) / sizeof(words[0]));
	for (unsigned i = 0; i < 8; i++)
		index_out_bytes(o, r->st[i].bytes, sizeof(r->st[i].bytes));
	for (unsigned i = 0; i < 32; i++)
		index_out_bytes(o, r->zmm[i].b, sizeof(r->zmm[i].b));
	put_words(o, r->k, 8);
}

static void put_position(struct index_out *o, const struct cursor_position *p)
{
	index_out_varint(o, p->ended);
	index_out_varint(o, p->chunk);
	index_out_varint(o, p->offset);
}

/* CACHE: each stored block as its XOR with the base's (the previous
 * snapshot's copy of the same thread's cache), where that has one. */
static void put_cache(struct index_out *o, const struct sparse_copy *c,
		      const struct sparse_copy *base)
{
	index_out_varint(o, c->blocks != NULL);
	if (!c->blocks)
		return;
	size_t n = sparse_copy_blocks(c->size), stored = 0;
	for (size_t i = 0; i < n; i++)
		stored += c->blocks[i] != NULL;
	index_out_varint(o, c->size);
	index_out_varint(o, stored);
	bool based = base && base->blocks && base->size == c->size;
	static __thread uint8_t block[SPARSE_BLOCK];
	for (size_t i = 0; i < n; i++)
		if (c->blocks[i]) {
			size_t len = sparse_copy_block_len(c->size, i);
			memcpy(block, c->blocks[i], len);
			if (based && base->blocks[i])
				index_xor(block, base->blocks[i], len);
			index_out_varint(o, i);
			index_out_bytes(o, block, len);
		}
}

static void put_counts(struct index_out *o, const struct resim_counts *c)
{
	const uint64_t v[] = { c->syscalls, c->signals, c->checkpoints, c->native_steps,
			       (uint64_t)(int64_t)c->last_signal, c->last_signal_time, c->execs,
			       c->last_exec_time };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		index_out_varint(o, v[i]);
}

static void put_thread_state(struct index_out *o, const struct resim_thread_state *t,
			     const struct resim_thread_state *base)
{
	put_regs(o, &t->regs);
	const uint64_t v[] = { t->icount, t->started, t->finished, t->slice_time, t->slice_icount,
			       t->cache_hits, t->cache_misses, t->cache_hits_since_miss };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		index_out_varint(o, v[i]);
	put_cache(o, &t->cache, base ? &base->cache : NULL);
	put_position(o, &t->memory_pos);
	put_position(o, &t->events_pos);
}

/* A snapshot's frame: its state, based on base (the snapshot before; NULL
 * when stored whole). */
static void put_state(struct writer *w, const struct resim_state *st, const struct resim_state *base)
{
	struct index_out *o = &w->out;
	index_out_varint(o, st->time);
	index_out_varint(o, st->n_threads);
	index_out_varint(o, st->current);
	index_out_varint(o, st->clock_offset);
	index_out_varint(o, st->transition_time);
	for (size_t i = 0; i < st->n_threads; i++)
		put_thread_state(o, &st->threads[i],
				 base && i < base->n_threads ? &base->threads[i] : NULL);
	put_page_set(w, st->code_pages);
	put_image(w, st->image, base ? base->image : NULL);
}

/* A segment's summaries (what the segment from a snapshot to the next
 * wrote and executed): the one place they are written. */
static void put_segment_summaries(struct writer *w, const struct replay_snapshot *snap)
{
	put_page_set(w, snap->written_pages);
	put_page_set(w, snap->code_pages);
	put_page_set(w, snap->read_pages);
}

static void put_summary(struct writer *w, const struct replay_index_contents *c)
{
	const struct replay_summary *m = &c->summary;
	struct index_out *o = &w->out;
	const uint64_t v[] = { m->instructions, m->syscalls, m->signals, m->checkpoints,
			       m->native_steps, m->have_exit, (uint64_t)(int64_t)m->last_signal,
			       m->exit_consistent, (uint64_t)(m->seconds * 1e6),
			       c->summary_incomplete, c->snapshot_interval };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		index_out_varint(o, v[i]);
	index_out_signed(o, m->exit_status);
	index_out_varint(o, m->n_threads);
	for (size_t i = 0; i < m->n_threads; i++) {
		const struct replay_thread_summary *t = &m->threads[i];
		index_out_signed(o, t->tid);
		index_out_varint(o, t->stream);
		index_out_varint(o, t->instructions);
		index_out_varint(o, t->exited);
		index_out_signed(o, t->exit_status);
	}
}

/* WIDE CHANGES: count, then per change its start, length, time and
 * whether it mapped a file. */
static void put_wide_changes(struct writer *w, const struct wide_changes *c)
{
	index_out_varint(&w->out, c->n);
	for (size_t i = 0; i < c->n; i++) {
		index_out_varint(&w->out, c->v[i].lo);
		index_out_varint(&w->out, c->v[i].hi - c->v[i].lo);
		index_out_varint(&w->out, c->v[i].time);
		index_out_varint(&w->out, c->v[i].file);
	}
}

/* The directory: summary, future image and its wide changes, then per
 * snapshot its time, counts, segment summaries and frame. */
static void put_directory(struct writer *w, const struct replay_index_writer *iw,
			  const struct replay_index_contents *c)
{
	put_summary(w, c);
	put_image(w, c->future, NULL);
	put_wide_changes(w, memory_image_wide_changes(c->future));
	index_out_varint(&w->out, iw->n_frames);
	for (size_t i = 0; i < iw->n_frames; i++) {
		const struct replay_snapshot *snap = &c->snapshots[i];
		const struct frame_ref *r = &iw->frames[i];
		index_out_varint(&w->out, snap->icount);
		put_counts(&w->out, &snap->state.counts);
		put_segment_summaries(w, snap);
		index_out_varint(&w->out, r->offset);
		index_out_varint(&w->out, r->compressed);
		index_out_varint(&w->out, r->payload);
		index_out_varint(&w->out, r->crc);
	}
}

static void store_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void encode_header(uint8_t *h, const struct replay_index_identity *id,
			  const struct frame_ref *directory)
{
	memset(h, 0, REPLAY_INDEX_HEADER);
	memcpy(h, REPLAY_INDEX_MAGIC, 8);
	store_le(h + 8, REPLAY_INDEX_VERSION, 4);
	store_le(h + 12, REPLAY_INDEX_HEADER, 4);
	store_le(h + 16, id->trace_size, 8);
	store_le(h + 24, id->chunks, 8);
	store_le(h + 32, id->digest, 4);
	store_le(h + 36, directory->crc, 4);
	store_le(h + 40, directory->offset, 8);
	store_le(h + 48, directory->payload, 8);
	store_le(h + 60, crc32c(0, h, 60), 4);
}

/* A compressed frame at f's end: where it went in *r. Frees z. */
static int write_frame(FILE *f, struct frame_ref *r, struct index_frame *z)
{
	long start = ftell(f);
	bool ok = start >= 0 && fwrite(z->bytes, 1, z->len, f) == z->len;
	r->offset = (uint64_t)start;
	r->compressed = z->len;
	r->payload = z->payload;
	r->crc = z->crc;
	index_frame_free(z);
	return ok ? 0 : -1;
}

/* A frame's payload, gathered by fill(w, a, b): into *raw, *n (to free). */
static int gather(void (*fill)(struct writer *w, const void *a, const void *b), const void *a,
		  const void *b, uint8_t **raw, size_t *n)
{
	struct writer w = { 0 };
	if (index_out_open(&w.out) != 0)
		return -1;
	fill(&w, a, b);
	if (w.failed || w.out.bad) {
		index_out_free(&w.out);
		return -1;
	}
	*raw = w.out.buf;
	*n = w.out.used;
	return 0;
}

/* The state of frame k, when the writer owns it, goes. */
static void drop_owned(struct replay_index_writer *w, size_t k)
{
	if (!w->owned[k])
		return;
	resim_state_free(w->owned[k]);
	free(w->owned[k]);
	w->owned[k] = NULL;
}

/* Writes the oldest frame the pool holds. The state of the frame before
 * goes then: the last frame reading it (as its base) is made. */
static int write_oldest(struct replay_index_writer *w)
{
	struct index_frame z;
	size_t k = w->n_written++;
	int rc = index_pool_take(w->pool, &z);
	if (k)
		drop_owned(w, k - 1);
	if (w->owned[k])
		w->owned_in_flight--;
	return rc == 0 ? write_frame(w->f, &w->frames[k], &z) : -1;
}

/*
 * A snapshot stored whole costs about as much to compress as ten stored
 * as differences (sort of 300,000 numbers: 21 whole frames, 63% of the
 * compression's time). With jobs + 1 frames in flight, the other threads
 * soon had to wait for the whole one to be taken; with a group of frames
 * per thread they make the frames up to the next whole one meanwhile.
 */
struct replay_index_writer *replay_index_writer_open(FILE *f, unsigned jobs)
{
	struct replay_index_writer *w = calloc(1, sizeof(*w));
	uint8_t h[REPLAY_INDEX_HEADER] = { 0 }; /* written last, once the directory is */
	if (!w || !(w->pool = index_pool_open(jobs, REPLAY_INDEX_WHOLE_EVERY)) || fwrite(h, 1, sizeof(h), f) != sizeof(h)) {
		if (w)
			index_pool_close(w->pool);
		free(w);
		return NULL;
	}
	w->f = f;
	w->jobs = jobs ? jobs : 1;
	return w;
}

static void fill_state(struct writer *w, const void *st, const void *base)
{
	put_state(w, st, base);
}

/* A snapshot's payload (index_payload_fn): st, based on base. */
static int gather_state(const void *st, const void *base, uint8_t **raw, size_t *n)
{
	return gather(fill_state, st, base, raw, n);
}

/* Room for one more frame. */
static bool grow(struct replay_index_writer *w)
{
	if (w->n_frames < w->cap_frames)
		return true;
	size_t cap = w->cap_frames ? 2 * w->cap_frames : 64;
	struct frame_ref *n = realloc(w->frames, cap * sizeof(*n));
	if (n)
		w->frames = n;
	struct resim_state **o = n ? realloc(w->owned, cap * sizeof(*o)) : NULL;
	if (!o)
		return false;
	w->owned = o;
	memset(o + w->cap_frames, 0, (cap - w->cap_frames) * sizeof(*o));
	w->cap_frames = cap;
	return true;
}

/* The next frame, of st (owned: the writer's copy of it, or NULL). */
static int add_frame(struct replay_index_writer *w, const struct resim_state *st,
		     struct resim_state *owned)
{
	/* A state read back from the spill file holds pages of its own
	 * (tens of MB for a sort of 10^6 numbers): a ring full of them
	 * took 0.9 GB. Past a few in flight, the oldest frame goes first. */
	bool heavy = owned && w->owned_in_flight >= 2 * (size_t)w->jobs + 1;
	if (w->failed || !grow(w) ||
	    ((index_pool_full(w->pool) || heavy) && write_oldest(w) != 0)) {
		w->failed = true;
		if (owned) {
			resim_state_free(owned);
			free(owned);
		}
		return -1;
	}
	const struct resim_state *base = replay_index_snapshot_whole(w->n_frames) ? NULL : w->last;
	w->owned[w->n_frames++] = owned;
	w->owned_in_flight += owned != NULL;
	w->last = st;
	index_pool_give(w->pool, gather_state, st, base);
	return 0;
}

int replay_index_writer_add(struct replay_index_writer *w, const struct resim_state *st)
{
	return add_frame(w, st, NULL);
}

int replay_index_writer_add_owned(struct replay_index_writer *w, struct resim_state *st)
{
	struct resim_state *copy = malloc(sizeof(*copy));
	if (!copy) {
		resim_state_free(st);
		w->failed = true;
		return -1;
	}
	*copy = *st;
	return add_frame(w, copy, copy);
}

static void fill_directory(struct writer *w, const void *iw, const void *c)
{
	put_directory(w, iw, c);
}

int replay_index_writer_close(struct replay_index_writer *w, const struct replay_index_identity *id,
			      const struct replay_index_contents *c)
{
	struct frame_ref dir;
	struct index_frame z;
	uint8_t h[REPLAY_INDEX_HEADER];
	uint8_t *raw = NULL;
	size_t n;
	int rc = -1;
	while (!w->failed && index_pool_pending(w->pool))
		w->failed = write_oldest(w) != 0;
	bool compressed = !w->failed && c->n_snapshots == w->n_frames &&
			  gather(fill_directory, w, c, &raw, &n) == 0 && index_compress(raw, n, &z) == 0;
	free(raw);
	if (compressed && write_frame(w->f, &dir, &z) == 0) {
		encode_header(h, id, &dir);
		rc = fseek(w->f, 0, SEEK_SET) == 0 && fwrite(h, 1, sizeof(h), w->f) == sizeof(h) &&
				     fflush(w->f) == 0
			     ? 0
			     : -1;
	}
	index_pool_close(w->pool); /* every frame made: no state is read now */
	for (size_t k = 0; k < w->n_frames; k++)
		drop_owned(w, k);
	free(w->frames);
	free(w->owned);
	free(w);
	return rc;
}

bool replay_index_snapshot_whole(size_t k)
{
	return k % REPLAY_INDEX_WHOLE_EVERY == 0;
}

int replay_index_write(FILE *f, const struct replay_index_identity *id,
		       const struct replay_index_contents *c, unsigned jobs)
{
	struct replay_index_writer *w = replay_index_writer_open(f, jobs);
	if (!w)
		return -1;
	for (size_t i = 0; i < c->n_snapshots; i++)
		replay_index_writer_add(w, &c->snapshots[i].state);
	return replay_index_writer_close(w, id, c);
}
