/*
 * resim_state.c — saving a whole re-simulation (every thread's registers,
 * count, prediction cache and stream positions; the process's memory image
 * and logged code pages) and starting a new one from what was saved.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/resim.h"

/* A thread whose stream has not begun, or has ended, needs no cache: a
 * new thread's first checkpoint empties it. */
static bool thread_is_live(const struct resim_thread *t)
{
	return t->started && !t->finished;
}

static int save_thread(struct resim *s, size_t i, struct resim_thread_state *out)
{
	struct resim_thread *t = &s->threads[i];
	out->regs = *resim_thread_regs(s, i);
	out->icount = resim_thread_icount(s, i);
	out->started = t->started;
	out->created = t->created;
	out->finished = t->finished;
	out->slice_time = t->slice_time;
	out->slice_icount = t->slice_icount;
	out->declared_end = t->declared_end;
	out->declared_end_known = t->declared_end_known;
	/* A thread not started yet is at its stream's beginning: telling
	 * would read its first chunk into memory for nothing. */
	if (t->started && (cursor_tell(&t->mem.cursor, &out->memory_pos) != 0 ||
			   cursor_tell(&t->events, &out->events_pos) != 0))
		return -1;
	if (!thread_is_live(t))
		return 0;
	size_t cache_size = (size_t)PREDICT_CACHE_LINE << t->mem.cache.log2_entries;
	if (sparse_copy_take(&out->cache, t->mem.cache.bytes, cache_size) != 0)
		return -1;
	out->cache_hits = t->mem.cache.hits_settled;
	out->cache_misses = t->mem.cache.misses;
	out->cache_hits_since_miss = t->mem.cache.hits_since_miss;
	return 0;
}

int resim_save(struct resim *s, struct resim_state *out)
{
	memset(out, 0, sizeof(*out));
	out->threads = calloc(s->n_threads, sizeof(*out->threads));
	if (!out->threads)
		return -1;
	out->n_threads = s->n_threads;
	for (size_t i = 0; i < s->n_threads; i++)
		if (save_thread(s, i, &out->threads[i]) != 0) {
			resim_state_free(out);
			return -1;
		}
	out->code_pages = code_page_set_clone(s->proc.code_pages);
	out->image = memory_image_snapshot(s->proc.image);
	if (!out->code_pages || !out->image) {
		resim_state_free(out);
		return -1;
	}
	out->time = resim_now(s);
	out->current = s->current;
	out->clock_offset = s->clock_offset;
	out->transition_time = s->proc.transition_time;
	out->counts = s->counts;
	return 0;
}

static int restore_thread(struct resim *s, size_t i, const struct resim_thread_state *st)
{
	struct resim_thread *t = &s->threads[i];
	int opened = st->started
		? (cursor_open_at(&t->mem.cursor, s->reader, t->stream, &st->memory_pos, CURSOR_MEMORY) |
		   cursor_open_at(&t->events, s->reader, t->stream, &st->events_pos, CURSOR_EVENTS))
		: (cursor_open(&t->mem.cursor, s->reader, t->stream, t->first, CURSOR_MEMORY) |
		   cursor_open(&t->events, s->reader, t->stream, t->first, CURSOR_EVENTS));
	if (opened != 0) {
		snprintf(s->error, sizeof(s->error), "cannot resume the replay: %s",
			 t->events.failed ? t->events.error : t->mem.cursor.error);
		return -1;
	}
	cursor_pair(&t->mem.cursor, &t->events);
	t->regs = st->regs;
	t->icount = st->icount;
	t->started = st->started;
	t->created = st->created;
	t->finished = st->finished;
	t->slice_time = st->slice_time;
	t->slice_icount = st->slice_icount;
	t->declared_end = st->declared_end;
	t->declared_end_known = st->declared_end_known;
	t->wait_record = 0; /* (its events cursor counts from the restore on) */
	if (!st->started || st->finished)
		return 0;
	/* (The copy is written over the whole table.) */
	if ((st->cache.blocks ? replay_memory_cache_acquire_to_overwrite(&t->mem)
			      : replay_memory_cache_acquire(&t->mem)) != 0) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	if (st->cache.blocks) {
		sparse_copy_restore(&st->cache, t->mem.cache.bytes);
		t->mem.cache.hits_settled = st->cache_hits;
		t->mem.cache.misses = st->cache_misses;
		t->mem.cache.hits_since_miss = st->cache_hits_since_miss;
	}
	return 0;
}

static int open_state(struct resim *s, struct idna_reader *reader, unsigned cache_log2,
		      bool jit, const struct resim_state *st, struct predict_spares *spares)
{
	struct memory_image *image = memory_image_snapshot(st->image);
	if (!image) {
		if (spares)
			predict_spares_free(spares);
		memset(s, 0, sizeof(*s));
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	/* Opens the threads as the trace lists them: the state must have
	 * been saved from the same trace. */
	struct predict_spares none = { .n = 0 };
	if (resim_open_carrying(s, reader, cache_log2, jit, image, spares ? spares : &none) != 0)
		return -1;
	/* The cursors opened at the streams' starts give way to the saved
	 * positions. */
	for (size_t i = 0; i < s->n_threads; i++) {
		cursor_close(&s->threads[i].events);
		cursor_close(&s->threads[i].mem.cursor);
	}
	if (st->n_threads != s->n_threads) {
		snprintf(s->error, sizeof(s->error), "a saved state of another trace");
		resim_close(s);
		return -1;
	}
	for (size_t i = 0; i < s->n_threads; i++)
		if (restore_thread(s, i, &st->threads[i]) != 0) {
			resim_close(s);
			return -1;
		}
	struct code_page_set *pages = code_page_set_clone(st->code_pages);
	if (!pages) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		resim_close(s);
		return -1;
	}
	code_page_set_free(s->proc.code_pages);
	s->proc.code_pages = pages;
	s->proc.transition_time = st->transition_time;
	s->current = st->current;
	const struct resim_thread_state *cur = &st->threads[st->current];
	*emu_regs(s->cpu) = cur->regs;
	emu_set_icount(s->cpu, cur->icount);
	emu_set_memory_context(s->cpu, &s->threads[st->current].mem);
	s->clock_offset = st->clock_offset;
	s->counts = st->counts;
	return 0;
}

int resim_open_state(struct resim *s, struct idna_reader *reader, unsigned cache_log2,
		     bool jit, const struct resim_state *st)
{
	return open_state(s, reader, cache_log2, jit, st, NULL);
}

int resim_reopen_state(struct resim *s, unsigned cache_log2, bool jit,
		       const struct resim_state *st)
{
	struct predict_spares spares = s->proc.spares;
	s->proc.spares.n = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		predict_spares_keep(&spares, &s->threads[i].mem.cache);
	}
	struct idna_reader *reader = s->reader;
	resim_close(s);
	return open_state(s, reader, cache_log2, jit, st, &spares);
}
