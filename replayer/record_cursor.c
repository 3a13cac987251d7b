/*
 * record_cursor.c — one role's records, with one-record lookahead, over
 * an idna_iter that steps over the other role's.
 */
#include <stdio.h>
#include <string.h>

#include "replayer/record_cursor.h"

/* The types a role reads. Neither role's records carry delta state the
 * other's decoding needs (MISS and CODE_PAGE carry none, CHECKPOINT is
 * absolute), so each cursor steps over the other's records undecoded:
 * every record of the stream is decoded once, by the cursor that wants it
 * (CHECKPOINT by both). */
static uint32_t role_types(enum cursor_role role)
{
	uint32_t memory = idna_type_bit(IDNA_REC_MISS) | idna_type_bit(IDNA_REC_CODE_PAGE);
	return idna_type_bit(IDNA_REC_CHECKPOINT) | (role == CURSOR_MEMORY ? memory : ~memory);
}

/* Opens the iterator at `from` reading only the role's records. */
static int open_iter(struct record_cursor *c, struct idna_reader *r, uint32_t stream,
		     const struct idna_checkpoint *from)
{
	c->it = idna_iter_open(r, stream, from, c->error, sizeof(c->error));
	if (!c->it) {
		c->failed = true;
		return -1;
	}
	idna_iter_want(c->it, role_types(c->role));
	return 0;
}

int cursor_open(struct record_cursor *c, struct idna_reader *r, uint32_t stream,
		const struct idna_checkpoint *from, enum cursor_role role)
{
	memset(c, 0, sizeof(*c));
	c->role = role;
	return open_iter(c, r, stream, from);
}

void cursor_close(struct record_cursor *c)
{
	if (c->it)
		idna_iter_close(c->it);
	c->it = NULL;
	c->have = false;
	c->misses = (struct idna_miss_span){ 0 };
}

void cursor_pair(struct record_cursor *memory, struct record_cursor *events)
{
	if (memory->it && events->it)
		idna_iter_pair(memory->it, events->it);
}

/* The iterator's position brought up to the records decoded from the
 * span, and the span taken back. */
static void settle_misses(struct record_cursor *c)
{
	if (c->it)
		idna_iter_took_misses(c->it, &c->misses);
}

const struct idna_record *cursor_peek(struct record_cursor *c)
{
	if (c->have)
		return &c->rec;
	if (idna_miss_span_next(&c->misses, &c->rec)) {
		c->have = true;
		return &c->rec;
	}
	settle_misses(c);
	if (c->it && !c->ended && !c->failed && idna_iter_next_miss(c->it, &c->rec))
		c->have = true;
	while (!c->have && !c->ended && !c->failed) {
		int r = idna_iter_next(c->it, &c->rec);
		if (r < 0) {
			snprintf(c->error, sizeof(c->error), "%s", idna_iter_error(c->it));
			c->failed = true;
		} else if (r == 0) {
			c->ended = true;
		} else {
			c->have = true;
		}
	}
	if (!c->have)
		return NULL;
	idna_iter_lend_misses(c->it, &c->misses);
	return &c->rec;
}

void cursor_next(struct record_cursor *c)
{
	c->have = false;
	c->taken++;
}

int cursor_tell(struct record_cursor *c, struct cursor_position *pos)
{
	memset(pos, 0, sizeof(*pos));
	if (!cursor_peek(c)) {
		pos->ended = true;
		return c->failed ? -1 : 0;
	}
	uint32_t size;
	settle_misses(c);
	idna_iter_position(c->it, &pos->chunk, &pos->offset, &size);
	return 0;
}

int cursor_open_at(struct record_cursor *c, struct idna_reader *r, uint32_t stream,
		   const struct cursor_position *pos, enum cursor_role role)
{
	memset(c, 0, sizeof(*c));
	c->role = role;
	if (pos->ended) {
		c->ended = true;
		return 0;
	}
	struct idna_checkpoint start = { .stream = stream, .chunk = pos->chunk, .offset = 0 };
	if (open_iter(c, r, stream, &start) != 0)
		return -1;
	idna_iter_skip_regs_before(c->it, pos->offset);
	for (;;) {
		int n = idna_iter_next(c->it, &c->rec);
		if (n <= 0) {
			snprintf(c->error, sizeof(c->error), "%s",
				 n < 0 ? idna_iter_error(c->it) : "a saved position is past the stream's end");
			c->failed = true;
			return -1;
		}
		uint32_t chunk, offset, size;
		idna_iter_position(c->it, &chunk, &offset, &size);
		if (chunk == pos->chunk && offset == pos->offset) {
			c->have = true;
			return 0;
		}
		if (chunk != pos->chunk || offset > pos->offset) {
			snprintf(c->error, sizeof(c->error), "a saved position is not a record's");
			c->failed = true;
			return -1;
		}
	}
}
