/*
 * pass_cuts.c — where the first pass of a trace of several threads is cut
 * (pass_cuts.h).
 */
#include <stdlib.h>

#include "replayer/pass_cuts.h"
#include "replayer/pass_digest.h"

struct timed_start {
	uint64_t time;
	size_t checkpoint;
};

static int by_time(const void *a, const void *b)
{
	const struct timed_start *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->checkpoint < y->checkpoint ? -1 : x->checkpoint > y->checkpoint;
}

/* The time of a cut at checkpoint cp, false when cp cuts none. */
static bool cut_time(const struct replay_session *s, const struct idna_checkpoint *cp,
		     struct resim_cut_memo *memo, uint64_t *time)
{
	struct resim_cut_thread *out = calloc(s->sim.n_threads, sizeof(*out));
	bool ok = out && resim_cut_plan(&s->sim, cp, memo, out, time) == 0;
	free(out);
	return ok;
}

size_t pass_cuts_find(struct replay_session *s, uint64_t after, size_t *out)
{
	size_t n_cp = idna_reader_checkpoint_count(s->reader), n = 0;
	struct timed_start *found = calloc(n_cp ? n_cp : 1, sizeof(*found));
	if (!s->sim.cut_memo)
		s->sim.cut_memo = resim_cut_memo_new(&s->sim);
	struct resim_cut_memo *memo = s->sim.cut_memo;
	if (!found || !memo) {
		free(found);
		return 0;
	}
	for (size_t i = 0; i < n_cp; i++) {
		uint64_t t;
		if (cut_time(s, idna_reader_checkpoint(s->reader, i), memo, &t) && t > after)
			found[n++] = (struct timed_start){ t, i };
	}
	qsort(found, n, sizeof(*found), by_time);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || found[i].time != found[i - 1].time)
			out[kept++] = found[i].checkpoint;
	free(found);
	return kept;
}

uint64_t pass_cut_clock(const struct replay_session *s, size_t checkpoint)
{
	const struct idna_checkpoint *cp = idna_reader_checkpoint(s->reader, checkpoint);
	uint64_t t = cp->icount;
	if (s->sim.n_threads > 1 && resim_cut_time(&s->sim, cp, &t) != 0)
		t = UINT64_MAX; /* (pass_cuts_find returns none such) */
	return t;
}

/* Thread i waits for its checkpoint in the cut replay's state x, or has
 * exited before it, where the whole pass's (whole) has it begun: its
 * state there is whole's. */
static bool pending(const struct resim_state *whole, const struct resim_state *x, size_t i)
{
	return !x->threads[i].started && whole->threads[i].started;
}

const char *pass_cut_mismatch(const struct resim_state *whole, const struct resim_state *start)
{
	if (whole->n_threads != start->n_threads ||
	    pass_digest_cut(whole, SIZE_MAX) != pass_digest_cut(start, SIZE_MAX))
		return "a range did not start at the time and thread the whole pass has there";
	for (size_t i = 0; i < whole->n_threads; i++) {
		const struct resim_thread_state *w = &whole->threads[i], *t = &start->threads[i];
		bool same = pending(whole, start, i)
				    ? w->finished == t->finished && w->icount == t->icount
				    : pass_digest_cut(whole, i) == pass_digest_cut(start, i);
		if (!same)
			return "a range's threads did not start as the whole pass has them there";
	}
	return NULL;
}

/* A copy of t, its prediction cache's blocks included. false when memory
 * is short. */
static bool copy_thread(struct resim_thread_state *out, const struct resim_thread_state *t)
{
	*out = *t;
	out->cache.blocks = NULL;
	if (!t->cache.blocks)
		return true;
	if (sparse_copy_init(&out->cache, t->cache.size) != 0)
		return false;
	for (size_t b = 0; b < sparse_copy_blocks(t->cache.size); b++)
		if (t->cache.blocks[b] && sparse_copy_set_block(&out->cache, b, t->cache.blocks[b]) != 0)
			return false;
	return true;
}

bool pass_cut_complete_thread(struct resim_thread_state *x, size_t i,
			      const struct resim_state *whole, const struct resim_state *xs)
{
	if (!pending(whole, xs, i))
		return true;
	struct resim_thread_state copy;
	if (!copy_thread(&copy, &whole->threads[i])) {
		sparse_copy_free(&copy.cache);
		return false;
	}
	sparse_copy_free(&x->cache);
	*x = copy;
	return true;
}
