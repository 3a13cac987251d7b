/*
 * segment_summary.c — see segment_summary.h. Every operation walks the
 * list summary_sets gives: a new kind of summary is one line there (and
 * its noting, and its two lines in the index).
 */
#include <stddef.h>

#include "replayer/replay_memory.h"
#include "replayer/replay_session.h"
#include "replayer/segment_summary.h"

#define MAX_SUMMARY_SETS 4

static size_t summary_sets(struct replay_snapshot *snap, struct code_page_set ***out)
{
	size_t n = 0;
	out[n++] = &snap->written_pages;
	out[n++] = &snap->code_pages;
	out[n++] = &snap->read_pages;
	return n;
}

bool segment_summary_make(struct replay_snapshot *snap)
{
	struct code_page_set **sets[MAX_SUMMARY_SETS];
	size_t n = summary_sets(snap, sets);
	for (size_t i = 0; i < n; i++)
		if (!(*sets[i] = code_page_set_new())) {
			segment_summary_free(snap);
			return false;
		}
	return true;
}

void segment_summary_free(struct replay_snapshot *snap)
{
	struct code_page_set **sets[MAX_SUMMARY_SETS];
	size_t n = summary_sets(snap, sets);
	for (size_t i = 0; i < n; i++) {
		code_page_set_free(*sets[i]);
		*sets[i] = NULL;
	}
}

bool segment_summary_join(struct replay_snapshot *into, const struct replay_snapshot *from)
{
	struct code_page_set **a[MAX_SUMMARY_SETS], **b[MAX_SUMMARY_SETS];
	size_t n = summary_sets(into, a);
	summary_sets((struct replay_snapshot *)from, b);
	bool whole = true;
	for (size_t i = 0; i < n; i++) {
		if (*a[i] && *b[i] && code_page_set_add_all(*a[i], *b[i]))
			continue;
		code_page_set_free(*a[i]);
		*a[i] = NULL;
		whole = false;
	}
	return whole;
}

bool segment_summary_clone(struct replay_snapshot *to, const struct replay_snapshot *from)
{
	struct code_page_set **a[MAX_SUMMARY_SETS], **b[MAX_SUMMARY_SETS];
	size_t n = summary_sets(to, a);
	summary_sets((struct replay_snapshot *)from, b);
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		*a[i] = *b[i] ? code_page_set_clone(*b[i]) : NULL;
		if (*b[i] && !*a[i])
			ok = false;
	}
	return ok;
}

void segment_summary_note_access(struct process_memory *p, struct replay_snapshot *snap)
{
	process_memory_note_writes(p, snap ? snap->written_pages : NULL);
	process_memory_note_reads(p, snap ? snap->read_pages : NULL);
}
