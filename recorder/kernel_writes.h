/*
 * kernel_writes.h — the bytes the kernel writes into the program's memory,
 * logged as KERNEL_WRITE records (man/idna.5) just before the kernel
 * transition they belong to, so that replay shows them to the debugger
 * at the right time. They bypass the prediction cache on both sides: the
 * program's own later reads of them still miss and are logged as ever.
 *
 * What a syscall writes comes from the one description of it,
 * syscall_effects.h; a signal frame is the stack the delivery moved over.
 */
#ifndef TTREC_KERNEL_WRITES_H
#define TTREC_KERNEL_WRITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recorder/syscall_effects.h"

struct recording;

/* Logs the output ranges of a finished syscall (read from the process),
 * or, for one whose writes are not described, a record saying so. The
 * ranges of an address-space change are not outputs: nothing logged.
 * 0, or -1 when the trace cannot be written (the recording failed). */
int kernel_writes_log_syscall(struct recording *rec, const struct syscall_effect *e);

/* Logs the ranges a finished syscall made zero or unknown without their
 * bytes being logged (kernel_write_ranges.c): an address-space change, an
 * undescribed syscall's possible outputs. 0, or -1 as above. */
int kernel_writes_log_ranges(struct recording *rec, long nr, const uint64_t args[6],
			     int64_t result, const struct syscall_effect *e);

/* Logs [addr, addr+span) as made zero (IDNA_KWRITE_ZERO) or unknown
 * (IDNA_KWRITE_UNKNOWN) by the transition that follows. 0, or -1 as above. */
int kernel_writes_log_span(struct recording *rec, uint64_t addr, uint64_t span, uint32_t flags);

/* Logs the bytes now at [addr, addr+len), read back from the process, as
 * what an undescribed syscall wrote there; a part that cannot be read is
 * logged unknown. Both counted in the record_result. 0, or -1 as above. */
int kernel_writes_log_read_back(struct recording *rec, uint64_t addr, uint64_t len);

/* Logs bytes the recorder itself answered for the kernel. */
int kernel_writes_log_bytes(struct recording *rec, uint64_t addr, const void *bytes, size_t len);

/* Logs the signal frame a delivery wrote: from the handler's stack
 * pointer new_rsp up to below the interrupted code's red zone (old_rsp),
 * or, on an alternate stack, as much as a frame can take. */
int kernel_writes_log_signal_frame(struct recording *rec, uint64_t old_rsp, uint64_t new_rsp);

/* Logs the parts of a new program image the program may not read before
 * a debugger looks: the initial stack from rsp to the top of its mapping
 * (with_stack: after an execve) and the vDSO. */
int kernel_writes_log_image(struct recording *rec, uint64_t rsp, bool with_stack);

#endif
