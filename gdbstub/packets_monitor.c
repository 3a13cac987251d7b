/*
 * packets_monitor.c — qRcmd (GDB's "monitor" command). The stub answers
 * "help", "when" and "goto TIME" itself from the target's time callbacks
 * and passes anything else to the target. Output goes to GDB as O packets
 * (hex text) before the final OK.
 */
#include <stdio.h>
#include <string.h>

#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

#define MONITOR_COMMAND_MAX 1024

struct print_state {
	struct gdbstub *stub;
	bool link_failed;
};

static void print_to_gdb(void *ctx, const char *text)
{
	struct print_state *ps = ctx;
	if (!ps->link_failed && stub_console(ps->stub, text) < 0)
		ps->link_failed = true;
}

static bool word_is(const char *cmd, const char *word, const char **rest)
{
	size_t n = strlen(word);
	if (strncmp(cmd, word, n) != 0 || (cmd[n] != 0 && cmd[n] != ' '))
		return false;
	*rest = cmd + n;
	while (**rest == ' ')
		(*rest)++;
	return true;
}

/* Returns 0 if done, 1 if the command is not the stub's, -1 on error. */
static int builtin_command(struct gdbstub *stub, const char *cmd,
			   struct print_state *ps)
{
	const struct gdbstub_target_ops *ops = stub->target.ops;
	void *ctx = stub->target.ctx;
	char line[256];
	const char *rest;
	if (word_is(cmd, "when", &rest) && !*rest) {
		snprintf(line, sizeof(line), "time %llu of %llu\n",
			 (unsigned long long)ops->now(ctx),
			 (unsigned long long)ops->end_of_history(ctx));
		print_to_gdb(ps, line);
		return 0;
	}
	if (word_is(cmd, "goto", &rest)) {
		uint64_t t;
		if (!parse_decimal_u64(rest, rest + strlen(rest), &t)) {
			print_to_gdb(ps, "usage: monitor goto TIME (a decimal instruction count)\n");
			return -1;
		}
		if (ops->goto_time(ctx, t) < 0)
			return -1;
		/* GDB caches registers and memory and cannot be told they
		 * changed outside a stop. */
		snprintf(line, sizeof(line),
			 "now at time %llu (ttreplay's goto command shows it; or"
			 " \"maintenance flush register-cache\" and \"maintenance flush dcache\")\n",
			 (unsigned long long)ops->now(ctx));
		print_to_gdb(ps, line);
		return 0;
	}
	if (word_is(cmd, "help", &rest) && !*rest) {
		print_to_gdb(ps, "when          current time and the end of history\n"
				 "goto TIME     move to instruction count TIME\n");
		if (ops->monitor_help)
			print_to_gdb(ps, ops->monitor_help(ctx));
		return 0;
	}
	return 1;
}

void handle_monitor(struct gdbstub *stub, const char *args, const char *end)
{
	char cmd[MONITOR_COMMAND_MAX + 1];
	size_t hex_len = (size_t)(end - args);
	if (hex_len % 2 || hex_len / 2 > MONITOR_COMMAND_MAX ||
	    !hex_decode(args, hex_len / 2, (uint8_t *)cmd)) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	cmd[hex_len / 2] = 0;
	if (strlen(cmd) != hex_len / 2) { /* an embedded NUL */
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	struct print_state ps = { stub, false };
	stub->console_allowed = true;
	int rc = builtin_command(stub, cmd, &ps);
	if (rc == 1) {
		rc = stub->target.ops->monitor
			     ? stub->target.ops->monitor(stub->target.ctx, cmd,
							 print_to_gdb, &ps)
			     : 1;
		if (rc == 1) {
			print_to_gdb(&ps, "unknown monitor command; try \"monitor help\"\n");
			rc = -1;
		}
	}
	stub->console_allowed = false;
	if (ps.link_failed)
		stub->suppress_reply = true;
	else if (rc < 0)
		reply_error(stub, GDBSTUB_EINVAL);
	else
		reply_ok(stub);
}
