/*
 * test_gdbstub_packets.c — a session over the mock target answers each
 * packet group as GDB expects: queries, registers, memory, execution in
 * both directions, breakpoints, qXfer objects, monitor commands, and errors
 * or empty replies for what is malformed or unknown.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "gdbstub_mock.h"

struct session {
	struct mock_target target_state;
	struct gdbstub_target target;
	struct mock_link link;
	struct gdbstub_io io;
	struct gdbstub *stub;
	char replies[8][GDBSTUB_PACKET_SIZE + 1]; /* packets of the last exchange */
	size_t reply_len[8];
	int count;
};

static void open_session(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->target.ops = &mock_ops;
	s->target.ctx = &s->target_state;
	rsp_buf_init(&s->link.sent, 1 << 20);
	s->io = (struct gdbstub_io){ &s->link, mock_link_write, mock_link_interrupted };
	s->stub = gdbstub_new(&s->target, &s->io);
	ck_assert_ptr_nonnull(s->stub);
}

static void close_session(struct session *s)
{
	gdbstub_free(s->stub);
	rsp_buf_fini(&s->link.sent);
}

/* Sends one packet; returns the last reply packet's payload. */
static const char *exchange_raw(struct session *s, const void *payload, size_t len)
{
	struct rsp_buf framed;
	rsp_buf_init(&framed, 4 * GDBSTUB_PACKET_SIZE);
	rsp_frame(&framed, payload, len);
	rsp_buf_clear(&s->link.sent);
	ck_assert_int_eq(gdbstub_feed(s->stub, framed.data, framed.len), 0);
	rsp_buf_fini(&framed);

	struct rsp_decoder d;
	ck_assert(rsp_decoder_init(&d, GDBSTUB_PACKET_SIZE));
	s->count = 0;
	for (size_t i = 0; i < s->link.sent.len; i++) {
		enum rsp_event e = rsp_decode_byte(&d, s->link.sent.data[i]);
		ck_assert_int_ne(e, RSP_EVENT_BAD_CHECKSUM);
		if (e == RSP_EVENT_PACKET && s->count < 8) {
			memcpy(s->replies[s->count], d.buf, d.len + 1);
			s->reply_len[s->count++] = d.len;
		}
	}
	rsp_decoder_fini(&d);
	return s->count ? s->replies[s->count - 1] : NULL;
}

static const char *exchange(struct session *s, const char *payload)
{
	return exchange_raw(s, payload, strlen(payload));
}

START_TEST(test_handshake)
{
	struct session s;
	open_session(&s);
	const char *r = exchange(&s, "qSupported:multiprocess+;swbreak+;hwbreak+");
	ck_assert_ptr_nonnull(strstr(r, "ReverseStep+"));
	ck_assert_ptr_nonnull(strstr(r, "ReverseContinue+"));
	ck_assert_ptr_nonnull(strstr(r, "swbreak+"));
	ck_assert_ptr_nonnull(strstr(r, "qXfer:features:read+"));
	char size[32];
	snprintf(size, sizeof(size), "PacketSize=%x", GDBSTUB_PACKET_SIZE);
	ck_assert_ptr_nonnull(strstr(r, size));
	ck_assert_str_eq(exchange(&s, "vMustReplyEmpty"), "");
	ck_assert_str_eq(exchange(&s, "qAttached"), "1");
	ck_assert_str_eq(exchange(&s, "qC"), "QC7");
	ck_assert_str_eq(exchange(&s, "qfThreadInfo"), "m7");
	ck_assert_str_eq(exchange(&s, "qsThreadInfo"), "l");
	ck_assert_str_eq(exchange(&s, "Hg0"), "OK");
	ck_assert_str_eq(exchange(&s, "Hc-1"), "OK");
	ck_assert_str_eq(exchange(&s, "Hg99"), "E03");
	ck_assert_str_eq(exchange(&s, "T7"), "OK");
	ck_assert_str_eq(exchange(&s, "T8"), "E03");
	ck_assert_str_eq(exchange(&s, "qTStatus"), "");
	ck_assert_str_eq(exchange(&s, "vFile:setfs:0"), "F0");
	ck_assert_str_eq(exchange(&s, "?"), "T05thread:7;06:0000000000000000;"
					    "07:0000000000000000;10:0010000000000000;");
	/* Acked until no-ack mode, then silent. */
	ck_assert_uint_eq(s.link.sent.data[0], '+');
	ck_assert_str_eq(exchange(&s, "QStartNoAckMode"), "OK");
	exchange(&s, "qC");
	ck_assert_uint_eq(s.link.sent.data[0], '$');
	close_session(&s);
}
END_TEST

