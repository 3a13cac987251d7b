/*
 * syscall_workload.c — N calls of one kind of system call, for the cost of
 * a syscall while recorded (bench/record_syscalls.sh):
 *
 *   syscall_workload KIND N
 *
 * KIND: clock (clock_gettime(CLOCK_MONOTONIC), which ttrec answers from its
 * own clock), timeofday (gettimeofday), cputime (clock_gettime of the
 * process CPU clock, which the kernel answers), getppid, read (one byte
 * of /dev/zero). Without arguments, 10,000 of each. Prints one line per
 * kind, the same natively and recorded. Only when named, two ioctls on a
 * pty that ttrec's table does not describe (bench/trace_kernel_writes.sh):
 * ioctl-sized (TIOCGPTN, whose number gives its output's size) and
 * ioctl-old (TIOCOUTQ, whose number does not).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* The pty the ioctl kinds ask, opened at their first call. */
static int pty(void)
{
	static int fd = -1;
	if (fd < 0)
		fd = posix_openpt(O_RDWR | O_NOCTTY);
	return fd;
}

static int one_call(const char *kind, int fd)
{
	struct timespec ts;
	struct timeval tv;
	char c;
	int out;
	if (strcmp(kind, "clock") == 0)
		return clock_gettime(CLOCK_MONOTONIC, &ts);
	if (strcmp(kind, "timeofday") == 0)
		return gettimeofday(&tv, NULL);
	if (strcmp(kind, "cputime") == 0)
		return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	if (strcmp(kind, "getppid") == 0)
		return syscall(SYS_getppid) > 0 ? 0 : -1;
	if (strcmp(kind, "read") == 0)
		return read(fd, &c, 1) == 1 ? 0 : -1;
	if (strcmp(kind, "ioctl-sized") == 0)
		return ioctl(pty(), TIOCGPTN, &out);
	if (strcmp(kind, "ioctl-old") == 0)
		return ioctl(pty(), TIOCOUTQ, &out);
	return -1;
}

static int run(const char *kind, long n, int fd)
{
	for (long i = 0; i < n; i++)
		if (one_call(kind, fd) != 0) {
			fprintf(stderr, "syscall_workload: %s failed or unknown\n", kind);
			return 1;
		}
	printf("%s: %ld calls\n", kind, n);
	return 0;
}

int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return perror("/dev/zero"), 1;
	if (argc == 3)
		return run(argv[1], atol(argv[2]), fd);
	static const char *const kinds[] = { "clock", "timeofday", "cputime", "getppid", "read" };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (run(kinds[i], 10000, fd) != 0)
			return 1;
	return 0;
}
