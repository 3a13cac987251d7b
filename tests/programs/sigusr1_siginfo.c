/*
 * sigusr1_siginfo.c — raise(SIGUSR1) to an SA_SIGINFO handler: the siginfo
 * and the ucontext the kernel built must read as on the CPU.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static volatile int got_signo, got_code, pid_matches, has_context;

static void on_usr1(int signo, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;
	got_signo = signo;
	got_code = info->si_code;
	pid_matches = info->si_pid == getpid();
	has_context = uc != NULL && uc->uc_mcontext.gregs[REG_RIP] != 0;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return perror("sigaction"), 1;
	if (raise(SIGUSR1) != 0)
		return perror("raise"), 1;
	printf("signo %d (SIGUSR1 %d), si_code SI_TKILL: %s, si_pid is ours: %s, context: %s\n",
	       got_signo, SIGUSR1, got_code == SI_TKILL ? "yes" : "no", pid_matches ? "yes" : "no",
	       has_context ? "yes" : "no");
	/* Blocked, then pending, then delivered at unblock. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	got_signo = 0;
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR1);
	printf("while blocked: handler ran: %s\n", got_signo ? "yes" : "no");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	printf("after unblock: handler ran: %s\n", got_signo ? "yes" : "no");
	return 0;
}
