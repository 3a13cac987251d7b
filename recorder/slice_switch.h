/*
 * slice_switch.h — handing the emulator to the thread the table chose
 * (slice_switch.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_SLICE_SWITCH_H
#define TTREC_SLICE_SWITCH_H

#include "recorder/recording_internal.h"

/* Makes t the thread the emulator holds (saving the current one's state);
 * logs the start of a slice when another thread ran since t last did. */
int slice_switch_to(struct recording *rec, struct rec_thread *t);
/* Gives every other thread whose last checkpoint is older than since a
 * checkpoint of its own, in a slice of its own, so that the kept part of
 * a ring has a checkpoint for every thread and replay can cut the
 * history there; outside a ring, not a thread that has run no
 * instruction since its last checkpoint (replay starts it there). */
int slice_refresh_checkpoints(struct recording *rec, uint64_t since);

#endif
