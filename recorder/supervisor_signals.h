/*
 * supervisor_signals.h — what ttrec does with the signals sent to itself
 * while it records a program it started (man/ttrec.1, SIGNALS SENT TO
 * TTREC). ttrec and the program share a process group, as the program
 * natively shares its caller's: a signal to the group reaches the program
 * anyway, so ttrec must neither die of its own copy nor pass it on twice.
 *
 * - From the terminal or the kernel (Ctrl-C, Ctrl-\, a hangup), from
 *   ttrec itself, or from the program or a process it started: ignored
 *   by ttrec. Aimed at the group, the program has its own copy. The
 *   program's own kill(getppid(), ...) never comes here: ttrec sends it
 *   on to its parent instead (syscall_answers.h).
 * - From any other process (a user's kill, ttrec's parent such as
 *   timeout(1), which relays to its child the signals it gets): passed on
 *   to the program, which natively would have been that process's
 *   target, so its handlers run or it dies of it as it would natively.
 *   A second SIGINT, SIGTERM or SIGHUP from outside ends the recording:
 *   the program is killed (SIGKILL) at once, even if it waits in a
 *   system call; its death ends the trace, which is closed complete.
 *   (Before the program runs, the first one does.)
 *
 * SIGCONT is counted (job_stop.h: the job ttrec stands in for goes on).
 *
 * Only signals whose default action ends a process and that ttrec does
 * not ignore already are caught (an ignored one stays ignored, and the
 * program inherits that as it would natively); the program gets the
 * default actions back at its exec. Faults (SIGSEGV & co.) are ttrec's
 * own and keep their default.
 */
#ifndef TTREC_SUPERVISOR_SIGNALS_H
#define TTREC_SUPERVISOR_SIGNALS_H

#include <stdbool.h>
#include <sys/types.h>

/* Installs the handlers. 0, or -1 with errno. */
int supervisor_signals_install(void);
/* The program's process id, once it runs (the one killed on a request). */
void supervisor_signals_set_program(pid_t pid);
/* The signal that asked to end the recording (0 if none), its sender in
 * *sender. */
int supervisor_signals_stop_request(pid_t *sender);
/* The first SIGINT, SIGTERM or SIGHUP from outside, passed on to the
 * program (0 if none), its sender in *sender. */
int supervisor_signals_passed(pid_t *sender);
/* How many SIGCONTs ttrec got (each after a stop of its own, or while
 * running), and whether they are counted at all (not when ttrec was
 * started with SIGCONT ignored). */
unsigned long supervisor_signals_continues(void);
bool supervisor_signals_continues_counted(void);

#endif