START_TEST(test_registers)
{
	struct session s;
	open_session(&s);
	const char *g = exchange(&s, "g");
	/* 560 bytes of the classic layout plus 16 ymm upper halves. */
	ck_assert_uint_eq(strlen(g), 2 * (560 + 16 * 16));
	ck_assert(strncmp(g, "8877665544332211", 16) == 0); /* rax, little-endian */
	ck_assert(strncmp(g + 2 * 128, "0010000000000000", 16) == 0); /* rip */
	ck_assert(strncmp(g + 2 * 136, "46020000", 8) == 0);          /* eflags */
	ck_assert(strncmp(g + 2 * 536, "ffffffffffffffff", 16) == 0); /* orig_rax */
	ck_assert(strncmp(g + 2 * 544, "00100000007f0000", 16) == 0); /* fs_base */
	ck_assert_str_eq(exchange(&s, "p3a"), "00100000007f0000");     /* fs_base */
	ck_assert_str_eq(exchange(&s, "p3b"), "0000000000000000");     /* gs_base */
	ck_assert_str_eq(exchange(&s, "p10"), "0010000000000000");
	ck_assert_str_eq(exchange(&s, "p4c"), "E16"); /* past the last register */
	ck_assert_str_eq(exchange(&s, "pzz"), "E16");
	ck_assert_str_eq(exchange(&s, "G00"), "E1e");
	ck_assert_str_eq(exchange(&s, "P10=00"), "E1e");
	ck_assert_str_eq(exchange(&s, "gextra"), "E16");
	close_session(&s);
}
END_TEST

START_TEST(test_memory)
{
	struct session s;
	open_session(&s);
	ck_assert_str_eq(exchange(&s, "m1010,4"), "10111213");
	/* Stops at the first unmapped byte. */
	ck_assert_str_eq(exchange(&s, "m1ffe,4"), "feff");
	ck_assert_str_eq(exchange(&s, "m2000,4"), "E0f"); /* unavailable */
	ck_assert_str_eq(exchange(&s, "m0,4"), "E0e");    /* unmapped */
	ck_assert_str_eq(exchange(&s, "m1010"), "E16");
	ck_assert_str_eq(exchange(&s, "m1010,4,5"), "E16");
	ck_assert_str_eq(exchange(&s, "mffffffffffffffff,ffffffff"), "E0e");
	ck_assert_str_eq(exchange(&s, "m1000,0"), "E16");
	/* Large reads are cut to what a packet holds. */
	ck_assert_uint_le(strlen(exchange(&s, "m1000,100000")), GDBSTUB_PACKET_SIZE);
	const char *x = exchange(&s, "x1023,2");
	ck_assert_uint_eq(s.reply_len[s.count - 1], 3);
	ck_assert(x[0] == 'b' && x[1] == '#' && x[2] == '$'); /* escaped on the wire */
	ck_assert_str_eq(exchange(&s, "M1000,1:00"), "E1e");
	close_session(&s);
}
END_TEST

