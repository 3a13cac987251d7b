/*
 * write_overlay.c — held writes by page: each page keeps the bytes written
 * and a bitmap of which bytes are held, found through a small open-addressed
 * table (an instruction touches a page or two, a rep string many).
 */
#include <stdlib.h>
#include <string.h>

#include "recorder/write_overlay.h"

#define PAGE 4096u

struct overlay_page {
	uint64_t base;
	uint64_t held[PAGE / 64];
	uint8_t data[PAGE];
};

void write_overlay_init(struct write_overlay *o, struct remote_memory *rm)
{
	memset(o, 0, sizeof(*o));
	o->rm = rm;
}

void write_overlay_clear(struct write_overlay *o)
{
	for (size_t i = 0; i < o->n_slots; i++) {
		free(o->slots[i]);
		o->slots[i] = NULL;
	}
	o->n_pages = 0;
}

void write_overlay_free(struct write_overlay *o)
{
	write_overlay_clear(o);
	free(o->slots);
	o->slots = NULL;
	o->n_slots = 0;
}

static size_t slot_of(const struct write_overlay *o, uint64_t base)
{
	size_t i = (size_t)((base / PAGE) * 0x9e3779b97f4a7c15ull) & (o->n_slots - 1);
	while (o->slots[i] && o->slots[i]->base != base)
		i = (i + 1) & (o->n_slots - 1);
	return i;
}

static struct overlay_page *find_page(const struct write_overlay *o, uint64_t base)
{
	return o->n_slots ? o->slots[slot_of(o, base)] : NULL;
}

static bool grow(struct write_overlay *o)
{
	size_t n = o->n_slots ? o->n_slots * 2 : 16;
	struct overlay_page **old = o->slots;
	size_t old_n = o->n_slots;
	o->slots = calloc(n, sizeof(*o->slots));
	if (!o->slots) {
		o->slots = old;
		return false;
	}
	o->n_slots = n;
	for (size_t i = 0; i < old_n; i++)
		if (old[i])
			o->slots[slot_of(o, old[i]->base)] = old[i];
	free(old);
	return true;
}

static struct overlay_page *add_page(struct write_overlay *o, uint64_t base)
{
	if ((o->n_pages + 1) * 2 > o->n_slots && !grow(o))
		return NULL;
	struct overlay_page *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->base = base;
	o->slots[slot_of(o, base)] = p;
	o->n_pages++;
	return p;
}

static bool is_held(const struct overlay_page *p, unsigned off)
{
	return (p->held[off / 64] >> (off % 64)) & 1;
}

bool write_overlay_held(const struct write_overlay *o, uint64_t addr, void *buf, size_t size)
{
	uint8_t *out = buf;
	for (size_t i = 0; i < size; i++) {
		uint64_t a = addr + i;
		uint64_t base = a & ~(uint64_t)(PAGE - 1);
		const struct overlay_page *p = find_page(o, base);
		if (!p || !is_held(p, (unsigned)(a - base)))
			return false;
		out[i] = p->data[a - base];
	}
	return true;
}

/* Replaces bytes of buf (process memory at addr) with held ones. */
static void patch(const struct write_overlay *o, uint64_t addr, uint8_t *buf, size_t size)
{
	if (!o->n_pages)
		return;
	size_t done = 0;
	while (done < size) {
		uint64_t a = addr + done;
		uint64_t base = a & ~(uint64_t)(PAGE - 1);
		size_t n = PAGE - (a - base);
		if (n > size - done)
			n = size - done;
		const struct overlay_page *p = find_page(o, base);
		if (p)
			for (size_t i = 0; i < n; i++)
				if (is_held(p, (unsigned)(a - base + i)))
					buf[done + i] = p->data[a - base + i];
		done += n;
	}
}

static int overlay_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct write_overlay *o = ctx;
	int r = remote_memory_read(o->rm, addr, buf, size);
	if (r == EMU_MEM_OK)
		patch(o, addr, buf, size);
	return r;
}

static size_t overlay_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct write_overlay *o = ctx;
	size_t n = remote_memory_fetch(o->rm, addr, buf, size);
	patch(o, addr, buf, n);
	return n;
}

static int overlay_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	struct write_overlay *o = ctx;
	if (addr + size < addr)
		return EMU_MEM_FAULT;
	/* A store that faults on any page writes none of it: check them all
	 * first. Pages already held were checked by an earlier write. */
	for (uint64_t a = addr; a < addr + size;) {
		uint64_t base = a & ~(uint64_t)(PAGE - 1);
		uint64_t end = base + PAGE < addr + size ? base + PAGE : addr + size;
		if (!find_page(o, base) && !remote_memory_writable(o->rm, a, end - a))
			return EMU_MEM_FAULT;
		a = end;
	}
	const uint8_t *src = buf;
	for (size_t i = 0; i < size; i++) {
		uint64_t a = addr + i;
		uint64_t base = a & ~(uint64_t)(PAGE - 1);
		struct overlay_page *p = find_page(o, base);
		if (!p && !(p = add_page(o, base)))
			return EMU_MEM_FAULT; /* out of memory: fails loudly as a divergence */
		unsigned off = (unsigned)(a - base);
		p->data[off] = src[i];
		p->held[off / 64] |= 1ull << (off % 64);
	}
	return EMU_MEM_OK;
}

const struct emu_memory_ops write_overlay_ops = {
	.read = overlay_read,
	.write = overlay_write,
	.fetch = overlay_fetch,
};

static bool page_matches(struct write_overlay *o, const struct overlay_page *p,
			 struct overlay_mismatch *m)
{
	uint8_t actual[PAGE];
	unsigned lo = PAGE, hi = 0;
	for (unsigned i = 0; i < PAGE; i++)
		if (is_held(p, i)) {
			if (lo == PAGE)
				lo = i;
			hi = i + 1;
		}
	if (lo == PAGE)
		return true;
	memset(m, 0, sizeof(*m));
	if (remote_memory_read(o->rm, p->base + lo, actual + lo, hi - lo) != EMU_MEM_OK) {
		m->addr = p->base + lo;
		m->unreadable = true;
		return false;
	}
	for (unsigned i = lo; i < hi; i++) {
		if (!is_held(p, i) || p->data[i] == actual[i])
			continue;
		m->addr = p->base + i;
		for (unsigned j = i; j < hi && m->len < sizeof(m->held); j++, m->len++) {
			m->held[m->len] = is_held(p, j) ? p->data[j] : actual[j];
			m->actual[m->len] = actual[j];
		}
		return false;
	}
	return true;
}

bool write_overlay_matches(struct write_overlay *o, struct overlay_mismatch *m)
{
	for (size_t i = 0; i < o->n_slots; i++)
		if (o->slots[i] && !page_matches(o, o->slots[i], m))
			return false;
	return true;
}
