/*
 * kernel_write_ranges.c — KERNEL_WRITE range records (man/idna.5): memory
 * a syscall changed without the recorder logging its bytes. An address-
 * space change makes a range zero (a fresh anonymous mapping, private
 * anonymous pages MADV_DONTNEED dropped, heap pages brk added) or unknown
 * (a file mapping, an unmapped or moved range). Replay then shows the
 * zeros, or refuses the unknown bytes until the program reads them,
 * instead of the bytes it knew from before. An undescribed syscall may have written what its pointer
 * arguments point at: those bytes are logged as read back after it.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "recorder/kernel_writes.h"
#include "recorder/recording_internal.h"

/* What an undescribed syscall may have written behind one pointer
 * argument, when nothing says how much: a page. */
#define GUESSED_OUTPUT 4096u

int kernel_writes_log_span(struct recording *rec, uint64_t addr, uint64_t span, uint32_t flags)
{
	if (!span || addr + span < addr)
		return 0;
	struct idna_record r = { .type = IDNA_REC_KERNEL_WRITE };
	r.u.kernel_write.addr = addr;
	r.u.kernel_write.span = span;
	r.u.kernel_write.flags = flags;
	if (idna_writer_append(rec->writer, rec->cur->stream, &r) != 0)
		return recording_fail(rec, RECORD_ERR_TRACE_WRITE, "cannot write the trace: %s",
				      idna_writer_error(rec->writer));
	return 0;
}

/* MADV_DONTNEED: private anonymous pages read as zero afterwards, private
 * file pages as the file's; shared pages keep their bytes. Piece by piece
 * over the mappings the range covers (the table is the one before the
 * call; madvise does not change it). */
static int log_dontneed(struct recording *rec, uint64_t addr, uint64_t len)
{
	uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
	for (size_t i = 0; i < mapping_table_count(rec->maps); i++) {
		const struct mapping *m = mapping_table_at(rec->maps, i);
		uint64_t lo = m->start > addr ? m->start : addr;
		uint64_t hi = m->end < end ? m->end : end;
		if (lo >= hi || (m->flags & MAPPING_SHARED))
			continue;
		uint32_t flags = m->flags & MAPPING_FILE ? IDNA_KWRITE_UNKNOWN : IDNA_KWRITE_ZERO;
		if (kernel_writes_log_span(rec, lo, hi - lo, flags) != 0)
			return -1;
	}
	return 0;
}

/* brk moved the end of the heap from rec->program_break (the answer
 * before this one; 0: no earlier call, which only tells where the heap
 * is) to new_break: the whole pages past the old end are new, zero; those
 * past the new end are gone. The page holding a break keeps its bytes. */
static int log_break_change(struct recording *rec, uint64_t new_break)
{
	uint64_t old = (rec->program_break + 4095) & ~4095ull, now = (new_break + 4095) & ~4095ull;
	if (!rec->program_break || old == now)
		return 0;
	if (now > old)
		return kernel_writes_log_span(rec, old, now - old, IDNA_KWRITE_ZERO);
	return kernel_writes_log_span(rec, now, old - now, IDNA_KWRITE_UNKNOWN);
}

static int log_mapping_change(struct recording *rec, long nr, const uint64_t a[6],
			      int64_t result)
{
	if (result < 0 && nr != SYS_madvise) /* madvise fails over a hole after its work */
		return 0;
	switch (nr) {
	case SYS_mmap: /* over whatever was there: a new mapping's bytes */
		return kernel_writes_log_span(rec, (uint64_t)result, a[1],
					      a[3] & MAP_ANONYMOUS ? IDNA_KWRITE_ZERO
								   : IDNA_KWRITE_UNKNOWN);
	case SYS_munmap:
		return kernel_writes_log_span(rec, a[0], a[1], IDNA_KWRITE_UNKNOWN);
	case SYS_mremap: /* the old range is gone or moved; a grown part is new */
		if ((uint64_t)result == a[0])
			return a[2] > a[1] ? kernel_writes_log_span(rec, a[0] + a[1], a[2] - a[1],
								    IDNA_KWRITE_UNKNOWN)
					   : 0;
		if (kernel_writes_log_span(rec, a[0], a[1], IDNA_KWRITE_UNKNOWN) != 0)
			return -1;
		return kernel_writes_log_span(rec, (uint64_t)result, a[2], IDNA_KWRITE_UNKNOWN);
	case SYS_brk:
		return log_break_change(rec, (uint64_t)result);
	case SYS_madvise:
		switch (a[2]) {
		case MADV_DONTNEED:
		case 24: /* MADV_DONTNEED_LOCKED */
			return log_dontneed(rec, a[0], a[1]);
		case MADV_FREE:   /* dropped or not, as memory pressure decides */
		case MADV_REMOVE: /* the file's hole: zeros, or the file's bytes */
			return kernel_writes_log_span(rec, a[0], a[1], IDNA_KWRITE_UNKNOWN);
		default:
			return 0;
		}
	default:
		return 0; /* mprotect, shmdt: bytes unchanged or the range gone for good */
	}
}

/* ioctl numbers that encode their argument: direction and size. */
#define IOC_DIR(n) (((n) >> 30) & 3u)
#define IOC_SIZE(n) (((n) >> 16) & 0x3fffu)
#define IOC_WRITE_ONLY 1u /* the kernel only reads the argument */
#define IOC_READ 2u       /* the kernel writes the argument */

/* A pointer argument's possible output: up to GUESSED_OUTPUT bytes, within
 * the writable mapping it points into (none: not a pointer to output). */
static int log_guessed_output(struct recording *rec, uint64_t p)
{
	const struct mapping *m = mapping_table_find(rec->maps, p);
	if (!m || !(m->flags & MAPPING_WRITE))
		return 0;
	uint64_t span = m->end - p < GUESSED_OUTPUT ? m->end - p : GUESSED_OUTPUT;
	return kernel_writes_log_read_back(rec, p, span);
}

/* An undescribed syscall: an ioctl whose number encodes its output is
 * exact; otherwise every argument that points into writable memory may
 * have had a page written behind it. Those bytes are read back from the
 * process and logged: what they hold after the call is exact whether or
 * not the kernel changed them, so replay shows them from the call on
 * (only a part that cannot be read becomes unknown). The kernel may have
 * written elsewhere too; the recorder's own cache forgets everything for
 * that (recording.c). */
static int log_undescribed(struct recording *rec, long nr, const uint64_t a[6])
{
	if (nr == SYS_ioctl) {
		uint32_t cmd = (uint32_t)a[1];
		if (IOC_DIR(cmd) & IOC_READ)
			return kernel_writes_log_read_back(rec, a[2], IOC_SIZE(cmd));
		if (IOC_DIR(cmd) == IOC_WRITE_ONLY)
			return 0;
		return log_guessed_output(rec, a[2]); /* an old number: no size in it */
	}
	for (int i = 0; i < 6; i++)
		if (log_guessed_output(rec, a[i]) != 0)
			return -1;
	return 0;
}

int kernel_writes_log_ranges(struct recording *rec, long nr, const uint64_t args[6],
			     int64_t result, const struct syscall_effect *e)
{
	switch (e->kind) {
	case SYSCALL_KIND_MAPPINGS:
		return log_mapping_change(rec, nr, args, result);
	case SYSCALL_KIND_UNKNOWN:
		return log_undescribed(rec, nr, args);
	default:
		return 0;
	}
}
