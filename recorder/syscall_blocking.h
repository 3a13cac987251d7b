/*
 * syscall_blocking.h — whether a syscall may wait for something another
 * thread of the program has to do (a futex wake, the other end of a pipe,
 * a child's exit). Such a syscall must not hold the emulator, which runs
 * the other threads (native_step.c).
 */
#ifndef TTREC_SYSCALL_BLOCKING_H
#define TTREC_SYSCALL_BLOCKING_H

#include <stdbool.h>
#include <stdint.h>

/* True unless the syscall is known to return without waiting on anything
 * the program's other threads do. Unknown syscalls may block. */
bool syscall_may_block(long nr, const uint64_t args[6]);

/* Whether the syscall takes a priority-inheritance futex (FUTEX_LOCK_PI,
 * FUTEX_LOCK_PI2): before it sleeps, the kernel sets FUTEX_WAITERS in the
 * word at *word, which tells the owner to unlock through the kernel. */
bool syscall_locks_pi_futex(long nr, const uint64_t args[6], uint64_t *word);

#endif
