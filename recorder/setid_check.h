/*
 * setid_check.h — whether a program just executed under ttrec was meant
 * to run set-user-ID or set-group-ID and did not. The kernel does not
 * apply those bits to an exec its tracer could not have made (a tracer
 * without CAP_SYS_PTRACE over the new credentials): the program runs with
 * the caller's ids, and may then behave differently than natively (fail
 * to open what only its owner may).
 */
#ifndef TTREC_SETID_CHECK_H
#define TTREC_SETID_CHECK_H

#include <stdbool.h>
#include <sys/types.h>

/* exe: the executable's path (/proc/PID/exe); pid: the process, stopped
 * after its exec. True when exe has a set-id bit whose id the process's
 * effective ids do not have. */
bool setid_check_dropped(pid_t pid, const char *exe);

#endif
