/*
 * gdb_images.c — which program image of the process a gdb session shows.
 *
 * A process that execs runs several programs in one trace (a wrapper
 * script, a version manager's shim, `sh -c './a; exec ./b'`). Each image
 * needs its own exec-file, auxiliary vector and library list, and gdb has
 * no event that goes backward through an exec; so, as rr does, a session
 * debugs one image: its history is [the exec that started it, the exec
 * that ends it), or up to the end of the trace for the last one (the
 * default, which ttreplay --exec N and -p COMMAND change). The image's
 * first instruction is the start of history (reverse execution stops
 * there); the state just before the next exec (the execve system call
 * about to run, in the image's own code) is the end of history, and a
 * forward move that gets there says on gdb's console how to debug the
 * next image.
 */
#include <stdio.h>
#include <string.h>

#include "replayer/gdb_target_internal.h"

void gdb_target_find_exec_file(struct gdb_target *t)
{
	char err[256];
	if (idna_images_read(t->s->reader, &t->exec_images, err, sizeof(err)) != 0)
		return;
	t->images = (unsigned)t->exec_images.n;
	if (t->image == 0 || t->image > t->images)
		t->image = t->images;
	if (t->image)
		snprintf(t->exec_file, sizeof(t->exec_file), "%s", t->exec_images.v[t->image - 1].path);
}

/* Runs forward until the replay has passed `execs` successful execs (each
 * syscall stops the run, so that it stops at that one); its time in *at.
 * 1 when the trace ended first, -1 on an error. */
static int run_to_exec(struct replay_session *s, uint64_t execs, uint64_t *at)
{
	int r = 0;
	s->sim.stop_at_syscalls = true;
	while (s->sim.counts.execs < execs) {
		enum resim_status st = replay_session_run(s, replay_session_now(s) + (1u << 22));
		if (st == RESIM_ERROR || (st == RESIM_END && s->sim.counts.execs < execs)) {
			r = st == RESIM_ERROR ? -1 : 1;
			break;
		}
	}
	s->sim.stop_at_syscalls = false;
	*at = s->sim.counts.last_exec_time;
	return r;
}

/* Image k (1-based) begins after the process's (k-1)th exec and ends at
 * its kth. The replay runs there twice (to find the times, then to stand
 * at the beginning), without the first pass: wrappers exec early. */
int target_start_at_image(struct gdb_target *t)
{
	struct replay_session *s = t->s;
	t->end = UINT64_MAX;
	if (t->images < 2 || s->sim.ring_start)
		return 0;
	uint64_t begin = target_history_begin(t), end = UINT64_MAX;
	int r = t->image > 1 ? run_to_exec(s, t->image - 1, &begin) : 0;
	if (r == 0 && t->image < t->images)
		r = run_to_exec(s, t->image, &end);
	if (r < 0)
		return -1;
	if (replay_session_goto(s, target_history_begin(t)) != 0)
		return -1;
	if (r > 0) /* an exec the trace holds did not happen in the replay */
		return 0;
	if (replay_session_run(s, begin) == RESIM_ERROR)
		return -1;
	t->begin = begin;
	t->end = end;
	return 0;
}

uint64_t target_history_last(const struct gdb_target *t)
{
	return t->end == UINT64_MAX ? UINT64_MAX : t->end - 1;
}

uint64_t target_image_bound(const struct gdb_target *t, uint64_t target)
{
	uint64_t last = target_history_last(t);
	return target < last ? target : last;
}

bool target_at_image_end(const struct gdb_target *t)
{
	return replay_session_now(t->s) >= target_history_last(t);
}

void target_say_image_end(struct gdb_target *t)
{
	if (!t->console || t->end == UINT64_MAX)
		return;
	char line[8448];
	snprintf(line, sizeof(line),
		 "ttreplay: the process execs here (time %llu): this session's history, program image"
		 " %u of %u (%s), ends; `ttreplay --exec %u %s` debugs the next one (%s)\n",
		 (unsigned long long)target_history_last(t), t->image, t->images, t->exec_file,
		 t->image + 1, t->s->path, t->exec_images.v[t->image].path);
	t->console(t->console_ctx, line);
}
