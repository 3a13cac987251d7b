/*
 * vsyscall.h — a call into the legacy vsyscall page, made for the program
 * (vsyscall.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_VSYSCALL_H
#define TTREC_VSYSCALL_H

#include "recorder/recording_internal.h"

/* The emulator faulted fetching at rip: if rip is an entry point of the
 * legacy vsyscall page, its system call is made and its return emulated
 * (0, or -1 on failure); else 1. */
int recording_vsyscall(struct recording *rec);

#endif
