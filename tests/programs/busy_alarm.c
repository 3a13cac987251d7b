/*
 * busy_alarm.c — a pure busy loop (no syscalls) waiting for a flag that
 * only a SIGALRM handler sets: the recorder must notice the pending signal
 * while it emulates the loop, not at the next syscall (there is none).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t fired;

static void on_alarm(int signo)
{
	(void)signo;
	fired = 1;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		return perror("sigaction"), 1;
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	if (setitimer(ITIMER_REAL, &it, NULL) != 0)
		return perror("setitimer"), 1;
	unsigned long spins = 0;
	while (!fired)
		spins++;
	printf("the busy loop saw the alarm: %s\n", spins > 0 ? "yes" : "no");
	return 0;
}