/* A target that takes writes gets whole register sets and the bytes. */
START_TEST(test_writes)
{
	struct session s;
	struct gdbstub_target_ops writable = mock_ops;
	writable.write_registers = mock_write_registers;
	writable.write_memory = mock_write_memory;
	open_session(&s);
	s.target.ops = &writable;
	gdbstub_free(s.stub);
	s.stub = gdbstub_new(&s.target, &s.io);
	struct mock_target *m = &s.target_state;
	/* P: one register; the others as read. */
	ck_assert_str_eq(exchange(&s, "P5=0500000000000000"), "OK"); /* rdi */
	ck_assert_uint_eq(m->written_regs.gpr[5], 5);
	ck_assert_uint_eq(m->written_regs.gpr[0], 0x1122334455667788ull);
	ck_assert_uint_eq(m->written_regs.rip, MOCK_CODE);
	ck_assert_str_eq(exchange(&s, "P10=0020000000000000"), "OK"); /* rip */
	ck_assert_uint_eq(m->written_regs.rip, 0x2000);
	ck_assert_str_eq(exchange(&s, "P10=00"), "E16");            /* too short */
	ck_assert_str_eq(exchange(&s, "P10=002000000000000000"), "E16"); /* too long */
	ck_assert_str_eq(exchange(&s, "P4c=00"), "E16");            /* no such register */
	ck_assert_str_eq(exchange(&s, "P10"), "E16");
	/* G: from rax on, as far as it goes. */
	ck_assert_str_eq(exchange(&s, "G0100000000000000"), "OK");
	ck_assert_uint_eq(m->written_regs.gpr[0], 1);
	ck_assert_uint_eq(m->written_regs.gpr[1], 0);
	ck_assert_str_eq(exchange(&s, "G01000000000000"), "E16"); /* half a register */
	ck_assert_str_eq(exchange(&s, "Gzz00000000000000"), "E16");
	/* M (hex) and X (binary). */
	ck_assert_str_eq(exchange(&s, "M1000,2:abcd"), "OK");
	ck_assert_uint_eq(m->written_addr, 0x1000);
	ck_assert_uint_eq(m->written_len, 2);
	ck_assert_uint_eq(m->written[1], 0xcd);
	ck_assert_str_eq(exchange(&s, "M1000,2:ab"), "E16");
	ck_assert_str_eq(exchange(&s, "X1010,3:a:b"), "OK");
	ck_assert_uint_eq(m->written_len, 3);
	ck_assert(memcmp(m->written, "a:b", 3) == 0);
	ck_assert_str_eq(exchange(&s, "X1010,0:"), "OK"); /* gdb's probe */
	ck_assert_str_eq(exchange(&s, "X1010,4:ab"), "E16");
	ck_assert_str_eq(exchange(&s, "M1000,41:"), "E16");
	close_session(&s);
}
END_TEST

static uint64_t passed_mask;
static void mock_pass_signals(void *ctx, uint64_t linux_mask)
{
	(void)ctx;
	passed_mask = linux_mask;
}

/* QPassSignals: offered only with the callback; gdb's numbers come as
 * Linux signals (SIGALRM 0e is 14, SIGUSR1 1e is 10, SIGCHLD 14 is 17);
 * numbers Linux has no signal for are left out; bad lists refused. */
START_TEST(test_pass_signals)
{
	struct session s;
	open_session(&s);
	ck_assert_ptr_null(strstr(exchange(&s, "qSupported"), "QPassSignals+"));
	ck_assert_str_eq(exchange(&s, "QPassSignals:e"), "");
	struct gdbstub_target_ops with_pass = mock_ops;
	with_pass.pass_signals = mock_pass_signals;
	s.target.ops = &with_pass;
	gdbstub_free(s.stub);
	s.stub = gdbstub_new(&s.target, &s.io);
	ck_assert_ptr_nonnull(strstr(exchange(&s, "qSupported"), "QPassSignals+"));
	ck_assert_str_eq(exchange(&s, "QPassSignals:e;1e;14;90;"), "OK"); /* gdb's form */
	ck_assert_uint_eq(passed_mask, 1ull << 14 | 1ull << 10 | 1ull << 17);
	ck_assert_str_eq(exchange(&s, "QPassSignals:1e"), "OK");
	ck_assert_uint_eq(passed_mask, 1ull << 10);
	ck_assert_str_eq(exchange(&s, "QPassSignals:"), "OK");
	ck_assert_uint_eq(passed_mask, 0);
	passed_mask = 1;
	ck_assert_str_eq(exchange(&s, "QPassSignals:;e"), "E16");
	ck_assert_str_eq(exchange(&s, "QPassSignals:e;;"), "E16");
	ck_assert_str_eq(exchange(&s, "QPassSignals:e;x"), "E16");
	ck_assert_uint_eq(passed_mask, 1);
	close_session(&s);
}
END_TEST

