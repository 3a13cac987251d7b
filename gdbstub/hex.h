/*
 * hex.h — hex digits and the number syntax of RSP packets. Every parser
 * takes an explicit end, reports failure and never reads past it.
 */
#ifndef TTREC_GDBSTUB_HEX_H
#define TTREC_GDBSTUB_HEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Value of one hex digit, -1 if c is not one. */
int hex_digit_value(int c);
extern const char hex_digits[16];

/*
 * Parses a hex number starting at *p and ending before end or at the first
 * non-hex character; advances *p past it. False when there is no digit or
 * the value overflows 64 bits.
 */
bool hex_parse_u64(const char **p, const char *end, uint64_t *out);

/* Like hex_parse_u64 but also accepts "-1" (as -1), for thread ids, and
 * the multiprocess form "pPID.TID" (PID and TID hex or -1; "pPID" alone is
 * all its threads: -1), of which it returns TID. */
bool hex_parse_thread_id(const char **p, const char *end, int64_t *out);

/* Consumes the character c at *p; false if *p is at end or differs. */
bool hex_expect(const char **p, const char *end, char c);

/* Decodes 2*n hex digits into n bytes; false on a non-hex digit. */
bool hex_decode(const char *hex, size_t n, uint8_t *out);

/* Parses a decimal number in [0, UINT64_MAX] filling all of [s, end). */
bool parse_decimal_u64(const char *s, const char *end, uint64_t *out);

#endif
