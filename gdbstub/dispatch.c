/*
 * dispatch.c — which handler answers which packet. Packets are matched by
 * prefix, first match wins, so longer prefixes come before their own
 * prefixes. Anything unmatched gets the empty "unsupported" reply.
 */
#include <string.h>

#include "gdbstub/internal.h"

void gdbstub_dispatch(struct gdbstub *stub, const char *packet, size_t len);

static const struct {
	const char *prefix;
	gdbstub_handler *handler;
} packet_table[] = {
	/* connection and queries */
	{ "qSupported", handle_q_supported },
	{ "QStartNoAckMode", handle_start_no_ack },
	{ "QCatchSyscalls:", handle_catch_syscalls },
	{ "QPassSignals:", handle_pass_signals },
	{ "vMustReplyEmpty", handle_must_reply_empty },
	{ "qAttached", handle_q_attached },
	{ "qC", handle_q_current_thread },
	{ "qfThreadInfo", handle_q_first_thread },
	{ "qsThreadInfo", handle_q_next_thread },
	{ "qSymbol:", handle_q_symbol },
	{ "qXfer:", handle_qxfer },
	{ "qRcmd,", handle_monitor },
	{ "vFile:", handle_vfile },
	{ "?", handle_stop_reason },
	{ "H", handle_set_thread },
	{ "T", handle_thread_alive },
	{ "D", handle_detach },
	{ "k", handle_kill },
	{ "vKill", handle_vkill },
	/* registers */
	{ "g", handle_read_all_registers },
	{ "G", handle_write_all_registers },
	{ "p", handle_read_register },
	{ "P", handle_write_register },
	/* memory */
	{ "m", handle_read_memory_hex },
	{ "x", handle_read_memory_binary },
	{ "M", handle_write_memory_hex },
	{ "X", handle_write_memory_binary },
	/* execution */
	{ "vCont?", handle_vcont_query },
	{ "vCont;", handle_vcont },
	{ "c", handle_continue },
	{ "s", handle_step },
	{ "C", handle_continue_signal },
	{ "S", handle_step_signal },
	{ "bs", handle_reverse_step },
	{ "bc", handle_reverse_continue },
	/* breakpoints and watchpoints */
	{ "Z", handle_insert_break },
	{ "z", handle_remove_break },
};

void gdbstub_dispatch(struct gdbstub *stub, const char *packet, size_t len)
{
	for (size_t i = 0; i < sizeof(packet_table) / sizeof(packet_table[0]); i++) {
		size_t n = strlen(packet_table[i].prefix);
		if (len >= n && memcmp(packet, packet_table[i].prefix, n) == 0) {
			packet_table[i].handler(stub, packet + n, packet + len);
			return;
		}
	}
}
