/*
 * long_history.c — a history long enough for the replay's first pass to
 * be cut into ranges (several snapshot intervals): rounds of arithmetic
 * over an array, in one of these modes (argument 1):
 *   plain    compute, print the sum, exit 0
 *   signal   SIGUSR1 raised at every tenth round, a handler counting them
 *   abort    compute, then abort(): killed by SIGABRT
 *   threads  two threads compute, the main thread joins them
 *   fresh    each round also reads memory it never touched before (a
 *            page of a data table; a new anonymous mapping, unmapped
 *            after) and writes another page, so that every part of the
 *            history has first reads, kernel-changed ranges and pages of
 *            its own written
 * Argument 2: rounds (default 40). Deterministic: the same output and
 * instructions every run.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CELLS 4096

static volatile sig_atomic_t handled;

static void on_usr1(int signo)
{
	(void)signo;
	handled++;
}

/* About 200,000 instructions a round. */
static unsigned long compute(unsigned rounds, unsigned salt, int raise_every)
{
	static __thread unsigned cells[CELLS];
	unsigned long sum = 0;
	unsigned x = 12345 + salt;
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < 16 * CELLS; i++) {
			x = x * 1103515245u + 12345u;
			cells[(x >> 8) % CELLS] += x >> 16;
		}
		for (unsigned i = 0; i < CELLS; i++)
			sum += cells[i] % 97;
		if (raise_every && r % raise_every == 0)
			raise(SIGUSR1);
	}
	return sum;
}

/* Never written: its pages are read for the first time one per round. */
static unsigned char table[64 * 4096] = { 1 };
/* One page of it written a round. */
static unsigned char scratch[64 * 4096];

/* One round of "fresh": a page of the table and a new mapping read, the
 * mapping kept while the round computes. */
static unsigned long fresh_round(unsigned r)
{
	unsigned long sum = 0;
	const unsigned char *page = table + (r % 64) * 4096;
	for (unsigned i = 0; i < 4096; i += 64)
		sum += page[i];
	unsigned char *m = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	if (m == MAP_FAILED)
		return 0;
	for (unsigned i = 0; i < 4 * 4096; i += 512) {
		sum += m[i];
		m[i] = (unsigned char)(r + i);
	}
	scratch[(r % 64) * 4096 + r % 4096] = (unsigned char)r;
	sum += compute(1, r, 0) + m[512] + scratch[(r % 64) * 4096 + r % 4096];
	munmap(m, 4 * 4096);
	return sum;
}

struct job {
	unsigned rounds, salt;
	unsigned long sum;
};

static void *run_job(void *arg)
{
	struct job *j = arg;
	j->sum = compute(j->rounds, j->salt, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 40;
	if (strcmp(mode, "threads") == 0) {
		struct job jobs[2] = { { rounds / 2, 1, 0 }, { rounds / 2, 2, 0 } };
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			if (pthread_create(&t[i], NULL, run_job, &jobs[i]) != 0)
				return 1;
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		printf("sums %lu %lu\n", jobs[0].sum, jobs[1].sum);
		return 0;
	}
	int every = 0;
	if (strcmp(mode, "signal") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		every = 10;
	}
	unsigned long sum = 0;
	if (strcmp(mode, "fresh") == 0)
		for (unsigned r = 0; r < rounds; r++)
			sum += fresh_round(r);
	else
		sum = compute(rounds, 0, every);
	printf("sum %lu, signals handled %d\n", sum, (int)handled);
	fflush(stdout);
	if (strcmp(mode, "abort") == 0)
		abort();
	return 0;
}
