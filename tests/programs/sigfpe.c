/*
 * sigfpe.c — integer division by zero raises SIGFPE (FPE_INTDIV); the
 * handler recovers with siglongjmp, repeatedly.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf recover;
static volatile int last_code;

static void on_fpe(int signo, siginfo_t *info, void *context)
{
	(void)signo;
	(void)context;
	last_code = info->si_code;
	siglongjmp(recover, 1);
}

int main(int argc, char **argv)
{
	(void)argv;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fpe;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGFPE, &sa, NULL) != 0)
		return perror("sigaction"), 1;
	volatile int zero = argc - 1, caught = 0;
	for (int i = 0; i < 4; i++) {
		if (sigsetjmp(recover, 1) == 0) {
			volatile int q = (100 + i) / zero;
			printf("no fault: %d\n", q);
		} else {
			caught += last_code == FPE_INTDIV;
		}
	}
	printf("divisions by zero caught: %d of 4\n", caught);
	return 0;
}
