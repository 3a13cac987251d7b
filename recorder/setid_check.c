/*
 * setid_check.c — the executable's set-id bits against the ids the
 * process really got (the effective ids of /proc/PID/status).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "recorder/setid_check.h"

/* The effective id (the second number) of the status line named field. */
static bool effective_id(const char *status, const char *field, unsigned long *out)
{
	const char *p = strstr(status, field);
	unsigned long real;
	return p && sscanf(p + strlen(field), "%lu %lu", &real, out) == 2;
}

bool setid_check_dropped(pid_t pid, const char *exe)
{
	struct stat st;
	if (stat(exe, &st) != 0 || !(st.st_mode & (S_ISUID | S_ISGID)))
		return false;
	char path[64], status[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(status, 1, sizeof(status) - 1, f);
	fclose(f);
	status[n] = 0;
	unsigned long uid, gid;
	if (!effective_id(status, "\nUid:", &uid) || !effective_id(status, "\nGid:", &gid))
		return false;
	/* The set-group-ID bit without group execute marks mandatory
	 * locking, not a set-group-ID program. */
	bool setgid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP);
	return ((st.st_mode & S_ISUID) && uid != st.st_uid) || (setgid && gid != st.st_gid);
}
