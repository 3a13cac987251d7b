/*
 * vdso_patch.h — the vDSO's clock functions of an already running process
 * turned into real system calls, and back.
 *
 * The vDSO's time functions read the kernel's data page ([vvar]), which
 * no other process can read, so the emulator cannot run them. A program
 * we start is told it has no vDSO (auxv_patch.h); a process we attach to
 * has already found it. Its entry points are therefore overwritten with
 * `mov eax, NR; syscall; ret`, which has the same calling convention, and
 * restored when the recording lets the process go. Why patching rather
 * than a native step per [vvar] read: recorder/README.md (attach).
 */
#ifndef TTREC_VDSO_PATCH_H
#define TTREC_VDSO_PATCH_H

#include <stdint.h>
#include <sys/user.h>

#include "recorder/mapping_table.h"
#include "recorder/remote_memory.h"

#define VDSO_PATCH_MAX 8
#define VDSO_STUB_LEN 8 /* b8 imm32, 0f 05, c3 */

struct vdso_patch {
	unsigned n;
	uint64_t addr[VDSO_PATCH_MAX];
	uint8_t original[VDSO_PATCH_MAX][VDSO_STUB_LEN];
};

/* Patches the entry points of the process's [vDSO] (found in maps, read
 * from its memory with remote_memory_fetch, written with poke). A process
 * without a vDSO gets none (n == 0). 0, or -1 with a message in err. */
int vdso_patch_apply(struct vdso_patch *p, struct remote_memory *rm,
		     const struct mapping_table *maps, char *err, size_t errlen);

/* Moves registers that stand inside a stub to where the original code can
 * go on: at its mov or syscall, back to the entry (the arguments are
 * untouched); at its ret, the return is taken (rax holds the result). The
 * return address is read with rm. 0, or -1 if the stack cannot be read. */
/* The same for a program image at its first instruction (after execve),
 * whose vDSO is then shown to it: also the vDSO's getrandom, made to fail
 * its first call (-ENOSYS), after which the C library makes the system
 * call. */
int vdso_patch_apply_fresh(struct vdso_patch *p, struct remote_memory *rm,
			   const struct mapping_table *maps, char *err, size_t errlen);

int vdso_patch_leave_stubs(const struct vdso_patch *p, struct remote_memory *rm,
			   struct user_regs_struct *regs);

/* Puts the original bytes back. 0, or -1 with errno. */
int vdso_patch_restore(struct vdso_patch *p, struct remote_memory *rm);

#endif