/* With a process id and a gdb that offers it: thread ids pPID.TID out,
 * and either form in. */
START_TEST(test_multiprocess)
{
	struct session s;
	struct gdbstub_target_ops with_pid = mock_ops;
	with_pid.process_id = mock_process_id;
	open_session(&s);
	s.target.ops = &with_pid;
	gdbstub_free(s.stub);
	s.stub = gdbstub_new(&s.target, &s.io);
	ck_assert_ptr_null(strstr(exchange(&s, "qSupported:swbreak+"), "multiprocess+"));
	ck_assert_str_eq(exchange(&s, "qC"), "QC7"); /* gdb did not offer it */
	ck_assert_ptr_nonnull(strstr(exchange(&s, "qSupported:multiprocess+;swbreak+"), "multiprocess+"));
	ck_assert_str_eq(exchange(&s, "qC"), "QCp4d2.7");
	ck_assert_str_eq(exchange(&s, "qfThreadInfo"), "mp4d2.7");
	ck_assert_str_eq(exchange(&s, "Hgp4d2.7"), "OK");
	ck_assert_str_eq(exchange(&s, "Hgp4d2.-1"), "OK");
	ck_assert_str_eq(exchange(&s, "Hcp-1.-1"), "OK");
	ck_assert_str_eq(exchange(&s, "Hgp4d2"), "OK");
	ck_assert_str_eq(exchange(&s, "Hgp4d2.63"), "E03");
	ck_assert_str_eq(exchange(&s, "Tp4d2.7"), "OK");
	ck_assert_str_eq(exchange(&s, "Hgp"), "E16");
	ck_assert_str_eq(exchange(&s, "Hgp4d2."), "E16");
	ck_assert_ptr_nonnull(strstr(exchange(&s, "vCont;s:p4d2.7"), "thread:p4d2.7;"));
	ck_assert_ptr_nonnull(strstr(exchange(&s, "qXfer:threads:read::0,1000"), "id=\"p4d2.7\""));
	close_session(&s);
}
END_TEST

