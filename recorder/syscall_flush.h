/*
 * syscall_flush.h — what of the mirror's dirty bytes must reach the
 * process before it makes a system call (syscall_flush.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_SYSCALL_FLUSH_H
#define TTREC_SYSCALL_FLUSH_H

#include <stdint.h>

#include "recorder/recording_internal.h"

/* Writes back what the kernel may read, or overwrite in part, during the
 * syscall nr the current thread is about to make (nr -1: another
 * instruction run natively): every dirty byte, or only the pages of its
 * buffer argument. 0, or -1 if a write failed. */
int syscall_flush(struct recording *rec, long nr, const uint64_t args[6]);

#endif
