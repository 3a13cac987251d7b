/*
 * jit_code.c — the executable area translations live in. One mapping,
 * reserved at its full size and filled front to back; when it is full the
 * translator empties it whole and every block loses its translation (a
 * block's code is never freed alone, so nothing tracks holes).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jit.h"

struct jit_code_area {
	uint8_t *base;
	size_t size, used;
};

struct jit_code_area *jit_code_area_new(size_t size)
{
	struct jit_code_area *area = calloc(1, sizeof(*area));
	if (!area)
		return NULL;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		free(area);
		return NULL;
	}
	area->base = p;
	area->size = size;
	return area;
}

void jit_code_area_free(struct jit_code_area *area)
{
	if (!area)
		return;
	munmap(area->base, area->size);
	free(area);
}

void *jit_code_area_add(struct jit_code_area *area, const void *code, size_t n)
{
	/* Translations start on cache lines, as the blocks they replace. */
	size_t at = (area->used + 63) & ~(size_t)63;
	if (at > area->size || area->size - at < n)
		return NULL;
	memcpy(area->base + at, code, n);
	area->used = at + n;
	return area->base + at;
}

void jit_code_area_empty(struct jit_code_area *area)
{
	area->used = 0;
}

size_t jit_code_area_used(const struct jit_code_area *area)
{
	return area->used;
}
