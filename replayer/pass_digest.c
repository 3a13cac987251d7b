/*
 * pass_digest.c — checksums of a first pass's results (pass_digest.h):
 * FNV-1a over each value; an image's pages are summed, so that the order
 * of its hash chains does not count, and a byte counts only when known.
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/pass_digest.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static void mix(uint64_t *h, const void *bytes, size_t n)
{
	const uint8_t *b = bytes;
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * FNV_PRIME;
}

static void mix64(uint64_t *h, uint64_t v)
{
	mix(h, &v, sizeof(v));
}

static void page_sum(void *ctx, const struct memory_image_page_view *p)
{
	uint64_t h = FNV_OFFSET;
	mix64(&h, p->page_addr);
	mix(&h, p->known, MEMORY_IMAGE_PAGE / 8);
	for (unsigned i = 0; i < MEMORY_IMAGE_PAGE; i++)
		mix64(&h, (p->known[i / 64] >> (i % 64)) & 1 ? p->data[i] : 0x100);
	if (p->valid_from)
		mix(&h, p->valid_from, MEMORY_IMAGE_PAGE);
	*(uint64_t *)ctx += h;
}

uint64_t pass_digest_image(const struct memory_image *m)
{
	uint64_t sum = 0;
	memory_image_for_each_page(m, page_sum, &sum);
	return sum;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A page set's pages, in order (NULL: a mark of its own). */
static void mix_set(uint64_t *h, const struct code_page_set *set)
{
	if (!set) {
		mix64(h, UINT64_MAX);
		return;
	}
	size_t n = code_page_set_count(set);
	uint64_t *pages = calloc(n ? n : 1, sizeof(*pages));
	if (!pages) {
		mix64(h, UINT64_MAX - 1);
		return;
	}
	code_page_set_list(set, pages);
	qsort(pages, n, sizeof(*pages), by_value);
	mix64(h, n);
	mix(h, pages, n * sizeof(*pages));
	free(pages);
}

static void mix_regs(uint64_t *h, const struct emu_regs *r)
{
	mix(h, r->gpr, sizeof(r->gpr));
	uint64_t plain[] = { r->rip, r->rflags, r->fs_base, r->gs_base, r->seg_cs, r->seg_ss,
			     r->seg_ds, r->seg_es, r->seg_fs, r->seg_gs, r->fcw, r->fsw, r->ftw,
			     r->fop, r->fip, r->fdp, r->mxcsr };
	mix(h, plain, sizeof(plain));
	for (int i = 0; i < 8; i++)
		mix(h, r->st[i].bytes, 10);
	mix(h, r->zmm, sizeof(r->zmm));
	mix(h, r->k, sizeof(r->k));
}

static void mix_cache(uint64_t *h, const struct sparse_copy *c)
{
	mix64(h, c->blocks ? c->size : 0);
	for (size_t i = 0; c->blocks && i < sparse_copy_blocks(c->size); i++) {
		if (!c->blocks[i])
			continue;
		mix64(h, i);
		mix(h, c->blocks[i], sparse_copy_block_len(c->size, i));
	}
}

static void mix_thread(uint64_t *h, const struct resim_thread_state *t)
{
	mix_regs(h, &t->regs);
	uint64_t plain[] = { t->icount, t->started, t->finished, t->created, t->slice_time,
			     t->slice_icount, t->cache_hits, t->cache_misses,
			     t->cache_hits_since_miss, t->memory_pos.ended, t->memory_pos.chunk,
			     t->memory_pos.offset, t->events_pos.ended, t->events_pos.chunk,
			     t->events_pos.offset, t->declared_end, t->declared_end_known };
	mix(h, plain, sizeof(plain));
	mix_cache(h, &t->cache);
}

static void mix_state(uint64_t *h, const struct resim_state *st)
{
	const struct resim_counts *c = &st->counts;
	uint64_t plain[] = { st->time, st->n_threads, st->current, st->clock_offset,
			     st->transition_time, c->syscalls, c->signals, c->checkpoints,
			     c->native_steps, (uint64_t)c->last_signal, c->last_signal_time,
			     c->execs, c->last_exec_time };
	mix(h, plain, sizeof(plain));
	for (size_t i = 0; i < st->n_threads; i++)
		mix_thread(h, &st->threads[i]);
	mix_set(h, st->code_pages);
	mix64(h, pass_digest_image(st->image));
}

uint64_t pass_digest_cut(const struct resim_state *st, size_t i)
{
	uint64_t h = FNV_OFFSET;
	if (i == SIZE_MAX) {
		uint64_t plain[] = { st->time, st->n_threads, st->current, st->clock_offset };
		mix(&h, plain, sizeof(plain));
		mix_set(&h, st->code_pages);
		return h;
	}
	const struct resim_thread_state *t = &st->threads[i];
	mix_regs(&h, &t->regs);
	uint64_t own[] = { t->icount, t->started, t->finished, t->created,
			   t->memory_pos.ended, t->memory_pos.chunk, t->memory_pos.offset,
			   t->events_pos.ended, t->events_pos.chunk, t->events_pos.offset };
	mix(&h, own, sizeof(own));
	mix_cache(&h, &t->cache);
	return h;
}

bool pass_digest_snapshot(struct replay_session *s, size_t k, uint64_t *out)
{
	struct resim_state tmp;
	const struct resim_state *st = replay_session_snapshot_state(s, k, &tmp);
	if (!st)
		return false;
	uint64_t h = FNV_OFFSET;
	mix64(&h, s->snapshots[k].icount);
	mix_state(&h, st);
	mix_set(&h, s->snapshots[k].written_pages);
	mix_set(&h, s->snapshots[k].code_pages);
	if (st == &tmp)
		resim_state_free(&tmp);
	*out = h;
	return true;
}
