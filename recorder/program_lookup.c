/*
 * program_lookup.c — the PATH search of execvp, without executing: a
 * candidate counts when it is a file with execute permission (program_lookup.h).
 */
#include "recorder/program_lookup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int check_file(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return errno == ENOTDIR ? ENOENT : errno;
	if (S_ISDIR(st.st_mode) || access(path, X_OK) != 0)
		return EACCES;
	return 0;
}

int program_lookup(const char *name)
{
	if (!*name)
		return ENOENT;
	if (strchr(name, '/'))
		return check_file(name);
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	int first_error = ENOENT;
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char candidate[PATH_MAX];
		/* An empty element is the current directory, as for execvp. */
		int k = end == p ? snprintf(candidate, sizeof(candidate), "%s", name)
				 : snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)(end - p), p, name);
		if (k > 0 && (size_t)k < sizeof(candidate)) {
			int e = check_file(candidate);
			if (e == 0)
				return 0;
			if (e != ENOENT && first_error == ENOENT)
				first_error = e;
		}
		if (!*end)
			return first_error;
		p = end;
	}
}