START_TEST(test_execution)
{
	struct session s;
	open_session(&s);
	ck_assert_str_eq(exchange(&s, "vCont?"), "vCont;c;C;s;S");
	ck_assert(strstr(exchange(&s, "bs"), "replaylog:begin;"));
	ck_assert(strstr(exchange(&s, "vCont;s:7;c"), "T05thread:7;"));
	ck_assert_uint_eq(s.target_state.now, 1);
	exchange(&s, "s");
	ck_assert_uint_eq(s.target_state.now, 2);
	exchange(&s, "bs");
	ck_assert_uint_eq(s.target_state.now, 1);
	ck_assert_str_eq(exchange(&s, "Z0,1100,1"), "OK");
	ck_assert_str_eq(exchange(&s, "Z1,1080,1"), "OK");
	const char *r = exchange(&s, "vCont;c");
	ck_assert(strstr(r, "hwbreak:;"));
	ck_assert(strstr(r, "10:8010000000000000;"));
	ck_assert(strstr(exchange(&s, "c"), "swbreak:;"));
	ck_assert_uint_eq(s.target_state.now, 0x100);
	ck_assert(strstr(exchange(&s, "C0b"), "replaylog:end;"));
	ck_assert_uint_eq(s.target_state.now, MOCK_END);
	ck_assert(strstr(exchange(&s, "bc"), "swbreak:;"));
	ck_assert_uint_eq(s.target_state.now, 0x100);
	ck_assert_str_eq(exchange(&s, "z0,1100,1"), "OK");
	ck_assert_str_eq(exchange(&s, "z0,1100,1"), "E16");
	ck_assert_str_eq(exchange(&s, "z1,1080,1"), "OK");
	/* An interrupt during a continue stops it with SIGINT. */
	s.link.interrupt_next = true;
	ck_assert(strncmp(exchange(&s, "bc"), "T02", 3) == 0);
	ck_assert_uint_eq(s.target_state.now, 0xff);
	ck_assert(strstr(exchange(&s, "?"), "T02"));
	/* Malformed or unsupported resumptions move nothing. */
	ck_assert_str_eq(exchange(&s, "vCont;x"), "E16");
	ck_assert_str_eq(exchange(&s, "vCont;s:zz"), "E16");
	ck_assert_str_eq(exchange(&s, "vCont;"), "E16");
	ck_assert_str_eq(exchange(&s, "c1000"), "E1e");
	ck_assert_str_eq(exchange(&s, "Czz"), "E16");
	ck_assert_str_eq(exchange(&s, "bsx"), "E16");
	ck_assert_uint_eq(s.target_state.now, 0xff);
	/* An interrupt in the same read as the continue (after an ack)
	 * stops it too, at its first poll; the link is not asked. */
	{
		static const char bytes[] = "$c#63+\x03";
		uint64_t before = s.target_state.now;
		unsigned polls = s.target_state.interrupt_polls;
		rsp_buf_clear(&s.link.sent);
		ck_assert_int_eq(gdbstub_feed(s.stub, bytes, sizeof(bytes) - 1), 0);
		ck_assert_uint_eq(s.target_state.interrupt_polls, polls + 1);
		ck_assert_uint_eq(s.target_state.now, before + 1);
		ck_assert(memmem(s.link.sent.data, s.link.sent.len, "$T02", 4) != NULL);
	}
	close_session(&s);
}
END_TEST

START_TEST(test_breakpoint_parsing)
{
	struct session s;
	open_session(&s);
	ck_assert_str_eq(exchange(&s, "Z2,1000,8"), "OK");
	ck_assert_str_eq(exchange(&s, "Z3,1003,3"), "OK");
	ck_assert_str_eq(exchange(&s, "Z4,1001,100"), "OK");
	ck_assert_uint_eq(s.target_state.break_count, 3);
	ck_assert_str_eq(exchange(&s, "Z2,1000,0"), "E16");        /* empty range */
	ck_assert_str_eq(exchange(&s, "Z2,ffffffffffffffff,2"), "E16"); /* wraps */
	ck_assert_str_eq(exchange(&s, "Z5,1000,1"), "E16");
	ck_assert_str_eq(exchange(&s, "Z0,1000"), "E16");
	ck_assert_str_eq(exchange(&s, "Z0,1000,1;X1,0"), "E16");
	ck_assert_uint_eq(s.target_state.break_count, 3);
	close_session(&s);
}
END_TEST

/* Reads a whole qXfer object in chunks of `chunk` bytes. */
static size_t read_object(struct session *s, const char *object, char *out,
			  size_t cap, size_t chunk)
{
	size_t len = 0;
	for (;;) {
		char packet[256];
		snprintf(packet, sizeof(packet), "qXfer:%s:%zx,%zx", object, len, chunk);
		const char *r = exchange(s, packet);
		size_t n = s->reply_len[s->count - 1];
		ck_assert(r[0] == 'm' || r[0] == 'l');
		ck_assert_uint_le(n - 1, chunk);
		ck_assert_uint_le(len + n - 1, cap);
		memcpy(out + len, r + 1, n - 1);
		len += n - 1;
		if (r[0] == 'l')
			return len;
	}
}

