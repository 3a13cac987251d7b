/*
 * gdb_monitor.c — the target's monitor commands: the trace's figures, its
 * snapshot times, the user's checkpoints, and "who wrote (or read) this?"
 * searches in either direction, made with a temporary watchpoint and the
 * same forward and backward runs as continue and reverse-continue.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/gdb_target_internal.h"
#include "replayer/pass_digest.h"

/*
 * "Who wrote this value?": the nearest access of one kind to [addr,
 * addr+len) before (or after) the current time, found with a temporary
 * watchpoint; the current time is left as it was. Returns 1 and the
 * accessing instruction's time, address and thread, 0 if there is none,
 * -1 on error.
 */
static int find_access(struct gdb_target *t, enum gdbstub_break_kind kind, uint64_t addr,
		       uint64_t len, enum gdbstub_direction dir, uint64_t *icount, uint64_t *rip,
		       int64_t *tid)
{
	struct replay_session *s = t->s;
	struct point saved[MAX_POINTS];
	size_t n_saved = t->n_points;
	memcpy(saved, t->points, sizeof(saved));
	t->points[0] = (struct point){ kind, addr, len, 1 };
	t->n_points = 1;
	uint64_t start = replay_session_now(s);
	struct gdbstub_stop stop;
	int r;
	if (dir == GDBSTUB_BACKWARD) {
		r = target_backward(t, start, true, false, &stop);
	} else {
		/* A forward run stops at received signals and caught syscalls
		 * as a continue does; the search goes on past them, as the
		 * backward one does not count them. */
		bool catching = t->catching;
		t->catching = false;
		uint64_t signal_stops = 0;
		do
			r = target_forward(t, UINT64_MAX, NULL, NULL, &stop);
		while (r == 0 && stop.reason == GDBSTUB_STOP_SIGNAL &&
		       signal_stops++ <= s->summary.signals);
		t->catching = catching;
	}
	int found = r == 0 && stop.reason == GDBSTUB_STOP_WATCHPOINT;
	if (found) {
		/* Forward runs stop just after the access; backward searches
		 * stand at it (before a syscall whose kernel writes it was,
		 * where going to its time would land after them). */
		uint64_t at = replay_session_now(s) - (dir == GDBSTUB_FORWARD);
		if (dir == GDBSTUB_FORWARD && replay_session_goto(s, at) != 0)
			r = -1;
		*icount = at;
		*rip = emu_regs(s->sim.cpu)->rip;
		*tid = target_current_tid(t);
	}
	memcpy(t->points, saved, sizeof(saved));
	t->n_points = n_saved;
	if (replay_session_goto(s, start) != 0)
		r = -1;
	return r < 0 ? -1 : found;
}

/* monitor last-write|next-write|last-read|next-read ADDR [LEN] */
static int monitor_access(struct gdb_target *t, const char *command, gdbstub_print_fn print,
			  void *print_ctx)
{
	static const struct {
		const char *name;
		enum gdbstub_break_kind kind;
		enum gdbstub_direction dir;
	} queries[] = {
		{ "last-write", GDBSTUB_WATCH_WRITE, GDBSTUB_BACKWARD },
		{ "next-write", GDBSTUB_WATCH_WRITE, GDBSTUB_FORWARD },
		{ "last-read", GDBSTUB_WATCH_READ, GDBSTUB_BACKWARD },
		{ "next-read", GDBSTUB_WATCH_READ, GDBSTUB_FORWARD },
	};
	char line[256];
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		size_t n = strlen(queries[i].name);
		if (strncmp(command, queries[i].name, n) != 0 || (command[n] != ' ' && command[n]))
			continue;
		char *end;
		uint64_t addr = strtoull(command + n, &end, 0);
		uint64_t len = 1;
		if (end == command + n) {
			snprintf(line, sizeof(line), "usage: monitor %s ADDR [LEN]\n", queries[i].name);
			print(print_ctx, line);
			return 0;
		}
		if (*end) {
			char *end2;
			len = strtoull(end, &end2, 0);
			if (end2 == end || *end2 || len == 0 || len > (1u << 20)) {
				print(print_ctx, "LEN must be a number of bytes between 1 and 1048576\n");
				return 0;
			}
		}
		uint64_t at = 0, rip = 0;
		int64_t tid = 0;
		if (target_whole_history(t) != 0)
			return -1;
		int r = find_access(t, queries[i].kind, addr, len, queries[i].dir, &at, &rip, &tid);
		if (r < 0)
			return -1;
		if (r == 0)
			snprintf(line, sizeof(line), "no %s of [%#llx, +%llu) %s this time\n",
				 queries[i].kind == GDBSTUB_WATCH_WRITE ? "write" : "read",
				 (unsigned long long)addr, (unsigned long long)len,
				 queries[i].dir == GDBSTUB_BACKWARD ? "before" : "after");
		else
			snprintf(line, sizeof(line),
				 "%s of [%#llx, +%llu): time %llu, by the instruction at %#llx of thread %lld"
				 " (monitor goto %llu goes there)\n",
				 queries[i].name, (unsigned long long)addr, (unsigned long long)len,
				 (unsigned long long)at, (unsigned long long)rip, (long long)tid,
				 (unsigned long long)at);
		print(print_ctx, line);
		return 0;
	}
	return 1;
}

