/*
 * stderr_to_tty.c — ttreplay's messages straight to gdb's own standard
 * error.
 *
 * gdb gives a `target remote | COMMAND` stub a socket for its standard
 * error, and as long as that socket is open it tries a read() of it
 * before every byte it takes from the stub's replies: 19 M failed reads,
 * about 9 CPU s of gdb's, when it reads a 23 MB library with its debug
 * information through vFile (a python3 built with -g), and a read per
 * byte of every register and memory reply of a step. Once the socket's
 * writer is gone gdb reads its end of file, closes it and stops. gdb
 * starts the stub in a session of its own (no controlling terminal), so
 * the terminal is found as gdb's standard error. Only a terminal or a
 * pipe is taken: a regular file opened again would be written from its
 * start, over gdb's output; then (and when the parent is not gdb but a
 * shell holding the socket too) the socket stays.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replayer/stderr_to_tty.h"

bool stderr_to_tty(void)
{
	struct stat st;
	if (fstat(STDERR_FILENO, &st) != 0 || !S_ISSOCK(st.st_mode))
		return false;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd/2", (int)getppid());
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	bool usable = fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || isatty(fd));
	if (usable) {
		/* blocking writes, as the socket's were */
		int flags = fcntl(fd, F_GETFL);
		usable = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 &&
			 dup2(fd, STDERR_FILENO) == STDERR_FILENO;
	}
	close(fd);
	return usable;
}
