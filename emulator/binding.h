/*
 * binding.h — how instruction families attach handlers to mnemonics.
 *
 * Each family file (ops_*.c) exports one `struct emu_family` listing the
 * mnemonics it implements. The decoder looks the mnemonic up, stores the
 * entry's `op` in insn->op, and asks the entry for a handler: either the
 * fixed `handler`, or `bind`, which inspects the decoded operands and may
 * refuse a form it does not implement (returning NULL makes the
 * instruction "unimplemented", never wrongly executed). A binder that
 * refuses must leave insn unchanged: the next family binding the same
 * mnemonic (movsd, cmpsd are both string and SSE instructions) gets it.
 */
#ifndef TTREC_EMU_BINDING_H
#define TTREC_EMU_BINDING_H

#include <Zydis/Mnemonic.h>

#include "internal.h"

typedef emu_handler *emu_binder(struct emu_insn *insn);

struct emu_binding {
	uint16_t mnemonic; /* ZydisMnemonic */
	uint8_t op;        /* copied into insn->op */
	emu_handler *handler;
	emu_binder *bind;
};

struct emu_family {
	const char *name;
	const struct emu_binding *bindings;
	size_t count;
};

#define EMU_FAMILY(ident, table) \
	const struct emu_family ident = { #ident, table, sizeof(table) / sizeof(table[0]) }

/* A family with nothing implemented yet. */
#define EMU_FAMILY_EMPTY(ident) const struct emu_family ident = { #ident, NULL, 0 }

/* The sixteen condition-code forms of a mnemonic family (jcc, setcc,
 * cmovcc): op is the condition number that emu_condition() takes. */
#define EMU_CONDITION_BINDINGS(PFX, handler, bind) \
	{ ZYDIS_MNEMONIC_##PFX##O, 0, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##NO, 1, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##B, 2, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##NB, 3, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##Z, 4, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##NZ, 5, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##BE, 6, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##NBE, 7, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##S, 8, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##NS, 9, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##P, 10, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##NP, 11, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##L, 12, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##NL, 13, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##LE, 14, handler, bind }, \
	{ ZYDIS_MNEMONIC_##PFX##NLE, 15, handler, bind }

/* The families, one per ops_*.c file (families.def lists them). */
#define EMU_FAMILY_ENTRY(name) extern const struct emu_family emu_family_##name;
#include "families.def"
#undef EMU_FAMILY_ENTRY

#endif
