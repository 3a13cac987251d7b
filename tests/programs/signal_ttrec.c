/*
 * signal_ttrec.c — signals aimed at the program's parent (ttrec, while
 * recorded) and at its process group.
 *   parent-int   kill(getppid(), SIGINT), then goes on: ttrec must not die
 *                of it, nor pass it to the program.
 *   group-abrt   kill(0, SIGABRT): the program dies of its own copy (134),
 *                ttrec reports that and survives its copy.
 *   group-usr1   kill(0, SIGUSR1) with a handler: it runs once, the
 *                program goes on.
 *   parent-stop  kill(getppid(), SIGSTOP) and SIGTSTP, then goes on: a
 *                stopped ttrec would freeze the program (natively it is
 *                the parent that stops: run it recorded only).
 *   term-parent  kill(getppid(), SIGTERM) with a SIGTERM handler that exits
 *                0, then waits: a parent such as timeout(1) sends the
 *                signal back to its child, which natively is the program.
 *   wait         prints "ready" and waits in pause(): for a user's signal
 *                to ttrec (tests/record_signals.sh).
 *   wait-term    the same with a SIGTERM handler that says so and waits
 *                on.
 * Run natively in a process group of its own (setsid): the group is then
 * the program's alone.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_count;

static void on_usr1(int signo)
{
	(void)signo;
	usr1_count++;
}

static void on_term_exit(int signo)
{
	(void)signo;
	static const char msg[] = "SIGTERM handled: exit 0\n";
	_exit(write(1, msg, sizeof(msg) - 1) == sizeof(msg) - 1 ? 0 : 2);
}

static void on_term_say(int signo)
{
	(void)signo;
	static const char msg[] = "SIGTERM handled: waiting on\n";
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "parent-int") == 0) {
		printf("kill parent: %d\n", kill(getppid(), SIGINT));
		printf("still here\n");
		return 3;
	}
	if (strcmp(mode, "parent-stop") == 0) {
		printf("stop parent: %d", kill(getppid(), SIGSTOP));
		printf(", %d\n", kill(getppid(), SIGTSTP));
		printf("still here\n");
		return 0;
	}
	if (strcmp(mode, "group-abrt") == 0) {
		printf("abort the group\n");
		kill(0, SIGABRT);
		for (;;)
			pause();
	}
	if (strcmp(mode, "group-usr1") == 0) {
		signal(SIGUSR1, on_usr1);
		kill(0, SIGUSR1);
		printf("handled %d time(s)\n", (int)usr1_count);
		return 0;
	}
	if (strcmp(mode, "term-parent") == 0) {
		/* Held until the result is printed: the answer may come
		 * back at once. */
		sigset_t term, none;
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigemptyset(&none);
		signal(SIGTERM, on_term_exit);
		sigprocmask(SIG_BLOCK, &term, NULL);
		printf("kill parent: %d\n", kill(getppid(), SIGTERM));
		for (;;)
			sigsuspend(&none);
	}
	if (strcmp(mode, "wait-term") == 0)
		signal(SIGTERM, on_term_say);
	if (strcmp(mode, "wait") == 0 || strcmp(mode, "wait-term") == 0) {
		printf("ready\n");
		for (;;)
			pause();
	}
	fprintf(stderr, "usage: signal_ttrec parent-int|parent-stop|group-abrt|group-usr1|term-parent|wait|wait-term\n");
	return 2;
}
