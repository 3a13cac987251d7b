/*
 * replay_index_read.c — decodes a replay index (man/ttreplay-index.5),
 * trusting nothing: the header's checksum and the trace's identity first,
 * then every count against the payload left, every number against what
 * the trace allows (threads, chunks, cache size), snapshot times in
 * order, and finally zstd's checksum of the whole payload. Anything
 * wrong makes the index damaged, and nothing of it is used.
 *
 * Not read from the index, on purpose: how far each thread's stream
 * declares it runs (resim_bounds.c). That bound is what stops a hostile
 * trace's endless loop, so it always comes from the trace itself.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replayer/replay_index.h"
#include "replayer/replay_index_stream.h"
#include "trace-format/crc32c.h"
#include "trace-format/file_format.h"

/* The pages read so far, by number (each holding one reference). */
struct page_table {
	struct memory_image_page **pages;
	size_t count, capacity;
};

struct loader {
	struct index_in in;
	const struct replay_index_expect *e;
	struct page_table pages;
};

static void pages_free(struct page_table *t)
{
	for (size_t i = 0; i < t->count; i++)
		memory_image_page_put(t->pages[i]);
	free(t->pages);
}

static bool pages_add(struct page_table *t, struct memory_image_page *p)
{
	if (t->count == t->capacity) {
		size_t cap = t->capacity ? 2 * t->capacity : 256;
		struct memory_image_page **n = realloc(t->pages, cap * sizeof(*n));
		if (!n)
			return false;
		t->pages = n;
		t->capacity = cap;
	}
	t->pages[t->count++] = p;
	return true;
}

static void get_words(struct index_in *in, uint64_t *w, size_t n)
{
	/* Bytes first, in one call: pages hold thousands of words. */
	uint8_t *b = (uint8_t *)w;
	index_in_bytes(in, b, n * 8);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;
		for (unsigned k = 0; k < 8; k++)
			v |= (uint64_t)b[8 * i + k] << (8 * k);
		w[i] = v;
	}
}

/* A page stored in full: known bits, bytes, and times if timed. */
#define STORED_PAGE_MIN (MEMORY_IMAGE_PAGE / 8 + MEMORY_IMAGE_PAGE)

/* A page stored in full at page_addr, as its XOR with base's page there
 * (the previous snapshot's image; NULL: none). */
static struct memory_image_page *get_page(struct loader *l, bool timed, uint64_t page_addr,
					  const struct memory_image *base)
{
	static __thread uint64_t known[MEMORY_IMAGE_PAGE / 64], valid[MEMORY_IMAGE_PAGE / 8];
	static __thread uint8_t data[MEMORY_IMAGE_PAGE];
	get_words(&l->in, known, MEMORY_IMAGE_PAGE / 64);
	index_in_bytes(&l->in, data, MEMORY_IMAGE_PAGE);
	struct memory_image_page_view b;
	if (base && memory_image_page_at(base, page_addr, &b)) {
		index_xor(known, b.known, sizeof(known));
		index_xor(data, b.data, sizeof(data));
	}
	if (timed)
		get_words(&l->in, valid, MEMORY_IMAGE_PAGE / 8);
	if (l->in.bad)
		return NULL;
	struct memory_image_page_view v = { .known = known, .data = data,
					    .valid_from = timed ? valid : NULL };
	struct memory_image_page *p = memory_image_page_make(&v);
	if (!p || !pages_add(&l->pages, p)) {
		if (p)
			memory_image_page_put(p);
		index_in_fail(&l->in, "out of memory");
		return NULL;
	}
	return p;
}

static struct memory_image *get_image(struct loader *l, bool timed,
				      const struct memory_image *base)
{
	struct memory_image *m = timed ? memory_image_new_timed() : memory_image_new();
	if (!m) {
		index_in_fail(&l->in, "out of memory");
		return NULL;
	}
	/* Each entry is at least two bytes (delta, reference). */
	uint64_t n = index_in_count(&l->in, 2, UINT64_MAX);
	uint64_t page = 0;
	for (uint64_t i = 0; i < n && !l->in.bad; i++) {
		uint64_t delta = index_in_varint(&l->in);
		if ((i && delta == 0) || delta > (UINT64_MAX >> 12) - page) {
			index_in_fail(&l->in, "image pages out of order");
			break;
		}
		page += delta;
		uint64_t ref = index_in_varint(&l->in);
		struct memory_image_page *p;
		if (ref == 0)
			p = get_page(l, timed, page << 12, base);
		else if (ref - 1 < l->pages.count)
			p = l->pages.pages[ref - 1];
		else {
			index_in_fail(&l->in, "a page refers to no page stored before it");
			break;
		}
		if (p && !memory_image_add_page(m, page << 12, p))
			index_in_fail(&l->in, "a page is shared by a snapshot and the future image");
	}
	if (l->in.bad) {
		memory_image_free(m);
		return NULL;
	}
	return m;
}

