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

struct code_page_set;

struct code_page_set *code_page_set_new(void);
void code_page_set_free(struct code_page_set *s);
bool code_page_set_contains(const struct code_page_set *s, uint64_t page);
/* false when memory is short. */
bool code_page_set_add(struct code_page_set *s, uint64_t page);
void code_page_set_remove(struct code_page_set *s, uint64_t page);
void code_page_set_clear(struct code_page_set *s);
size_t code_page_set_count(const struct code_page_set *s);
/* Adds every page of src to dst. false when memory is short. */
bool code_page_set_add_all(struct code_page_set *dst, const struct code_page_set *src);
/* A copy of s; NULL when memory is short. */
struct code_page_set *code_page_set_clone(const struct code_page_set *s);

#endif
