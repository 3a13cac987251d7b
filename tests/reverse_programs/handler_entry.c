/*
 * handler_entry.c — breakpoints on a signal handler's first instruction:
 * gdb stops where the signal arrives (SIGUSR1 stops it), and the
 * continue that delivers the signal stops again at the handler's first
 * instruction, before it runs, as it does on a live process.
 */
#include <signal.h>
#include <string.h>

volatile int entered;

static void on_usr1(int signo)
{
	entered += signo;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	raise(SIGUSR1);
	return entered == 2 * SIGUSR1 ? 0 : 1;
}
