/*
 * sparse_copy.c — copies that skip all-zero blocks (sparse_copy.h).
 * Reading a block of memory that was never written (calloc'd, so mapped
 * to the zero page) commits nothing, so neither taking nor restoring a
 * copy commits memory for blocks that are zero.
 */
#include "replayer/sparse_copy.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static size_t block_count(size_t size)
{
	return (size + SPARSE_BLOCK - 1) / SPARSE_BLOCK;
}

static size_t block_len(size_t size, size_t i)
{
	size_t rest = size - i * SPARSE_BLOCK;
	return rest < SPARSE_BLOCK ? rest : SPARSE_BLOCK;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	/* (Each byte equal to the one before it and the first zero: one
	 * memcmp, which the C library does a vector at a time.) */
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

int sparse_copy_take(struct sparse_copy *c, const uint8_t *src, size_t size)
{
	if (sparse_copy_init(c, size) != 0)
		return -1;
	size_t n = block_count(size);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *from = src + i * SPARSE_BLOCK;
		size_t len = block_len(size, i);
		if (all_zero(from, len))
			continue;
		c->blocks[i] = malloc(len);
		if (!c->blocks[i]) {
			sparse_copy_free(c);
			return -1;
		}
		memcpy(c->blocks[i], from, len);
	}
	return 0;
}

void sparse_copy_restore(const struct sparse_copy *c, uint8_t *dst)
{
	for (size_t i = 0; i < block_count(c->size); i++) {
		uint8_t *to = dst + i * SPARSE_BLOCK;
		size_t len = block_len(c->size, i);
		if (c->blocks[i])
			memcpy(to, c->blocks[i], len);
		else if (!all_zero(to, len))
			memset(to, 0, len);
	}
}

void sparse_copy_free(struct sparse_copy *c)
{
	if (c->blocks)
		for (size_t i = 0; i < block_count(c->size); i++)
			free(c->blocks[i]);
	free(c->blocks);
	c->blocks = NULL;
	c->size = 0;
}

size_t sparse_copy_blocks(size_t size) { return block_count(size); }
size_t sparse_copy_block_len(size_t size, size_t i) { return block_len(size, i); }

int sparse_copy_init(struct sparse_copy *c, size_t size)
{
	size_t n = block_count(size);
	c->size = size;
	c->blocks = calloc(n ? n : 1, sizeof(*c->blocks));
	return c->blocks ? 0 : -1;
}

int sparse_copy_set_block(struct sparse_copy *c, size_t i, const uint8_t *bytes)
{
	size_t len = block_len(c->size, i);
	uint8_t *b = malloc(len);
	if (!b)
		return -1;
	memcpy(b, bytes, len);
	free(c->blocks[i]);
	c->blocks[i] = b;
	return 0;
}
