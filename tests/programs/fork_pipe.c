/*
 * fork_pipe.c — a child (untraced under ttrec) writes through a pipe; the
 * parent reads it all and reaps the child with its exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int fds[2];
	if (pipe(fds) != 0)
		return perror("pipe"), 1;
	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		close(fds[0]);
		char line[64];
		for (int i = 0; i < 100; i++) {
			int n = snprintf(line, sizeof(line), "child line %d\n", i);
			if (write(fds[1], line, (size_t)n) != n)
				_exit(2);
		}
		_exit(7);
	}
	close(fds[1]);
	char buf[4096];
	size_t total = 0, lines = 0;
	ssize_t n;
	while ((n = read(fds[0], buf, sizeof(buf))) > 0) {
		total += (size_t)n;
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return perror("waitpid"), 1;
	printf("read %zu bytes, %zu lines; child exited %d\n", total, lines,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
