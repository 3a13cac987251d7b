/*
 * spill_read_ahead.c — one reader thread filling a slot per record; the
 * taker waits on the slot it wants (spill_read_ahead.h).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "replayer/spill_read_ahead.h"

struct slot {
	uint8_t *record;
	size_t len;
};

struct spill_read_ahead {
	struct snapshot_spill *f;
	const struct spill_ref *refs;
	size_t n, window;
	struct slot *slots;
	size_t read, taken; /* records read, taken: taken <= read <= n */
	bool stopping;
	pthread_mutex_t mu;
	pthread_cond_t changed;
	pthread_t thread;
};

static void *reader(void *arg)
{
	struct spill_read_ahead *r = arg;
	pthread_mutex_lock(&r->mu);
	while (r->read < r->n && !r->stopping) {
		if (r->read - r->taken >= r->window) {
			pthread_cond_wait(&r->changed, &r->mu);
			continue;
		}
		size_t i = r->read;
		pthread_mutex_unlock(&r->mu);
		struct slot s = { 0 };
		s.record = snapshot_spill_read(r->f, &r->refs[i], &s.len);
		pthread_mutex_lock(&r->mu);
		r->slots[i] = s;
		r->read++;
		pthread_cond_broadcast(&r->changed);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

struct spill_read_ahead *spill_read_ahead_start(struct snapshot_spill *f,
						const struct spill_ref *refs, size_t n,
						size_t window)
{
	struct spill_read_ahead *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	*r = (struct spill_read_ahead){ .f = f, .refs = refs, .n = n,
					.window = window ? window : 1 };
	r->slots = calloc(n + 1, sizeof(*r->slots));
	if (!r->slots || pthread_mutex_init(&r->mu, NULL) != 0) {
		free(r->slots);
		free(r);
		return NULL;
	}
	pthread_cond_init(&r->changed, NULL);
	if (pthread_create(&r->thread, NULL, reader, r) != 0) {
		pthread_cond_destroy(&r->changed);
		pthread_mutex_destroy(&r->mu);
		free(r->slots);
		free(r);
		return NULL;
	}
	return r;
}

uint8_t *spill_read_ahead_take(struct spill_read_ahead *r, size_t *len)
{
	pthread_mutex_lock(&r->mu);
	if (r->taken == r->n) {
		pthread_mutex_unlock(&r->mu);
		return NULL;
	}
	while (r->read == r->taken)
		pthread_cond_wait(&r->changed, &r->mu);
	struct slot s = r->slots[r->taken];
	r->slots[r->taken++] = (struct slot){ 0 };
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->mu);
	*len = s.len;
	return s.record;
}

void spill_read_ahead_close(struct spill_read_ahead *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->stopping = true;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	for (size_t i = r->taken; i < r->read; i++)
		free(r->slots[i].record);
	pthread_cond_destroy(&r->changed);
	pthread_mutex_destroy(&r->mu);
	free(r->slots);
	free(r);
}
