/*
 * code_page_set.c — page-address set. Removal uses backward-shift deletion,
 * so the table never fills with tombstones.
 */
#include <stdlib.h>
#include <string.h>

#include "trace-format/code_page_set.h"

#define EMPTY UINT64_MAX

static size_t slot_of(const struct code_page_set *s, uint64_t page)
{
	uint64_t h = page * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (s->capacity - 1);
}

static unsigned filter_bit(uint64_t page)
{
	return (unsigned)(page & (CODE_PAGE_SET_FILTER_BITS - 1));
}

struct code_page_set *code_page_set_new(void)
{
	struct code_page_set *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->capacity = 256;
	s->slots = malloc(s->capacity * sizeof(uint64_t));
	if (!s->slots) {
		free(s);
		return NULL;
	}
	memset(s->slots, 0xff, s->capacity * sizeof(uint64_t));
	return s;
}

void code_page_set_free(struct code_page_set *s)
{
	if (s) {
		free(s->slots);
		free(s);
	}
}

bool code_page_set_contains(const struct code_page_set *s, uint64_t page)
{
	if (!code_page_set_may_contain(s, page))
		return false;
	for (size_t i = slot_of(s, page);; i = (i + 1) & (s->capacity - 1)) {
		if (s->slots[i] == page)
			return true;
		if (s->slots[i] == EMPTY)
			return false;
	}
}

bool code_page_set_any_in(const struct code_page_set *s, uint64_t first, uint64_t last)
{
	if (last < first)
		return false;
	if (last - first < s->capacity) {
		for (uint64_t pg = first;; pg++) {
			if (code_page_set_contains(s, pg))
				return true;
			if (pg == last)
				return false;
		}
	}
	for (size_t i = 0; i < s->capacity; i++)
		if (s->slots[i] != EMPTY && s->slots[i] >= first && s->slots[i] <= last)
			return true;
	return false;
}

static void insert(struct code_page_set *s, uint64_t page)
{
	size_t i = slot_of(s, page);
	while (s->slots[i] != EMPTY && s->slots[i] != page)
		i = (i + 1) & (s->capacity - 1);
	if (s->slots[i] == EMPTY)
		s->count++;
	s->slots[i] = page;
}

static bool grow(struct code_page_set *s)
{
	uint64_t *old = s->slots;
	size_t old_cap = s->capacity;
	uint64_t *slots = malloc(old_cap * 2 * sizeof(uint64_t));
	if (!slots)
		return false;
	memset(slots, 0xff, old_cap * 2 * sizeof(uint64_t));
	s->slots = slots;
	s->capacity = old_cap * 2;
	s->count = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i] != EMPTY)
			insert(s, old[i]);
	free(old);
	return true;
}

bool code_page_set_add(struct code_page_set *s, uint64_t page)
{
	if ((s->count + 1) * 2 > s->capacity && !grow(s))
		return false;
	insert(s, page);
	unsigned b = filter_bit(page);
	s->filter[b / 64] |= 1ull << (b % 64);
	return true;
}

void code_page_set_remove(struct code_page_set *s, uint64_t page)
{
	size_t mask = s->capacity - 1, i = slot_of(s, page);
	while (s->slots[i] != page) {
		if (s->slots[i] == EMPTY)
			return;
		i = (i + 1) & mask;
	}
	s->slots[i] = EMPTY;
	s->count--;
	/* Shift back later entries of the run that would no longer be found. */
	for (size_t j = (i + 1) & mask; s->slots[j] != EMPTY; j = (j + 1) & mask) {
		size_t home = slot_of(s, s->slots[j]);
		bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!between) {
			s->slots[i] = s->slots[j];
			s->slots[j] = EMPTY;
			i = j;
		}
	}
}

void code_page_set_clear(struct code_page_set *s)
{
	memset(s->slots, 0xff, s->capacity * sizeof(uint64_t));
	memset(s->filter, 0, sizeof(s->filter));
	s->count = 0;
}

size_t code_page_set_count(const struct code_page_set *s)
{
	return s->count;
}

struct code_page_set *code_page_set_clone(const struct code_page_set *s)
{
	struct code_page_set *c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	*c = *s;
	c->slots = malloc(s->capacity * sizeof(uint64_t));
	if (!c->slots) {
		free(c);
		return NULL;
	}
	memcpy(c->slots, s->slots, s->capacity * sizeof(uint64_t));
	return c;
}

bool code_page_set_add_all(struct code_page_set *dst, const struct code_page_set *src)
{
	for (size_t i = 0; i < src->capacity; i++)
		if (src->slots[i] != EMPTY && !code_page_set_add(dst, src->slots[i]))
			return false;
	return true;
}

void code_page_set_list(const struct code_page_set *s, uint64_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < s->capacity; i++)
		if (s->slots[i] != EMPTY)
			out[n++] = s->slots[i];
}
