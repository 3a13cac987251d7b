/*
 * thread_ids.c — prints its pid and its second thread's tid, for
 * tests/process_ids.sh: gdb must show a replay of it under these ids.
 * main stops in `created` after pthread_create returned and before it
 * lets the new thread run (it has not waited or yielded yet), then joins.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	printf("tid %ld\n", (long)gettid());
	return NULL;
}

__attribute__((noinline)) void before_create(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void created(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	pthread_t t;
	printf("pid %ld\n", (long)getpid());
	before_create();
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	created();
	pthread_join(t, NULL);
	return 0;
}
