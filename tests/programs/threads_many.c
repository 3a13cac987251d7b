/*
 * threads_many.c — 64 short threads alive at once (they meet at a
 * barrier, sum a little, and end), then joined: many streams that end
 * long before the recording does (recorded into a small ring by
 * tests/replay.sh).
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 64

static pthread_barrier_t meet;

static void *work(void *arg)
{
	long n = (long)arg, sum = 0;
	pthread_barrier_wait(&meet);
	for (long i = 0; i < 1000; i++)
		sum += i * n;
	return (void *)sum;
}

int main(void)
{
	pthread_t threads[THREADS];
	pthread_barrier_init(&meet, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, work, (void *)i) != 0)
			return perror("pthread_create"), 1;
	long total = 0;
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(threads[i], &r);
		total += (long)r;
	}
	printf("%ld\n", total);
	return 0;
}
