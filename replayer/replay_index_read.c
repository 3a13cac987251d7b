/*
 * replay_index_read.c — decodes a replay index (man/ttreplay-index.5),
 * trusting nothing: the header's checksum and the trace's identity first,
 * then every count against the payload left, every number against what
 * the trace allows (threads, chunks, cache size), snapshot times in
 * order, frames inside the file, and each frame's CRC and zstd checksum.
 * Opening reads the header and the directory (anything wrong there makes
 * the index damaged, and nothing of it is used); a snapshot's frame is
 * read when its state is asked for, and a bad one fails that read only.
 *
 * Not read from the index, on purpose: how far each thread's stream
 * declares it runs (resim_bounds.c). That bound is what stops a hostile
 * trace's endless loop, so it always comes from the trace itself.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replayer/replay_index.h"
#include "replayer/replay_index_stream.h"
#include "replayer/wide_changes.h"
#include "trace-format/crc32c.h"
#include "trace-format/file_format.h"

struct frame_ref {
	uint64_t offset, compressed, payload;
	uint32_t crc;
};

struct replay_index_file {
	int fd;
	struct replay_index_expect e;
	size_t n;
	struct frame_ref *frames;
	uint64_t *times;
	struct resim_counts *counts;
};

struct loader {
	struct index_in in;
	const struct replay_index_expect *e;
};

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
 * (the previous snapshot's image; NULL: none), added to m. */
static void get_page(struct loader *l, struct memory_image *m, bool timed, uint64_t page_addr,
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
		return;
	struct memory_image_page_view v = { .known = known, .data = data,
					    .valid_from = timed ? valid : NULL };
	struct memory_image_page *p = memory_image_page_make(&v);
	if (!p || !memory_image_add_page(m, page_addr, p))
		index_in_fail(&l->in, "out of memory");
	if (p)
		memory_image_page_put(p);
}

/* IMAGE; base: the previous snapshot's image, whose pages the image may
 * share (NULL: none). */
static struct memory_image *get_image(struct loader *l, bool timed,
				      const struct memory_image *base)
{
	struct memory_image *m = timed ? memory_image_new_timed() : memory_image_new();
	if (!m) {
		index_in_fail(&l->in, "out of memory");
		return NULL;
	}
	/* Each entry is at least two bytes (delta, kind). */
	uint64_t n = index_in_count(&l->in, 2, UINT64_MAX);
	uint64_t page = 0;
	for (uint64_t i = 0; i < n && !l->in.bad; i++) {
		uint64_t delta = index_in_varint(&l->in);
		if ((i && delta == 0) || delta > (UINT64_MAX >> 12) - page) {
			index_in_fail(&l->in, "image pages out of order");
			break;
		}
		page += delta;
		uint64_t kind = index_in_varint(&l->in);
		if (kind == 0)
			get_page(l, m, timed, page << 12, base);
		else if (kind != 1 || !base || !memory_image_share_page(m, base, page << 12))
			index_in_fail(&l->in, "a page refers to no page of the snapshot before");
	}
	if (l->in.bad) {
		memory_image_free(m);
		return NULL;
	}
	return m;
}

/* WIDE CHANGES, into the future image. */
static void get_wide_changes(struct loader *l, struct memory_image *future)
{
	uint64_t n = index_in_count(&l->in, 4, UINT64_MAX);
	for (uint64_t i = 0; i < n && !l->in.bad; i++) {
		struct wide_change c;
		c.lo = index_in_varint(&l->in);
		uint64_t len = index_in_varint(&l->in);
		c.time = index_in_varint(&l->in);
		c.file = index_in_bool(&l->in);
		if (!l->in.bad && (len == 0 || len > UINT64_MAX - c.lo)) {
			index_in_fail(&l->in, "a wide change out of the address space");
			break;
		}
		c.hi = c.lo + len;
		if (!l->in.bad)
			memory_image_add_wide_change(future, &c);
	}
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
	resim_state_free(&snap->state);
	code_page_set_free(snap->written_pages);
	code_page_set_free(snap->code_pages);
	code_page_set_free(snap->read_pages);
	memset(snap, 0, sizeof(*snap));
}

