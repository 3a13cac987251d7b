/*
 * auxv_patch.h — hides the vDSO from a freshly exec'd program.
 *
 * The vDSO's time functions read the kernel's data page (vvar), which no
 * other process can read, so the emulator cannot run them. With the
 * AT_SYSINFO_EHDR entry of the auxiliary vector turned into AT_IGNORE,
 * glibc never uses the vDSO and makes real syscalls instead
 * (DESIGN.md, Recording step 2).
 */
#ifndef TTREC_AUXV_PATCH_H
#define TTREC_AUXV_PATCH_H

#include <stdint.h>

#include "recorder/remote_memory.h"

/* rsp: the stack pointer at the exec stop (pointing at argc). Returns 1 if
 * the entry was hidden, 0 if there was none, -1 if the stack could not be
 * read or written. */
int auxv_hide_vdso(struct remote_memory *rm, uint64_t rsp);

#endif