START_TEST(test_qxfer)
{
	struct session s;
	open_session(&s);
	static char xml[32768];
	size_t len = read_object(&s, "features:read:target.xml", xml, sizeof(xml) - 1, 100);
	xml[len] = 0;
	ck_assert_ptr_nonnull(strstr(xml, "<architecture>i386:x86-64</architecture>"));
	const char *features[] = { "i386.core", "i386.sse", "i386.linux", "i386.segments",
				   "i386.avx" };
	for (size_t i = 0; i < 5; i++)
		ck_assert_ptr_nonnull(strstr(xml, features[i]));
	ck_assert_ptr_nonnull(strstr(xml, "name=\"orig_rax\" bitsize=\"64\" type=\"int\" regnum=\"57\""));
	ck_assert_ptr_nonnull(strstr(xml, "name=\"fs_base\" bitsize=\"64\" type=\"int\" regnum=\"58\""));
	ck_assert_ptr_nonnull(strstr(xml, "name=\"ymm15h\" bitsize=\"128\" type=\"uint128\" regnum=\"75\""));
	ck_assert_ptr_nonnull(strstr(xml, "</target>\n"));
	/* The same whole object whatever the chunk size. */
	static char again[32768];
	ck_assert_uint_eq(read_object(&s, "features:read:target.xml", again, sizeof(again), 7000), len);
	ck_assert_mem_eq(again, xml, len);

	char auxv[64];
	ck_assert_uint_eq(read_object(&s, "auxv:read:", auxv, sizeof(auxv), 1000),
			  sizeof(mock_auxv_data));
	ck_assert_mem_eq(auxv, mock_auxv_data, sizeof(mock_auxv_data));
	char exe[64];
	len = read_object(&s, "exec-file:read:7", exe, sizeof(exe) - 1, 1000);
	exe[len] = 0;
	ck_assert_str_eq(exe, "/bin/mock-program");
	char threads[512];
	len = read_object(&s, "threads:read:", threads, sizeof(threads) - 1, 1000);
	threads[len] = 0;
	ck_assert_ptr_nonnull(strstr(threads, "<thread id=\"7\""));
	/* No libraries callback: not offered, and refused if asked. */
	ck_assert_ptr_null(strstr(exchange(&s, "qSupported"), "libraries-svr4"));
	ck_assert_str_eq(exchange(&s, "qXfer:libraries-svr4:read::0,100"), "E05");
	ck_assert_str_eq(exchange(&s, "qXfer:features:read:other.xml:0,100"), "E16");
	ck_assert_str_eq(exchange(&s, "qXfer:features:read:target.xml:0"), "E16");
	ck_assert_str_eq(exchange(&s, "qXfer:features:write:target.xml:0,1"), "");
	ck_assert_str_eq(exchange(&s, "qXfer:auxv:read::ffff,10"), "l");
	close_session(&s);
}
END_TEST

/* Hex of a monitor command line, as GDB sends it in qRcmd. */
static const char *rcmd(const char *cmd)
{
	static char packet[512];
	size_t n = (size_t)snprintf(packet, sizeof(packet), "qRcmd,");
	for (; *cmd; cmd++)
		n += (size_t)snprintf(packet + n, sizeof(packet) - n, "%02x", (uint8_t)*cmd);
	return packet;
}

/* The text of the O packets of the last exchange. */
static void console_text(struct session *s, char *out, size_t cap)
{
	size_t len = 0;
	for (int i = 0; i < s->count; i++) {
		if (s->replies[i][0] != 'O' || s->reply_len[i] < 3)
			continue;
		size_t n = (s->reply_len[i] - 1) / 2;
		ck_assert_uint_lt(len + n, cap);
		ck_assert(hex_decode(s->replies[i] + 1, n, (uint8_t *)out + len));
		len += n;
	}
	out[len] = 0;
}