/* monitor checkpoint | checkpoints | restart N | delete-checkpoint N.
 * GDB cannot be told that the state changed outside a stop: the gdb
 * commands of ttreplay's command file (ttreplay --gdb-commands) flush
 * its caches after a restart. */
static int monitor_checkpoints(struct gdb_target *t, const char *command, gdbstub_print_fn print,
			       void *print_ctx)
{
	char line[160];
	if (strcmp(command, "checkpoint") == 0) {
		for (size_t i = 0; i < MAX_MARKS; i++)
			if (!t->mark_used[i]) {
				t->mark_used[i] = true;
				t->marks[i] = replay_session_now(t->s);
				snprintf(line, sizeof(line), "checkpoint %zu at time %llu\n", i + 1,
					 (unsigned long long)t->marks[i]);
				print(print_ctx, line);
				return 0;
			}
		print(print_ctx, "all 64 checkpoints are in use: delete-checkpoint one first\n");
		return 0;
	}
	if (strcmp(command, "checkpoints") == 0) {
		bool any = false;
		for (size_t i = 0; i < MAX_MARKS; i++)
			if (t->mark_used[i]) {
				snprintf(line, sizeof(line), "checkpoint %zu at time %llu\n", i + 1,
					 (unsigned long long)t->marks[i]);
				print(print_ctx, line);
				any = true;
			}
		if (!any)
			print(print_ctx, "no checkpoints\n");
		return 0;
	}
	bool restart = strncmp(command, "restart", 7) == 0 && (command[7] == ' ' || !command[7]);
	bool delete = strncmp(command, "delete-checkpoint", 17) == 0 &&
		      (command[17] == ' ' || !command[17]);
	if (!restart && !delete)
		return 1;
	const char *arg = command + (restart ? 7 : 17);
	char *end;
	unsigned long n = strtoul(arg, &end, 10);
	while (*end == ' ')
		end++;
	if (end == arg || *end || n == 0 || n > MAX_MARKS || !t->mark_used[n - 1]) {
		snprintf(line, sizeof(line), "usage: monitor %s N, N a checkpoint's number "
			 "(monitor checkpoints lists them)\n", restart ? "restart" : "delete-checkpoint");
		print(print_ctx, line);
		return 0;
	}
	if (delete) {
		t->mark_used[n - 1] = false;
		return 0;
	}
	if (replay_session_goto(t->s, t->marks[n - 1]) != 0)
		return -1;
	snprintf(line, sizeof(line), "now at checkpoint %lu, time %llu\n", n,
		 (unsigned long long)replay_session_now(t->s));
	print(print_ctx, line);
	return 0;
}

