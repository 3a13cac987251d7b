/*
 * jit_chain.c — translations that jump into each other. The run loop asks
 * for a chain when it sees control go from one translated block to
 * another by a direct successor; the jump's rel32 is rewritten to enter
 * the successor's translation past its prologue, and the successor keeps
 * a list of such jumps so that it can send them home again when it stops
 * being valid. A jump is identified by its code address only: a retired
 * block's code stays in the area (unreachable) until the area is emptied,
 * and emptying it forgets every list.
 */
#include <stdlib.h>
#include <string.h>

#include "jit.h"

static void point_jump(uint8_t *site, const uint8_t *target)
{
	int32_t rel = (int32_t)(target - (site + 4));
	memcpy(site, &rel, 4);
}

static bool jump_goes_to(const uint8_t *site, const uint8_t *target)
{
	int32_t rel;
	memcpy(&rel, site, 4);
	return site + 4 + rel == target;
}

/* site's jump (unchained: to home) goes to `target` on the way into
 * `to`'s translation, and is sent home again when `to` stops being
 * valid. False when the edge could not be kept (the jump stays home). */
static bool link_via(uint8_t *site, uint8_t *home, struct emu_block *to, uint8_t *target)
{
	struct emu_jit_header *t = emu_jit_header_of(to);
	if (t->n_in == t->cap_in) {
		uint32_t cap = t->cap_in ? t->cap_in * 2 : 4;
		struct jit_edge *in = realloc(t->in, cap * sizeof(*in));
		if (!in)
			return false;
		t->in = in;
		t->cap_in = cap;
	}
	t->in[t->n_in++] = (struct jit_edge){ site, home, target };
	point_jump(site, target);
	return true;
}

/* from's jump at site into to's translation: a block's jump to itself
 * past the loads of its registers (they are still in their hosts). */
static bool link(uint8_t *site, uint8_t *home, const struct emu_block *from, struct emu_block *to)
{
	const struct emu_jit_header *t = emu_jit_header_of(to);
	return link_via(site, home, to, t->chain_entry + (from == to ? t->loop_skip : 0));
}

/* An indirect exit's successor: in the table; and the exit's prediction
 * when it has none yet (its jump unchained), the address compared
 * written before the jump goes there. */
static void chain_indirect(struct emu_jit_header *f, struct emu_block *to)
{
	struct emu_jit_header *t = emu_jit_header_of(to);
	f->targets[jit_target_slot(to->start)] = (struct jit_target){ to->start, t->chain_entry };
	if (!f->predicted_site || !jump_goes_to(f->predicted_site, f->lookup))
		return;
	memcpy(f->predicted_rip, &to->start, 8);
	link(f->predicted_site, f->lookup, NULL, to);
}

void emu_jit_chain(struct emu_block *from, unsigned slot, struct emu_block *to)
{
	struct emu_jit_header *f = emu_jit_header_of(from);
	uint8_t *site = f->site[slot];
	if (f->indirect_exit) {
		chain_indirect(f, to);
	} else if (site && jump_goes_to(site, f->home[slot])) {
		/* Pending flags kept to the end are stored on the way to a
		 * successor that may see them: both jumps are its edges. */
		if (f->flag_stub[slot] && !emu_jit_header_of(to)->overwrites_flags) {
			if (link(f->flagged_site[slot], f->home[slot], from, to))
				link_via(site, f->home[slot], to, f->flag_stub[slot]);
		} else {
			link(site, f->home[slot], from, to);
		}
	}
}

void emu_jit_unchain_edges(struct emu_jit_header *h)
{
	for (uint32_t i = 0; i < h->n_in; i++)
		if (jump_goes_to(h->in[i].site, h->in[i].to))
			point_jump(h->in[i].site, h->in[i].home);
	free(h->in);
	h->in = NULL;
	h->n_in = h->cap_in = 0;
}

void emu_jit_unchain_into(struct emu_block *b)
{
	struct emu_jit_header *h = emu_jit_header_of(b);
	struct jit_target *t = &h->targets[jit_target_slot(b->start)];
	if (t->rip == b->start && t->entry == h->chain_entry)
		*t = (struct jit_target){ 0, NULL };
	emu_jit_unchain_edges(h);
}

void emu_jit_forget(struct emu_block *b)
{
	emu_jit_unchain_into(b);
	b->jit = NULL;
}
