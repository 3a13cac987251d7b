/*
 * fallback_counts.h — how many times each kind of instruction had to be
 * stepped on the real CPU, for the verifier's summary.
 */
#ifndef TTREC_FALLBACK_COUNTS_H
#define TTREC_FALLBACK_COUNTS_H

#include <stdint.h>
#include <stdio.h>

struct fallback_entry {
	char *name;
	uint64_t count;
};

struct fallback_counts {
	struct fallback_entry *entries;
	size_t n, cap;
};

/* Adds one to name's count (the name is copied). */
void fallback_counts_add(struct fallback_counts *c, const char *name);
/* Prints "count name" lines, largest count first. */
void fallback_counts_print(FILE *f, struct fallback_counts *c);
void fallback_counts_free(struct fallback_counts *c);

#endif
