/*
 * snapshot_spill.c — a snapshot as one record of the spill file, appended
 * with pwrite as one zstd frame (level 1: prediction caches and pages
 * compress several times, at little cost next to the replay): a fixed
 * part (the state's numbers, each thread's state as the process lays it
 * out, cache blocks, logged code pages), then the image's pages that
 * differ from the base's, then an end mark. A patch is a record of its
 * own kind: the numbers and threads without caches, then pages. Reading
 * checks every size against the record's length before using it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "replayer/snapshot_spill.h"
#include "trace-format/predict_cache.h"
#include "replayer/sparse_copy.h"

#define RECORD_MAGIC 0x6c6c697073707474ull /* "ttpspill" */
#define RECORD_END 0x646e656c6c697073ull   /* "spillend" */
#define PATCH_MAGIC 0x6863746170747474ull  /* "tttpatch" */

struct snapshot_spill {
	int fd;
	uint64_t size;
};

struct snapshot_spill *snapshot_spill_open(const char *folder)
{
	if (!folder) {
		folder = getenv("TMPDIR");
		if (!folder || folder[0] != '/')
			folder = "/tmp";
	}
	struct snapshot_spill *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		/* A file system without O_TMPFILE: a named file, unlinked at once. */
		char path[4200];
		if ((size_t)snprintf(path, sizeof(path), "%s/ttreplay-spill.XXXXXX", folder) <
		    sizeof(path)) {
			f->fd = mkostemp(path, O_CLOEXEC);
			if (f->fd >= 0)
				unlink(path);
		}
	}
	if (f->fd < 0) {
		free(f);
		return NULL;
	}
	return f;
}

void snapshot_spill_close(struct snapshot_spill *f)
{
	if (!f)
		return;
	close(f->fd);
	free(f);
}

uint64_t snapshot_spill_bytes(const struct snapshot_spill *f)
{
	return f ? f->size : 0;
}

/* --- writing ------------------------------------------------------------ */

