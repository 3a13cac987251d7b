/*
 * trace_sample.h — deterministic sample records of every type for the
 * trace-format suites: sample_record(i) builds the i-th record of a
 * stream, sample_equal() compares a decoded record with it.
 */
#ifndef TTREC_TRACE_SAMPLE_H
#define TTREC_TRACE_SAMPLE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace-format/idna.h"

struct sample {
	struct idna_record rec;
	struct idna_regs regs;
	uint8_t bytes[4096];
	struct idna_mem_effect writes[3];
	char path[64];
};

static inline uint64_t sample_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Record i of stream `stream`: every type in turn, values drawn from i. */
static inline void sample_record(struct sample *s, uint32_t stream, uint64_t i)
{
	uint64_t seed = (i + 1) * 0x9E3779B97F4A7C15ull ^ stream;
	memset(s, 0, sizeof(*s));
	for (size_t k = 0; k < sizeof(s->bytes); k++)
		s->bytes[k] = (uint8_t)sample_rand(&seed);
	/* Registers change a little from record to record, like a program's. */
	for (int k = 0; k < 16; k++)
		s->regs.gpr[k] = 0x1000 * k + i / 3;
	s->regs.rip = 0x400000 + 4 * i;
	s->regs.rflags = 0x202;
	s->regs.fs_base = 0x7f0000001000;
	s->regs.seg_cs = 0x33;
	s->regs.seg_ss = 0x2b;
	s->regs.fcw = 0x37f;
	s->regs.mxcsr = 0x1f80;
	s->regs.ftw = 0xffff;
	s->regs.st[3][9] = (uint8_t)i;
	s->regs.zmm[i % 32][i % 64] = (uint8_t)(i | 1);
	s->regs.k[i % 8] = i;
	struct idna_record *r = &s->rec;
	r->type = 1 + (uint32_t)(i % (IDNA_REC_TYPE_COUNT - 1));
	switch (r->type) {
	case IDNA_REC_MISS:
		/* Runs of every length a varint holds, 1 to 10 bytes. */
		r->u.miss.hits_before = sample_rand(&seed) >> (i % 64);
		r->u.miss.len = 1 + (uint32_t)(i % 64);
		r->u.miss.value = s->bytes;
		break;
	case IDNA_REC_KEY_FRAME:
		r->u.key.global_seq = 1000 + i;
		r->u.key.icount = 50 * i;
		r->u.key.reason = (uint32_t)(i % 3);
		break;
	case IDNA_REC_CHECKPOINT:
		r->u.checkpoint.global_seq = 1000 + i;
		r->u.checkpoint.icount = 50 * i;
		r->u.checkpoint.regs = &s->regs;
		break;
	case IDNA_REC_KERNEL:
		r->u.kernel.kind = (uint32_t)(i % 3);
		r->u.kernel.nr = i % 300;
		r->u.kernel.result = (uint64_t)-(int64_t)(i % 40);
		r->u.kernel.regs = &s->regs;
		break;
	case IDNA_REC_NONDET:
		r->u.nondet.kind = IDNA_NONDET_CPUID;
		r->u.nondet.n_in = 2;
		r->u.nondet.in[0] = 7;
		r->u.nondet.in[1] = i % 2;
		r->u.nondet.n_out = 4;
		for (int k = 0; k < 4; k++)
			r->u.nondet.out[k] = sample_rand(&seed) & 0xffffffff;
		break;
	case IDNA_REC_NATIVE:
		r->u.native.insn = s->bytes;
		r->u.native.insn_len = 1 + (uint32_t)(i % 15);
		r->u.native.regs = &s->regs;
		r->u.native.n_writes = (uint32_t)(i % 4);
		for (uint32_t k = 0; k < r->u.native.n_writes; k++)
			s->writes[k] = (struct idna_mem_effect){0x7ffd0000 + 64 * k, 8 * (k + 1), s->bytes + 100 * k};
		r->u.native.writes = s->writes;
		break;
	case IDNA_REC_CODE_PAGE:
		r->u.code_page.addr = 0x401000 + 4096 * (i % 7);
		r->u.code_page.bytes = s->bytes;
		r->u.code_page.len = 4096;
		break;
	case IDNA_REC_THREAD_CREATE:
		r->u.thread_create.tid = 100 + i;
		r->u.thread_create.parent_tid = 100;
		r->u.thread_create.stream = stream + 1;
		r->u.thread_create.regs = &s->regs;
		break;
	case IDNA_REC_THREAD_EXIT:
		r->u.thread_exit.tid = 100 + i - 1; /* the thread sample i-1 created */
		r->u.thread_exit.status = (int64_t)(i % 5) - 2;
		break;
	case IDNA_REC_MODULE_LOAD:
		snprintf(s->path, sizeof(s->path), "/lib/module%llu.so", (unsigned long long)i);
		r->u.module_load.addr = 0x7f0000000000 + 0x100000 * i;
		r->u.module_load.size = 0x2000;
		r->u.module_load.offset = 0x1000;
		r->u.module_load.prot = 5;
		r->u.module_load.path = s->path;
		r->u.module_load.build_id = s->bytes;
		r->u.module_load.build_id_len = 20;
		break;
	case IDNA_REC_MODULE_UNMAP:
		r->u.module_unmap.addr = 0x7f0000000000 + 0x100000 * (i - 1);
		r->u.module_unmap.size = 0x2000;
		break;
	case IDNA_REC_EXECVE:
		snprintf(s->path, sizeof(s->path), "/bin/prog%llu", (unsigned long long)i);
		r->u.execve.path = s->path;
		r->u.execve.address_space = (uint32_t)i;
		break;
	case IDNA_REC_SIGNAL:
		r->u.signal.tid = 100;
		r->u.signal.signo = 11;
		r->u.signal.code = -6;
		r->u.signal.addr = 0xdead0000 + i;
		break;
	case IDNA_REC_PROCESS_EXIT:
		r->u.process_exit.status = (int64_t)i << 8;
		break;
	case IDNA_REC_CACHE_STATS:
		r->u.cache_stats.hits = 1000 * i;
		r->u.cache_stats.misses = i;
		break;
	case IDNA_REC_KERNEL_WRITE:
		r->u.kernel_write.addr = 0x7ffd0000 + 8 * i;
		r->u.kernel_write.flags = i % 5 == 0 ? IDNA_KWRITE_UNDESCRIBED : 0;
		r->u.kernel_write.len = i % 5 == 0 ? 0 : (uint32_t)(i % 300);
		r->u.kernel_write.bytes = s->bytes;
		r->u.kernel_write.span = 0;
		if (i % 5 == 2) { /* a range: no bytes, a length past 32 bits */
			r->u.kernel_write.flags = i % 2 ? IDNA_KWRITE_ZERO : IDNA_KWRITE_UNKNOWN;
			r->u.kernel_write.len = 0;
			r->u.kernel_write.bytes = NULL;
			r->u.kernel_write.span = (1ull << 33) + 4096 * i;
		}
		break;
	}
}

