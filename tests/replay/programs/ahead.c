/* For the forward-continue tests (tests/forward_skip.sh): a stop of each
 * kind (breakpoints, in either thread; signals; a caught syscall; a
 * watched write), each after a loop of several snapshot segments in which
 * nothing stops, and a function never called. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

long counter, late_value, handled;

__attribute__((noinline)) static void touch(long k)
{
	counter = counter * 3 + k;
}

__attribute__((noinline)) void never_called(void)
{
	counter = -1;
}

static void on_signal(int sig)
{
	handled += sig;
}

static long spin(long n)
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

int main(int argc, char **argv)
{
	(void)argv;
	long total = spin(2000000);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
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
	late_value = total;
	total += spin(2000000);
	touch(2);
	total += spin(2000000);
	if (argc > 5)
		never_called();
	printf("%ld %ld %ld\n", counter, handled, total & 0xff);
	return 0;
}
