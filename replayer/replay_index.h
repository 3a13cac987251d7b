/*
 * replay_index.h — the replay index: what a first pass learned about a
 * trace (snapshots, segment summaries, the future image, the pass's
 * figures), kept in a file beside the trace so that the next session on
 * the same trace needs no first pass. The format is man/ttreplay-index.5.
 *
 * The codec (replay_index_write.c, replay_index_read.c) knows nothing of
 * files' places or of the trace beyond its identity; the reader trusts
 * nothing it reads (tests/fuzz/fuzz_index.c).
 */
#ifndef TTREC_REPLAY_INDEX_H
#define TTREC_REPLAY_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replayer/replay_session.h"

#define REPLAY_INDEX_MAGIC "TTRPIDX\x1a"
#define REPLAY_INDEX_VERSION 3
#define REPLAY_INDEX_HEADER 64

/* Which trace an index belongs to: its size, its chunk count, and a
 * CRC-32C over its header's replay parameters and its chunk table, whose
 * entries carry each chunk's payload CRC (so every byte of the trace is
 * covered, without reading the payloads). */
struct replay_index_identity {
	uint64_t trace_size;
	uint64_t chunks;
	uint32_t digest;
};

void replay_index_identify(const struct idna_reader *r, uint64_t trace_size,
			   struct replay_index_identity *id);

/* What an index holds. Read lazily (replay_index_open), its snapshots
 * hold only their times, counts and segment summaries, with `indexed`
 * set: their states are read one at a time (replay_index_read_snapshot). */
struct replay_index_contents {
	struct replay_snapshot *snapshots;
	size_t n_snapshots;
	uint64_t snapshot_interval;
	struct replay_summary summary;
	bool summary_incomplete;
	struct memory_image *future; /* a timed image */
};

/* What loaded contents must agree with (the trace as opened now). */
struct replay_index_expect {
	struct replay_index_identity id;
	size_t n_threads;
	size_t cache_bytes;   /* of each live thread's prediction cache */
};

/* Every this many snapshots, one is stored whole; the others are stored
 * as their difference from the one before. Reading any snapshot then
 * decodes at most this many frames. */
#define REPLAY_INDEX_WHOLE_EVERY 8

/* Writing, snapshot by snapshot, so that the states need not all be in
 * memory at once (spilled ones are read back one at a time). The frames
 * are compressed on `jobs` threads (1: the caller's), the file the same
 * for any jobs. */
struct replay_index_writer;
/* Begins an index at f's start. NULL when memory is short or f fails. */
struct replay_index_writer *replay_index_writer_open(FILE *f, unsigned jobs);
/* The next snapshot's state, stored as its difference from the state
 * added before (or whole). It is read on the writer's threads until
 * close: it stays the caller's, unchanged until then. */
int replay_index_writer_add(struct replay_index_writer *w, const struct resim_state *st);
/* The same for a state the writer takes (one read back from a spill
 * file): it frees it once the frames that read it are made, or on
 * failure. 0, or -1. */
int replay_index_writer_add_owned(struct replay_index_writer *w, struct resim_state *st);
/* Ends the index: c's snapshots (as many as were added; their times,
 * counts and segment summaries), summary and future image, then the
 * header. Frees w. 0, or -1. */
int replay_index_writer_close(struct replay_index_writer *w, const struct replay_index_identity *id,
			      const struct replay_index_contents *c);
/* Writes an index of c (whole states in memory) at f's start. 0, or -1. */
int replay_index_write(FILE *f, const struct replay_index_identity *id,
		       const struct replay_index_contents *c, unsigned jobs);

enum replay_index_verdict {
	REPLAY_INDEX_LOADED,
	REPLAY_INDEX_OTHER_TRACE, /* well formed, of another trace (or format version) */
	REPLAY_INDEX_DAMAGED,     /* truncated, corrupt or inconsistent: why says how */
};

/* An opened index: where its snapshots' frames are. */
struct replay_index_file;

/* Reads an index's header and directory from fd (size bytes): out's
 * snapshots are `indexed`, *file (which keeps a duplicate of fd) reads
 * their states. Frames are checked when read, not here. */
enum replay_index_verdict replay_index_open(int fd, uint64_t size,
					    const struct replay_index_expect *e,
					    struct replay_index_contents *out,
					    struct replay_index_file **file, char *why, size_t why_len);
/* Snapshot k's state into out (to free with resim_state_free), prev being
 * snapshot k-1's state unless k is stored whole. 0, or -1 with why: the
 * frame is out of the file, damaged or inconsistent. */
int replay_index_read_snapshot(struct replay_index_file *f, size_t k, const struct resim_state *prev,
			       struct resim_state *out, char *why, size_t why_len);
/* Whether snapshot k is stored whole (needs no prev). */
bool replay_index_snapshot_whole(size_t k);
/* Whether path names the file f reads (not a newer index written since). */
bool replay_index_file_is(const struct replay_index_file *f, const char *path);
void replay_index_file_close(struct replay_index_file *f);

/* Reads a whole index, every snapshot's state included (tests, the
 * fuzzer): LOADED only when every frame is good. */
enum replay_index_verdict replay_index_read(int fd, uint64_t size,
					    const struct replay_index_expect *e,
					    struct replay_index_contents *out, char *why,
					    size_t why_len);
void replay_index_contents_free(struct replay_index_contents *c);

/* --- a session's index (replay_session_index.c) --------------------------
 * It lives beside the trace as TRACE.idx, or, when the trace's folder is
 * not writable, in the user's cache folder under the trace's identity. */

/* Instead of the rest of the first pass: loads the index if there is a
 * good one (true: the pass is done). A bad one is reported in one line
 * on stderr and left for the pass to replace. */
bool replay_session_load_index(struct replay_session *s);
/* Snapshot k's state, read from the index (its `indexed` set): see
 * replay_session_snapshot_state. */
const struct resim_state *replay_session_indexed_state(struct replay_session *s, size_t k);
/* Reads every snapshot frame of the index the session read (ttreplay
 * --index): 0 when all are good; else -1 with why, the index removed so
 * that the next session rebuilds it. */
int replay_session_check_index(struct replay_session *s, char *why, size_t why_len);
/* Closes the index the snapshots are read from, and forgets the decoded. */
void replay_session_index_close(struct replay_session *s);
/* After the first pass: writes the index (s->index_path, s->index_error
 * say what came of it). */
void replay_session_save_index(struct replay_session *s);

#endif
