/*
 * thread_first_turn.c — a thread made after a long time alone does not
 * run before its creator goes on: natively the parent returns from the
 * clone at once, and the new thread has to be scheduled and do its work
 * first. (The recorder counted the creator's time alone as its turn, so
 * the new thread ran before the creator's next instruction.) Natively the
 * kernel may still run the new thread first now and then: tests/record.sh
 * checks the recorded run only.
 */
#include <pthread.h>
#include <stdio.h>

static volatile int child_done;

static void *child(void *arg)
{
	(void)arg;
	/* A little work before the flag: natively the creator reads it
	 * long before. */
	volatile unsigned sink = 0;
	for (unsigned i = 0; i < 100000; i++)
		sink += i;
	child_done = 1;
	return NULL;
}

int main(void)
{
	/* Alone for more than a turn's 2^20 instructions. */
	volatile unsigned long sum = 0;
	for (unsigned long i = 0; i < 2000000; i++)
		sum += i;
	pthread_t t;
	if (pthread_create(&t, NULL, child, NULL) != 0)
		return 1;
	int ran_first = child_done;
	printf("the new thread ran before its creator went on: %s\n", ran_first ? "yes" : "no");
	pthread_join(t, NULL);
	printf("after the join: %d\n", child_done);
	return 0;
}
