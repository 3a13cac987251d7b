/*
 * counter_loop.c — a program to attach to: prints a counter every ~50 ms
 * for COUNT lines (argument 1, default 60), then exits with status 23.
 * Each line also says whether the clock moved forward since the last one
 * (through the vDSO's clock_gettime, which an attached recorder cannot
 * read), and the sum of a little arithmetic, so emulated code has work.
 * With a second argument "threaded", a second thread does the counting
 * while the main thread waits for it in pthread_join.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *count_lines(void *arg)
{
	int count = *(const int *)arg;
	struct timespec last, now, pause = { 0, 50 * 1000 * 1000 };
	clock_gettime(CLOCK_MONOTONIC, &last);
	unsigned long sum = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < count; i++) {
		for (unsigned long k = 0; k < 100000; k++)
			sum += k * (unsigned long)i % 7;
		nanosleep(&pause, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		int forward = now.tv_sec > last.tv_sec ||
			      (now.tv_sec == last.tv_sec && now.tv_nsec > last.tv_nsec);
		last = now;
		printf("counter %d sum %lu clock %s\n", i, sum, forward ? "forward" : "STUCK");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 60;
	if (argc > 2 && strcmp(argv[2], "threaded") == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, count_lines, &count) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	} else {
		count_lines(&count);
	}
	return 23;
}
