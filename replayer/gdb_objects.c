/*
 * gdb_objects.c — objects gdb reads that the trace holds only indirectly:
 * the program's path (the last execve of the global stream) and the
 * auxiliary vector (from the initial stack as the replay knows it at the
 * start of history).
 */
#include <stdio.h>
#include <string.h>

#include "replayer/gdb_target_internal.h"

/* The program's path: the last execve of the global stream. */
void gdb_target_find_exec_file(struct gdb_target *t)
{
	char err[256];
	struct idna_iter *it = idna_iter_open(t->s->reader, 0, NULL, err, sizeof(err));
	if (!it)
		return;
	struct idna_record r;
	while (idna_iter_next(it, &r) == 1)
		if (r.type == IDNA_REC_EXECVE && r.u.execve.path)
			snprintf(t->exec_file, sizeof(t->exec_file), "%s", r.u.execve.path);
	idna_iter_close(it);
}

/* Reads 8 bytes at the start of history: what the replay knows of them
 * there, from reads made later (see replay_session_read_memory). */
static bool load_word(struct replay_session *s, uint64_t addr, uint64_t *word)
{
	return replay_session_read_memory(s, addr, word, 8) == 8;
}

/* The auxiliary vector, from the initial stack as the replay knows it at
 * the start of history (the current time): the dynamic loader reads all
 * of it at start-up, within the first pass's opening part. */
void gdb_target_find_auxv(struct gdb_target *t)
{
	struct replay_session *s = t->s;
	uint64_t rsp = emu_regs(s->sim.cpu)->gpr[EMU_RSP];
	uint64_t argc, word, addr = rsp;
	if (!load_word(s, addr, &argc) || argc > 4096)
		return;
	addr += 8 * (argc + 2); /* argc, argv[], NULL (never read: not known) */
	for (unsigned i = 0; i < 65536; i++, addr += 8) {
		if (!load_word(s, addr, &word))
			return;
		if (word == 0)
			break;
	}
	addr += 8;
	size_t n = 0;
	while (n + 16 <= sizeof(t->auxv)) {
		/* The loader reads every type but only the values it uses:
		 * an unknown value is given as 0. */
		uint64_t pair[2] = { 0, 0 };
		if (!load_word(s, addr + n, &pair[0]))
			return;
		load_word(s, addr + n + 8, &pair[1]);
		memcpy(t->auxv + n, pair, 16);
		n += 16;
		if (pair[0] == 0) {
			t->auxv_len = n;
			return;
		}
	}
}