static struct code_page_set *get_page_set(struct loader *l, bool *present)
{
	*present = index_in_bool(&l->in);
	if (!*present || l->in.bad)
		return NULL;
	struct code_page_set *set = code_page_set_new();
	if (!set) {
		index_in_fail(&l->in, "out of memory");
		return NULL;
	}
	uint64_t n = index_in_count(&l->in, 1, UINT64_MAX), page = 0;
	for (uint64_t i = 0; i < n && !l->in.bad; i++) {
		uint64_t delta = index_in_varint(&l->in);
		if ((i && delta == 0) || delta > UINT64_MAX - page)
			index_in_fail(&l->in, "a page set out of order");
		page += delta;
		if (!l->in.bad && !code_page_set_add(set, page))
			index_in_fail(&l->in, "out of memory");
	}
	if (l->in.bad) {
		code_page_set_free(set);
		return NULL;
	}
	return set;
}

static void get_regs(struct index_in *in, struct emu_regs *r)
{
	memset(r, 0, sizeof(*r));
	get_words(in, r->gpr, EMU_GPR_COUNT);
	uint64_t w[17];
	get_words(in, w, 17);
	r->rip = w[0], r->rflags = w[1], r->fs_base = w[2], r->gs_base = w[3];
	r->seg_cs = (uint16_t)w[4], r->seg_ss = (uint16_t)w[5], r->seg_ds = (uint16_t)w[6];
	r->seg_es = (uint16_t)w[7], r->seg_fs = (uint16_t)w[8], r->seg_gs = (uint16_t)w[9];
	r->fcw = (uint16_t)w[10], r->fsw = (uint16_t)w[11], r->ftw = (uint16_t)w[12];
	r->fop = (uint16_t)w[13], r->fip = w[14], r->fdp = w[15], r->mxcsr = (uint32_t)w[16];
	for (unsigned i = 0; i < 8; i++)
		index_in_bytes(in, r->st[i].bytes, sizeof(r->st[i].bytes));
	for (unsigned i = 0; i < 32; i++)
		index_in_bytes(in, r->zmm[i].b, sizeof(r->zmm[i].b));
	get_words(in, r->k, 8);
}

static void get_position(struct loader *l, struct cursor_position *p)
{
	p->ended = index_in_bool(&l->in);
	uint64_t chunk = index_in_varint(&l->in), offset = index_in_varint(&l->in);
	if (!p->ended && (chunk >= l->e->id.chunks || offset >= CHUNK_MAX_USIZE))
		index_in_fail(&l->in, "a stream position outside the trace");
	p->chunk = (uint32_t)chunk;
	p->offset = (uint32_t)offset;
}

/* base: the previous snapshot's copy of the same thread's cache. */
static void get_cache(struct loader *l, struct sparse_copy *c, const struct sparse_copy *base)
{
	if (!index_in_bool(&l->in) || l->in.bad)
		return;
	uint64_t size = index_in_varint(&l->in);
	if (size != l->e->cache_bytes) {
		index_in_fail(&l->in, "a prediction cache of another size than the trace's");
		return;
	}
	size_t n = sparse_copy_blocks(size);
	uint64_t stored = index_in_count(&l->in, 1, n);
	if (l->in.bad)
		return;
	if (sparse_copy_init(c, size) != 0) {
		index_in_fail(&l->in, "out of memory");
		return;
	}
	static __thread uint8_t block[SPARSE_BLOCK];
	uint64_t prev = 0;
	for (uint64_t k = 0; k < stored && !l->in.bad; k++) {
		uint64_t i = index_in_varint(&l->in);
		if (i >= n || (k && i <= prev)) {
			index_in_fail(&l->in, "prediction cache blocks out of order");
			break;
		}
		prev = i;
		size_t len = sparse_copy_block_len(size, i);
		index_in_bytes(&l->in, block, len);
		if (base && base->blocks && base->size == size && base->blocks[i])
			index_xor(block, base->blocks[i], len);
		if (!l->in.bad && sparse_copy_set_block(c, i, block) != 0)
			index_in_fail(&l->in, "out of memory");
	}
}

