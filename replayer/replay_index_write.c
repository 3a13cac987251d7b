/*
 * replay_index_write.c — encodes a replay index (man/ttreplay-index.5).
 * Snapshots share most memory pages with each other (copy on write), so
 * a page is stored the first time an image refers to it and later
 * referred to by its number: the file holds each distinct page once.
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/replay_index.h"
#include "replayer/replay_index_stream.h"
#include "trace-format/crc32c.h"

/* Page identity -> its number in the file: open addressing over the
 * pointers images share. */
struct page_numbers {
	const void **keys;
	uint64_t *numbers;
	size_t capacity, count;
};

static size_t slot_of(const struct page_numbers *t, const void *key)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (t->capacity - 1);
}

static bool numbers_grow(struct page_numbers *t)
{
	struct page_numbers n = { calloc(t->capacity * 2, sizeof(void *)),
				  calloc(t->capacity * 2, sizeof(uint64_t)), t->capacity * 2, t->count };
	if (!n.keys || !n.numbers) {
		free(n.keys);
		free(n.numbers);
		return false;
	}
	for (size_t i = 0; i < t->capacity; i++)
		if (t->keys[i]) {
			size_t j = slot_of(&n, t->keys[i]);
			while (n.keys[j])
				j = (j + 1) & (n.capacity - 1);
			n.keys[j] = t->keys[i];
			n.numbers[j] = t->numbers[i];
		}
	free(t->keys);
	free(t->numbers);
	*t = n;
	return true;
}

/* The number of key, or (a new page) UINT64_MAX after giving it the next
 * one; UINT64_MAX with *failed when memory is short. */
static uint64_t number_of(struct page_numbers *t, const void *key, bool *failed)
{
	if (2 * (t->count + 1) > t->capacity && !numbers_grow(t)) {
		*failed = true;
		return UINT64_MAX;
	}
	size_t i = slot_of(t, key);
	while (t->keys[i]) {
		if (t->keys[i] == key)
			return t->numbers[i];
		i = (i + 1) & (t->capacity - 1);
	}
	t->keys[i] = key;
	t->numbers[i] = t->count++;
	return UINT64_MAX;
}

struct writer {
	struct index_out out;
	struct page_numbers pages;
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

/* A page stored in full, as its difference (XOR) from the base page: the
 * previous snapshot's page at the same address, which most often differs
 * in a few words (zstd then sees mostly zeros). */
static void put_page(struct writer *w, const struct memory_image_page_view *p,
		     const struct memory_image *base)
{
	static __thread uint64_t known[MEMORY_IMAGE_PAGE / 64];
	static __thread uint8_t data[MEMORY_IMAGE_PAGE];
	memcpy(known, p->known, sizeof(known));
	memcpy(data, p->data, sizeof(data));
	struct memory_image_page_view b;
	if (base && memory_image_page_at(base, p->page_addr, &b)) {
		index_xor(known, b.known, sizeof(known));
		index_xor(data, b.data, sizeof(data));
	}
	put_words(&w->out, known, MEMORY_IMAGE_PAGE / 64);
	index_out_bytes(&w->out, data, MEMORY_IMAGE_PAGE);
	if (p->valid_from)
		put_words(&w->out, p->valid_from, MEMORY_IMAGE_PAGE / 8);
}

/* IMAGE: page count, then per page (by address) its page number's delta
 * and either 0 and the page, or 1 + the number of a page stored before.
 * base: the previous snapshot's image (NULL: none). */
static void put_image(struct writer *w, const struct memory_image *m,
		      const struct memory_image *base)
{
	struct view_list l = { calloc(memory_image_page_count(m) + 1, sizeof(*l.v)), 0 };
	if (!l.v) {
		w->failed = true;
		return;
	}
	memory_image_for_each_page(m, collect_view, &l);
	qsort(l.v, l.n, sizeof(*l.v), compare_views);
	index_out_varint(&w->out, l.n);
	uint64_t prev = 0;
	for (size_t i = 0; i < l.n && !w->failed; i++) {
		const struct memory_image_page_view *p = &l.v[i];
		index_out_varint(&w->out, (p->page_addr >> 12) - prev);
		prev = p->page_addr >> 12;
		uint64_t number = number_of(&w->pages, p->identity, &w->failed);
		if (number != UINT64_MAX) {
			index_out_varint(&w->out, 1 + number);
			continue;
		}
		index_out_varint(&w->out, 0);
		put_page(w, p, base);
	}
	free(l.v);
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

/* base: the snapshot before (NULL for the first). */
static void put_snapshot(struct writer *w, const struct replay_snapshot *snap,
			 const struct replay_snapshot *base)
{
	const struct resim_state *st = &snap->state;
	struct index_out *o = &w->out;
	index_out_varint(o, st->time);
	index_out_varint(o, st->n_threads);
	index_out_varint(o, st->current);
	index_out_varint(o, st->clock_offset);
	index_out_varint(o, st->transition_time);
	put_counts(o, &st->counts);
	for (size_t i = 0; i < st->n_threads; i++)
		put_thread_state(o, &st->threads[i], base ? &base->state.threads[i] : NULL);
	put_page_set(w, st->code_pages);
	put_image(w, st->image, base ? base->state.image : NULL);
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

static void store_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void encode_header(uint8_t *h, const struct replay_index_identity *id, uint64_t payload,
			  uint64_t compressed, uint32_t compressed_crc)
{
	memset(h, 0, REPLAY_INDEX_HEADER);
	memcpy(h, REPLAY_INDEX_MAGIC, 8);
	store_le(h + 8, REPLAY_INDEX_VERSION, 4);
	store_le(h + 12, REPLAY_INDEX_HEADER, 4);
	store_le(h + 16, id->trace_size, 8);
	store_le(h + 24, id->chunks, 8);
	store_le(h + 32, id->digest, 4);
	store_le(h + 40, payload, 8);
	store_le(h + 48, compressed, 8);
	store_le(h + 56, compressed_crc, 4);
	store_le(h + 60, crc32c(0, h, 60), 4);
}

int replay_index_write(FILE *f, const struct replay_index_identity *id,
		       const struct replay_index_contents *c)
{
	uint8_t h[REPLAY_INDEX_HEADER];
	encode_header(h, id, 0, 0, 0); /* rewritten once the sizes are known */
	if (fwrite(h, 1, sizeof(h), f) != sizeof(h))
		return -1;
	struct writer w = { .pages = { calloc(1024, sizeof(void *)), calloc(1024, sizeof(uint64_t)),
				       1024, 0 } };
	if (!w.pages.keys || !w.pages.numbers || index_out_open(&w.out, f) != 0) {
		free(w.pages.keys);
		free(w.pages.numbers);
		return -1;
	}
	put_summary(&w, c);
	put_image(&w, c->future, NULL);
	index_out_varint(&w.out, c->n_snapshots);
	for (size_t i = 0; i < c->n_snapshots && !w.failed; i++)
		put_snapshot(&w, &c->snapshots[i], i ? &c->snapshots[i - 1] : NULL);
	uint64_t payload = w.out.raw_bytes;
	int rc = index_out_close(&w.out);
	uint32_t crc = w.out.crc;
	free(w.pages.keys);
	free(w.pages.numbers);
	long end = ftell(f);
	if (rc != 0 || w.failed || end < REPLAY_INDEX_HEADER)
		return -1;
	encode_header(h, id, payload, (uint64_t)end - REPLAY_INDEX_HEADER, crc);
	if (fseek(f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof(h), f) != sizeof(h) || fflush(f) != 0)
		return -1;
	return 0;
}
