/*
 * remote_memory.h — the memory of a live, stopped process as the emulator's
 * memory interface (struct emu_memory_ops), plus the supervisor's own forced
 * writes.
 *
 * Reads and writes through the emulator interface have the permissions the
 * program itself has: an unmapped, PROT_NONE or (for writes) read-only page
 * is EMU_MEM_FAULT, never a crash of ours. remote_memory_poke() writes
 * regardless of page protection (code patches, injected instructions).
 */
#ifndef TTREC_REMOTE_MEMORY_H
#define TTREC_REMOTE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "emulator/emu.h"

struct remote_memory {
	pid_t pid;
	int mem_fd; /* /proc/PID/mem, opened on first poke; -1 until then */
};

void remote_memory_init(struct remote_memory *rm, pid_t pid);
/* Closes /proc/PID/mem. Call after an execve too: the open file still
 * refers to the old address space. */
void remote_memory_reset(struct remote_memory *rm);

/* The emulator interface; the context is a struct remote_memory *. */
extern const struct emu_memory_ops remote_memory_ops;

int remote_memory_read(struct remote_memory *rm, uint64_t addr, void *buf, size_t size);
int remote_memory_write(struct remote_memory *rm, uint64_t addr, const void *buf, size_t size);
/* n writes, local[i] to remote[i] (equal lengths), in as few system calls
 * as the kernel takes: EMU_MEM_OK, or EMU_MEM_FAULT at the first that
 * failed (those before it are done). */
int remote_memory_write_runs(struct remote_memory *rm, const struct iovec *local,
			     const struct iovec *remote, size_t n);
/* Bytes readable from addr on, up to size. */
size_t remote_memory_fetch(struct remote_memory *rm, uint64_t addr, void *buf, size_t size);

/* Whether the program could write [addr, addr+size): probes by writing the
 * current contents back, so the tracee must be stopped and no other thread
 * of it may be running. */
bool remote_memory_writable(struct remote_memory *rm, uint64_t addr, size_t size);

/* Writes even into read-only pages, as a debugger does. 0, or -1 with errno. */
int remote_memory_poke(struct remote_memory *rm, uint64_t addr, const void *buf, size_t size);

#endif
