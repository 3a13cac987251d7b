/*
 * counter_loop.c — a program to attach to: prints a counter every ~50 ms
 * for COUNT lines (argument 1, default 60), then exits with status 23.
 * Each line also says whether the clock moved forward since the last one
 * (through the vDSO's clock_gettime, which an attached recorder cannot
 * read), and the sum of a little arithmetic, so emulated code has work.
 * With a second argument "threaded", a second thread does the counting
 * while the main thread waits for it in pthread_join; with "spawning",
 * each line is counted by a thread of its own, made and joined by the
 * main thread (threads made while a recorder is attached).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct counting {
	int i;
	unsigned long sum;
	struct timespec last;
};

static void *count_line(void *arg)
{
	struct counting *c = arg;
	struct timespec now, pause = { 0, 50 * 1000 * 1000 };
	for (unsigned long k = 0; k < 100000; k++)
		c->sum += k * (unsigned long)c->i % 7;
	nanosleep(&pause, NULL);
	clock_gettime(CLOCK_MONOTONIC, &now);
	int forward = now.tv_sec > c->last.tv_sec ||
		      (now.tv_sec == c->last.tv_sec && now.tv_nsec > c->last.tv_nsec);
	c->last = now;
	printf("counter %d sum %lu clock %s\n", c->i, c->sum, forward ? "forward" : "STUCK");
	return NULL;
}

/* COUNT lines; each by a new thread when spawning. */
static int count_lines_by(int count, int spawning)
{
	struct counting c = { 0, 0, { 0, 0 } };
	clock_gettime(CLOCK_MONOTONIC, &c.last);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (c.i = 0; c.i < count; c.i++) {
		pthread_t t;
		if (!spawning)
			count_line(&c);
		else if (pthread_create(&t, NULL, count_line, &c) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	}
	return 0;
}

static void *count_lines(void *arg)
{
	count_lines_by(*(const int *)arg, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 60;
	if (argc > 2 && strcmp(argv[2], "threaded") == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, count_lines, &count) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	} else if (count_lines_by(count, argc > 2 && strcmp(argv[2], "spawning") == 0) != 0) {
		return 1;
	}
	return 23;
}
