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

/*
 * Sixteen handlers NAME_cc0 .. NAME_cc15, one per condition, each calling
 * TEMPLATE(cpu, insn, cc) with cc a constant, and the table
 * NAME_by_condition[cc] of them for a binder: the condition's switch folds
 * away, and each condition is its own indirect-branch target. TEMPLATE
 * should be always_inline.
 */
#define EMU_CONDITION_HANDLER(NAME, TEMPLATE, CC) \
	static int NAME##_cc##CC(struct emu_cpu *cpu, const struct emu_insn *insn) \
	{ return TEMPLATE(cpu, insn, CC); }
#define EMU_CONDITION_HANDLERS(NAME, TEMPLATE) \
	EMU_CONDITION_HANDLER(NAME, TEMPLATE, 0) EMU_CONDITION_HANDLER(NAME, TEMPLATE, 1) \
	EMU_CONDITION_HANDLER(NAME, TEMPLATE, 2) EMU_CONDITION_HANDLER(NAME, TEMPLATE, 3) \
	EMU_CONDITION_HANDLER(NAME, TEMPLATE, 4) EMU_CONDITION_HANDLER(NAME, TEMPLATE, 5) \
	EMU_CONDITION_HANDLER(NAME, TEMPLATE, 6) EMU_CONDITION_HANDLER(NAME, TEMPLATE, 7) \
	EMU_CONDITION_HANDLER(NAME, TEMPLATE, 8) EMU_CONDITION_HANDLER(NAME, TEMPLATE, 9) \
	EMU_CONDITION_HANDLER(NAME, TEMPLATE, 10) EMU_CONDITION_HANDLER(NAME, TEMPLATE, 11) \
	EMU_CONDITION_HANDLER(NAME, TEMPLATE, 12) EMU_CONDITION_HANDLER(NAME, TEMPLATE, 13) \
	EMU_CONDITION_HANDLER(NAME, TEMPLATE, 14) EMU_CONDITION_HANDLER(NAME, TEMPLATE, 15) \
	static emu_handler *const NAME##_by_condition[16] = { \
		NAME##_cc0, NAME##_cc1, NAME##_cc2, NAME##_cc3, NAME##_cc4, NAME##_cc5, \
		NAME##_cc6, NAME##_cc7, NAME##_cc8, NAME##_cc9, NAME##_cc10, NAME##_cc11, \
		NAME##_cc12, NAME##_cc13, NAME##_cc14, NAME##_cc15 };

/* The families, one per ops_*.c file (families.def lists them). */
#define EMU_FAMILY_ENTRY(name) extern const struct emu_family emu_family_##name;
#include "families.def"
#undef EMU_FAMILY_ENTRY

#endif
