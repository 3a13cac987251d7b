/*
 * trace_events.h — the records a recording writes besides MISS and
 * CODE_PAGE (trace_events.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_TRACE_EVENTS_H
#define TTREC_TRACE_EVENTS_H

#include "recorder/recording_internal.h"

int log_key_frame(struct recording *rec, uint32_t reason);
int log_thread_create(struct recording *rec, const struct rec_thread *t, pid_t parent);
int log_thread_exit(struct recording *rec, const struct rec_thread *t, int64_t status);
int log_checkpoint(struct recording *rec);
int log_kernel(struct recording *rec, uint32_t kind, uint64_t nr, uint64_t result);
int log_nondet(struct recording *rec, uint32_t kind, unsigned n_in, const uint64_t *in,
	       unsigned n_out, const uint64_t *out);
int log_native(struct recording *rec, const uint8_t *insn, unsigned len);
int log_signal(struct recording *rec, const siginfo_t *info);
int log_exec(struct recording *rec, const char *path);
int log_modules(struct recording *rec, uint64_t addr, uint64_t len);
int log_process_exit(struct recording *rec, int64_t status);

#endif