int gdb_target_monitor(void *ctx, const char *command, gdbstub_print_fn print, void *print_ctx)
{
	struct gdb_target *t = ctx;
	const struct replay_summary *m = &t->s->summary;
	char line[256];
	target_end_diversion(t, "a monitor command");
	if (strcmp(command, "info") == 0 && !t->s->pass_done) {
		/* Forward moves have run the first pass only as far as they
		 * went: the figures wait for the rest (which any backward move
		 * or the end of history runs). */
		snprintf(line, sizeof(line),
			 "first pass: read to time %llu of the history, not finished (the figures"
			 " come when it is)\n",
			 (unsigned long long)t->s->pass_reach);
		print(print_ctx, line);
		return 0;
	}
	if ((strcmp(command, "info") == 0 || strcmp(command, "snapshots") == 0 ||
	     strcmp(command, "snapshot-digests") == 0) &&
	    target_whole_history(t) != 0)
		return -1;
	if (strcmp(command, "info") == 0) {
		print(print_ctx, "first pass: finished\n");
		snprintf(line, sizeof(line),
			 "instructions: %llu\nsyscalls: %llu\nsignals: %llu\nsnapshots: %zu\n"
			 "moves started from a kept nearby state: %llu of %llu\n"
			 "segments forward continues skipped: %llu\n"
			 "segments backward searches skipped: %llu\n",
			 (unsigned long long)m->instructions, (unsigned long long)m->syscalls,
			 (unsigned long long)m->signals, t->s->n_snapshots,
			 (unsigned long long)t->near.moves_from_kept, (unsigned long long)t->near.moves,
			 (unsigned long long)t->segments_skipped,
			 (unsigned long long)t->segments_skipped_back);
		print(print_ctx, line);
		snprintf(line, sizeof(line), "moves undone from the log of the last steps replayed: %llu\n",
			 (unsigned long long)t->near.moves_undone);
		print(print_ctx, line);
		snprintf(line, sizeof(line), "moves of those that were backward continues: %llu\n",
			 (unsigned long long)t->near.continues_undone);
		print(print_ctx, line);
		snprintf(line, sizeof(line), "snapshots in the spill file: %zu (%llu MiB)\n",
			 replay_session_spilled_count(t->s),
			 (unsigned long long)(snapshot_spill_bytes(t->s->spill) >> 20));
		print(print_ctx, line);
		print(print_ctx, t->s->index_state == REPLAY_INDEX_READ ? "first pass: read from "
									  : "first pass: made in this session\n");
		if (t->s->index_state == REPLAY_INDEX_READ) {
			print(print_ctx, t->s->index_path);
			print(print_ctx, "\n");
		}
		return 0;
	}
	if (strcmp(command, "snapshot-digests") == 0) {
		for (size_t i = 0; i < t->s->n_snapshots; i++) {
			uint64_t h;
			if (!pass_digest_snapshot(t->s, i, &h))
				return -1;
			snprintf(line, sizeof(line), "%llu %016llx\n",
				 (unsigned long long)t->s->snapshots[i].icount, (unsigned long long)h);
			print(print_ctx, line);
		}
		snprintf(line, sizeof(line), "future %016llx\n",
			 (unsigned long long)pass_digest_image(t->s->future));
		print(print_ctx, line);
		return 0;
	}
	if (strcmp(command, "snapshots") == 0) {
		for (size_t i = 0; i < t->s->n_snapshots; i++) {
			snprintf(line, sizeof(line), "%llu\n", (unsigned long long)t->s->snapshots[i].icount);
			print(print_ctx, line);
		}
		return 0;
	}
	if (strcmp(command, "undo-log on") == 0 || strcmp(command, "undo-log off") == 0) {
		t->undo_off = command[10] == 'f';
		return 0;
	}
	int r = monitor_checkpoints(t, command, print, print_ctx);
	return r == 1 ? monitor_access(t, command, print, print_ctx) : r;
}

const char *gdb_target_monitor_help(void *ctx)
{
	(void)ctx;
	return "info -- instructions, syscalls, signals and snapshots of the trace;\n"
	       "  backward moves that started from a state kept near recent positions,\n"
	       "  and those undone from the log of the last steps replayed;\n"
	       "  segments forward continues and backward searches skipped by their\n"
	       "  summaries;\n"
	       "  whether the first pass was read from the replay index (until the\n"
	       "  first pass is finished: how far it has read)\n"
	       "undo-log on|off -- backward steps and continues near the last step replayed\n"
	       "  shown from a log of its last instructions (on, the default) or replayed\n"
	       "snapshots -- the times the replay keeps a snapshot of (going back starts there)\n"
	       "snapshot-digests -- a checksum of each snapshot's state and of the first\n"
	       "  reads' image: first passes that made the same print the same\n"
	       "checkpoint -- remember the current time as a numbered checkpoint\n"
	       "checkpoints -- list the checkpoints\n"
	       "restart N -- go back (or forward) to checkpoint N\n"
	       "delete-checkpoint N -- forget checkpoint N\n"
	       "last-write ADDR [LEN] -- the last write to these bytes before now (who wrote this?)\n"
	       "next-write ADDR [LEN] -- the next write to them after now\n"
	       "last-read ADDR [LEN] -- the last read of them before now\n"
	       "next-read ADDR [LEN] -- the next read of them after now\n";
}
