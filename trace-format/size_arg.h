/*
 * size_arg.h — sizes and counts as the tools take them on their command
 * lines: a decimal number with an optional K, M or G suffix (powers of
 * 1024). Shared by ttrec, ttreplay and ttdump.
 */
#ifndef TTREC_SIZE_ARG_H
#define TTREC_SIZE_ARG_H

#include <stdint.h>

/* 0 with *out set, or -1 when text is not such a size (or overflows). */
int size_arg_parse(const char *text, uint64_t *out);

#endif
