/*
 * test_gdbstub_fuzz.c — feeds a session over the mock target random bytes
 * and well-framed packets mutated from real ones. Bounded and seeded, so a
 * failure reproduces. The session must never crash (ASan/UBSan check that
 * under SAN=1), every reply must be a well-formed packet within PacketSize,
 * and the session must keep answering a plain query afterwards.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "gdbstub_mock.h"

#define ITERATIONS 20000

static const char *const corpus[] = {
	"qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+", "vMustReplyEmpty",
	"QStartNoAckMode", "Hg0", "Hc-1", "qTStatus", "?", "qfThreadInfo",
	"qsThreadInfo", "qAttached", "qOffsets", "g", "p10", "P10=00", "G00",
	"m401000,40", "x401000,40", "M1000,2:0000", "vCont?", "vCont;s:7;c",
	"vCont;c", "vCont;C05:7", "c", "s", "C0b", "S05", "bs", "bc",
	"Z0,1010,1", "z0,1010,1", "Z1,1020,1", "Z2,1000,8", "Z3,1004,4",
	"Z4,1003,2", "z2,1000,8", "qXfer:features:read:target.xml:0,ffb",
	"qXfer:auxv:read::0,1000", "qXfer:exec-file:read:7:0,fff",
	"qXfer:threads:read::0,1000", "qXfer:libraries-svr4:read::0,1000",
	"qRcmd,7768656e", "qRcmd,676f746f20353030", "qRcmd,68656c70", "T7",
	"qC", "qSymbol::", "vFile:setfs:0", "vKill;1", "D;1", "k",
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 32);
}

/* Characters that matter to the parsers, picked more often than chance. */
static uint8_t interesting_byte(void)
{
	static const char pick[] = ",:;=-#$}*0123456789abcdefABCDEF\x03\xff";
	return rnd() % 3 ? (uint8_t)pick[rnd() % (sizeof(pick) - 1)] : (uint8_t)rnd();
}

static size_t mutate(const char *seed, uint8_t *out, size_t cap)
{
	size_t len = strlen(seed);
	memcpy(out, seed, len);
	int edits = 1 + (int)(rnd() % 4);
	for (int e = 0; e < edits; e++) {
		size_t at = len ? rnd() % (len + 1) : 0;
		switch (rnd() % 5) {
		case 0: /* replace */
			if (at < len)
				out[at] = interesting_byte();
			break;
		case 1: /* insert */
			if (len < cap) {
				memmove(out + at + 1, out + at, len - at);
				out[at] = interesting_byte();
				len++;
			}
			break;
		case 2: /* delete */
			if (at < len) {
				memmove(out + at, out + at + 1, len - at - 1);
				len--;
			}
			break;
		case 3: /* truncate */
			len = at;
			break;
		case 4: /* huge hex number */
			if (len + 17 <= cap && at <= len) {
				memmove(out + at + 17, out + at, len - at);
				memcpy(out + at, "ffffffffffffffff1", 17);
				len += 17;
			}
			break;
		}
	}
	return len;
}

struct fuzz_session {
	struct mock_target state;
	struct gdbstub_target target;
	struct mock_link link;
	struct gdbstub_io io;
	struct gdbstub *stub;
};

static void fuzz_open(struct fuzz_session *f)
{
	memset(&f->state, 0, sizeof(f->state));
	f->target = (struct gdbstub_target){ &mock_ops, &f->state };
	rsp_buf_clear(&f->link.sent);
	f->io = (struct gdbstub_io){ &f->link, mock_link_write, mock_link_interrupted };
	f->stub = gdbstub_new(&f->target, &f->io);
	ck_assert_ptr_nonnull(f->stub);
}

/* Every byte the stub sent decodes as acks and well-formed packets. */
static void check_output(struct fuzz_session *f)
{
	struct rsp_decoder d;
	ck_assert(rsp_decoder_init(&d, GDBSTUB_PACKET_SIZE));
	for (size_t i = 0; i < f->link.sent.len; i++) {
		enum rsp_event e = rsp_decode_byte(&d, f->link.sent.data[i]);
		ck_assert_int_ne(e, RSP_EVENT_BAD_CHECKSUM);
		if (e == RSP_EVENT_PACKET)
			ck_assert(!d.overflow);
	}
	ck_assert_int_eq(d.state, RSP_IDLE);
	rsp_decoder_fini(&d);
	rsp_buf_clear(&f->link.sent);
}

START_TEST(test_fuzz)
{
	struct fuzz_session f;
	rsp_buf_init(&f.link.sent, 1 << 22);
	fuzz_open(&f);
	struct rsp_buf framed;
	rsp_buf_init(&framed, 8 * GDBSTUB_PACKET_SIZE);
	static uint8_t payload[GDBSTUB_PACKET_SIZE + 64];
	for (int it = 0; it < ITERATIONS; it++) {
		size_t ncorpus = sizeof(corpus) / sizeof(corpus[0]);
		switch (rnd() % 4) {
		case 0: { /* raw bytes, framing characters included */
			size_t n = rnd() % 64;
			for (size_t i = 0; i < n; i++)
				payload[i] = interesting_byte();
			ck_assert_int_eq(gdbstub_feed(f.stub, payload, n), 0);
			break;
		}
		case 1: /* an oversized packet */
			if (rnd() % 16 == 0) {
				size_t n = GDBSTUB_PACKET_SIZE + rnd() % 64;
				memset(payload, 'm', n);
				rsp_frame(&framed, payload, n);
				ck_assert_int_eq(gdbstub_feed(f.stub, framed.data, framed.len), 0);
				break;
			}
			/* fall through */
		default: { /* a mutated real packet, framed correctly */
			size_t n = mutate(corpus[rnd() % ncorpus], payload, 256);
			rsp_frame(&framed, payload, n);
			/* Sometimes split across feeds, as a socket would. */
			size_t cut = framed.len ? rnd() % framed.len : 0;
			if (f.state.now % 7 == 0)
				f.link.interrupt_next = true;
			ck_assert_int_eq(gdbstub_feed(f.stub, framed.data, cut), 0);
			ck_assert_int_eq(gdbstub_feed(f.stub, framed.data + cut,
						      framed.len - cut), 0);
			break;
		}
		}
		check_output(&f);
		if (gdbstub_finished(f.stub)) {
			gdbstub_free(f.stub);
			fuzz_open(&f);
		}
	}
	/* Still answering: end any half-received packet, then a query. */
	ck_assert_int_eq(gdbstub_feed(f.stub, "#00", 3), 0);
	rsp_buf_clear(&f.link.sent);
	rsp_frame(&framed, (const uint8_t *)"qAttached", 9);
	ck_assert_int_eq(gdbstub_feed(f.stub, framed.data, framed.len), 0);
	ck_assert_ptr_nonnull(memmem(f.link.sent.data, f.link.sent.len, "$1#31", 5));
	gdbstub_free(f.stub);
	rsp_buf_fini(&framed);
	rsp_buf_fini(&f.link.sent);
}
END_TEST

static Suite *fuzz_suite(void)
{
	Suite *s = suite_create("gdbstub_fuzz");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fuzz);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fuzz_suite)
