/*
 * recording_forget.c — what the recorder holds of the program's memory and
 * mappings (the mirror, decoded code, logged code pages, the mapping
 * table), forgotten where memory or mappings changed behind the emulator:
 * after a system call (its described effects, files written through their
 * mappings, brk, a process sharing the memory) and wherever a caller
 * knows memory changed. Logs the KERNEL_WRITE ranges and the code changes
 * replay must forget too. Calls nothing of the loop's.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/kernel_writes.h"
#include "recorder/recording_forget.h"
#include "recorder/recording_internal.h"
#include "recorder/syscall_effects.h"
#include "recorder/trace_events.h"

int recording_invalidate(struct recording *rec, uint64_t addr, uint64_t len)
{
	memory_mirror_invalidate(rec->mirror, addr, len);
	emu_invalidate_code(rec->cpu, addr, len);
	if (traced_memory_forget_code(rec->tm, addr, len))
		return log_kernel(rec, IDNA_KERNEL_CODE_CHANGED, addr, len);
	return 0;
}

int recording_invalidate_all(struct recording *rec)
{
	return recording_invalidate(rec, 0, UINT64_MAX);
}

int recording_reload_mappings(struct recording *rec)
{
	if (mapping_table_load(rec->maps, rec->cur->tracee.pid) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the program's mappings: %s",
				      strerror(errno));
	return 0;
}

/* A syscall whose effect the table does not describe, for the summary.
 * vfork (and clone's vfork) is described: the child runs in our memory. */
static void note_undescribed(struct record_result *res, long nr, const uint64_t args[6])
{
	if (nr == SYS_vfork || (nr == SYS_clone && (args[0] & CLONE_VFORK)))
		return;
	uint64_t request = nr == SYS_ioctl ? args[1] : nr == SYS_prctl ? args[0] : 0;
	res->undescribed++;
	for (size_t i = 0; i < res->n_undescribed_kinds; i++)
		if (res->undescribed_kinds[i].nr == nr && res->undescribed_kinds[i].request == request) {
			res->undescribed_kinds[i].count++;
			return;
		}
	if (res->n_undescribed_kinds < sizeof(res->undescribed_kinds) / sizeof(res->undescribed_kinds[0]))
		res->undescribed_kinds[res->n_undescribed_kinds++] =
			(typeof(res->undescribed_kinds[0])){ nr, request, 1 };
}

/* Whether file is the memory of the recorded process: /proc/PID/mem or
 * /proc/PID/task/TID/mem, as /proc/self/mem and the like read back. */
static bool is_own_memory_file(const struct recording *rec, const char *file)
{
	char own[64];
	int n = snprintf(own, sizeof(own), "/proc/%d/", (int)rec->tracee.pid);
	if (strncmp(file, own, (size_t)n) != 0)
		return false;
	const char *rest = file + n;
	if (strcmp(rest, "mem") == 0)
		return true;
	if (strncmp(rest, "task/", 5) != 0)
		return false;
	const char *slash = strchr(rest + 5, '/');
	return slash && strcmp(slash, "/mem") == 0;
}

/* A write through the process's memory file (a debugger or JIT inside
 * the program patching itself) wrote result bytes into its memory, at
 * the file offset: the pwrite family's argument, or for write and writev
 * the descriptor's position after the call, less what it wrote. */
static void invalidate_memory_file_write(struct recording *rec, long nr, const uint64_t args[6],
					 int64_t result, int fd)
{
	uint64_t end = 0;
	if (nr == SYS_pwrite64 || nr == SYS_pwritev || nr == SYS_pwritev2) {
		end = args[3] + (uint64_t)result;
	} else {
		char info[64], text[256];
		snprintf(info, sizeof(info), "/proc/%d/fdinfo/%d", (int)rec->cur->tracee.pid, fd);
		FILE *f = fopen(info, "r");
		unsigned long long pos;
		bool found = false;
		while (f && !found && fgets(text, sizeof(text), f))
			found = sscanf(text, "pos: %llu", &pos) == 1;
		if (f)
			fclose(f);
		if (!found) { /* the descriptor is gone already (another thread) */
			recording_invalidate_all(rec);
			return;
		}
		end = pos;
	}
	recording_invalidate(rec, end - (uint64_t)result, (uint64_t)result);
}

/* A write to a file shows through the pages of its private mappings that
 * the program has not written (they are still the page cache's): forget
 * what the mirror holds of every mapping of that file. */
static void invalidate_file_mappings(struct recording *rec, long nr, const uint64_t args[6],
				     int64_t result, int fd)
{
	char link[64], file[4096];
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)rec->cur->tracee.pid, fd);
	ssize_t n = readlink(link, file, sizeof(file) - 1);
	if (n <= 0 || file[0] != '/')
		return; /* pipes, sockets, ttys: never mapped */
	file[n] = 0;
	if (is_own_memory_file(rec, file) && result > 0) {
		invalidate_memory_file_write(rec, nr, args, result, fd);
		return;
	}
	for (size_t i = 0; i < mapping_table_count(rec->maps); i++) {
		const struct mapping *m = mapping_table_at(rec->maps, i);
		if (m->path && strcmp(m->path, file) == 0)
			recording_invalidate(rec, m->start, m->end - m->start);
	}
}

