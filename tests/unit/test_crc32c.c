/*
 * test_crc32c.c — the checksum of every part of a trace
 * (trace-format/crc32c.c): the standard check value, and crc32c (the CPU's
 * crc32 instruction where it has one) equal to the plain C table on every
 * length, alignment and split of a buffer, so that a trace written on one
 * machine verifies on any other.
 */
#include <string.h>

#include "check_main.h"
#include "trace-format/crc32c.h"

START_TEST(gives_the_standard_check_value)
{
	ck_assert_uint_eq(crc32c(0, "123456789", 9), 0xE3069283u);
	ck_assert_uint_eq(crc32c_portable(0, "123456789", 9), 0xE3069283u);
	ck_assert_uint_eq(crc32c(0, "", 0), 0);
	/* 32 zero bytes: RFC 3720's example. */
	static const uint8_t zeros[32];
	ck_assert_uint_eq(crc32c(0, zeros, sizeof(zeros)), 0x8A9136AAu);
}
END_TEST

START_TEST(agrees_with_the_table_everywhere)
{
	static uint8_t buf[600];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t at = 0; at < 8; at++)
		for (size_t n = 0; at + n <= sizeof(buf) && n < 300; n++) {
			uint32_t want = crc32c_portable(0, buf + at, n);
			ck_assert_uint_eq(crc32c(0, buf + at, n), want);
			/* Continued over a split, at any point. */
			size_t half = n / 3;
			ck_assert_uint_eq(crc32c(crc32c(0, buf + at, half), buf + at + half, n - half),
					  want);
			ck_assert_uint_eq(crc32c_portable(crc32c(0, buf + at, half), buf + at + half,
							  n - half),
					  want);
		}
}
END_TEST

static Suite *crc32c_suite(void)
{
	Suite *s = suite_create("crc32c");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, gives_the_standard_check_value);
	tcase_add_test(tc, agrees_with_the_table_everywhere);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(crc32c_suite)