struct out {
	uint8_t *buf;
	size_t len, cap;
	bool failed;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->failed)
		return;
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 1 << 16;
		while (cap < o->len + n)
			cap *= 2;
		uint8_t *b = realloc(o->buf, cap);
		if (!b) {
			o->failed = true;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

/* Appends len bytes to f. 0, or -1. */
static int append(struct snapshot_spill *f, const uint8_t *bytes, size_t len, struct spill_ref *ref)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(f->fd, bytes + done, len - done, (off_t)(f->size + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	ref->offset = f->size;
	ref->length = len;
	f->size += len;
	return 0;
}

/* Appends o's bytes to f as one zstd frame (frees them). 0, or -1. */
static int write_record(struct snapshot_spill *f, struct out *o, struct spill_ref *ref)
{
	if (o->failed) {
		free(o->buf);
		return -1;
	}
	size_t bound = ZSTD_compressBound(o->len);
	uint8_t *z = malloc(bound);
	size_t zlen = z ? ZSTD_compress(z, bound, o->buf, o->len, 1) : 0;
	free(o->buf);
	if (!z || ZSTD_isError(zlen)) {
		free(z);
		return -1;
	}
	int rc = append(f, z, zlen, ref);
	free(z);
	return rc;
}

static void put_u64(struct out *o, uint64_t v)
{
	put(o, &v, sizeof(v));
}

static void put_cache(struct out *o, const struct sparse_copy *c)
{
	put_u64(o, c->blocks != NULL);
	if (!c->blocks)
		return;
	put_u64(o, c->size);
	size_t n = sparse_copy_blocks(c->size);
	for (size_t i = 0; i < n; i++) {
		put_u64(o, c->blocks[i] != NULL);
		if (c->blocks[i])
			put(o, c->blocks[i], sparse_copy_block_len(c->size, i));
	}
}

static void put_page_set(struct out *o, const struct code_page_set *set)
{
	size_t n = code_page_set_count(set);
	uint64_t *pages = malloc((n + 1) * sizeof(*pages));
	if (!pages) {
		o->failed = true;
		return;
	}
	code_page_set_list(set, pages);
	put_u64(o, n);
	put(o, pages, n * sizeof(*pages));
	free(pages);
}

struct image_delta {
	struct out *o;
	const struct memory_image *base;
	const struct spill_under *under; /* a patch's, or NULL */
	uint64_t pages;
};

static void put_page(struct image_delta *d, const struct memory_image_page_view *p)
{
	put_u64(d->o, p->page_addr);
	put(d->o, p->known, MEMORY_IMAGE_PAGE / 8);
	put(d->o, p->data, MEMORY_IMAGE_PAGE);
	d->pages++;
}

static void put_page_unless_based(void *ctx, const struct memory_image_page_view *p)
{
	struct image_delta *d = ctx;
	struct memory_image_page_view b;
	if (d->base && memory_image_page_at(d->base, p->page_addr, &b) && b.identity == p->identity)
		return;
	put_page(d, p);
}

/* The page at addr of the image under's record reads back to. */
static bool under_page(const struct spill_under *u, uint64_t addr, struct memory_image_page_view *v)
{
	struct memory_image_page_view b;
	if (memory_image_page_at(u->top, addr, v) &&
	    !(memory_image_page_at(u->top_base, addr, &b) && b.identity == v->identity))
		return true;
	return memory_image_page_at(u->base, addr, v);
}

static void put_page_unless_under(void *ctx, const struct memory_image_page_view *p)
{
	struct image_delta *d = ctx;
	struct memory_image_page_view u;
	if (under_page(d->under, p->page_addr, &u) &&
	    (u.identity == p->identity ||
	     (memcmp(u.known, p->known, MEMORY_IMAGE_PAGE / 8) == 0 &&
	      memcmp(u.data, p->data, MEMORY_IMAGE_PAGE) == 0)))
		return;
	put_page(d, p);
}

/* Whether every page of one image is in another. */
struct holds_all {
	const struct memory_image *in;
	bool missing;
};

static void check_held(void *ctx, const struct memory_image_page_view *p)
{
	struct holds_all *h = ctx;
	struct memory_image_page_view v;
	if (!memory_image_page_at(h->in, p->page_addr, &v))
		h->missing = true;
}

/* The state's numbers and its threads' (with their caches, or not). */
static void put_numbers(struct out *o, uint64_t magic, const struct resim_state *st, bool caches)
{
	put_u64(o, magic);
	const uint64_t v[] = { st->time, st->n_threads, st->current, st->clock_offset,
			       st->transition_time };
	put(o, v, sizeof(v));
	put(o, &st->counts, sizeof(st->counts));
	for (size_t i = 0; i < st->n_threads; i++) {
		struct resim_thread_state t = st->threads[i];
		t.cache.blocks = NULL; /* written below */
		put(o, &t, sizeof(t));
		if (caches)
			put_cache(o, &st->threads[i].cache);
	}
}

int snapshot_spill_put(struct snapshot_spill *f, const struct resim_state *st,
		       const struct memory_image *base, struct spill_ref *ref)
{
	if (memory_image_is_timed(st->image) || !st->code_pages)
		return -1;
	struct out o = { 0 };
	put_numbers(&o, RECORD_MAGIC, st, true);
	put_page_set(&o, st->code_pages);
	/* Every page of the base must be in the image (images only gain
	 * pages): a page left out would be the base's on reading. */
	struct image_delta d = { &o, base, NULL, 0 };
	if (base) {
		struct holds_all check = { st->image, false };
		memory_image_for_each_page(base, check_held, &check);
		if (check.missing) {
			free(o.buf);
			return -1;
		}
	}
	size_t count_at = o.len;
	put_u64(&o, 0); /* the page count, set below */
	memory_image_for_each_page(st->image, put_page_unless_based, &d);
	put_u64(&o, RECORD_END);
	if (o.failed) {
		free(o.buf);
		return -1;
	}
	memcpy(o.buf + count_at, &d.pages, sizeof(d.pages));
	return write_record(f, &o, ref);
}

/* Whether every page of `in_` is in m. */
static bool holds_all_of(const struct memory_image *m, const struct memory_image *in_)
{
	struct holds_all check = { m, false };
	memory_image_for_each_page(in_, check_held, &check);
	return !check.missing;
}

int snapshot_spill_put_patch(struct snapshot_spill *f, const struct resim_state *st,
			     const struct spill_under *under, struct spill_ref *ref)
{
	if (memory_image_is_timed(st->image) || !holds_all_of(st->image, under->base) ||
	    !holds_all_of(st->image, under->top))
		return -1;
	struct out o = { 0 };
	put_numbers(&o, PATCH_MAGIC, st, false);
	struct image_delta d = { &o, NULL, under, 0 };
	size_t count_at = o.len;
	put_u64(&o, 0); /* the page count, set below */
	memory_image_for_each_page(st->image, put_page_unless_under, &d);
	put_u64(&o, RECORD_END);
	if (!o.failed)
		memcpy(o.buf + count_at, &d.pages, sizeof(d.pages));
	return write_record(f, &o, ref);
}

/* --- reading ------------------------------------------------------------ */

struct in {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static bool get(struct in *in, void *out, size_t n)
{
	if (in->bad || n > in->left) {
		in->bad = true;
		memset(out, 0, n);
		return false;
	}
	memcpy(out, in->p, n);
	in->p += n;
	in->left -= n;
	return true;
}

static uint64_t get_u64(struct in *in)
{
	uint64_t v = 0;
	get(in, &v, sizeof(v));
	return v;
}

/* A count of items of at least `each` bytes that the record can hold. */
static uint64_t get_count(struct in *in, uint64_t each)
{
	uint64_t n = get_u64(in);
	if (n > in->left / each)
		in->bad = true;
	return in->bad ? 0 : n;
}

static void get_cache(struct in *in, struct sparse_copy *c)
{
	memset(c, 0, sizeof(*c));
	if (!get_u64(in))
		return;
	/* A sparse copy's size is not bounded by the bytes left (its zero
	 * blocks take none): by the largest prediction cache instead. */
	uint64_t size = get_u64(in);
	if (size > ((uint64_t)PREDICT_CACHE_LINE << PREDICT_CACHE_MAX_LOG2))
		in->bad = true;
	if (in->bad || sparse_copy_init(c, (size_t)size) != 0) {
		in->bad = true;
		return;
	}
	size_t n = sparse_copy_blocks(size);
	for (size_t i = 0; i < n && !in->bad; i++) {
		if (!get_u64(in))
			continue;
		size_t len = sparse_copy_block_len(size, i);
		if (len > in->left || sparse_copy_set_block(c, i, in->p) != 0) {
			in->bad = true;
			return;
		}
		in->p += len;
		in->left -= len;
	}
}

static struct code_page_set *get_page_set(struct in *in)
{
	uint64_t n = get_count(in, sizeof(uint64_t));
	struct code_page_set *set = code_page_set_new();
	if (!set) {
		in->bad = true;
		return NULL;
	}
	for (uint64_t i = 0; i < n && !in->bad; i++)
		if (!code_page_set_add(set, get_u64(in)))
			in->bad = true;
	return set;
}

static void get_image(struct in *in, struct memory_image *m)
{
	uint64_t n = get_count(in, 8 + MEMORY_IMAGE_PAGE / 8 + MEMORY_IMAGE_PAGE);
	for (uint64_t i = 0; i < n && !in->bad; i++) {
		uint64_t addr = get_u64(in);
		struct memory_image_page_view v = { .page_addr = addr,
						    .known = (const uint64_t *)(const void *)in->p,
						    .data = in->p + MEMORY_IMAGE_PAGE / 8 };
		struct memory_image_page *p = memory_image_page_make(&v);
		if (!p || !memory_image_set_page(m, addr, p))
			in->bad = true;
		memory_image_page_put(p);
		in->p += MEMORY_IMAGE_PAGE / 8 + MEMORY_IMAGE_PAGE;
		in->left -= MEMORY_IMAGE_PAGE / 8 + MEMORY_IMAGE_PAGE;
	}
}

/* The bytes at ref, whole. 0, or -1. */
static int read_bytes(struct snapshot_spill *f, const struct spill_ref *ref, uint8_t *buf)
{
	size_t done = 0;
	while (done < ref->length) {
		ssize_t n = pread(f->fd, buf + done, ref->length - done, (off_t)(ref->offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

uint8_t *snapshot_spill_read(struct snapshot_spill *f, const struct spill_ref *ref, size_t *len)
{
	if (!f || ref->length == 0 || ref->offset + ref->length > f->size || ref->length > SIZE_MAX)
		return NULL;
	uint8_t *buf = malloc(ref->length);
	if (!buf || read_bytes(f, ref, buf) != 0) {
		free(buf);
		return NULL;
	}
	unsigned long long raw = ZSTD_getFrameContentSize(buf, ref->length);
	size_t frame = ZSTD_findFrameCompressedSize(buf, ref->length);
	uint8_t *record = NULL;
	size_t n = 0;
	if (raw != ZSTD_CONTENTSIZE_UNKNOWN && raw != ZSTD_CONTENTSIZE_ERROR && raw > 0 &&
	    raw <= SIZE_MAX && !ZSTD_isError(frame) && frame == ref->length &&
	    (record = malloc((size_t)raw)) != NULL)
		n = ZSTD_decompress(record, (size_t)raw, buf, ref->length);
	free(buf);
	if (!record || ZSTD_isError(n) || n != raw) {
		free(record);
		return NULL;
	}
	*len = n;
	return record;
}

int snapshot_spill_decode(uint8_t *buf, size_t len, const struct memory_image *base,
			  struct resim_state *out)
{
	memset(out, 0, sizeof(*out));
	if (!buf)
		return -1;
	struct in in = { buf, len, false };
	if (get_u64(&in) != RECORD_MAGIC)
		in.bad = true;
	uint64_t v[5];
	get(&in, v, sizeof(v));
	out->time = v[0];
	out->current = v[2];
	out->clock_offset = v[3];
	out->transition_time = v[4];
	get(&in, &out->counts, sizeof(out->counts));
	uint64_t threads = in.bad ? 0 : v[1];
	if (threads > in.left / sizeof(struct resim_thread_state) || (threads && v[2] >= threads))
		in.bad = true;
	if (!in.bad && threads) {
		out->threads = calloc(threads, sizeof(*out->threads));
		if (!out->threads)
			in.bad = true;
		else
			out->n_threads = threads;
	}
	for (size_t i = 0; i < out->n_threads && !in.bad; i++) {
		get(&in, &out->threads[i], sizeof(out->threads[i]));
		out->threads[i].cache.blocks = NULL;
		get_cache(&in, &out->threads[i].cache);
	}
	if (!in.bad)
		out->code_pages = get_page_set(&in);
	if (!in.bad) {
		out->image = base ? memory_image_snapshot(base) : memory_image_new();
		if (!out->image)
			in.bad = true;
		else
			get_image(&in, out->image);
	}
	if (get_u64(&in) != RECORD_END || in.left != 0)
		in.bad = true;
	free(buf);
	if (in.bad) {
		resim_state_free(out);
		return -1;
	}
	return 0;
}

int snapshot_spill_get(struct snapshot_spill *f, const struct spill_ref *ref,
		       const struct memory_image *base, struct resim_state *out)
{
	size_t len = 0;
	uint8_t *buf = snapshot_spill_read(f, ref, &len);
	return snapshot_spill_decode(buf, len, base, out);
}

int snapshot_spill_patch(struct snapshot_spill *f, const struct spill_ref *ref,
			 struct resim_state *st)
{
	size_t len = 0;
	uint8_t *buf = snapshot_spill_read(f, ref, &len);
	if (!buf)
		return -1;
	struct in in = { buf, len, false };
	if (get_u64(&in) != PATCH_MAGIC)
		in.bad = true;
	uint64_t v[5];
	get(&in, v, sizeof(v));
	if (in.bad || v[1] != st->n_threads || v[2] >= v[1] || !st->image)
		in.bad = true;
	else {
		st->time = v[0];
		st->current = v[2];
		st->clock_offset = v[3];
		st->transition_time = v[4];
	}
	get(&in, &st->counts, sizeof(st->counts));
	for (size_t i = 0; i < st->n_threads && !in.bad; i++) {
		struct resim_thread_state t;
		get(&in, &t, sizeof(t));
		t.cache = st->threads[i].cache; /* the record's */
		st->threads[i] = t;
	}
	if (!in.bad)
		get_image(&in, st->image);
	if (get_u64(&in) != RECORD_END || in.left != 0)
		in.bad = true;
	free(buf);
	return in.bad ? -1 : 0;
}

/* Copies len bytes at `at` of from to the end of to in the kernel (no
 * copy through user memory). false when it cannot (another file system,
 * an old kernel), nothing being appended then. */
static bool copy_in_kernel(struct snapshot_spill *to, struct snapshot_spill *from, uint64_t at,
			   uint64_t len)
{
	loff_t in = (loff_t)at, out = (loff_t)to->size;
	uint64_t done = 0;
	while (done < len) {
		ssize_t n = copy_file_range(from->fd, &in, to->fd, &out, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (uint64_t)n;
	}
	return true;
}

int snapshot_spill_copy(struct snapshot_spill *to, struct snapshot_spill *from,
			const struct spill_ref *ref, struct spill_ref *out)
{
	if (!from || ref->length == 0 || ref->offset + ref->length > from->size ||
	    ref->length > SIZE_MAX)
		return -1;
	if (copy_in_kernel(to, from, ref->offset, ref->length)) {
		out->offset = to->size;
		out->length = ref->length;
		to->size += ref->length;
		return 0;
	}
	/* What was copied, if any, is written over. */
	uint8_t *bytes = malloc(ref->length);
	if (!bytes || read_bytes(from, ref, bytes) != 0) {
		free(bytes);
		return -1;
	}
	int rc = append(to, bytes, ref->length, out);
	free(bytes);
	return rc;
}
