/*
 * attach.h — what `ttrec attach PID` needs before a recording starts: the
 * process's command line and working directory (the trace header's argv
 * and cwd).
 */
#ifndef TTREC_ATTACH_H
#define TTREC_ATTACH_H

#include <sys/types.h>

/* The NULL-terminated argv of process pid, from /proc/PID/cmdline, in one
 * allocation (free(*argv) frees it all). A process whose command line is
 * empty (a kernel thread, a zombie) gets its /proc/PID/comm in brackets.
 * 0, or -1 with errno (ESRCH: no such process). */
int attach_read_cmdline(pid_t pid, char ***argv);

/* The working directory of process pid (/proc/PID/cwd) into buf, NUL
 * terminated. 0, or -1 with errno (the process is gone, the name does not
 * fit, or its directory cannot be seen). */
int attach_read_cwd(pid_t pid, char *buf, size_t size);

#endif
