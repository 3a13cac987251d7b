/*
 * syscall_flush.c — what of the mirror's dirty bytes must reach the
 * process before a native step. Everything, unless the step is a call
 * that reaches only its own arguments' memory, and enough pages are dirty
 * for the difference to matter: then only their pages. Such calls are
 * read and write (and their positioned forms) on a descriptor that is
 * neither a /proc file (the process's own memory file reads and writes
 * anywhere) nor a file the process maps (a write shows through its
 * private pages, which the mirror then forgets), futex (its words and
 * timeout), and a few that reach a small struct or nothing
 * (rt_sigprocmask, fstat, sysinfo, close, getpid...).
 *
 * Why that is enough: during such a call the kernel touches nothing of
 * the memory but the buffer; nothing else runs in the process meanwhile
 * (its other threads are emulated, their writes held in the same
 * mirror); what the kernel writes lands on pages flushed clean, which
 * the mirror forgets afterwards without losing a byte. Whatever runs
 * next natively flushes again: another syscall, an instruction, a
 * signal's delivery (its frame goes on the stack), the end of the
 * recording. exit_group takes nothing when no other process shares the
 * memory: no one sees it after. A program writing large buffers between
 * small reads and writes (xz) no longer sends them all to the process
 * each time.
 *
 * The first writes to MAP_PRIVATE pages of files go to the process at
 * every call all the same: the kernel makes its copy of such a page then,
 * and the call may let another process change the file (a write to a
 * pipe that wakes it), which natively the copy would not show
 * (memory_mirror_flush_copies, tests/programs/mmap_private_copy).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "recorder/syscall_flush.h"

/* Below this many dirty pages a whole flush costs about what the check
 * (a readlink) does. */
#define PARTIAL_FROM_PAGES 16

/* The memory a call reaches, when that is all it reaches: up to two
 * ranges (none for a call that reaches no memory), and whether it goes
 * through the descriptor in its first argument (which may be a file that
 * reaches further). False: it may reach anything. */
struct reach {
	uint64_t addr[3], len[3];
	unsigned n;
	bool through_fd;
	uint64_t path; /* a file name the call reads (its length is found in the mirror); 0: none */
};

/* A futex call's words and timeout: the word at uaddr, a second word at
 * uaddr2 for the operations that take one (a requeue's target, the word
 * FUTEX_WAKE_OP changes), the timeout of those that wait. False for an
 * operation this does not know. */
static bool futex_reach(const uint64_t args[6], struct reach *r)
{
	unsigned op = (unsigned)args[1] & 127; /* less FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */
	bool second, timeout;
	switch (op) {
	case 0:  /* FUTEX_WAIT */
	case 6:  /* FUTEX_LOCK_PI */
	case 9:  /* FUTEX_WAIT_BITSET */
	case 13: /* FUTEX_LOCK_PI2 */
		second = false, timeout = true;
		break;
	case 1:  /* FUTEX_WAKE */
	case 2:  /* FUTEX_FD */
	case 7:  /* FUTEX_UNLOCK_PI */
	case 8:  /* FUTEX_TRYLOCK_PI */
	case 10: /* FUTEX_WAKE_BITSET */
		second = false, timeout = false;
		break;
	case 3:  /* FUTEX_REQUEUE */
	case 4:  /* FUTEX_CMP_REQUEUE */
	case 5:  /* FUTEX_WAKE_OP */
	case 12: /* FUTEX_CMP_REQUEUE_PI */
		second = true, timeout = false;
		break;
	case 11: /* FUTEX_WAIT_REQUEUE_PI */
		second = true, timeout = true;
		break;
	default:
		return false;
	}
	r->addr[r->n] = args[0];
	r->len[r->n++] = sizeof(uint32_t);
	if (timeout) {
		r->addr[r->n] = args[3];
		r->len[r->n++] = sizeof(struct timespec);
	}
	if (second) {
		r->addr[r->n] = args[4];
		r->len[r->n++] = sizeof(uint32_t);
	}
	return true;
}

