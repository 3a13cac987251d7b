/*
 * record_cursor.h — one reader of a thread's stream that sees only some
 * record types, with the next one held back until it is consumed.
 *
 * Replay reads each stream twice at once: the memory layer consumes MISS
 * and CODE_PAGE records as the emulator reads and fetches; the event loop
 * consumes everything else as the emulator reaches kernel transitions and
 * checkpoints. CHECKPOINT records are seen by both: for the memory layer
 * they are a barrier it never reads past until the event loop applies them.
 */
#ifndef TTREC_RECORD_CURSOR_H
#define TTREC_RECORD_CURSOR_H

#include <stdbool.h>

#include "trace-format/idna.h"
#include "trace-format/miss_cursor.h"

enum cursor_role { CURSOR_MEMORY, CURSOR_EVENTS };

struct record_cursor {
	struct idna_iter *it;
	enum cursor_role role;
	bool have;     /* rec holds the pending record */
	bool ended;    /* the stream has no more records for this role */
	bool failed;   /* the trace could not be read: error says why */
	struct idna_record rec;
	/* MISS records decoded here, with no call into the iterator, while
	 * they follow one another in its chunk (the memory role's). */
	struct idna_miss_span misses;
	/* Records taken (cursor_next) since it was opened: a run that took
	 * none consumed nothing of the stream (undo_log.h). */
	uint64_t taken;
	char error[256];
};

/* Opens at a checkpoint (NULL: the stream's start). 0, or -1 with error. */
int cursor_open(struct record_cursor *c, struct idna_reader *r, uint32_t stream,
		const struct idna_checkpoint *from, enum cursor_role role);
void cursor_close(struct record_cursor *c);

/* The memory and events cursors of one thread, just opened: each chunk
 * the one ahead loads is not decompressed again for the other. */
void cursor_pair(struct record_cursor *memory, struct record_cursor *events);

/* The pending record, or NULL at the end of the stream or on error. Valid
 * until cursor_next(). */
const struct idna_record *cursor_peek(struct record_cursor *c);
void cursor_next(struct record_cursor *c);

/* Where a cursor stands: the position of its pending record. */
struct cursor_position {
	bool ended;
	uint32_t chunk, offset;
};

/* Saves the position (peeking first). -1 if the trace could not be read. */
int cursor_tell(struct record_cursor *c, struct cursor_position *pos);

/* Opens a cursor at a saved position. Records are delta-coded within a
 * chunk, so it decodes the chunk from its start up to the position. */
int cursor_open_at(struct record_cursor *c, struct idna_reader *r, uint32_t stream,
		   const struct cursor_position *pos, enum cursor_role role);

#endif
