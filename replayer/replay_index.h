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
#define REPLAY_INDEX_VERSION 2
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

/* What an index holds. */
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

/* Writes an index of c at f's start. 0, or -1. */
int replay_index_write(FILE *f, const struct replay_index_identity *id,
		       const struct replay_index_contents *c);

enum replay_index_verdict {
	REPLAY_INDEX_LOADED,
	REPLAY_INDEX_OTHER_TRACE, /* well formed, of another trace (or format version) */
	REPLAY_INDEX_DAMAGED,     /* truncated, corrupt or inconsistent: why says how */
};

/* Reads an index from fd (at its start; size bytes). */
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
/* After the first pass: writes the index (s->index_path, s->index_error
 * say what came of it). */
void replay_session_save_index(struct replay_session *s);

#endif