static void get_counts(struct index_in *in, struct resim_counts *c)
{
	c->syscalls = index_in_varint(in);
	c->signals = index_in_varint(in);
	c->checkpoints = index_in_varint(in);
	c->native_steps = index_in_varint(in);
	c->last_signal = (int)(int64_t)index_in_varint(in);
	c->last_signal_time = index_in_varint(in);
	c->execs = index_in_varint(in);
	c->last_exec_time = index_in_varint(in);
}

static void get_thread_state(struct loader *l, struct resim_thread_state *t,
			     const struct resim_thread_state *base)
{
	struct index_in *in = &l->in;
	get_regs(in, &t->regs);
	t->icount = index_in_varint(in);
	t->started = index_in_bool(in);
	t->finished = index_in_bool(in);
	t->slice_time = index_in_varint(in);
	t->slice_icount = index_in_varint(in);
	t->cache_hits = index_in_varint(in);
	t->cache_misses = index_in_varint(in);
	t->cache_hits_since_miss = index_in_varint(in);
	get_cache(l, &t->cache, base ? &base->cache : NULL);
	get_position(l, &t->memory_pos);
	get_position(l, &t->events_pos);
	if (!in->bad && !t->cache.blocks && t->started && !t->finished)
		index_in_fail(in, "a live thread without its prediction cache");
	t->declared_end_known = false; /* the trace's to say (see the top) */
}

static void free_snapshot(struct replay_snapshot *snap)
{
	struct resim_state *st = &snap->state;
	for (size_t i = 0; st->threads && i < st->n_threads; i++)
		sparse_copy_free(&st->threads[i].cache);
	free(st->threads);
	code_page_set_free(st->code_pages);
	memory_image_free(st->image);
	code_page_set_free(snap->written_pages);
	code_page_set_free(snap->code_pages);
	code_page_set_free(snap->read_pages);
	memset(snap, 0, sizeof(*snap));
}

/* base: the snapshot before (NULL for the first). */
static void get_snapshot(struct loader *l, struct replay_snapshot *snap,
			 const struct replay_snapshot *base)
{
	struct index_in *in = &l->in;
	struct resim_state *st = &snap->state;
	st->time = snap->icount = index_in_varint(in);
	uint64_t n_threads = index_in_varint(in);
	st->current = (size_t)index_in_varint(in);
	if (in->bad || n_threads != l->e->n_threads || st->current >= n_threads) {
		index_in_fail(in, "a snapshot of another thread table than the trace's");
		return;
	}
	st->clock_offset = index_in_varint(in);
	st->transition_time = index_in_varint(in);
	get_counts(in, &st->counts);
	st->threads = calloc(n_threads, sizeof(*st->threads));
	if (!st->threads) {
		index_in_fail(in, "out of memory");
		return;
	}
	st->n_threads = n_threads;
	for (size_t i = 0; i < n_threads && !in->bad; i++)
		get_thread_state(l, &st->threads[i], base ? &base->state.threads[i] : NULL);
	bool present;
	st->code_pages = get_page_set(l, &present);
	if (!in->bad && !present)
		index_in_fail(in, "a snapshot without its logged code pages");
	if (!in->bad)
		st->image = get_image(l, false, base ? base->state.image : NULL);
	snap->written_pages = get_page_set(l, &present);
	snap->code_pages = get_page_set(l, &present);
	snap->read_pages = get_page_set(l, &present);
}

static void get_summary(struct loader *l, struct replay_index_contents *c)
{
	struct index_in *in = &l->in;
	struct replay_summary *m = &c->summary;
	m->instructions = index_in_varint(in);
	m->syscalls = index_in_varint(in);
	m->signals = index_in_varint(in);
	m->checkpoints = index_in_varint(in);
	m->native_steps = index_in_varint(in);
	m->have_exit = index_in_bool(in);
	m->last_signal = (int)(int64_t)index_in_varint(in);
	m->exit_consistent = index_in_bool(in);
	m->seconds = (double)index_in_varint(in) / 1e6;
	c->summary_incomplete = index_in_bool(in);
	c->snapshot_interval = index_in_varint(in);
	m->exit_status = index_in_signed(in);
	uint64_t n = index_in_varint(in);
	if (in->bad || n != l->e->n_threads) {
		index_in_fail(in, "a thread table of another size than the trace's");
		return;
	}
	m->threads = calloc(n ? n : 1, sizeof(*m->threads));
	if (!m->threads) {
		index_in_fail(in, "out of memory");
		return;
	}
	m->n_threads = n;
	for (size_t i = 0; i < n; i++) {
		struct replay_thread_summary *t = &m->threads[i];
		t->tid = index_in_signed(in);
		t->stream = (uint32_t)index_in_varint(in);
		t->instructions = index_in_varint(in);
		t->exited = index_in_bool(in);
		t->exit_status = index_in_signed(in);
	}
}

