/*
 * x87_interrupted.c — x87 sequences interrupted between their loads and
 * their arithmetic: by a thread switch (sched_yield, while another thread
 * runs its own sequence on other values) and by a signal whose handler
 * computes with the x87 unit itself. Each interruption is a system call
 * made inside the sequence, so the x87 stack is live across it. Prints
 * the sums, which depend on every register surviving.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* fld b; fld a; a system call (nr, arg1, arg2); fprem until done; the
 * remainder stored. */
static double mod_around_syscall(double a, double b, long nr, long arg1, long arg2)
{
	double r;
	__asm__ volatile(
		"fldl %[b]\n\t"
		"fldl %[a]\n\t"
		"syscall\n"
		"1:\n\t"
		"fprem\n\t"
		"fnstsw %%ax\n\t"
		"sahf\n\t"
		"jp 1b\n\t"
		"fstp %%st(1)\n\t"
		"fstpl %[r]\n\t"
		: [r] "=m"(r), "+a"(nr)
		: [a] "m"(a), [b] "m"(b), "D"(arg1), "S"(arg2)
		: "rcx", "r11", "cc", "memory", "st", "st(1)");
	return r;
}

static volatile double handler_sum;

static void on_usr1(int sig)
{
	(void)sig;
	/* A sequence of the handler's own: fills the stack the interrupted
	 * code left two registers on. */
	double r;
	__asm__ volatile("fldpi\n\tfld1\n\tfldl2e\n\tfaddp\n\tfprem\n\tfstp %%st(1)\n\tfstpl %0"
			 : "=m"(r) : : "cc", "st", "st(1)");
	handler_sum += r;
}

struct job {
	double base, modulus;
	double sum;
};

static void *yielding(void *arg)
{
	struct job *j = arg;
	for (int i = 0; i < 300; i++)
		j->sum += mod_around_syscall(j->base + i * 7.25, j->modulus, SYS_sched_yield, 0, 0);
	return NULL;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	double sig_sum = 0;
	for (int i = 0; i < 100; i++)
		sig_sum += mod_around_syscall(1e6 + i * 3.5, 97.0 + i, SYS_kill, getpid(), SIGUSR1);

	struct job jobs[2] = { { 12345.5, 101.0, 0 }, { 1e9 + 0.25, 7.0, 0 } };
	pthread_t t;
	if (pthread_create(&t, NULL, yielding, &jobs[1]) != 0)
		return 1;
	yielding(&jobs[0]);
	pthread_join(t, NULL);
	printf("signal %.6f handler %.6f threads %.6f %.6f\n", sig_sum, handler_sum,
	       jobs[0].sum, jobs[1].sum);
	return 0;
}