/* A snapshot's frame; base: the snapshot before (NULL when whole). */
static void get_state(struct loader *l, struct resim_state *st, const struct resim_state *base)
{
	struct index_in *in = &l->in;
	st->time = index_in_varint(in);
	uint64_t n_threads = index_in_varint(in);
	st->current = (size_t)index_in_varint(in);
	if (in->bad || n_threads != l->e->n_threads || st->current >= n_threads ||
	    (base && base->n_threads != n_threads)) {
		index_in_fail(in, "a snapshot of another thread table than the trace's");
		return;
	}
	st->clock_offset = index_in_varint(in);
	st->transition_time = index_in_varint(in);
	st->threads = calloc(n_threads ? n_threads : 1, sizeof(*st->threads));
	if (!st->threads) {
		index_in_fail(in, "out of memory");
		return;
	}
	st->n_threads = n_threads;
	for (size_t i = 0; i < n_threads && !in->bad; i++)
		get_thread_state(l, &st->threads[i], base ? &base->threads[i] : NULL);
	bool present;
	st->code_pages = get_page_set(l, &present);
	if (!in->bad && !present)
		index_in_fail(in, "a snapshot without its logged code pages");
	if (!in->bad)
		st->image = get_image(l, false, base ? base->image : NULL);
}

/* A segment's summaries (what it wrote and executed): the one place they
 * are read. */
