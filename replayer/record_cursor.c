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
}
