/*
 * task_state.c — the state letter of /proc/ID/stat: the field after the
 * command name, whose parentheses may enclose anything (so the last ')').
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder/task_state.h"

char task_state(pid_t id)
{
	char path[32], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)id);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}
