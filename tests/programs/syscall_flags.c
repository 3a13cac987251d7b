/*
 * syscall_flags.c — what a program can see of rflags around syscalls and
 * faults: r11 after `syscall` holds the rflags of the syscall instruction
 * (no TF, since the program never sets it), and pushf after a recovered
 * fault has neither TF nor RF.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#define TF (1ull << 8)
#define RF (1ull << 16)

static sigjmp_buf recover;

static void on_segv(int signo)
{
	(void)signo;
	siglongjmp(recover, 1);
}

static uint64_t pushf(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

int main(void)
{
	uint64_t r11, rax = SYS_getpid;
	__asm__ volatile("syscall; mov %%r11, %1" : "+a"(rax), "=r"(r11) : : "rcx", "r11", "memory");
	printf("r11 after syscall: TF %s\n", r11 & TF ? "set" : "clear");
	signal(SIGSEGV, on_segv);
	if (sigsetjmp(recover, 1) == 0)
		(void)*(volatile int *)16;
	uint64_t f = pushf();
	printf("after a fault: TF %s, RF %s\n", f & TF ? "set" : "clear", f & RF ? "set" : "clear");
	return 0;
}
