/*
 * signal_steps.c — signals that arrive right after an instruction a
 * script steps over: kill() sends them to the program itself, so each
 * arrives as its syscall returns. A live process single-stepped over
 * that syscall stops after it first (the step's trap is dequeued before
 * the signal); the signal stops the next resume.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

volatile int usr1_count, usr2_count;

static void on_usr1(int signo)
{
	(void)signo;
	usr1_count++;
}

static void on_usr2(int signo)
{
	(void)signo;
	usr2_count++;
}

static void install(int signo, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigaction(signo, &sa, NULL);
}

int main(void)
{
	install(SIGUSR1, on_usr1);
	install(SIGUSR2, on_usr2);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR2);
	return usr1_count + usr2_count == 2 ? 0 : 1;
}
