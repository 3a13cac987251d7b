/*
 * syscall_wrappers.c — system calls made through libc's wrappers (getppid
 * is `mov $nr, %eax; syscall; ret`): the debugger tests step onto, over
 * and back across the syscall instruction itself.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	pid_t first = getppid();
	pid_t second = getppid();
	printf("the same parent twice: %s\n", first == second ? "yes" : "no");
	return 0;
}
