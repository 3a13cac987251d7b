/*
 * search_forward.h — a forward continue over the segments (between two
 * snapshots) that cannot stop it (search_forward.c).
 */
#ifndef TTREC_SEARCH_FORWARD_H
#define TTREC_SEARCH_FORWARD_H

#include <stdint.h>

struct gdb_target;
struct run_watch;

/*
 * Before each run of a forward continue: where the segments from the
 * current time on have summaries, moves the replay to the start of the
 * first one that may hold a stop (or to the end of history when none
 * does), and sets *run_to to the start of the next segment after it that
 * cannot (UINT64_MAX: none, or not known yet), the run's end before the
 * next jump. Checks w's interrupt before a jump (w->was_interrupted: the
 * replay has not moved). 0, or -1.
 */
int search_forward_skip(struct gdb_target *t, struct run_watch *w, uint64_t *run_to);

#endif
