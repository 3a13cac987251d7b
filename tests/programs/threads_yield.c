/*
 * threads_yield.c — threads that give way to each other.
 *   alternate     two threads take strict turns ROUNDS times, each
 *                 waiting for its turn with sched_yield() on an atomic
 *                 flag: recorded, every sched_yield must hand the
 *                 emulator to the other thread.
 *   syscall-loop  a thread loops on getppid() until a thread it made sets
 *                 a flag: recorded, its turn must end after a bounded
 *                 time, not after a million instructions of system calls.
 * tests/record.sh compares the output with a native run and bounds the
 * system calls made (ttreplay --info).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 1000

static atomic_int turn;
static atomic_int flag;
static long work[2];

static void *alternate(void *arg)
{
	int me = (int)(long)arg;
	for (int i = 0; i < ROUNDS; i++) {
		while (atomic_load(&turn) != me)
			sched_yield();
		work[me] += i;
		atomic_store(&turn, 1 - me);
	}
	return NULL;
}

static void *set_flag(void *arg)
{
	atomic_store(&flag, 1);
	return arg;
}

static void *spin_on_syscalls(void *arg)
{
	pthread_t setter;
	pthread_create(&setter, NULL, set_flag, NULL);
	while (!atomic_load(&flag))
		getppid();
	pthread_join(setter, NULL);
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t t[2];
	if (strcmp(mode, "alternate") == 0) {
		for (long i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, alternate, (void *)i);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		printf("alternated %d rounds: %ld %ld\n", ROUNDS, work[0], work[1]);
		return 0;
	}
	if (strcmp(mode, "syscall-loop") == 0) {
		pthread_create(&t[0], NULL, spin_on_syscalls, NULL);
		pthread_join(t[0], NULL);
		printf("the flag was seen\n");
		return 0;
	}
	fprintf(stderr, "usage: threads_yield alternate|syscall-loop\n");
	return 2;
}
