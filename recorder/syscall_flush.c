/*
 * syscall_flush.c — what of the mirror's dirty bytes must reach the
 * process before a native step. Everything, unless the step is a read or
 * write (or their positioned forms) on a descriptor that is neither a
 * /proc file (the process's own memory file reads and writes anywhere)
 * nor a file the process maps (a write shows through its private pages,
 * which the mirror then forgets), and enough pages are dirty for the
 * difference to matter: then only the pages of its buffer.
 *
 * Why that is enough: during such a call the kernel touches nothing of
 * the memory but the buffer; nothing else runs in the process meanwhile
 * (its other threads are emulated, their writes held in the same
 * mirror); what the kernel writes lands on pages flushed clean, which
 * the mirror forgets afterwards without losing a byte. Whatever runs
 * next natively flushes again: another syscall, an instruction, a
 * signal's delivery (its frame goes on the stack), the end of the
 * recording. A program writing large buffers between small reads and
 * writes (xz, sort) no longer sends them all to the process each time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/syscall_flush.h"

/* Below this many dirty pages a whole flush costs about what the check
 * (a readlink) does. */
#define PARTIAL_FROM_PAGES 16

/* The buffer argument of a call that touches no other memory, or false. */
static bool buffer_only(long nr, const uint64_t args[6], uint64_t *addr, uint64_t *len)
{
	switch (nr) {
	case SYS_read:
	case SYS_write:
	case SYS_pread64:
	case SYS_pwrite64:
		*addr = args[1];
		*len = args[2];
		return true;
	default:
		return false;
	}
}

/* Whether fd is a descriptor through which the call reaches no memory
 * of the process but its buffer. */
static bool plain_descriptor(const struct recording *rec, int fd)
{
	char link[64], file[4096];
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)rec->cur->tracee.pid, fd);
	ssize_t n = readlink(link, file, sizeof(file) - 1);
	if (n <= 0)
		return false;
	file[n] = 0;
	if (file[0] != '/')
		return true; /* pipes, sockets, anonymous inodes: never mapped */
	if (strncmp(file, "/proc/", 6) == 0)
		return false;
	for (size_t i = 0; i < mapping_table_count(rec->maps); i++) {
		const struct mapping *m = mapping_table_at(rec->maps, i);
		if (m->path && strcmp(m->path, file) == 0)
			return false;
	}
	return true;
}

int syscall_flush(struct recording *rec, long nr, const uint64_t args[6])
{
	uint64_t addr, len;
	if (nr >= 0 && buffer_only(nr, args, &addr, &len) && !rec->memory_shared_with_process &&
	    memory_mirror_dirty_at_least(rec->mirror, PARTIAL_FROM_PAGES) &&
	    plain_descriptor(rec, (int)args[0]))
		return memory_mirror_flush_range(rec->mirror, addr, len);
	return memory_mirror_flush(rec->mirror);
}
