/*
 * recording_forget.h — what the recorder holds of memory and mappings,
 * forgotten where they changed behind the emulator (recording_forget.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_RECORDING_FORGET_H
#define TTREC_RECORDING_FORGET_H

#include "recorder/recording_internal.h"

/* Forgets what is cached about [addr, addr+len) (mirror, decoded code,
 * logged code pages: len UINT64_MAX for everything) after memory changed
 * behind the emulator; logs the change if replay must forget code too. */
int recording_invalidate(struct recording *rec, uint64_t addr, uint64_t len);
int recording_invalidate_all(struct recording *rec);
/* The mapping table read again from the process, whole. */
int recording_reload_mappings(struct recording *rec);

/* Memory and mappings a syscall the process made may have changed,
 * forgotten (the cached copies, decoded code, the mapping table). */
void recording_apply_syscall_effects(struct recording *rec, long nr, const uint64_t args[6],
				     int64_t result);

#endif
