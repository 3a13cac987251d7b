/*
 * pi_futex_waiters.c — a priority-inheritance futex handed over while its
 * waiter sleeps in the kernel. FUTEX_LOCK_PI writes the owner's tid and
 * FUTEX_WAITERS into the word before it sleeps; the owner must then see
 * that bit and unlock through the kernel (an unlock that only stores 0
 * would leave the waiter asleep on a lock nobody holds). Then a few
 * threads share a PTHREAD_PRIO_INHERIT mutex and leave one by one: a
 * thread that ends while the kernel still counts it as the owner hands
 * the lock on with FUTEX_OWNER_DIED, which glibc aborts on.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "task_state_letter.h"

static uint32_t word;
static volatile pid_t waiter_tid;

static long futex(uint32_t *addr, int op)
{
	return syscall(SYS_futex, addr, op, 0, NULL, NULL, 0);
}

/* Locks the word as glibc does: a compare-exchange, else the kernel. */
static void *waiter(void *arg)
{
	(void)arg;
	waiter_tid = (pid_t)syscall(SYS_gettid);
	uint32_t expected = 0;
	if (!__atomic_compare_exchange_n(&word, &expected, (uint32_t)waiter_tid, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED) &&
	    futex(&word, FUTEX_LOCK_PI) != 0) {
		perror("FUTEX_LOCK_PI");
		exit(1);
	}
	int owner = (word & FUTEX_TID_MASK) == (uint32_t)waiter_tid;
	printf("waiter owns the lock: %s\n", owner ? "yes" : "no");
	expected = (uint32_t)waiter_tid;
	if (!__atomic_compare_exchange_n(&word, &expected, 0, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		futex(&word, FUTEX_UNLOCK_PI);
	return NULL;
}

/* Whether thread tid sleeps (state S in its stat line). */
static int sleeping(pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	return task_state_letter(path) == 'S';
}

static void handover(void)
{
	pid_t me = (pid_t)syscall(SYS_gettid);
	word = (uint32_t)me; /* locked by us, no waiters yet */
	pthread_t t;
	if (pthread_create(&t, NULL, waiter, NULL) != 0)
		exit(1);
	while (waiter_tid == 0 || !sleeping(waiter_tid))
		sched_yield();
	uint32_t seen = __atomic_load_n(&word, __ATOMIC_ACQUIRE);
	printf("owner sees waiters: %s\n", (seen & FUTEX_WAITERS) ? "yes" : "no");
	uint32_t expected = (uint32_t)me;
	if (__atomic_compare_exchange_n(&word, &expected, 0, false, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED)) {
		/* The waiter would sleep on: give it the lock anyway. */
		puts("owner unlocked without the kernel");
		word = (uint32_t)me | FUTEX_WAITERS;
	}
	if (futex(&word, FUTEX_UNLOCK_PI) != 0 && errno != EPERM)
		perror("FUTEX_UNLOCK_PI");
	pthread_join(t, NULL);
}

#define WORKERS 4
#define ROUNDS 300

static pthread_mutex_t pi_mutex;

static void *worker(void *arg)
{
	/* Threads leave at different times, each after its own rounds. */
	int rounds = ROUNDS * (1 + (int)(intptr_t)arg);
	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&pi_mutex);
		sched_yield();
		pthread_mutex_unlock(&pi_mutex);
	}
	return NULL;
}

static void stress(void)
{
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
	if (pthread_mutex_init(&pi_mutex, &attr) != 0)
		exit(1);
	pthread_t t[WORKERS];
	for (intptr_t i = 0; i < WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i) != 0)
			exit(1);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	puts("workers done");
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	handover();
	stress();
	return 0;
}
