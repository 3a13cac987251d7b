/*
 * pthread_create.c — creates a thread: ttrec refuses multi-threaded
 * programs with a clear message and a non-zero status (natively it prints
 * the thread's result).
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
