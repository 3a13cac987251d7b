/*
 * trace_events.c — the records a recording writes besides the memory
 * layer's MISS and CODE_PAGE records: key frames, checkpoints, kernel
 * transitions, non-deterministic results, natively executed instructions,
 * signals, and the process-wide events of the global stream.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "recorder/recording_internal.h"
#include "recorder/trace_events.h"
#include "trace-format/trace_regs.h"

static int append(struct recording *rec, uint32_t stream, const struct idna_record *r)
{
	if (idna_writer_append(rec->writer, stream, r) != 0)
		return recording_fail(rec, RECORD_ERR_TRACE_WRITE, "cannot write the trace: %s",
				      idna_writer_error(rec->writer));
	return 0;
}

int log_key_frame(struct recording *rec, uint32_t reason)
{
	struct idna_record r = { .type = IDNA_REC_KEY_FRAME };
	r.u.key.global_seq = ++rec->global_seq;
	r.u.key.icount = emu_icount(rec->cpu);
	r.u.key.reason = reason;
	return append(rec, rec->cur->stream, &r);
}

int log_thread_create(struct recording *rec, const struct rec_thread *t, pid_t parent)
{
	struct idna_regs regs;
	trace_regs_from_emu(&t->regs, &regs);
	struct idna_record r = { .type = IDNA_REC_THREAD_CREATE };
	r.u.thread_create.tid = (uint64_t)t->tracee.pid;
	r.u.thread_create.parent_tid = (uint64_t)parent;
	r.u.thread_create.stream = t->stream;
	r.u.thread_create.regs = &regs;
	return append(rec, GLOBAL_STREAM, &r);
}

int log_thread_exit(struct recording *rec, const struct rec_thread *t, int64_t status)
{
	struct idna_record r = { .type = IDNA_REC_THREAD_EXIT };
	r.u.thread_exit.tid = (uint64_t)t->tracee.pid;
	r.u.thread_exit.status = status;
	return append(rec, GLOBAL_STREAM, &r);
}

int log_checkpoint(struct recording *rec)
{
	struct idna_regs regs;
	trace_regs_from_emu(emu_regs(rec->cpu), &regs);
	struct idna_record r = { .type = IDNA_REC_CHECKPOINT };
	r.u.checkpoint.global_seq = ++rec->global_seq;
	r.u.checkpoint.icount = emu_icount(rec->cpu);
	r.u.checkpoint.regs = &regs;
	if (append(rec, rec->cur->stream, &r) != 0)
		return -1;
	rec->cur->checkpoint_seq = r.u.checkpoint.global_seq;
	rec->cur->checkpoint_icount = r.u.checkpoint.icount;
	/* What a checkpoint means for replay: an empty prediction cache, no
	 * code page logged. Decoded code is kept, but fetches its bytes again
	 * before it next runs, so its pages are logged as if it were decoded
	 * anew, where replay from here decodes it. */
	traced_memory_checkpoint(rec->tm);
	emu_refetch_code(rec->cpu);
	rec->res->checkpoints++;
	return 0;
}

int log_kernel(struct recording *rec, uint32_t kind, uint64_t nr, uint64_t result)
{
	struct idna_regs regs;
	trace_regs_from_emu(emu_regs(rec->cpu), &regs);
	struct idna_record r = { .type = IDNA_REC_KERNEL };
	r.u.kernel.kind = kind;
	r.u.kernel.nr = nr;
	r.u.kernel.result = result;
	r.u.kernel.regs = &regs;
	return append(rec, rec->cur->stream, &r);
}

int log_nondet(struct recording *rec, uint32_t kind, unsigned n_in, const uint64_t *in,
	       unsigned n_out, const uint64_t *out)
{
	struct idna_record r = { .type = IDNA_REC_NONDET };
	r.u.nondet.kind = kind;
	r.u.nondet.n_in = n_in;
	r.u.nondet.n_out = n_out;
	/* rdtsc has no inputs: `in` may be NULL, which memcpy does not allow. */
	if (n_in)
		memcpy(r.u.nondet.in, in, n_in * sizeof(uint64_t));
	if (n_out)
		memcpy(r.u.nondet.out, out, n_out * sizeof(uint64_t));
	return append(rec, rec->cur->stream, &r);
}

int log_native(struct recording *rec, const uint8_t *insn, unsigned len)
{
	struct idna_regs regs;
	trace_regs_from_emu(emu_regs(rec->cpu), &regs);
	struct idna_record r = { .type = IDNA_REC_NATIVE };
	r.u.native.insn = insn;
	r.u.native.insn_len = len;
	r.u.native.regs = &regs;
	r.u.native.n_writes = 0; /* its writes reach replay as prediction misses */
	return append(rec, rec->cur->stream, &r);
}

int log_signal(struct recording *rec, const siginfo_t *info)
{
	struct idna_record r = { .type = IDNA_REC_SIGNAL };
	r.u.signal.tid = (uint64_t)rec->cur->tracee.pid;
	r.u.signal.signo = info->si_signo;
	r.u.signal.code = info->si_code;
	r.u.signal.addr = (uint64_t)(uintptr_t)info->si_addr;
	rec->last_logged_signo = info->si_signo;
	return append(rec, rec->cur->stream, &r);
}

int log_exec(struct recording *rec, const char *path)
{
	struct idna_record r = { .type = IDNA_REC_EXECVE };
	r.u.execve.path = path;
	r.u.execve.address_space = rec->address_space;
	return append(rec, GLOBAL_STREAM, &r);
}

static uint32_t prot_of(unsigned mapping_flags)
{
	return (mapping_flags & MAPPING_READ ? PROT_READ : 0) |
	       (mapping_flags & MAPPING_WRITE ? PROT_WRITE : 0) |
	       (mapping_flags & MAPPING_EXEC ? PROT_EXEC : 0);
}

/* Logs the file-backed mappings overlapping [addr, addr+len) (everything
 * with len == UINT64_MAX), each with its file's build-id. */
int log_modules(struct recording *rec, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < mapping_table_count(rec->maps); i++) {
		const struct mapping *m = mapping_table_at(rec->maps, i);
		if (!m->path || m->path[0] != '/')
			continue;
		if (len != UINT64_MAX && (m->end <= addr || m->start >= addr + len))
			continue;
		uint8_t build_id[64];
		char msg[256];
		int n = idna_read_build_id(m->path, build_id, sizeof(build_id), msg, sizeof(msg));
		struct idna_record r = { .type = IDNA_REC_MODULE_LOAD };
		r.u.module_load.addr = m->start;
		r.u.module_load.size = m->end - m->start;
		r.u.module_load.offset = m->offset;
		r.u.module_load.prot = prot_of(m->flags);
		r.u.module_load.path = m->path;
		r.u.module_load.build_id = build_id;
		r.u.module_load.build_id_len = n > 0 ? (uint32_t)n : 0;
		if (append(rec, GLOBAL_STREAM, &r) != 0)
			return -1;
	}
	return 0;
}

int log_process_exit(struct recording *rec, int64_t status)
{
	struct idna_record r = { .type = IDNA_REC_PROCESS_EXIT };
	r.u.process_exit.status = status;
	return append(rec, GLOBAL_STREAM, &r);
}
