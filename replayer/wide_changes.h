/*
 * wide_changes.h — the address-space changes of more than 64 pages a
 * future image keeps as ranges rather than pages (memory_image.c): each
 * the range, the time of its syscall and whether it mapped a file there
 * (whose bytes a module file may then show) or made the range unknown.
 * A byte such a change covers may be shown from a module file at time
 * `now` only when the last change before now that covers it mapped a file:
 * before the first one, and after one that unmapped, moved or dropped the
 * bytes, it is unknown. Few and wide: a lookup scans them all.
 */
#ifndef TTREC_WIDE_CHANGES_H
#define TTREC_WIDE_CHANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wide_change {
	uint64_t lo, hi; /* [lo, hi) */
	uint64_t time;   /* in effect after this time (the syscall's) */
	bool file;       /* a file mapped there, else unknown */
};

struct wide_changes {
	struct wide_change *v;
	size_t n, cap;
};

/* false when memory is short (the change not kept). */
bool wide_changes_add(struct wide_changes *w, const struct wide_change *c);
/* Whether a change covers addr and the last one in effect at now (if
 * any) did not map a file. */
bool wide_changes_block(const struct wide_changes *w, uint64_t addr, uint64_t now);
bool wide_changes_copy(struct wide_changes *to, const struct wide_changes *from);
void wide_changes_free(struct wide_changes *w);

#endif
