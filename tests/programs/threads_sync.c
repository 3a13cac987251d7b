/*
 * threads_sync.c — threads that need each other: a mutex-protected
 * counter, an atomic counter, a condition variable hand-off, a pipe read
 * by one thread and written by another (the reader blocks in the kernel
 * while the writer must run), and thread-local storage. The totals are
 * exact only if the recorder lets every thread make progress and keeps
 * LOCK-prefixed instructions atomic.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WORKERS 4
#define ROUNDS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long locked_total;
static long atomic_total;
static __thread long mine;

static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static int turn;

static int pipe_fds[2];

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		locked_total += id;
		pthread_mutex_unlock(&lock);
		__atomic_fetch_add(&atomic_total, 1, __ATOMIC_SEQ_CST);
		mine++;
	}
	/* Take turns in id order. */
	pthread_mutex_lock(&turn_lock);
	while (turn != id)
		pthread_cond_wait(&turn_changed, &turn_lock);
	printf("worker %ld done, its own count %ld\n", id, mine);
	fflush(stdout);
	turn++;
	pthread_cond_broadcast(&turn_changed);
	pthread_mutex_unlock(&turn_lock);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	char buf[64] = { 0 };
	size_t got = 0;
	while (got < 11) {
		ssize_t n = read(pipe_fds[0], buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	printf("reader got '%s'\n", buf);
	return NULL;
}

int main(void)
{
	pthread_t w[WORKERS], r;
	if (pipe(pipe_fds) != 0)
		return perror("pipe"), 1;
	if (pthread_create(&r, NULL, reader, NULL) != 0)
		return 1;
	/* The reader is blocked in read() by now, or soon. */
	usleep(20000);
	if (write(pipe_fds[1], "hello", 5) != 5)
		return 1;
	usleep(10000);
	if (write(pipe_fds[1], " world", 6) != 6)
		return 1;
	pthread_join(r, NULL);
	for (long i = 0; i < WORKERS; i++)
		if (pthread_create(&w[i], NULL, worker, (void *)i) != 0)
			return 1;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	printf("locked total %ld (expected %ld)\n", locked_total,
	       (long)ROUNDS * (0 + 1 + 2 + 3));
	printf("atomic total %ld (expected %ld)\n", atomic_total, (long)ROUNDS * WORKERS);
	return locked_total == (long)ROUNDS * 6 && atomic_total == (long)ROUNDS * WORKERS ? 0 : 1;
}
