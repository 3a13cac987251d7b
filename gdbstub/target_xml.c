/*
 * target_xml.c — the register layout GDB and the stub agree on, and the
 * target description (target.xml) that tells GDB about it.
 *
 * One table lists every register with its feature, GDB type and place in
 * struct gdbstub_regs; the register number is its index. The g packet, the
 * p packet and the XML are all generated from it, so they cannot disagree.
 * Numbering follows GDB's amd64 GNU/Linux layout (orig_rax 57, fs_base 58,
 * gs_base 59), with the AVX upper halves after it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gdbstub/internal.h"

enum feature { CORE, SSE, LINUX, SEGMENTS, AVX, FEATURE_COUNT };

static const char *const feature_names[FEATURE_COUNT] = {
	[CORE] = "org.gnu.gdb.i386.core",
	[SSE] = "org.gnu.gdb.i386.sse",
	[LINUX] = "org.gnu.gdb.i386.linux",
	[SEGMENTS] = "org.gnu.gdb.i386.segments",
	[AVX] = "org.gnu.gdb.i386.avx",
};

struct reg_entry {
	struct gdbstub_reg_desc desc;
	enum feature feature;
	const char *type;
	const char *group; /* NULL: GDB's default for the type */
};

#define R(field) offsetof(struct gdbstub_regs, field)
#define GPR(name, i, type) { { name, 64, R(gpr) + 8 * (i) }, CORE, type, NULL }
#define SEG(name) { { #name, 32, R(name) }, CORE, "int32", NULL }
#define ST(i) { { "st" #i, 80, R(st) + 10 * (i) }, CORE, "i387_ext", NULL }
#define FPCTL(name) { { #name, 32, R(name) }, CORE, "int", "float" }
#define XMM(i) { { "xmm" #i, 128, R(xmm) + 16 * (i) }, SSE, "vec128", NULL }
#define YMMH(i) { { "ymm" #i "h", 128, R(ymm_hi) + 16 * (i) }, AVX, "uint128", NULL }

static const struct reg_entry registers[] = {
	GPR("rax", 0, "int64"), GPR("rbx", 1, "int64"), GPR("rcx", 2, "int64"),
	GPR("rdx", 3, "int64"), GPR("rsi", 4, "int64"), GPR("rdi", 5, "int64"),
	GPR("rbp", 6, "data_ptr"), GPR("rsp", 7, "data_ptr"),
	GPR("r8", 8, "int64"), GPR("r9", 9, "int64"), GPR("r10", 10, "int64"),
	GPR("r11", 11, "int64"), GPR("r12", 12, "int64"), GPR("r13", 13, "int64"),
	GPR("r14", 14, "int64"), GPR("r15", 15, "int64"),
	{ { "rip", 64, R(rip) }, CORE, "code_ptr", NULL },
	{ { "eflags", 32, R(eflags) }, CORE, "i386_eflags", NULL },
	SEG(cs), SEG(ss), SEG(ds), SEG(es), SEG(fs), SEG(gs),
	ST(0), ST(1), ST(2), ST(3), ST(4), ST(5), ST(6), ST(7),
	FPCTL(fctrl), FPCTL(fstat), FPCTL(ftag), FPCTL(fiseg),
	FPCTL(fioff), FPCTL(foseg), FPCTL(fooff), FPCTL(fop),
	XMM(0), XMM(1), XMM(2), XMM(3), XMM(4), XMM(5), XMM(6), XMM(7),
	XMM(8), XMM(9), XMM(10), XMM(11), XMM(12), XMM(13), XMM(14), XMM(15),
	{ { "mxcsr", 32, R(mxcsr) }, SSE, "i386_mxcsr", "vector" },
	{ { "orig_rax", 64, R(orig_rax) }, LINUX, "int", "system" },
	{ { "fs_base", 64, R(fs_base) }, SEGMENTS, "int", NULL },
	{ { "gs_base", 64, R(gs_base) }, SEGMENTS, "int", NULL },
	YMMH(0), YMMH(1), YMMH(2), YMMH(3), YMMH(4), YMMH(5), YMMH(6), YMMH(7),
	YMMH(8), YMMH(9), YMMH(10), YMMH(11), YMMH(12), YMMH(13), YMMH(14), YMMH(15),
};

#define REG_COUNT (sizeof(registers) / sizeof(registers[0]))

size_t gdbstub_reg_count(void)
{
	return REG_COUNT;
}

const struct gdbstub_reg_desc *gdbstub_reg(size_t regnum)
{
	return regnum < REG_COUNT ? &registers[regnum].desc : NULL;
}

/* Named bits of the flag registers, for GDB's [ ZF PF ] display. */
struct flag_bit {
	const char *name;
	unsigned bit;
};

