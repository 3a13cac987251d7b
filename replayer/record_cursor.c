/*
 * record_cursor.c — filtering and one-record lookahead over idna_iter.
 */
#include <stdio.h>
#include <string.h>

#include "replayer/record_cursor.h"

static bool wanted(enum cursor_role role, uint32_t type)
{
	bool memory = type == IDNA_REC_MISS || type == IDNA_REC_CODE_PAGE;
	if (type == IDNA_REC_CHECKPOINT)
		return true;
	return role == CURSOR_MEMORY ? memory : !memory;
}

int cursor_open(struct record_cursor *c, struct idna_reader *r, uint32_t stream,
		const struct idna_checkpoint *from, enum cursor_role role)
{
	memset(c, 0, sizeof(*c));
	c->role = role;
	c->it = idna_iter_open(r, stream, from, c->error, sizeof(c->error));
	if (!c->it) {
		c->failed = true;
		return -1;
	}
	return 0;
}

void cursor_close(struct record_cursor *c)
{
	if (c->it)
		idna_iter_close(c->it);
	c->it = NULL;
	c->have = false;
}

const struct idna_record *cursor_peek(struct record_cursor *c)
{
	while (!c->have && !c->ended && !c->failed) {
		int r = idna_iter_next(c->it, &c->rec);
		if (r < 0) {
			snprintf(c->error, sizeof(c->error), "%s", idna_iter_error(c->it));
			c->failed = true;
		} else if (r == 0) {
			c->ended = true;
		} else if (wanted(c->role, c->rec.type)) {
			c->have = true;
		}
	}
	return c->have ? &c->rec : NULL;
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
	c->it = idna_iter_open(r, stream, &start, c->error, sizeof(c->error));
	if (!c->it) {
		c->failed = true;
		return -1;
	}
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
