/*
 * wide_changes.c — wide address-space changes and what they leave a
 * module file to show (wide_changes.h).
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/wide_changes.h"

bool wide_changes_add(struct wide_changes *w, const struct wide_change *c)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct wide_change *v = realloc(w->v, cap * sizeof(*v));
		if (!v)
			return false;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = *c;
	return true;
}

bool wide_changes_block(const struct wide_changes *w, uint64_t addr, uint64_t now)
{
	const struct wide_change *last = NULL;
	bool covered = false;
	for (size_t i = 0; i < w->n; i++) {
		const struct wide_change *c = &w->v[i];
		if (addr < c->lo || addr >= c->hi)
			continue;
		covered = true;
		/* (Of two at one time, the later one added: the syscall's order.) */
		if (c->time < now && (!last || c->time >= last->time))
			last = c;
	}
	return covered && !(last && last->file);
}

bool wide_changes_copy(struct wide_changes *to, const struct wide_changes *from)
{
	if (!from->n)
		return true;
	to->v = malloc(from->n * sizeof(*to->v));
	if (!to->v)
		return false;
	memcpy(to->v, from->v, from->n * sizeof(*to->v));
	to->n = to->cap = from->n;
	return true;
}

void wide_changes_free(struct wide_changes *w)
{
	free(w->v);
	*w = (struct wide_changes){ 0 };
}
