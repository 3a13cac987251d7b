/*
 * pthread_create.c — the smallest threaded program: one thread created,
 * joined, its result printed.
 */
#include <pthread.h>
#include <stdio.h>

static void *work(void *arg)
{
	return (void *)((long)arg * 2);
}

int main(void)
{
	pthread_t t;
	void *result;
	if (pthread_create(&t, NULL, work, (void *)21L) != 0 || pthread_join(t, &result) != 0)
		return perror("pthread"), 1;
	printf("thread returned %ld\n", (long)result);
	return 0;
}
