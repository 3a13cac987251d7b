/*
 * diversion_write.h — the system calls a diversion makes after all:
 * write(2) and writev(2) to standard output and standard error, so that a
 * function gdb calls can print (`call dump(list)`). The bytes go to the
 * run's output callback (gdb's console) and the call returns how many it
 * took, as the kernel would; every other system call stays refused.
 */
#ifndef TTREC_DIVERSION_WRITE_H
#define TTREC_DIVERSION_WRITE_H

#include <stdbool.h>

#include "replayer/diversion.h"

/* If the system call the diversion's thread stands at (number in rax,
 * arguments in rdi, rsi, rdx) is such a write and the run has an output
 * callback, makes it: rax set to its result (a count, or -EFAULT/-EINVAL
 * as the kernel would say) and true. Else false, nothing changed. */
bool diversion_write_console(struct diversion *d, const struct diversion_run *r);

#endif