static bool reaches_only(long nr, const uint64_t args[6], struct reach *r)
{
	*r = (struct reach){ 0 };
	switch (nr) {
	case SYS_read:
	case SYS_write:
	case SYS_pread64:
	case SYS_pwrite64:
		*r = (struct reach){ { args[1] }, { args[2] }, 1, true, 0 };
		return true;
	case SYS_rt_sigprocmask: /* the new mask, the old one */
		*r = (struct reach){ { args[1], args[2] }, { args[3], args[3] }, 2, false, 0 };
		return true;
	case SYS_fstat:
		*r = (struct reach){ { args[1] }, { sizeof(struct stat) }, 1, false, 0 };
		return true;
	case SYS_clock_gettime:
		*r = (struct reach){ { args[1] }, { sizeof(struct timespec) }, 1, false, 0 };
		return true;
	case SYS_futex: /* a JVM's or node's threads wait and wake through it */
		return futex_reach(args, r);
	case SYS_sysinfo:
		*r = (struct reach){ { args[0] }, { sizeof(struct sysinfo) }, 1, false, 0 };
		return true;
	case SYS_sched_getaffinity: /* the mask, as long as the call says */
		*r = (struct reach){ { args[2] }, { args[1] }, 1, false, 0 };
		return true;
	case SYS_getrusage:
		*r = (struct reach){ { args[1] }, { sizeof(struct rusage) }, 1, false, 0 };
		return true;
	case SYS_nanosleep: /* the request, the time left */
		*r = (struct reach){ { args[0], args[1] }, { sizeof(struct timespec), sizeof(struct timespec) }, 2, false, 0 };
		return true;
	case SYS_clock_nanosleep:
		*r = (struct reach){ { args[2], args[3] }, { sizeof(struct timespec), sizeof(struct timespec) }, 2, false, 0 };
		return true;
	case SYS_newfstatat: /* the name, the struct */
		*r = (struct reach){ { args[2] }, { sizeof(struct stat) }, 1, false, args[1] };
		return true;
	case SYS_openat:
		/* A file opened without truncating it: the kernel reads the
		 * name only (a truncation takes pages of the mappings of the
		 * file, dirty or not). */
		*r = (struct reach){ .path = args[1] };
		return !(args[2] & (O_TRUNC | O_CREAT));
	case SYS_fcntl: /* the commands that take no pointer */
		return args[1] == F_GETFD || args[1] == F_SETFD || args[1] == F_GETFL ||
		       args[1] == F_SETFL || args[1] == F_DUPFD || args[1] == F_DUPFD_CLOEXEC;
	case SYS_mprotect: /* the pages must take their bytes before they refuse writes */
	case SYS_madvise:
	case SYS_mremap: /* the old pages move with their bytes */
		*r = (struct reach){ { args[0] }, { args[1] }, 1, false, 0 };
		return true;
	case SYS_mmap:
	case SYS_munmap:
		/* What they replace or remove (whole pages) is gone natively
		 * too: the mirror forgets those pages, dirty or not. Not brk:
		 * a break that moves down inside a page keeps the bytes below
		 * it, which the mirror forgets with the page. */
	case SYS_close:
	case SYS_lseek:
	case SYS_getpid:
	case SYS_gettid:
	case SYS_getppid:
	case SYS_sched_yield:
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

/* The length of the file name at addr with its NUL, read from the
 * mirror (which holds the program's latest bytes); 0 when it is not
 * readable or longer than PATH_MAX. */
static uint64_t path_length(struct recording *rec, uint64_t addr)
{
	char chunk[256];
	for (uint64_t done = 0; done < 4096;) {
		uint64_t a = addr + done, n = sizeof(chunk) - (a % sizeof(chunk));
		if (memory_mirror_read(rec->mirror, a, chunk, n) != EMU_MEM_OK)
			return 0;
		const char *nul = memchr(chunk, 0, n);
		if (nul)
			return done + (uint64_t)(nul - chunk) + 1;
		done += n;
	}
	return 0;
}

/* A native step that writes no memory of the process: a futex wait
 * (FUTEX_WAIT, FUTEX_WAIT_BITSET: the kernel only reads the word), with
 * no signal to deliver (its frame would go on the stack). A signal that
 * comes during the wait stops the thread for the recorder first. */
static bool writes_nothing(const struct native_progress *p)
{
	unsigned op = (unsigned)p->args[1] & 127;
	return p->syscall && p->nr == SYS_futex && (op == 0 || op == 9) && !p->deliver;
}

/* memory_mirror_set_quiet's condition: only the mirror writes the
 * process's anonymous memory while no thread of it is in the kernel or
 * back from it unseen (THREAD_EVENT: what its call wrote is not yet
 * forgotten by the mirror), but in a call that writes nothing; no other
 * process shares the memory; and it has set up no asynchronous I/O
 * (which the kernel completes into its buffers at any time). */
static bool process_quiet(struct recording *rec, long nr)
{
	if (nr == SYS_io_setup || nr == SYS_io_uring_setup)
		rec->async_io = true;
	if (!rec->memory_ours_alone || rec->memory_shared_with_process || rec->async_io)
		return false;
	for (size_t i = 0; i < rec->n_threads; i++) {
		const struct rec_thread *t = rec->threads[i];
		if ((t->state == THREAD_IN_KERNEL || t->state == THREAD_EVENT) &&
		    !writes_nothing(&t->native))
			return false;
	}
	return true;
}

static int flush_for(struct recording *rec, long nr, const uint64_t args[6]);

int syscall_flush(struct recording *rec, long nr, const uint64_t args[6])
{
	memory_mirror_set_quiet(rec->mirror, process_quiet(rec, nr));
	int r = flush_for(rec, nr, args);
	memory_mirror_set_quiet(rec->mirror, false);
	return r;
}

static int flush_for(struct recording *rec, long nr, const uint64_t args[6])
{
	bool alone = rec->memory_ours_alone && !rec->memory_shared_with_process;
	/* Nothing can look at the memory of a process that ends, if no
	 * other process shares it. */
	if (nr == SYS_exit_group && alone)
		return 0;
	struct reach r;
	if (nr < 0 || !reaches_only(nr, args, &r) || rec->memory_shared_with_process ||
	    !memory_mirror_dirty_at_least(rec->mirror, PARTIAL_FROM_PAGES) ||
	    (r.through_fd && !plain_descriptor(rec, (int)args[0])))
		return memory_mirror_flush(rec->mirror);
	if (memory_mirror_flush_copies(rec->mirror) != 0)
		return -1;
	if (r.path) {
		r.addr[r.n] = r.path;
		r.len[r.n] = path_length(rec, r.path);
		if (!r.len[r.n++])
			return memory_mirror_flush(rec->mirror);
	}
	for (unsigned i = 0; i < r.n; i++)
		if (r.addr[i] && memory_mirror_flush_range(rec->mirror, r.addr[i], r.len[i]) != 0)
			return -1;
	return 0;
}
