/*
 * test_gdbstub_framing.c — the RSP wire format: checksums, escapes,
 * acknowledgements, interrupts, bounded buffers, and the hex parsers.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "gdbstub/framing.h"
#include "gdbstub/hex.h"

/* Feeds a string; returns the last event that was not NONE. */
static enum rsp_event feed(struct rsp_decoder *d, const char *s, size_t len)
{
	enum rsp_event last = RSP_EVENT_NONE;
	for (size_t i = 0; i < len; i++) {
		enum rsp_event e = rsp_decode_byte(d, (uint8_t)s[i]);
		if (e != RSP_EVENT_NONE)
			last = e;
	}
	return last;
}
#define FEED(d, lit) feed(d, lit, sizeof(lit) - 1)

START_TEST(test_good_packet)
{
	struct rsp_decoder d;
	ck_assert(rsp_decoder_init(&d, 64));
	ck_assert_int_eq(FEED(&d, "$qC#b4"), RSP_EVENT_PACKET);
	ck_assert_str_eq(d.buf, "qC");
	ck_assert_int_eq(FEED(&d, "$g#67"), RSP_EVENT_PACKET);
	ck_assert_str_eq(d.buf, "g");
	ck_assert_int_eq(FEED(&d, "$g#6A"), RSP_EVENT_BAD_CHECKSUM); /* 0x67 wanted */
	ck_assert_int_eq(FEED(&d, "$g#6z"), RSP_EVENT_BAD_CHECKSUM);
	rsp_decoder_fini(&d);
}
END_TEST

START_TEST(test_control_bytes)
{
	struct rsp_decoder d;
	ck_assert(rsp_decoder_init(&d, 64));
	ck_assert_int_eq(FEED(&d, "+"), RSP_EVENT_ACK);
	ck_assert_int_eq(FEED(&d, "-"), RSP_EVENT_NACK);
	ck_assert_int_eq(FEED(&d, "\x03"), RSP_EVENT_INTERRUPT);
	/* Inside a packet 0x03 is data, and a new '$' restarts. */
	ck_assert_int_eq(FEED(&d, "$ab\x03"), RSP_EVENT_NONE);
	ck_assert_int_eq(FEED(&d, "$g#67"), RSP_EVENT_PACKET);
	ck_assert_str_eq(d.buf, "g");
	rsp_decoder_fini(&d);
}
END_TEST

START_TEST(test_escape_roundtrip)
{
	/* Every byte value survives framing and decoding. */
	uint8_t payload[256];
	for (int i = 0; i < 256; i++)
		payload[i] = (uint8_t)i;
	struct rsp_buf framed;
	rsp_buf_init(&framed, 4096);
	rsp_frame(&framed, payload, sizeof(payload));
	ck_assert(!framed.overflow);
	/* No unescaped framing character inside. */
	for (size_t i = 1; i < framed.len - 3; i++)
		ck_assert(framed.data[i] != '$' && framed.data[i] != '#');
	struct rsp_decoder d;
	ck_assert(rsp_decoder_init(&d, 256));
	ck_assert_int_eq(feed(&d, (const char *)framed.data, framed.len), RSP_EVENT_PACKET);
	ck_assert_uint_eq(d.len, 256);
	ck_assert_mem_eq(d.buf, payload, 256);
	rsp_decoder_fini(&d);
	rsp_buf_fini(&framed);
}
END_TEST

START_TEST(test_overflow_is_flagged)
{
	struct rsp_decoder d;
	ck_assert(rsp_decoder_init(&d, 4));
	struct rsp_buf framed;
	rsp_buf_init(&framed, 64);
	rsp_frame(&framed, (const uint8_t *)"abcdefgh", 8);
	ck_assert_int_eq(feed(&d, (const char *)framed.data, framed.len), RSP_EVENT_PACKET);
	ck_assert(d.overflow);
	ck_assert_uint_le(d.len, 4);
	rsp_frame(&framed, (const uint8_t *)"abcd", 4);
	ck_assert_int_eq(feed(&d, (const char *)framed.data, framed.len), RSP_EVENT_PACKET);
	ck_assert(!d.overflow);
	rsp_decoder_fini(&d);
	rsp_buf_fini(&framed);
}
END_TEST

START_TEST(test_buf_limit)
{
	struct rsp_buf b;
	rsp_buf_init(&b, 10);
	rsp_buf_append(&b, "0123456789", 10);
	ck_assert(!b.overflow);
	rsp_buf_append(&b, "x", 1);
	ck_assert(b.overflow);
	ck_assert_uint_eq(b.len, 10);
	rsp_buf_fini(&b);
}
END_TEST

START_TEST(test_hex_numbers)
{
	const char *s = "1f,-1;", *end = s + strlen(s);
	uint64_t v;
	int64_t tid;
	ck_assert(hex_parse_u64(&s, end, &v));
	ck_assert_uint_eq(v, 0x1f);
	ck_assert(hex_expect(&s, end, ','));
	ck_assert(hex_parse_thread_id(&s, end, &tid));
	ck_assert_int_eq(tid, -1);
	ck_assert(!hex_parse_u64(&s, end, &v)); /* ';' is no digit */
	const char *big = "10000000000000000", *bend = big + strlen(big);
	ck_assert(!hex_parse_u64(&big, bend, &v)); /* 65 bits */
	const char *max = "ffffffffffffffff", *mend = max + strlen(max);
	ck_assert(hex_parse_u64(&max, mend, &v));
	ck_assert_uint_eq(v, UINT64_MAX);
	uint8_t bytes[2];
	ck_assert(hex_decode("a5F0", 2, bytes));
	ck_assert_uint_eq(bytes[0], 0xa5);
	ck_assert_uint_eq(bytes[1], 0xf0);
	ck_assert(!hex_decode("g0", 1, bytes));
	const char *dec = "18446744073709551615";
	ck_assert(parse_decimal_u64(dec, dec + strlen(dec), &v));
	ck_assert_uint_eq(v, UINT64_MAX);
	const char *dec2 = "18446744073709551616";
	ck_assert(!parse_decimal_u64(dec2, dec2 + strlen(dec2), &v));
	ck_assert(!parse_decimal_u64(dec2, dec2, &v));
}
END_TEST

static Suite *framing_suite(void)
{
	Suite *s = suite_create("gdbstub_framing");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_good_packet);
	tcase_add_test(tc, test_control_bytes);
	tcase_add_test(tc, test_escape_roundtrip);
	tcase_add_test(tc, test_overflow_is_flagged);
	tcase_add_test(tc, test_buf_limit);
	tcase_add_test(tc, test_hex_numbers);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(framing_suite)
