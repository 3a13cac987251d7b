/*
 * vfork_exec.c — vfork, the child execs /bin/echo while the parent is
 * suspended; the parent then reaps it.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	fflush(stdout);
	pid_t pid = vfork();
	if (pid < 0)
		return perror("vfork"), 1;
	if (pid == 0) {
		execl("/bin/echo", "echo", "from the vforked child", (char *)NULL);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return perror("waitpid"), 1;
	printf("parent: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
