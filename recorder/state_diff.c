/*
 * state_diff.c — field-by-field comparison of struct emu_regs, described
 * once as a table so that equality and printing cannot drift apart.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/regs_convert.h"
#include "recorder/state_diff.h"

enum field_kind { FIELD_INT, FIELD_TAGS, FIELD_X87, FIELD_VEC };

struct field {
	char name[8];
	size_t offset, size;
	enum field_kind kind;
	bool always_shown; /* printed even when equal */
};

/* GPRs, 17 other scalars, k0-7, the x87 registers, zmm0-31. */
#define NFIELDS (EMU_GPR_COUNT + 17 + 8 + 8 + 32)
static struct field fields[NFIELDS];
static size_t n_fields;

static void add(const char *name, size_t offset, size_t size, enum field_kind kind, bool shown)
{
	if (n_fields == NFIELDS)
		abort(); /* the table is sized above: a field was added */
	struct field *f = &fields[n_fields++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->offset = offset;
	f->size = size;
	f->kind = kind;
	f->always_shown = shown;
}

#define FIELD(m) offsetof(struct emu_regs, m), sizeof(((struct emu_regs *)0)->m)

static void build_table(void)
{
	static const char *const gpr_names[EMU_GPR_COUNT] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	char name[8];
	if (n_fields)
		return;
	for (unsigned i = 0; i < EMU_GPR_COUNT; i++)
		add(gpr_names[i], offsetof(struct emu_regs, gpr) + 8 * i, 8, FIELD_INT, true);
	add("rip", FIELD(rip), FIELD_INT, true);
	add("rflags", FIELD(rflags), FIELD_INT, true);
	add("fs_base", FIELD(fs_base), FIELD_INT, true);
	add("gs_base", FIELD(gs_base), FIELD_INT, true);
	add("cs", FIELD(seg_cs), FIELD_INT, false);
	add("ss", FIELD(seg_ss), FIELD_INT, false);
	add("ds", FIELD(seg_ds), FIELD_INT, false);
	add("es", FIELD(seg_es), FIELD_INT, false);
	add("fs", FIELD(seg_fs), FIELD_INT, false);
	add("gs", FIELD(seg_gs), FIELD_INT, false);
	add("fcw", FIELD(fcw), FIELD_INT, false);
	add("fsw", FIELD(fsw), FIELD_INT, false);
	add("ftw", FIELD(ftw), FIELD_TAGS, false);
	add("fop", FIELD(fop), FIELD_INT, false);
	add("fip", FIELD(fip), FIELD_INT, false);
	add("fdp", FIELD(fdp), FIELD_INT, false);
	add("mxcsr", FIELD(mxcsr), FIELD_INT, false);
	for (unsigned i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "k%u", i);
		add(name, offsetof(struct emu_regs, k) + 8 * i, 8, FIELD_INT, false);
	}
	for (unsigned i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "r%u", i); /* x87 physical register */
		add(name, offsetof(struct emu_regs, st) + sizeof(emu_x87_reg) * i, 10,
		    FIELD_X87, false);
	}
	for (unsigned i = 0; i < 32; i++) {
		snprintf(name, sizeof(name), "zmm%u", i);
		add(name, offsetof(struct emu_regs, zmm) + sizeof(emu_vec) * i,
		    sizeof(emu_vec), FIELD_VEC, false);
	}
}

static uint64_t int_value(const struct emu_regs *r, const struct field *f)
{
	uint64_t v = 0;
	memcpy(&v, (const uint8_t *)r + f->offset, f->size);
	if (f->kind == FIELD_TAGS)
		v = regs_abridged_tag((uint16_t)v);
	return v;
}

static bool field_equal(const struct emu_regs *a, const struct emu_regs *b,
			const struct field *f)
{
	if (f->kind == FIELD_INT || f->kind == FIELD_TAGS)
		return int_value(a, f) == int_value(b, f);
	return memcmp((const uint8_t *)a + f->offset, (const uint8_t *)b + f->offset,
		      f->size) == 0;
}

bool state_equal(const struct emu_regs *a, const struct emu_regs *b)
{
	build_table();
	for (size_t i = 0; i < n_fields; i++)
		if (!field_equal(a, b, &fields[i]))
			return false;
	return true;
}

/* Bytes shown most significant first, as numbers are written. */
static void print_bytes(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		fprintf(f, "%02x", p[i]);
		if (i && i % 8 == 0)
			fputc('_', f);
	}
}

void state_print_diff(FILE *f, const struct emu_regs *before,
		      const struct emu_regs *emu, const struct emu_regs *cpu)
{
	build_table();
	fprintf(f, "  %-8s %-18s %-18s %-18s\n", "register", "before", "emulator", "cpu");
	for (size_t i = 0; i < n_fields; i++) {
		const struct field *fd = &fields[i];
		bool same = field_equal(emu, cpu, fd);
		if (same && !fd->always_shown)
			continue;
		const char *mark = same ? "" : "   <-- differs";
		if (fd->kind == FIELD_INT || fd->kind == FIELD_TAGS) {
			fprintf(f, "  %-8s %#-18llx %#-18llx %#-18llx%s\n", fd->name,
				(unsigned long long)int_value(before, fd),
				(unsigned long long)int_value(emu, fd),
				(unsigned long long)int_value(cpu, fd), mark);
			continue;
		}
		/* Wide registers: one line per state. */
		const struct emu_regs *states[3] = { before, emu, cpu };
		const char *labels[3] = { "before", "emulator", "cpu" };
		for (unsigned s = 0; s < 3; s++) {
			fprintf(f, "  %-8s %-9s ", s == 0 ? fd->name : "", labels[s]);
			print_bytes(f, (const uint8_t *)states[s] + fd->offset, fd->size);
			fprintf(f, "%s\n", s == 2 ? mark : "");
		}
	}
}
