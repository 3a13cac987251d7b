/*
 * marker_then.c — a program to kill at a known moment (tests/faults.sh,
 * tests/record_output.sh): it computes a little, prints "ready PID" on
 * standard output, and then, as argument 1 says:
 *   spin     loops in user code forever (a kill lands while it is emulated)
 *   sleep    waits in the kernel forever
 *   selfkill sends itself SIGKILL
 *   seccomp  installs a filter that kills it at its next getppid
 *   threads  a second thread and the first both loop in user code (the
 *            marker comes once the second runs)
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void kill_at_getppid(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
	syscall(SYS_getppid);
}

static volatile int second_runs;

static void *spin_too(void *arg)
{
	volatile unsigned long *sum = arg;
	second_runs = 1;
	for (;;)
		*sum += 5;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "spin";
	volatile unsigned long sum = 0;
	for (unsigned long i = 0; i < 100000; i++)
		sum += i * 7 % 13;
	static volatile unsigned long other_sum;
	pthread_t second;
	if (strcmp(how, "threads") == 0) {
		if (pthread_create(&second, NULL, spin_too, (void *)&other_sum) != 0)
			return 2;
		while (!second_runs)
			sched_yield();
	}
	printf("ready %d\n", (int)getpid() + (int)(sum & 0));
	fflush(stdout);
	if (strcmp(how, "sleep") == 0) {
		for (;;)
			pause();
	} else if (strcmp(how, "selfkill") == 0) {
		kill(getpid(), SIGKILL);
	} else if (strcmp(how, "seccomp") == 0) {
		kill_at_getppid();
	} else {
		for (;;)
			sum += 3;
	}
	return 1;
}
