/*
 * mmap_shared.c — an anonymous MAP_SHARED page written by an untraced
 * child while the parent waits on a pipe: the parent must see the child's
 * writes, and the child the parent's.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	volatile uint64_t *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return perror("mmap"), 1;
	int to_child[2], to_parent[2];
	if (pipe(to_child) != 0 || pipe(to_parent) != 0)
		return perror("pipe"), 1;
	shared[0] = 1000;
	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	char c = 0;
	if (pid == 0) {
		for (int round = 0; round < 5; round++) {
			if (read(to_child[0], &c, 1) != 1)
				_exit(2);
			shared[0] = shared[0] * 2 + (uint64_t)round;
			shared[1 + round] = shared[0];
			if (write(to_parent[1], &c, 1) != 1)
				_exit(2);
		}
		_exit(0);
	}
	for (int round = 0; round < 5; round++) {
		shared[0] += 1; /* the parent's write, seen by the child */
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
			return perror("pipe i/o"), 1;
		printf("round %d: %llu\n", round, (unsigned long long)shared[0]);
	}
	waitpid(pid, NULL, 0);
	for (int i = 1; i <= 5; i++)
		printf("history %d: %llu\n", i, (unsigned long long)shared[i]);
	return 0;
}
