/*
 * syscall_stops.c — system calls for `catch syscall`: the registers gdb
 * shows at a call's entry and at its return, through libc's wrappers
 * (getppid, write) and the generic syscall() one. It writes to /dev/null:
 * the native side's output would show in its transcript.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char message[] = "syscall stops\n";

int main(void)
{
	pid_t parent = getppid();
	int out = open("/dev/null", O_WRONLY);
	ssize_t written = write(out, message, sizeof message - 1);
	long again = syscall(SYS_getppid);
	return parent == again && written > 0 ? 0 : 1;
}