START_TEST(test_monitor)
{
	struct session s;
	open_session(&s);
	char text[1024];
	ck_assert_str_eq(exchange(&s, rcmd("goto 500")), "OK");
	ck_assert_uint_eq(s.target_state.now, 500);
	ck_assert_str_eq(exchange(&s, rcmd("when")), "OK");
	console_text(&s, text, sizeof(text));
	ck_assert_str_eq(text, "time 500 of 1000\n");
	ck_assert_str_eq(exchange(&s, rcmd("goto 12x")), "E16");
	ck_assert_str_eq(exchange(&s, rcmd("goto")), "E16");
	ck_assert_str_eq(exchange(&s, rcmd("frobnicate")), "E16");
	console_text(&s, text, sizeof(text));
	ck_assert_ptr_nonnull(strstr(text, "unknown monitor command"));
	ck_assert_str_eq(exchange(&s, "qRcmd,7"), "E16");   /* odd hex */
	ck_assert_str_eq(exchange(&s, "qRcmd,0077"), "E16"); /* NUL inside */
	ck_assert_uint_eq(s.target_state.now, 500);
	close_session(&s);
}
END_TEST

START_TEST(test_session_end)
{
	struct session s;
	open_session(&s);
	ck_assert_str_eq(exchange(&s, "D;1"), "OK");
	ck_assert(gdbstub_finished(s.stub));
	close_session(&s);
	open_session(&s);
	ck_assert_ptr_null(exchange(&s, "k")); /* no reply at all */
	ck_assert(gdbstub_finished(s.stub));
	close_session(&s);
}
END_TEST

START_TEST(test_bad_framing)
{
	struct session s;
	open_session(&s);
	rsp_buf_clear(&s.link.sent);
	ck_assert_int_eq(gdbstub_feed(s.stub, "$qC#00", 6), 0);
	ck_assert_uint_eq(s.link.sent.len, 1);
	ck_assert_uint_eq(s.link.sent.data[0], '-');
	/* A packet longer than PacketSize gets an error, not a crash. */
	static char big[GDBSTUB_PACKET_SIZE + 100];
	memset(big, 'm', sizeof(big));
	ck_assert_str_eq(exchange_raw(&s, big, sizeof(big)), "E16");
	/* '-' resends the last packet. */
	exchange(&s, "qC");
	rsp_buf_clear(&s.link.sent);
	ck_assert_int_eq(gdbstub_feed(s.stub, "-", 1), 0);
	ck_assert_uint_eq(s.link.sent.len, strlen("$QC7#cb"));
	ck_assert_mem_eq(s.link.sent.data, "$QC7#cb", 7);
	close_session(&s);
}
END_TEST


/* "vFile:open:" for path with flags, hex-encoded. */
static const char *vfile_open(struct session *s, const char *path, unsigned flags)
{
	char packet[256] = "vFile:open:";
	size_t n = strlen(packet);
	for (const char *p = path; *p; p++)
		n += (size_t)snprintf(packet + n, sizeof(packet) - n, "%02x", (unsigned char)*p);
	snprintf(packet + n, sizeof(packet) - n, ",%x,0", flags);
	return exchange(s, packet);
}