/* Samples cycle through the record types: how many of n are of one. */
#define SAMPLE_TYPES (IDNA_REC_TYPE_COUNT - 1)
static inline uint64_t samples_of_type(uint64_t n, uint32_t type)
{
	return (n + SAMPLE_TYPES - type) / SAMPLE_TYPES;
}

static inline void assert_regs_equal(const struct idna_regs *a, const struct idna_regs *b)
{
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(memcmp(a, b, sizeof(*a)), 0);
}

/* Field-by-field comparison of a decoded record with the sample. */
static inline void assert_sample_equal(const struct sample *s, const struct idna_record *got)
{
	const struct idna_record *w = &s->rec;
	ck_assert_uint_eq(got->type, w->type);
	switch (w->type) {
	case IDNA_REC_MISS:
		ck_assert_uint_eq(got->u.miss.hits_before, w->u.miss.hits_before);
		ck_assert_uint_eq(got->u.miss.len, w->u.miss.len);
		ck_assert_int_eq(memcmp(got->u.miss.value, w->u.miss.value, w->u.miss.len), 0);
		break;
	case IDNA_REC_KEY_FRAME:
		ck_assert_uint_eq(got->u.key.global_seq, w->u.key.global_seq);
		ck_assert_uint_eq(got->u.key.icount, w->u.key.icount);
		ck_assert_uint_eq(got->u.key.reason, w->u.key.reason);
		break;
	case IDNA_REC_CHECKPOINT:
		ck_assert_uint_eq(got->u.checkpoint.global_seq, w->u.checkpoint.global_seq);
		ck_assert_uint_eq(got->u.checkpoint.icount, w->u.checkpoint.icount);
		assert_regs_equal(got->u.checkpoint.regs, w->u.checkpoint.regs);
		break;
	case IDNA_REC_KERNEL:
		ck_assert_uint_eq(got->u.kernel.kind, w->u.kernel.kind);
		ck_assert_uint_eq(got->u.kernel.nr, w->u.kernel.nr);
		ck_assert_uint_eq(got->u.kernel.result, w->u.kernel.result);
		assert_regs_equal(got->u.kernel.regs, w->u.kernel.regs);
		break;
	case IDNA_REC_NONDET:
		ck_assert_uint_eq(got->u.nondet.kind, w->u.nondet.kind);
		ck_assert_uint_eq(got->u.nondet.n_in, w->u.nondet.n_in);
		ck_assert_uint_eq(got->u.nondet.n_out, w->u.nondet.n_out);
		ck_assert_int_eq(memcmp(got->u.nondet.in, w->u.nondet.in, sizeof(w->u.nondet.in)), 0);
		ck_assert_int_eq(memcmp(got->u.nondet.out, w->u.nondet.out, sizeof(w->u.nondet.out)), 0);
		break;
	case IDNA_REC_NATIVE:
		ck_assert_uint_eq(got->u.native.insn_len, w->u.native.insn_len);
		ck_assert_int_eq(memcmp(got->u.native.insn, w->u.native.insn, w->u.native.insn_len), 0);
		assert_regs_equal(got->u.native.regs, w->u.native.regs);
		ck_assert_uint_eq(got->u.native.n_writes, w->u.native.n_writes);
		for (uint32_t k = 0; k < w->u.native.n_writes; k++) {
			ck_assert_uint_eq(got->u.native.writes[k].addr, w->u.native.writes[k].addr);
			ck_assert_uint_eq(got->u.native.writes[k].len, w->u.native.writes[k].len);
			ck_assert_int_eq(memcmp(got->u.native.writes[k].bytes, w->u.native.writes[k].bytes,
						w->u.native.writes[k].len), 0);
		}
		break;
	case IDNA_REC_CODE_PAGE:
		ck_assert_uint_eq(got->u.code_page.addr, w->u.code_page.addr);
		ck_assert_uint_eq(got->u.code_page.len, w->u.code_page.len);
		ck_assert_int_eq(memcmp(got->u.code_page.bytes, w->u.code_page.bytes, w->u.code_page.len), 0);
		break;
	case IDNA_REC_THREAD_CREATE:
		ck_assert_uint_eq(got->u.thread_create.tid, w->u.thread_create.tid);
		ck_assert_uint_eq(got->u.thread_create.parent_tid, w->u.thread_create.parent_tid);
		ck_assert_uint_eq(got->u.thread_create.stream, w->u.thread_create.stream);
		assert_regs_equal(got->u.thread_create.regs, w->u.thread_create.regs);
		break;
	case IDNA_REC_THREAD_EXIT:
		ck_assert_uint_eq(got->u.thread_exit.tid, w->u.thread_exit.tid);
		ck_assert_int_eq(got->u.thread_exit.status, w->u.thread_exit.status);
		break;
	case IDNA_REC_MODULE_LOAD:
		ck_assert_uint_eq(got->u.module_load.addr, w->u.module_load.addr);
		ck_assert_uint_eq(got->u.module_load.size, w->u.module_load.size);
		ck_assert_uint_eq(got->u.module_load.offset, w->u.module_load.offset);
		ck_assert_uint_eq(got->u.module_load.prot, w->u.module_load.prot);
		ck_assert_str_eq(got->u.module_load.path, w->u.module_load.path);
		ck_assert_uint_eq(got->u.module_load.build_id_len, w->u.module_load.build_id_len);
		ck_assert_int_eq(memcmp(got->u.module_load.build_id, w->u.module_load.build_id, 20), 0);
		break;
	case IDNA_REC_MODULE_UNMAP:
		ck_assert_uint_eq(got->u.module_unmap.addr, w->u.module_unmap.addr);
		ck_assert_uint_eq(got->u.module_unmap.size, w->u.module_unmap.size);
		break;
	case IDNA_REC_EXECVE:
		ck_assert_str_eq(got->u.execve.path, w->u.execve.path);
		ck_assert_uint_eq(got->u.execve.address_space, w->u.execve.address_space);
		break;
	case IDNA_REC_SIGNAL:
		ck_assert_uint_eq(got->u.signal.tid, w->u.signal.tid);
		ck_assert_int_eq(got->u.signal.signo, w->u.signal.signo);
		ck_assert_int_eq(got->u.signal.code, w->u.signal.code);
		ck_assert_uint_eq(got->u.signal.addr, w->u.signal.addr);
		break;
	case IDNA_REC_PROCESS_EXIT:
		ck_assert_int_eq(got->u.process_exit.status, w->u.process_exit.status);
		break;
	case IDNA_REC_CACHE_STATS:
		ck_assert_uint_eq(got->u.cache_stats.hits, w->u.cache_stats.hits);
		ck_assert_uint_eq(got->u.cache_stats.misses, w->u.cache_stats.misses);
		break;
	case IDNA_REC_KERNEL_WRITE:
		ck_assert_uint_eq(got->u.kernel_write.addr, w->u.kernel_write.addr);
		ck_assert_uint_eq(got->u.kernel_write.flags, w->u.kernel_write.flags);
		ck_assert_uint_eq(got->u.kernel_write.len, w->u.kernel_write.len);
		ck_assert_uint_eq(got->u.kernel_write.span, w->u.kernel_write.span);
		if (w->u.kernel_write.len)
			ck_assert_int_eq(memcmp(got->u.kernel_write.bytes, w->u.kernel_write.bytes,
						w->u.kernel_write.len), 0);
		break;
	}
}

/* A temporary file name for one test; removed by the caller. */
static inline void sample_temp_path(char *buf, size_t n, const char *tag)
{
	const char *dir = getenv("TMPDIR");
	snprintf(buf, n, "%s/idna-test-%s-%d.idna", dir && *dir ? dir : P_tmpdir, tag, (int)getpid());
}

#endif