/* One snapshot is at least its fixed fields and one thread's registers. */
#define SNAPSHOT_MIN 64

static void get_snapshots(struct loader *l, struct replay_index_contents *c)
{
	struct index_in *in = &l->in;
	uint64_t n = index_in_count(in, SNAPSHOT_MIN, UINT64_MAX);
	if (!in->bad && n == 0)
		index_in_fail(in, "no snapshot");
	if (in->bad)
		return;
	c->snapshots = calloc(n, sizeof(*c->snapshots));
	if (!c->snapshots) {
		index_in_fail(in, "out of memory");
		return;
	}
	for (size_t i = 0; i < n && !in->bad; i++) {
		c->n_snapshots = i + 1;
		get_snapshot(l, &c->snapshots[i], i ? &c->snapshots[i - 1] : NULL);
		if (!in->bad && i && c->snapshots[i].icount <= c->snapshots[i - 1].icount)
			index_in_fail(in, "snapshots out of order");
	}
	if (!in->bad && c->snapshots[n - 1].icount > c->summary.instructions)
		index_in_fail(in, "a snapshot after the end of history");
}

void replay_index_contents_free(struct replay_index_contents *c)
{
	for (size_t i = 0; c->snapshots && i < c->n_snapshots; i++)
		free_snapshot(&c->snapshots[i]);
	free(c->snapshots);
	free(c->summary.threads);
	memory_image_free(c->future);
	memset(c, 0, sizeof(*c));
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

enum replay_index_verdict replay_index_read(int fd, uint64_t size,
					    const struct replay_index_expect *e,
					    struct replay_index_contents *out, char *why,
					    size_t why_len)
{
	memset(out, 0, sizeof(*out));
	uint8_t h[REPLAY_INDEX_HEADER];
	if (size < sizeof(h) || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		snprintf(why, why_len, "shorter than its header");
		return REPLAY_INDEX_DAMAGED;
	}
	if (memcmp(h, REPLAY_INDEX_MAGIC, 8) != 0 || crc32c(0, h, 60) != load_le(h + 60, 4)) {
		snprintf(why, why_len, "not an index, or its header is damaged");
		return REPLAY_INDEX_DAMAGED;
	}
	if (load_le(h + 8, 4) != REPLAY_INDEX_VERSION || load_le(h + 12, 4) != REPLAY_INDEX_HEADER ||
	    load_le(h + 16, 8) != e->id.trace_size || load_le(h + 24, 8) != e->id.chunks ||
	    load_le(h + 32, 4) != e->id.digest) {
		snprintf(why, why_len, "another trace's, or another version's");
		return REPLAY_INDEX_OTHER_TRACE;
	}
	uint64_t payload = load_le(h + 40, 8), compressed = load_le(h + 48, 8);
	if (compressed != size - sizeof(h)) {
		snprintf(why, why_len, "truncated or extended");
		return REPLAY_INDEX_DAMAGED;
	}
	struct loader l = { .e = e };
	if (lseek(fd, sizeof(h), SEEK_SET) != (off_t)sizeof(h) ||
	    index_in_open(&l.in, fd, compressed, payload, (uint32_t)load_le(h + 56, 4)) != 0) {
		index_in_close(&l.in);
		snprintf(why, why_len, "cannot be read");
		return REPLAY_INDEX_DAMAGED;
	}
	get_summary(&l, out);
	if (!l.in.bad)
		out->future = get_image(&l, true, NULL);
	if (!l.in.bad)
		get_snapshots(&l, out);
	bool ok = index_in_finish(&l.in);
	snprintf(why, why_len, "%s", l.in.why);
	index_in_close(&l.in);
	pages_free(&l.pages);
	if (!ok) {
		replay_index_contents_free(out);
		return REPLAY_INDEX_DAMAGED;
	}
	return REPLAY_INDEX_LOADED;
}
