/*
 * sparse_copy.h — a copy of a large buffer that stores only its blocks
 * that are not all zeros. A snapshot keeps each live thread's prediction
 * cache; a trace may declare the largest cache the format allows (128 MiB
 * per thread) and touch almost none of it, so a full copy per snapshot
 * would cost memory the trace never justifies. Stored blocks are bounded
 * by the cache lines the replay actually filled.
 */
#ifndef TTREC_SPARSE_COPY_H
#define TTREC_SPARSE_COPY_H

#include <stddef.h>
#include <stdint.h>

struct sparse_copy {
	size_t size;       /* bytes of the buffer copied */
	uint8_t **blocks;  /* SPARSE_BLOCK bytes each; NULL: all zeros */
};

/* Copies size bytes of src. 0, or -1 when out of memory. */
int sparse_copy_take(struct sparse_copy *c, const uint8_t *src, size_t size);
/* Writes the copy back into dst (size bytes), leaving blocks that are
 * zero in both untouched (untouched memory stays uncommitted). */
void sparse_copy_restore(const struct sparse_copy *c, uint8_t *dst);
void sparse_copy_free(struct sparse_copy *c);

#endif
