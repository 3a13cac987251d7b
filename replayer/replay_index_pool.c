/*
 * replay_index_pool.c — frames in a ring of jobs * ahead + 1 slots; workers take
 * the oldest not started, the writer the oldest given (replay_index_pool.h).
 */
#include <pthread.h>
#include <stdlib.h>

#include "replayer/replay_index_pool.h"

struct slot {
	index_payload_fn make;
	const void *a, *b;
	struct index_frame z;
	int rc;
	bool done;
};

struct index_pool {
	pthread_mutex_t mu;
	pthread_cond_t given, made;
	struct slot *ring;
	size_t cap;
	uint64_t taken, started, given_n; /* counts: taken <= started <= given_n */
	pthread_t *threads;
	unsigned n_threads;
	bool stopping;
};

static void make_slot(struct slot *s)
{
	uint8_t *raw;
	size_t n;
	s->rc = s->make(s->a, s->b, &raw, &n);
	if (s->rc == 0) {
		s->rc = index_compress(raw, n, &s->z);
		free(raw);
	}
}

static void *worker(void *arg)
{
	struct index_pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->started == p->given_n && !p->stopping)
			pthread_cond_wait(&p->given, &p->mu);
		if (p->started == p->given_n)
			break;
		struct slot *s = &p->ring[p->started++ % p->cap];
		pthread_mutex_unlock(&p->mu);
		make_slot(s);
		pthread_mutex_lock(&p->mu);
		s->done = true;
		pthread_cond_broadcast(&p->made);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct index_pool *index_pool_open(unsigned jobs, unsigned ahead)
{
	struct index_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	unsigned threads = jobs > 1 ? jobs : 0;
	p->cap = (size_t)threads * (ahead ? ahead : 1) + 1;
	p->ring = calloc(p->cap, sizeof(*p->ring));
	p->threads = calloc(threads + 1, sizeof(*p->threads));
	if (!p->ring || !p->threads || pthread_mutex_init(&p->mu, NULL) != 0) {
		free(p->ring);
		free(p->threads);
		free(p);
		return NULL;
	}
	pthread_cond_init(&p->given, NULL);
	pthread_cond_init(&p->made, NULL);
	for (; p->n_threads < threads; p->n_threads++)
		if (pthread_create(&p->threads[p->n_threads], NULL, worker, p) != 0)
			break;
	if (threads && !p->n_threads) {
		index_pool_close(p);
		return NULL;
	}
	return p;
}

bool index_pool_full(const struct index_pool *p)
{
	return p->given_n - p->taken == p->cap;
}

bool index_pool_pending(const struct index_pool *p)
{
	return p->given_n != p->taken;
}

void index_pool_give(struct index_pool *p, index_payload_fn make, const void *a, const void *b)
{
	struct slot *s = &p->ring[p->given_n % p->cap];
	*s = (struct slot){ .make = make, .a = a, .b = b };
	if (!p->n_threads) {
		make_slot(s);
		s->done = true;
		p->given_n++;
		p->started++;
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->given_n++;
	pthread_cond_signal(&p->given);
	pthread_mutex_unlock(&p->mu);
}

int index_pool_take(struct index_pool *p, struct index_frame *z)
{
	struct slot *s = &p->ring[p->taken % p->cap];
	pthread_mutex_lock(&p->mu);
	while (!s->done)
		pthread_cond_wait(&p->made, &p->mu);
	pthread_mutex_unlock(&p->mu);
	*z = s->z;
	int rc = s->rc;
	*s = (struct slot){ 0 };
	p->taken++;
	return rc;
}

void index_pool_close(struct index_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = true;
	pthread_cond_broadcast(&p->given);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	while (index_pool_pending(p)) {
		struct index_frame z;
		if (index_pool_take(p, &z) == 0)
			index_frame_free(&z);
	}
	pthread_cond_destroy(&p->given);
	pthread_cond_destroy(&p->made);
	pthread_mutex_destroy(&p->mu);
	free(p->ring);
	free(p->threads);
	free(p);
}
