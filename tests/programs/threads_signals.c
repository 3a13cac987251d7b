/*
 * threads_signals.c — signals in a threaded process: a process-directed
 * timer signal (SIGALRM) taken by whichever thread the kernel picks while
 * a worker spins and the main thread sleeps in the kernel, a signal sent
 * to one thread (pthread_kill), and, with an argument, a fault in a
 * thread that kills the whole process (SIGSEGV, status 139).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms, usr1;
static volatile int stop;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void *spinner(void *arg)
{
	volatile long n = 0;
	while (!stop)
		n++;
	if (arg) {
		volatile int *nowhere = NULL;
		*nowhere = 1; /* kills the process */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argv;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t t;
	pthread_create(&t, NULL, spinner, argc > 1 ? "crash" : NULL);
	struct itimerval every = { { 0, 5000 }, { 0, 5000 } };
	setitimer(ITIMER_REAL, &every, NULL);
	while (alarms < 3)
		usleep(1000);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	pthread_kill(t, SIGUSR1);
	while (!usr1)
		usleep(1000);
	printf("alarms >= 3, usr1 taken by the spinner\n");
	fflush(stdout);
	stop = 1;
	pthread_join(t, NULL);
	printf("joined\n");
	return 0;
}
