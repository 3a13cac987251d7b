/*
 * pass_ahead.h — the first pass run on by forward motions. While the
 * pass is not done, a forward continue or step that goes beyond where the
 * pass has read runs the pass itself (snapshots, segment summaries, the
 * future image of first reads) and stops where the motion stops, the
 * rest of the pass left for later: `break main; continue` replays up to
 * main, not the whole history. What needs the whole history still calls
 * replay_session_finish_pass.
 *
 * What gdb is shown is the same as after the whole pass (registers,
 * stops, memory the replay has seen), but for one thing: memory the
 * program has not touched yet is shown from the future image of first
 * reads only as far as the pass has read. A byte it first reads after
 * the stop, before its next system call, shows as unavailable (or, in a
 * mapped file, as the file's, which is the same byte) until the pass is
 * done; a byte shown is never shown wrong.
 *
 * For replay_session.c and the gdb target; the pass's steps it uses are
 * replay_session.c's (declared here, not in replay_session.h).
 */
#ifndef TTREC_PASS_AHEAD_H
#define TTREC_PASS_AHEAD_H

#include <stdbool.h>
#include <stdint.h>

#include "replayer/replay_session.h"

/* replay_session_run while the pass is not done: runs to t (or a stop),
 * as the pass beyond s->pass_reach. The history ending finishes the pass
 * (its summary made). */
enum resim_status pass_ahead_run(struct replay_session *s, uint64_t t);

/* Before the replay moves any other way: s->sim stops being the pass
 * (which goes on later from its last snapshot). */
void pass_ahead_park(struct replay_session *s);

/* replay_session.c's steps of the pass. */
void replay_session_pass_hooks(struct replay_session *s, bool on);
int replay_session_pass_boundary(struct replay_session *s);
/* Runs the pass on with its hooks (first_pass: up to max_snapshots or
 * time end). */
enum resim_status replay_session_run_pass(struct replay_session *s, size_t max_snapshots,
					 uint64_t end);
/* Adds a snapshot made elsewhere (pass_join.c) as the next one, keeping
 * the budget as a snapshot the pass takes does. 0, or -1. */
int replay_session_add_snapshot(struct replay_session *s, const struct replay_snapshot *snap);
/* The heap in use as the allocator counts it (0 where it cannot say). */
uint64_t replay_heap_in_use(void);
/* What one snapshot is estimated to hold (its fixed part and a page per
 * page its segment wrote): the budget's measure where the heap's is not. */
uint64_t replay_snapshot_bytes(const struct replay_snapshot *snap);
/* Adds the pages of [addr, addr+len) to pages; false when one could not be. */
bool pass_note_pages(struct code_page_set *pages, uint64_t addr, size_t len);
uint64_t replay_session_next_snapshot_time(const struct replay_session *s);
int replay_session_summarise_history(struct replay_session *s, enum resim_status st);
int replay_session_summarise_replay(struct replay_session *s, struct resim *sim,
				    const struct resim_counts *counts, enum resim_status st);

#endif
