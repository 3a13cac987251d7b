/*
 * sigtrap_program.c — the program's own SIGTRAPs, which the recorder must
 * not take for the traps of its single steps (nor the reverse).
 *   ignored         SIGTRAP ignored, then raise(SIGTRAP): nothing happens.
 *   handled-thread  a handler, a thread made and joined, then
 *                   raise(SIGTRAP), a SIGTRAP from kill() and an int3:
 *                   the handler runs each time.
 *   blocked         SIGTRAP blocked, raised (it stays pending), queried
 *                   with sigpending, then SIG_IGN'd and unblocked.
 *   default         raise(SIGTRAP) with the default action: the program
 *                   dies of it (133).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t traps;
static volatile sig_atomic_t last_code;

static void on_trap(int signo, siginfo_t *si, void *uc)
{
	(void)signo;
	(void)uc;
	traps++;
	last_code = si->si_code;
}

static void *worker(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "ignored") == 0) {
		signal(SIGTRAP, SIG_IGN);
		raise(SIGTRAP);
		kill(getpid(), SIGTRAP);
		printf("ignored SIGTRAPs: still here\n");
		return 0;
	}
	if (strcmp(mode, "handled-thread") == 0) {
		/* The handler first: pthread_create blocks every signal
		 * around its clone, which the recorder single-steps. */
		struct sigaction sa = { .sa_sigaction = on_trap, .sa_flags = SA_SIGINFO };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTRAP, &sa, NULL);
		pthread_t t;
		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, NULL);
		raise(SIGTRAP);
		printf("after raise: %d trap(s), si_code %d\n", (int)traps, (int)last_code);
		kill(getpid(), SIGTRAP);
		printf("after kill: %d trap(s), si_code %d\n", (int)traps, (int)last_code);
		__asm__ volatile("int3");
		printf("after int3: %d trap(s), si_code %d\n", (int)traps, (int)last_code);
		return 0;
	}
	if (strcmp(mode, "blocked") == 0) {
		sigset_t set, pending;
		sigemptyset(&set);
		sigaddset(&set, SIGTRAP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		raise(SIGTRAP);
		sigpending(&pending);
		printf("pending while blocked: %d\n", sigismember(&pending, SIGTRAP));
		struct sigaction old;
		signal(SIGTRAP, SIG_IGN);
		sigaction(SIGTRAP, NULL, &old);
		printf("ignored: %d\n", old.sa_handler == SIG_IGN);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		printf("unblocked: still here\n");
		return 0;
	}
	if (strcmp(mode, "default") == 0) {
		printf("raising SIGTRAP\n");
		raise(SIGTRAP);
		printf("not reached\n");
		return 0;
	}
	fprintf(stderr, "usage: sigtrap_program ignored|handled-thread|blocked|default\n");
	return 2;
}
