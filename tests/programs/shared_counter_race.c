/*
 * shared_counter_race.c — a value that changes behind the thread's back
 * between any two of its instructions: an untraced child increments a
 * counter in a MAP_SHARED page without pause while the parent reads it.
 * Recording handles this (the reads surface as mispredictions), but the
 * lockstep verifier must report it: the emulator's read and the CPU's read
 * of the same instruction, microseconds apart, see different values. The
 * tests use it as the verifier's deliberate divergence.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	volatile uint64_t *counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counter == MAP_FAILED)
		return perror("mmap"), 1;
	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		/* Ends with the parent, however the parent ends. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		for (;;)
			counter[0]++;
	}
	/* Wait until the child runs, then watch the counter move. */
	while (counter[0] == 0)
		usleep(1000);
	uint64_t sum = 0;
	for (int i = 0; i < 100000; i++)
		sum += counter[0];
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* The sum depends on timing: only that the reads happened is shown. */
	printf("read the counter %s\n", sum ? "100000 times" : "?");
	return 0;
}
