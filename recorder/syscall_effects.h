/*
 * syscall_effects.h — what a system call did to the tracee's memory and
 * address space, from its number, arguments and result.
 *
 * The recorder uses it to invalidate exactly the memory the kernel wrote
 * (DESIGN.md, Recording step 2): the output buffers of known syscalls, the
 * mappings changed by mmap/munmap/mprotect/brk/mremap, everything for the
 * syscalls it does not know. Correctness never depends on this table (a
 * missed write surfaces as a prediction miss); its precision only saves
 * trace space and time.
 */
#ifndef TTREC_SYSCALL_EFFECTS_H
#define TTREC_SYSCALL_EFFECTS_H

#include <stddef.h>
#include <stdint.h>

enum syscall_kind {
	SYSCALL_KIND_PLAIN,          /* at most the listed buffers written */
	SYSCALL_KIND_MAPPINGS,       /* the address space changed: reload mappings */
	SYSCALL_KIND_UNKNOWN,        /* anything may have been written */
	SYSCALL_KIND_EXEC,           /* a new program replaced the address space */
	SYSCALL_KIND_THREAD,         /* clone of a thread (shares memory) */
	SYSCALL_KIND_PROCESS,        /* fork/vfork/clone of a process */
	SYSCALL_KIND_SHARED_PROCESS, /* clone of a process that shares the memory
				      * and runs beside the caller (CLONE_VM
				      * without CLONE_VFORK or CLONE_THREAD) */
	SYSCALL_KIND_EXIT,           /* exit or exit_group */
	SYSCALL_KIND_SIGRETURN,      /* rt_sigreturn: registers come from memory */
};

struct written_range {
	uint64_t addr, len;
};

#define SYSCALL_MAX_RANGES 16

struct syscall_effect {
	enum syscall_kind kind;
	size_t count;  /* ranges written; for MAPPINGS, the affected range */
	struct written_range ranges[SYSCALL_MAX_RANGES];
};

/* Reads tracee memory (for iovec arrays and the like): 0 or -1. */
typedef int syscall_memory_reader(void *ctx, uint64_t addr, void *buf, size_t len);

/*
 * Describes the effect of syscall `nr` with arguments `args` that returned
 * `result` (negative errno on failure). Syscalls that read memory structures
 * the kernel then wrote (readv's iovecs, recvmsg's msghdr) use `read`; if it
 * fails, the effect becomes UNKNOWN.
 */
void syscall_effect_describe(long nr, const uint64_t args[6], int64_t result,
			     syscall_memory_reader *read, void *ctx,
			     struct syscall_effect *out);

/*
 * The file descriptor whose file contents syscall `nr` changed (write,
 * pwrite, truncate and the like, when they succeeded), or -1. Private
 * mappings of that file show the new bytes in the pages the program has
 * not written, so the caller forgets what it cached of them.
 */
int syscall_changed_file_fd(long nr, const uint64_t args[6], int64_t result);

/* The syscall's name, or NULL if the table does not know it. */
const char *syscall_name(long nr);

#endif
