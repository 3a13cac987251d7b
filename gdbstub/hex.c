/*
 * hex.c — hex digits and the number syntax of RSP packets (see hex.h).
 */
#include "hex.h"

const char hex_digits[16] = "0123456789abcdef";

int hex_digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool hex_parse_u64(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;
	while (s < end) {
		int d = hex_digit_value((unsigned char)*s);
		if (d < 0)
			break;
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
		digits++;
		s++;
	}
	if (digits == 0)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool parse_id(const char **p, const char *end, int64_t *out)
{
	if (end - *p >= 2 && (*p)[0] == '-' && (*p)[1] == '1') {
		*p += 2;
		*out = -1;
		return true;
	}
	uint64_t v;
	if (!hex_parse_u64(p, end, &v) || v > INT64_MAX)
		return false;
	*out = (int64_t)v;
	return true;
}

bool hex_parse_thread_id(const char **p, const char *end, int64_t *out)
{
	if (*p >= end || **p != 'p')
		return parse_id(p, end, out);
	(*p)++;
	int64_t pid;
	if (!parse_id(p, end, &pid))
		return false;
	if (*p < end && **p == '.') {
		(*p)++;
		return parse_id(p, end, out);
	}
	*out = -1;
	return true;
}

bool hex_expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

bool hex_decode(const char *hex, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit_value((unsigned char)hex[2 * i]);
		int lo = hex_digit_value((unsigned char)hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

bool parse_decimal_u64(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (s >= end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}
