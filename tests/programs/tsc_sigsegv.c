/*
 * tsc_sigsegv.c — prctl(PR_SET_TSC, PR_TSC_SIGSEGV): rdtsc and rdtscp
 * raise SIGSEGV (the handler steps over them), in the thread that asked
 * and in a thread it makes afterwards; PR_TSC_ENABLE makes them work again.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <ucontext.h>

static volatile int faults;

static void skip(int sig, siginfo_t *si, void *uc_)
{
	(void)sig; (void)si;
	ucontext_t *uc = uc_;
	unsigned char *ip = (unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
	/* rdtsc is 0f 31, rdtscp 0f 01 f9. */
	uc->uc_mcontext.gregs[REG_RIP] += ip[1] == 0x31 ? 2 : 3;
	faults++;
}

static void read_counters(void)
{
	unsigned lo, hi, aux;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
}

static void *thread(void *arg)
{
	(void)arg;
	read_counters();
	return NULL;
}

int main(void)
{
	struct sigaction sa = { .sa_sigaction = skip, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) != 0)
		return perror("sigaction"), 1;
	read_counters();
	printf("enabled: %d faults\n", faults);
	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0)
		return perror("PR_SET_TSC"), 1;
	read_counters();
	printf("PR_TSC_SIGSEGV: %d faults\n", faults);
	pthread_t t;
	if (pthread_create(&t, NULL, thread, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	printf("in a new thread: %d faults\n", faults);
	prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
	read_counters();
	printf("enabled again: %d faults\n", faults);
	return 0;
}
