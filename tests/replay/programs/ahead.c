/* For the forward-continue tests (tests/forward_skip.sh): a stop of each
 * kind (breakpoints, in either thread; signals; a caught syscall; a
 * watched write), each after a loop of several snapshot segments in which
 * nothing stops, and a function never called. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

long counter, handled;
/* A page of its own: watching it, no other write rules a segment in. */
long late_value[4096 / sizeof(long)] __attribute__((aligned(4096)));

/* Functions on pages of their own: the loops' segments execute none of
 * the breakpoints' pages. */
#define OWN_PAGE __attribute__((noinline, aligned(4096)))

OWN_PAGE static void touch(long k)
{
	counter = counter * 3 + k;
}

OWN_PAGE void never_called(void)
{
	counter = -1;
}

static void on_signal(int sig)
{
	handled += sig;
}

OWN_PAGE static long spin(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	return s;
}

static void *worker(void *arg)
{
	(void)arg;
	touch(10);
	return NULL;
}

OWN_PAGE int main(int argc, char **argv)
{
	(void)argv;
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	long total = spin(2000000);
	touch(1);
	total += spin(2000000);
	raise(SIGUSR1);
	total += spin(2000000);
	raise(SIGUSR2);
	total += spin(2000000);
	pthread_t th;
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	total += spin(2000000);
	syscall(SYS_getppid);
	total += spin(2000000);
	late_value[0] = total;
	total += spin(2000000);
	touch(2);
	total += spin(2000000);
	if (argc > 5)
		never_called();
	printf("%ld %ld %ld\n", counter, handled, total & 0xff);
	return 0;
}
