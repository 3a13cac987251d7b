/*
 * spill_writer.c — one thread writing queued snapshots to a spill file
 * (spill_writer.h). The queue is an array: jobs [reaped, written) are
 * finished and wait to be reaped, [written, n) wait to be written; it
 * empties whenever everything queued has been reaped.
 */
#include <pthread.h>
#include <stdlib.h>

#include "replayer/spill_writer.h"

struct job {
	struct resim_state state;           /* the caller's, shallow */
	const struct memory_image *base;
	uint64_t tag;
	struct spill_ref ref;
	bool ok;
};

struct spill_writer {
	struct snapshot_spill *f;
	struct job *jobs;
	size_t n, cap, written, reaped;
	bool failed, stopping;
	pthread_mutex_t mu;
	pthread_cond_t queued, finished;
	pthread_t thread;
};

static void *writer(void *arg)
{
	struct spill_writer *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		if (w->written == w->n) {
			if (w->stopping)
				break;
			pthread_cond_wait(&w->queued, &w->mu);
			continue;
		}
		size_t i = w->written;
		struct job j = w->jobs[i]; /* (the array may move while unlocked) */
		bool skip = w->failed;
		pthread_mutex_unlock(&w->mu);
		bool ok = !skip && snapshot_spill_put(w->f, &j.state, j.base, &j.ref) == 0;
		pthread_mutex_lock(&w->mu);
		w->jobs[i].ref = j.ref;
		w->jobs[i].ok = ok;
		w->failed |= !ok;
		w->written++;
		pthread_cond_broadcast(&w->finished);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct spill_writer *spill_writer_start(struct snapshot_spill *f)
{
	struct spill_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->f = f;
	if (pthread_mutex_init(&w->mu, NULL) != 0) {
		free(w);
		return NULL;
	}
	pthread_cond_init(&w->queued, NULL);
	pthread_cond_init(&w->finished, NULL);
	if (pthread_create(&w->thread, NULL, writer, w) != 0) {
		pthread_cond_destroy(&w->queued);
		pthread_cond_destroy(&w->finished);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	return w;
}

void spill_writer_stop(struct spill_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stopping = true;
	pthread_cond_broadcast(&w->queued);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->queued);
	pthread_cond_destroy(&w->finished);
	pthread_mutex_destroy(&w->mu);
	free(w->jobs);
	free(w);
}

int spill_writer_queue(struct spill_writer *w, const struct resim_state *st,
		       const struct memory_image *base, uint64_t tag)
{
	pthread_mutex_lock(&w->mu);
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct job *jobs = realloc(w->jobs, cap * sizeof(*jobs));
		if (!jobs) {
			pthread_mutex_unlock(&w->mu);
			return -1;
		}
		w->jobs = jobs;
		w->cap = cap;
	}
	if (w->reaped == w->n)
		w->failed = false; /* a new round: the disk may have room again */
	w->jobs[w->n++] = (struct job){ .state = *st, .base = base, .tag = tag };
	pthread_cond_broadcast(&w->queued);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

/* Jobs handed to done per lock taken. */
#define REAP_BATCH 64

size_t spill_writer_reap(struct spill_writer *w, bool wait, spill_writer_done_fn *done, void *ctx)
{
	for (;;) {
		struct job batch[REAP_BATCH];
		size_t k = 0, left;
		pthread_mutex_lock(&w->mu);
		while (wait && w->written < w->n)
			pthread_cond_wait(&w->finished, &w->mu);
		while (k < REAP_BATCH && w->reaped < w->written)
			batch[k++] = w->jobs[w->reaped++];
		if (w->reaped == w->n)
			w->n = w->written = w->reaped = 0;
		left = w->n - w->reaped;
		pthread_mutex_unlock(&w->mu);
		for (size_t i = 0; i < k; i++)
			done(ctx, batch[i].tag, batch[i].ok ? &batch[i].ref : NULL);
		if (k < REAP_BATCH)
			return left;
	}
}
