/*
 * code_page_set.h — which code pages a stream has logged since its last
 * checkpoint (man/idna.5, CODE_PAGE): one piece of code for the recorder and
 * the replayer, like the prediction cache. A set of page addresses (open addressing, linear
 * probing), with a bitmap filter so that the common question "is this
 * written page one whose code was logged?" is answered without hashing.
 */
#ifndef TTREC_CODE_PAGE_SET_H
#define TTREC_CODE_PAGE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Visible so that code_page_set_may_contain() below is inline (every
 * emulated write asks it); only code_page_set.c changes the members.
 */
#define CODE_PAGE_SET_FILTER_BITS (1u << 16)

struct code_page_set {
	uint64_t *slots;
	size_t capacity, count; /* capacity: a power of two */
	/* Bit (page mod FILTER_BITS) is set for every page in the set (and
	 * maybe others: bits are cleared only by code_page_set_clear). */
	uint64_t filter[CODE_PAGE_SET_FILTER_BITS / 64];
};

/* False when page is certainly not in s; true when it may be (then ask
 * code_page_set_contains). One load, no call. */
static inline bool code_page_set_may_contain(const struct code_page_set *s, uint64_t page)
{
	unsigned b = (unsigned)(page & (CODE_PAGE_SET_FILTER_BITS - 1));
	return (s->filter[b / 64] >> (b % 64)) & 1;
}

struct code_page_set *code_page_set_new(void);
void code_page_set_free(struct code_page_set *s);
bool code_page_set_contains(const struct code_page_set *s, uint64_t page);
/* Whether any page of [first, last] is in s: in time bounded by the
 * smaller of the range and the set (a range of the whole address space
 * costs a pass over the set, not one look per page). */
bool code_page_set_any_in(const struct code_page_set *s, uint64_t first, uint64_t last);
/* false when memory is short. */
bool code_page_set_add(struct code_page_set *s, uint64_t page);
void code_page_set_remove(struct code_page_set *s, uint64_t page);
void code_page_set_clear(struct code_page_set *s);
size_t code_page_set_count(const struct code_page_set *s);
/* Adds every page of src to dst. false when memory is short. */
bool code_page_set_add_all(struct code_page_set *dst, const struct code_page_set *src);
/* Writes the set's pages (code_page_set_count of them, in no particular
 * order) to out. */
void code_page_set_list(const struct code_page_set *s, uint64_t *out);
/* A copy of s; NULL when memory is short. */
struct code_page_set *code_page_set_clone(const struct code_page_set *s);

#endif