/* brk moved the end of the heap: the pages between the old end and the
 * new one appeared (zeroed) or went away. The first brk of a program
 * (brk(0)) only tells where the heap starts. */
static void invalidate_break_change(struct recording *rec, uint64_t request, uint64_t new_break)
{
	uint64_t old = rec->program_break;
	rec->program_break = new_break;
	if (!old) {
		if (request)
			recording_invalidate_all(rec);
		return;
	}
	uint64_t lo = old < new_break ? old : new_break, hi = old < new_break ? new_break : old;
	if (hi > lo)
		recording_invalidate(rec, lo, hi - lo);
}

/* The mapping table after a mapping syscall: the ranges it changed read
 * again (mapping_table_refresh), or everything when they are not known.
 * shmdt's range is the segment at addr; brk's, between the old and the
 * new break. */
static int refresh_mappings(struct recording *rec, long nr, uint64_t result,
			    const struct syscall_effect *e, uint64_t addr, uint64_t segment)
{
	pid_t pid = rec->cur->tracee.pid;
	uint64_t old_break = rec->program_break;
	int r = 0;
	if (nr == SYS_shmdt && segment)
		r = mapping_table_refresh(rec->maps, pid, addr, segment);
	else if (nr == SYS_brk && old_break)
		r = mapping_table_refresh(rec->maps, pid, old_break < result ? old_break : result,
					  old_break < result ? result - old_break : old_break - result);
	else if (nr == SYS_shmdt || nr == SYS_brk || e->count == 0)
		return recording_reload_mappings(rec);
	for (size_t i = 0; r == 0 && nr != SYS_shmdt && nr != SYS_brk && i < e->count; i++)
		r = mapping_table_refresh(rec->maps, pid, e->ranges[i].addr, e->ranges[i].len);
	if (r != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the program's mappings: %s",
				      strerror(errno));
	return 0;
}

/* Memory the kernel may have changed during a syscall, forgotten. */
void recording_apply_syscall_effects(struct recording *rec, long nr, const uint64_t args[6],
				     int64_t result)
{
	struct syscall_effect e;
	int changed_fd = syscall_changed_file_fd(nr, args, result);
	if (changed_fd >= 0)
		invalidate_file_mappings(rec, nr, args, result, changed_fd);
	syscall_effect_describe(nr, args, result,
				(syscall_memory_reader *)remote_memory_read, &rec->rm, &e);
	/* A failure fails the record after it. */
	if (kernel_writes_log_syscall(rec, &e) == 0)
		kernel_writes_log_ranges(rec, nr, args, result, &e);
	switch (e.kind) {
	case SYSCALL_KIND_PLAIN:
	case SYSCALL_KIND_THREAD:  /* what the kernel wrote for the new thread */
	case SYSCALL_KIND_PROCESS: /* the child has its own copy of the memory */
		for (size_t i = 0; i < e.count; i++)
			recording_invalidate(rec, e.ranges[i].addr, e.ranges[i].len);
		break;
	case SYSCALL_KIND_MAPPINGS: {
		/* shmdt(addr) takes the whole segment attached there, which
		 * the table still shows (one mapping, or several pieces of
		 * it after mprotect). */
		uint64_t segment = nr == SYS_shmdt ? mapping_table_extent(rec->maps, args[0]) : 0;
		if (refresh_mappings(rec, nr, (uint64_t)result, &e, args[0], segment) != 0)
			return;
		if (nr == SYS_shmdt) {
			if (segment)
				recording_invalidate(rec, args[0], segment);
			else
				recording_invalidate_all(rec); /* not in the table: anywhere */
			break;
		}
		if (nr == SYS_brk) {
			invalidate_break_change(rec, args[0], (uint64_t)result);
			break;
		}
		if (e.count == 0) {
			recording_invalidate_all(rec);
			break;
		}
		for (size_t i = 0; i < e.count; i++)
			recording_invalidate(rec, e.ranges[i].addr, e.ranges[i].len);
		if (nr == SYS_mmap && !(args[3] & 0x20 /* MAP_ANONYMOUS */) && (int64_t)args[4] >= 0)
			log_modules(rec, (uint64_t)result, args[1]);
		break;
	}
	case SYSCALL_KIND_SIGRETURN:
		break; /* registers from the frame; memory is only read */
	case SYSCALL_KIND_EXEC:
		break; /* one that failed (a new image is NATIVE_EXEC): nothing changed */
	case SYSCALL_KIND_SHARED_PROCESS:
		if (result > 0)
			rec->memory_shared_with_process = true; /* see below */
		break;
	default:
		note_undescribed(rec->res, nr, args);
		recording_invalidate_all(rec);
		break;
	}
	/* Another process writes this memory when it likes; what it wrote
	 * before a syscall that waited for it (wait4, futex, a pipe) is seen
	 * after. Reads between syscalls may still see older bytes. */
	if (rec->memory_shared_with_process)
		recording_invalidate_all(rec);
}
