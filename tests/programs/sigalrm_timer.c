/*
 * sigalrm_timer.c — a 2 ms interval timer whose handler counts; the main
 * program sleeps in pause() until the handler has run five times.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t ticks;

static void on_alarm(int signo)
{
	(void)signo;
	ticks++;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		return perror("sigaction"), 1;
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	if (setitimer(ITIMER_REAL, &it, NULL) != 0)
		return perror("setitimer"), 1;
	while (ticks < 5)
		pause();
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	printf("handler ran at least 5 times: %s\n", ticks >= 5 ? "yes" : "no");
	return 0;
}