static const struct flag_bit eflags_bits[] = {
	{ "CF", 0 }, { "", 1 }, { "PF", 2 }, { "AF", 4 }, { "ZF", 6 },
	{ "SF", 7 }, { "TF", 8 }, { "IF", 9 }, { "DF", 10 }, { "OF", 11 },
	{ "NT", 14 }, { "RF", 16 }, { "VM", 17 }, { "AC", 18 }, { "VIF", 19 },
	{ "VIP", 20 }, { "ID", 21 },
};

static const struct flag_bit mxcsr_bits[] = {
	{ "IE", 0 }, { "DE", 1 }, { "ZE", 2 }, { "OE", 3 }, { "UE", 4 },
	{ "PE", 5 }, { "DAZ", 6 }, { "IM", 7 }, { "DM", 8 }, { "ZM", 9 },
	{ "OM", 10 }, { "UM", 11 }, { "PM", 12 }, { "FZ", 15 },
};

/* The views GDB offers of an xmm register, with the field names of its
 * own (so `print $xmm0.v4_float` means the same as on a live process). */
static const struct {
	const char *id, *field, *element;
	unsigned count;
} vector_views[] = {
	{ "v8bf16", "v8_bfloat16", "bfloat16", 8 }, { "v8h", "v8_half", "ieee_half", 8 },
	{ "v4f", "v4_float", "ieee_single", 4 }, { "v2d", "v2_double", "ieee_double", 2 },
	{ "v16i8", "v16_int8", "int8", 16 }, { "v8i16", "v8_int16", "int16", 8 },
	{ "v4i32", "v4_int32", "int32", 4 }, { "v2i64", "v2_int64", "int64", 2 },
};

struct xml_writer {
	char *buf;
	size_t len, cap;
};

static void emit(struct xml_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void emit(struct xml_writer *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(w->buf + w->len, w->cap - w->len, fmt, ap);
	va_end(ap);
	/* The buffer is sized for the fixed tables above; running out is a
	 * programming error caught by the unit tests (len stays capped). */
	if (n > 0)
		w->len += (size_t)n < w->cap - w->len ? (size_t)n : w->cap - w->len - 1;
}

static void emit_flags(struct xml_writer *w, const char *id,
		       const struct flag_bit *bits, size_t n)
{
	emit(w, "<flags id=\"%s\" size=\"4\">\n", id);
	for (size_t i = 0; i < n; i++)
		emit(w, "<field name=\"%s\" start=\"%u\" end=\"%u\"/>\n",
		     bits[i].name, bits[i].bit, bits[i].bit);
	emit(w, "</flags>\n");
}

static void emit_feature_types(struct xml_writer *w, enum feature f)
{
	if (f == CORE) {
		emit_flags(w, "i386_eflags", eflags_bits,
			   sizeof(eflags_bits) / sizeof(eflags_bits[0]));
	} else if (f == SSE) {
		size_t nviews = sizeof(vector_views) / sizeof(vector_views[0]);
		for (size_t i = 0; i < nviews; i++)
			emit(w, "<vector id=\"%s\" type=\"%s\" count=\"%u\"/>\n",
			     vector_views[i].id, vector_views[i].element,
			     vector_views[i].count);
		emit(w, "<union id=\"vec128\">\n");
		for (size_t i = 0; i < nviews; i++)
			emit(w, "<field name=\"%s\" type=\"%s\"/>\n",
			     vector_views[i].field, vector_views[i].id);
		emit(w, "<field name=\"uint128\" type=\"uint128\"/>\n</union>\n");
		emit_flags(w, "i386_mxcsr", mxcsr_bits,
			   sizeof(mxcsr_bits) / sizeof(mxcsr_bits[0]));
	}
}

static void build(struct xml_writer *w)
{
	emit(w, "<?xml version=\"1.0\"?>\n"
		"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
		"<target version=\"1.0\">\n"
		"<architecture>i386:x86-64</architecture>\n"
		"<osabi>GNU/Linux</osabi>\n");
	for (enum feature f = 0; f < FEATURE_COUNT; f++) {
		emit(w, "<feature name=\"%s\">\n", feature_names[f]);
		emit_feature_types(w, f);
		for (size_t i = 0; i < REG_COUNT; i++) {
			const struct reg_entry *r = &registers[i];
			if (r->feature != f)
				continue;
			emit(w, "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" regnum=\"%zu\"",
			     r->desc.name, r->desc.bits, r->type, i);
			if (r->group)
				emit(w, " group=\"%s\"", r->group);
			emit(w, "/>\n");
		}
		emit(w, "</feature>\n");
	}
	emit(w, "</target>\n");
}

const char *gdbstub_target_xml(size_t *len)
{
	static char text[16384];
	static size_t text_len;
	if (!text_len) {
		struct xml_writer w = { text, 0, sizeof(text) };
		build(&w);
		text_len = w.len;
	}
	*len = text_len;
	return text;
}
