/*
 * fallback_counts.c — a small name -> count table; the number of distinct
 * names is tens, so a linear scan with the most recent hit first is enough.
 */
#include <stdlib.h>
#include <string.h>

#include "recorder/fallback_counts.h"

void fallback_counts_add(struct fallback_counts *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->entries[i].name, name) == 0) {
			c->entries[i].count++;
			return;
		}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct fallback_entry *e = realloc(c->entries, cap * sizeof(*e));
		if (!e)
			return; /* the summary loses a line, nothing else */
		c->entries = e;
		c->cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return;
	c->entries[c->n++] = (struct fallback_entry){ copy, 1 };
}

static int by_count_desc(const void *a, const void *b)
{
	const struct fallback_entry *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

void fallback_counts_print(FILE *f, struct fallback_counts *c)
{
	qsort(c->entries, c->n, sizeof(*c->entries), by_count_desc);
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, "  %10llu  %s\n", (unsigned long long)c->entries[i].count,
			c->entries[i].name);
}

void fallback_counts_free(struct fallback_counts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->entries[i].name);
	free(c->entries);
	memset(c, 0, sizeof(*c));
}
