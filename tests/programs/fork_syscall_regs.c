/*
 * fork_syscall_regs.c — fork through a bare syscall instruction, and what
 * it leaves in the registers the syscall instruction defines: rcx, the
 * return address, and r11, the flags (no trap flag: the program never
 * single-steps itself). Parent and child print them.
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	long ret, rcx, r11, after;
	__asm__ volatile("lea 1f(%%rip), %3\n\t"
			 "syscall\n"
			 "1:\n\t"
			 "mov %%rcx, %1\n\t"
			 "mov %%r11, %2"
			 : "=a"(ret), "=r"(rcx), "=r"(r11), "=r"(after)
			 : "a"((long)SYS_fork)
			 : "rcx", "r11", "memory");
	if (ret < 0)
		return 1;
	/* The child prints first: the parent waits for it. */
	if (ret > 0 && waitpid(ret, NULL, 0) != ret)
		return 1;
	printf("%s: rcx is the return address: %s, trap flag in r11: %ld\n",
	       ret == 0 ? "child" : "parent", rcx == after ? "yes" : "no", (r11 >> 8) & 1);
	fflush(stdout);
	if (ret == 0)
		_exit(0);
	return 0;
}
