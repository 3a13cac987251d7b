/*
 * hand_back.h — the program left running untraced when the trace cannot be
 * written (hand_back.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_HAND_BACK_H
#define TTREC_HAND_BACK_H

#include "recorder/recording_internal.h"

/* The program leaves the recording alive: the emulator's state (dirty
 * mirror bytes, registers) goes into the real process, which then runs on
 * untraced to its end; res says how it ended. For a trace that cannot be
 * written: the program must not pay for it. */
void recording_hand_back(struct recording *rec);

#endif