static void get_segment_summaries(struct loader *l, struct replay_snapshot *snap)
{
	bool present;
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

/* A directory entry is at least its time, counts, two page-set flags
 * and its frame's four numbers. */
#define ENTRY_MIN 15

static void get_frame(struct loader *l, struct frame_ref *r, uint64_t *end, uint64_t limit)
{
	r->offset = index_in_varint(&l->in);
	r->compressed = index_in_varint(&l->in);
	r->payload = index_in_varint(&l->in);
	uint64_t crc = index_in_varint(&l->in);
	r->crc = (uint32_t)crc;
	if (!l->in.bad && (crc > UINT32_MAX || r->offset < *end || r->offset > limit ||
			   r->compressed > limit - r->offset || r->compressed == 0))
		index_in_fail(&l->in, "a snapshot's frame outside its place in the file");
	*end = r->offset + r->compressed;
}

/* The snapshot table: out's snapshots (indexed) and f's frames. */
static void get_directory(struct loader *l, struct replay_index_contents *c,
			  struct replay_index_file *f, uint64_t frames_end)
{
	struct index_in *in = &l->in;
	/* ttreplay --index-snapshots writes at most 1,000,000. */
	uint64_t n = index_in_count(in, ENTRY_MIN, 1u << 21);
	if (!in->bad && n == 0)
		index_in_fail(in, "no snapshot");
	if (in->bad)
		return;
	c->snapshots = calloc(n, sizeof(*c->snapshots));
	f->frames = calloc(n, sizeof(*f->frames));
	f->times = calloc(n, sizeof(*f->times));
	f->counts = calloc(n, sizeof(*f->counts));
	if (!c->snapshots || !f->frames || !f->times || !f->counts) {
		index_in_fail(in, "out of memory");
		return;
	}
	uint64_t end = REPLAY_INDEX_HEADER;
	for (size_t i = 0; i < n && !in->bad; i++) {
		struct replay_snapshot *snap = &c->snapshots[i];
		c->n_snapshots = f->n = i + 1;
		snap->icount = snap->state.time = f->times[i] = index_in_varint(in);
		get_counts(in, &snap->state.counts);
		f->counts[i] = snap->state.counts;
		get_segment_summaries(l, snap);
		get_frame(l, &f->frames[i], &end, frames_end);
		snap->indexed = true;
		if (!in->bad && i && snap->icount <= c->snapshots[i - 1].icount)
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

bool replay_index_file_is(const struct replay_index_file *f, const char *path)
{
	struct stat a, b;
	return fstat(f->fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

void replay_index_file_close(struct replay_index_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->frames);
	free(f->times);
	free(f->counts);
	free(f);
}

/* One frame of f at r, decoded by fill. 0, or -1 with why. */
static int read_frame(struct replay_index_file *f, const struct frame_ref *r,
		      void (*fill)(struct loader *l, void *a, const void *b), void *a, const void *b,
		      char *why, size_t why_len)
{
	struct loader l = { .e = &f->e };
	if (lseek(f->fd, (off_t)r->offset, SEEK_SET) != (off_t)r->offset ||
	    index_in_open(&l.in, f->fd, r->compressed, r->payload, r->crc) != 0) {
		snprintf(why, why_len, "%s", l.in.why[0] ? l.in.why : "cannot be read");
		index_in_close(&l.in);
		return -1;
	}
	fill(&l, a, b);
	bool ok = index_in_finish(&l.in);
	snprintf(why, why_len, "%s", l.in.why);
	index_in_close(&l.in);
	return ok ? 0 : -1;
}

struct directory_out {
	struct replay_index_contents *c;
	struct replay_index_file *f;
	uint64_t frames_end;
};

static void fill_directory(struct loader *l, void *a, const void *b)
{
	(void)b;
	struct directory_out *d = a;
	get_summary(l, d->c);
	if (!l->in.bad)
		d->c->future = get_image(l, true, NULL);
	if (!l->in.bad)
		get_wide_changes(l, d->c->future);
	if (!l->in.bad)
		get_directory(l, d->c, d->f, d->frames_end);
}

enum replay_index_verdict replay_index_open(int fd, uint64_t size,
					    const struct replay_index_expect *e,
					    struct replay_index_contents *out,
					    struct replay_index_file **file, char *why, size_t why_len)
{
	memset(out, 0, sizeof(*out));
	*file = NULL;
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
	uint64_t dir_offset = load_le(h + 40, 8);
	if (dir_offset < sizeof(h) || dir_offset >= size || load_le(h + 56, 4) != 0) {
		snprintf(why, why_len, "truncated or extended");
		return REPLAY_INDEX_DAMAGED;
	}
	struct replay_index_file *f = calloc(1, sizeof(*f));
	if (!f || (f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		free(f);
		snprintf(why, why_len, "cannot be read");
		return REPLAY_INDEX_DAMAGED;
	}
	f->e = *e;
	struct frame_ref dir = { dir_offset, size - dir_offset, load_le(h + 48, 8),
				 (uint32_t)load_le(h + 36, 4) };
	struct directory_out d = { out, f, dir_offset };
	if (read_frame(f, &dir, fill_directory, &d, NULL, why, why_len) != 0) {
		replay_index_file_close(f);
		replay_index_contents_free(out);
		return REPLAY_INDEX_DAMAGED;
	}
	*file = f;
	return REPLAY_INDEX_LOADED;
}

static void fill_state(struct loader *l, void *st, const void *base)
{
	get_state(l, st, base);
}

int replay_index_read_snapshot(struct replay_index_file *f, size_t k, const struct resim_state *prev,
			       struct resim_state *out, char *why, size_t why_len)
{
	memset(out, 0, sizeof(*out));
	bool whole = replay_index_snapshot_whole(k);
	if (k >= f->n || (!whole && !prev)) {
		snprintf(why, why_len, "no snapshot %zu to read", k);
		return -1;
	}
	int rc = read_frame(f, &f->frames[k], fill_state, out, whole ? NULL : prev, why, why_len);
	if (rc == 0 && out->time != f->times[k]) {
		snprintf(why, why_len, "a snapshot's frame of another time than its table's");
		rc = -1;
	}
	if (rc != 0) {
		resim_state_free(out);
		return -1;
	}
	out->counts = f->counts[k];
	return 0;
}

enum replay_index_verdict replay_index_read(int fd, uint64_t size,
					    const struct replay_index_expect *e,
					    struct replay_index_contents *out, char *why,
					    size_t why_len)
{
	struct replay_index_file *f;
	enum replay_index_verdict v = replay_index_open(fd, size, e, out, &f, why, why_len);
	for (size_t i = 0; v == REPLAY_INDEX_LOADED && i < out->n_snapshots; i++) {
		struct replay_snapshot *snap = &out->snapshots[i];
		if (replay_index_read_snapshot(f, i, i ? &out->snapshots[i - 1].state : NULL,
					       &snap->state, why, why_len) != 0) {
			replay_index_contents_free(out);
			v = REPLAY_INDEX_DAMAGED;
		} else
			snap->indexed = false;
	}
	replay_index_file_close(f);
	return v;
}