START_TEST(test_vfile)
{
	struct session s;
	open_session(&s);
	ck_assert_str_eq(exchange(&s, "vFile:setfs:0"), "F0");
	ck_assert_str_eq(vfile_open(&s, "/etc/passwd", 0), "F-1,d");   /* EACCES */
	ck_assert_str_eq(vfile_open(&s, MOCK_FILE_PATH, 1), "F-1,1e"); /* write: EROFS */
	ck_assert_str_eq(vfile_open(&s, MOCK_FILE_PATH, 0), "F0");
	ck_assert_str_eq(vfile_open(&s, MOCK_FILE_PATH, 0), "F-1,18");  /* EMFILE */

	/* A read in the middle, then one larger than a packet: capped, and
	 * every byte (escaped ones included) arrives as it is. */
	const char *r = exchange(&s, "vFile:pread:0,a,5");
	ck_assert_int_eq((int)s.reply_len[s.count - 1], 3 + 10);
	ck_assert(memcmp(r, "Fa;", 3) == 0);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq((uint8_t)r[3 + i], 5 + i);
	r = exchange(&s, "vFile:pread:0,100000,7d");
	unsigned long got = strtoul(r + 1, NULL, 16);
	ck_assert(got > 1000 && got < GDBSTUB_PACKET_SIZE);
	const char *data = strchr(r, ';') + 1;
	ck_assert_int_eq((long)(s.reply_len[s.count - 1] - (size_t)(data - r)), (long)got);
	for (unsigned long i = 0; i < got; i++)
		ck_assert_int_eq((uint8_t)data[i], (0x7d + i) % 251);
	ck_assert_str_eq(exchange(&s, "vFile:pread:0,10,4e20"), "F0;"); /* at the end */

	r = exchange(&s, "vFile:fstat:0");
	ck_assert(memcmp(r, "F40;", 4) == 0);
	ck_assert_int_eq((int)s.reply_len[s.count - 1], 4 + 64);
	uint64_t size = 0;
	for (int i = 0; i < 8; i++)
		size = size << 8 | (uint8_t)r[4 + 28 + i];
	ck_assert_uint_eq(size, MOCK_FILE_SIZE);

	ck_assert_str_eq(exchange(&s, "vFile:close:0"), "F0");
	ck_assert_str_eq(exchange(&s, "vFile:close:0"), "F-1,9");      /* EBADF */
	ck_assert_str_eq(exchange(&s, "vFile:pread:0,10,0"), "F-1,9");

	/* Malformed or refused. */
	ck_assert_str_eq(exchange(&s, "vFile:open:zz,0,0"), "E16");
	ck_assert_str_eq(exchange(&s, "vFile:open:2f"), "E16");
	ck_assert_str_eq(exchange(&s, "vFile:pread:0,10"), "E16");
	ck_assert_str_eq(exchange(&s, "vFile:pread:0,10,1ffffffffffffffff"), "E16");
	ck_assert_str_eq(exchange(&s, "vFile:pread:100000000,10,0"), "E16");
	ck_assert_str_eq(vfile_open(&s, "/mock\001", 0), "F-1,d");
	ck_assert_str_eq(exchange(&s, "vFile:open:2f0061,0,0"), "F-1,16"); /* a NUL: EINVAL */
	ck_assert_str_eq(exchange(&s, "vFile:pwrite:0,0,41"), "F-1,1e");
	ck_assert_str_eq(exchange(&s, "vFile:unlink:2f"), "F-1,1e");
	ck_assert_str_eq(exchange(&s, "vFile:readlink:2f"), "");
	close_session(&s);

	/* A target without files: gdb is told Host I/O is unsupported. */
	struct gdbstub_target_ops no_files = mock_ops;
	no_files.file_open = NULL;
	open_session(&s);
	s.target.ops = &no_files;
	gdbstub_free(s.stub);
	s.stub = gdbstub_new(&s.target, &s.io);
	ck_assert_str_eq(exchange(&s, "vFile:setfs:0"), "");
	ck_assert_str_eq(vfile_open(&s, MOCK_FILE_PATH, 0), "");
	close_session(&s);
}
END_TEST

static Suite *packets_suite(void)
{
	Suite *s = suite_create("gdbstub_packets");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_handshake);
	tcase_add_test(tc, test_registers);
	tcase_add_test(tc, test_memory);
	tcase_add_test(tc, test_writes);
	tcase_add_test(tc, test_multiprocess);
	tcase_add_test(tc, test_pass_signals);
	tcase_add_test(tc, test_execution);
	tcase_add_test(tc, test_breakpoint_parsing);
	tcase_add_test(tc, test_qxfer);
	tcase_add_test(tc, test_monitor);
	tcase_add_test(tc, test_vfile);
	tcase_add_test(tc, test_session_end);
	tcase_add_test(tc, test_bad_framing);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(packets_suite)
