/*
 * threads_serial.c — N threads (argument 1, default 50) made and joined
 * one after the other, each summing 1,000 numbers: many threads ever
 * made, one alive at a time. tests/memory_bounds.sh compares the memory
 * of recording and replaying 25 and 200 of them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *work(void *arg)
{
	long n = (long)arg, sum = 0;
	for (long i = 0; i < 1000; i++)
		sum += i * n;
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 50, total = 0;
	for (long i = 0; i < threads; i++) {
		pthread_t t;
		void *sum;
		if (pthread_create(&t, NULL, work, (void *)i) != 0)
			return perror("pthread_create"), 1;
		pthread_join(t, &sum);
		total += (long)sum;
	}
	printf("%ld threads, total %ld\n", threads, total);
	return 0;
}
