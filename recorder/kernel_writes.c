/*
 * kernel_writes.c — KERNEL_WRITE records: what the kernel wrote, read back
 * from the stopped process after the transition and cut into records of
 * at most IDNA_MAX_KERNEL_WRITE bytes. Bytes that cannot be read (an
 * output pointer into unmapped memory: the kernel could not write there
 * either) are left out, except behind an undescribed syscall, where the
 * bytes read back stand for what it may have written and the unreadable
 * rest is logged unknown (kernel_write_ranges.c says why).
 */
#include <stdlib.h>
#include <string.h>

#include "recorder/kernel_writes.h"
#include "recorder/recording_internal.h"

/* The x86-64 ABI's red zone below rsp, which a signal frame skips. */
#define RED_ZONE 128
/* A frame on the current stack never spans more; a larger distance means
 * the handler runs on another stack. */
#define MAX_FRAME_SPAN (256u * 1024)
/* A frame's fixed part (return address, ucontext, siginfo) and alignment,
 * besides the XSAVE area; an upper bound for the alternate-stack case. */
#define FRAME_FIXED_BYTES 1024u

static int append(struct recording *rec, const struct idna_record *r)
{
	if (idna_writer_append(rec->writer, rec->cur->stream, r) != 0)
		return recording_fail(rec, RECORD_ERR_TRACE_WRITE, "cannot write the trace: %s",
				      idna_writer_error(rec->writer));
	return 0;
}

static int log_run(struct recording *rec, uint64_t addr, const uint8_t *bytes, size_t len,
		   uint32_t flags)
{
	struct idna_record r = { .type = IDNA_REC_KERNEL_WRITE };
	r.u.kernel_write.addr = addr;
	r.u.kernel_write.bytes = bytes;
	r.u.kernel_write.len = (uint32_t)len;
	r.u.kernel_write.flags = flags;
	return append(rec, &r);
}

int kernel_writes_log_bytes(struct recording *rec, uint64_t addr, const void *bytes, size_t len)
{
	const uint8_t *b = bytes;
	while (len) {
		size_t n = len < IDNA_MAX_KERNEL_WRITE ? len : IDNA_MAX_KERNEL_WRITE;
		if (log_run(rec, addr, b, n, 0) != 0)
			return -1;
		addr += n;
		b += n;
		len -= n;
	}
	return 0;
}

/* Reads [addr, addr+len) from the process and logs what is readable of it,
 * one page-bounded piece at a time past a hole. A hole is left out, or,
 * with holes_unknown, logged as a range whose bytes are unknown. */
static int log_range(struct recording *rec, uint64_t addr, uint64_t len, uint32_t flags,
		     bool holes_unknown)
{
	uint8_t buf[IDNA_MAX_KERNEL_WRITE];
	while (len) {
		size_t want = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		size_t got = remote_memory_fetch(&rec->rm, addr, buf, want);
		if (got && log_run(rec, addr, buf, got, flags) != 0)
			return -1;
		if (holes_unknown)
			rec->res->undescribed_bytes_logged += got;
		if (got < want) { /* a hole: go on at the next page */
			uint64_t hole = 4096 - ((addr + got) & 4095);
			hole = hole < len - got ? hole : len - got;
			if (holes_unknown) {
				if (kernel_writes_log_span(rec, addr + got, hole, IDNA_KWRITE_UNKNOWN) != 0)
					return -1;
				rec->res->undescribed_bytes_unknown += hole;
			}
			got += hole;
		}
		if (got >= len)
			break;
		addr += got;
		len -= got;
	}
	return 0;
}

int kernel_writes_log_read_back(struct recording *rec, uint64_t addr, uint64_t len)
{
	if (!len || addr + len < addr)
		return 0;
	return log_range(rec, addr, len, 0, true);
}

int kernel_writes_log_syscall(struct recording *rec, const struct syscall_effect *e)
{
	switch (e->kind) {
	case SYSCALL_KIND_PLAIN:
	case SYSCALL_KIND_THREAD:  /* the tids written for the new thread */
	case SYSCALL_KIND_PROCESS: /* the child's tid in the parent */
		for (size_t i = 0; i < e->count; i++)
			if (log_range(rec, e->ranges[i].addr, e->ranges[i].len, 0, false) != 0)
				return -1;
		return 0;
	case SYSCALL_KIND_UNKNOWN:
		return log_run(rec, 0, NULL, 0, IDNA_KWRITE_UNDESCRIBED);
	default:
		return 0; /* mappings, exec, exit, sigreturn: no output buffers */
	}
}

int kernel_writes_log_signal_frame(struct recording *rec, uint64_t old_rsp, uint64_t new_rsp)
{
	uint64_t end = old_rsp - RED_ZONE;
	if (old_rsp < RED_ZONE || new_rsp >= end || end - new_rsp > MAX_FRAME_SPAN)
		end = new_rsp + FRAME_FIXED_BYTES + rec->tracee.xstate_size;
	return log_range(rec, new_rsp, end - new_rsp, IDNA_KWRITE_SIGNAL_FRAME, false);
}

/* The bound on an initial stack logged whole: arguments and environment
 * are limited to a quarter of the stack limit; past this, only what the
 * program reads reaches the trace, as for any memory. */
#define MAX_INITIAL_STACK (2u << 20)

int kernel_writes_log_image(struct recording *rec, uint64_t rsp, bool with_stack)
{
	for (size_t i = 0; i < mapping_table_count(rec->maps); i++) {
		const struct mapping *m = mapping_table_at(rec->maps, i);
		bool vdso = m->path && strcmp(m->path, "[vdso]") == 0;
		bool stack = with_stack && rsp >= m->start && rsp < m->end;
		if (!vdso && !stack)
			continue;
		uint64_t from = stack ? rsp : m->start;
		if (m->end - from > MAX_INITIAL_STACK)
			continue;
		if (log_range(rec, from, m->end - from, IDNA_KWRITE_IMAGE, false) != 0)
			return -1;
	}
	return 0;
}
