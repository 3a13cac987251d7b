/*
 * signals.c — handled signals, one after the other: a handler a script
 * can break in, backtrace through (the frame the kernel built) and finish
 * out of, in both directions; then a run of many different signals, each
 * to the same handler, that counts them.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

volatile sig_atomic_t last_signal;
volatile int handled_count;
int order[16];

static void handler(int signo)
{
	last_signal = signo;
	order[handled_count % 16] = signo;
	handled_count++;
}

static void install(int signo)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(signo, &sa, NULL);
}

static int many[] = { SIGHUP, SIGQUIT, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
		      SIGCHLD, SIGCONT, SIGURG, SIGWINCH, SIGIO, SIGSYS };

int main(void)
{
	install(SIGUSR1);
	raise(SIGUSR1);
	int after_first = handled_count;
	for (unsigned i = 0; i < sizeof(many) / sizeof(many[0]); i++)
		install(many[i]);
	for (unsigned i = 0; i < sizeof(many) / sizeof(many[0]); i++)
		raise(many[i]);
	printf("%d %d\n", after_first, handled_count);
	return 0;
}
