/*
 * undefined_flags.c — which status flags an instruction leaves
 * architecturally undefined, and which CPU's choices for them the emulator
 * models.
 *
 * Both Intel's SDM and AMD's APM call the flags below undefined, and the
 * two vendors' CPUs do set some of them differently: the emulator computes
 * them as GenuineIntel's CPUs do, so a comparison with an AMD CPU (the
 * per-family tests, the differential harness, `ttrec run --verify`) must
 * leave out exactly these flags of the instruction compared, and no more.
 *
 * One row per family. A family whose set depends on a count (shifts,
 * rotates, double shifts) has it resolved from the count: an immediate, or
 * cl when the registers before the instruction are known; without them the
 * set is every flag some count leaves undefined.
 */
#include <cpuid.h>
#include <pthread.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "emulator/emu.h"

#define ALL_STATUS ((uint64_t)EMU_STATUS_FLAGS)

/* How a family's set depends on the instruction's count operand. */
enum count_rule {
	NO_COUNT,     /* `always` is the set */
	BY_COUNT,     /* masked count 0: nothing written, nothing undefined */
};

static const struct family {
	const char *name;
	ZydisMnemonic mnemonics[4];
	enum count_rule rule;
	uint64_t always;        /* undefined whenever the instruction writes flags */
	uint64_t count_above_1; /* also undefined for a masked count above 1 */
	bool wide_count_undefined; /* a count above the operand width leaves all undefined */
} families[] = {
	{ "logic", { ZYDIS_MNEMONIC_AND, ZYDIS_MNEMONIC_OR, ZYDIS_MNEMONIC_XOR, ZYDIS_MNEMONIC_TEST },
	  NO_COUNT, EMU_AF, 0, false },
	{ "multiply", { ZYDIS_MNEMONIC_MUL, ZYDIS_MNEMONIC_IMUL },
	  NO_COUNT, EMU_SF | EMU_ZF | EMU_AF | EMU_PF, 0, false },
	{ "divide", { ZYDIS_MNEMONIC_DIV, ZYDIS_MNEMONIC_IDIV },
	  NO_COUNT, ALL_STATUS, 0, false },
	{ "bmi logic", { ZYDIS_MNEMONIC_ANDN, ZYDIS_MNEMONIC_BLSI, ZYDIS_MNEMONIC_BLSMSK, ZYDIS_MNEMONIC_BLSR },
	  NO_COUNT, EMU_AF | EMU_PF, 0, false },
	{ "bit field", { ZYDIS_MNEMONIC_BZHI },
	  NO_COUNT, EMU_AF | EMU_PF, 0, false },
	{ "bit extract", { ZYDIS_MNEMONIC_BEXTR },
	  NO_COUNT, EMU_AF | EMU_SF | EMU_PF, 0, false },
	{ "zero count", { ZYDIS_MNEMONIC_TZCNT, ZYDIS_MNEMONIC_LZCNT },
	  NO_COUNT, EMU_OF | EMU_SF | EMU_AF | EMU_PF, 0, false },
	{ "bit scan", { ZYDIS_MNEMONIC_BSF, ZYDIS_MNEMONIC_BSR },
	  NO_COUNT, EMU_CF | EMU_OF | EMU_SF | EMU_AF | EMU_PF, 0, false },
	{ "bit test", { ZYDIS_MNEMONIC_BT, ZYDIS_MNEMONIC_BTS, ZYDIS_MNEMONIC_BTR, ZYDIS_MNEMONIC_BTC },
	  NO_COUNT, EMU_OF | EMU_SF | EMU_AF | EMU_PF, 0, false },
	{ "shift", { ZYDIS_MNEMONIC_SHL, ZYDIS_MNEMONIC_SHR, ZYDIS_MNEMONIC_SAR },
	  BY_COUNT, EMU_AF, EMU_OF, false },
	{ "rotate", { ZYDIS_MNEMONIC_ROL, ZYDIS_MNEMONIC_ROR, ZYDIS_MNEMONIC_RCL, ZYDIS_MNEMONIC_RCR },
	  BY_COUNT, 0, EMU_OF, false },
	{ "double shift", { ZYDIS_MNEMONIC_SHLD, ZYDIS_MNEMONIC_SHRD },
	  BY_COUNT, EMU_AF, EMU_OF, true },
};

static const struct family *by_mnemonic[ZYDIS_MNEMONIC_MAX_VALUE + 1];
static ZydisDecoder decoder;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		for (size_t i = 0; i < sizeof(families[f].mnemonics) / sizeof(families[f].mnemonics[0]); i++)
			if (families[f].mnemonics[i] != ZYDIS_MNEMONIC_INVALID)
				by_mnemonic[families[f].mnemonics[i]] = &families[f];
	ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

/* The masked count of a counted instruction (its last visible operand, an
 * immediate or cl); false when it is cl and the registers are unknown. */
static bool masked_count(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
			 const struct emu_regs *before, unsigned *count)
{
	const ZydisDecodedOperand *op = &ops[zi->operand_count_visible - 1];
	uint64_t c;
	if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
		c = op->imm.value.u;
	else if (before)
		c = before->gpr[EMU_RCX];
	else
		return false;
	*count = (unsigned)(c & (zi->operand_width == 64 ? 63 : 31));
	return true;
}

/* What the manuals leave undefined of one instruction. */
struct verdict {
	bool decoded;
	uint64_t written;   /* status flags it surely writes */
	uint64_t tested;    /* status flags it reads */
	uint64_t undefined; /* status flags it may leave undefined */
	bool result;        /* its destination may be undefined too */
};

static struct verdict judge(const uint8_t *bytes, size_t len, const struct emu_regs *before)
{
	pthread_once(&once, build_table);
	struct verdict v = { 0 };
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, bytes, len, &zi, ops)))
		return v;
	v.decoded = true;
	const ZydisAccessedFlags *fl = zi.cpu_flags;
	if (fl) {
		v.written = (fl->modified | fl->set_0 | fl->set_1 | fl->undefined) & ALL_STATUS;
		v.tested = fl->tested & ALL_STATUS;
	}
	const struct family *f = by_mnemonic[zi.mnemonic];
	if (!f)
		return v;
	if (f->rule == NO_COUNT) {
		v.undefined = f->always;
		return v;
	}
	unsigned count;
	if (!masked_count(&zi, ops, before, &count)) {
		/* Any count: perhaps nothing written (count 0), perhaps any
		 * of the family's flags undefined. */
		v.written = 0;
		v.undefined = f->always | f->count_above_1;
		v.result = f->wide_count_undefined && zi.operand_width == 16;
	} else if (count == 0) {
		v.written = 0;
	} else {
		v.undefined = f->always | (count > 1 ? f->count_above_1 : 0);
		v.result = f->wide_count_undefined && count > zi.operand_width;
	}
	if (v.result)
		v.undefined = ALL_STATUS;
	return v;
}

uint64_t emu_undefined_flags_after(const uint8_t *bytes, size_t len,
				   const struct emu_regs *before, uint64_t undefined_before)
{
	struct verdict v = judge(bytes, len, before);
	/* Flags computed from an undefined flag are undefined themselves. */
	if (v.tested & undefined_before)
		v.undefined |= v.written;
	return (undefined_before & ~v.written) | v.undefined;
}

bool emu_undefined_result(const uint8_t *bytes, size_t len, const struct emu_regs *before)
{
	return judge(bytes, len, before).result;
}

uint64_t emu_undefined_flags(const uint8_t *bytes, size_t len)
{
	return emu_undefined_flags_after(bytes, len, NULL, 0);
}

const char *emu_modelled_vendor(void)
{
	return "GenuineIntel";
}

static bool host_is_modelled;

static void ask_host_vendor(void)
{
	unsigned eax, ebx, ecx, edx;
	char vendor[13];
	if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
		return;
	memcpy(vendor, &ebx, 4);
	memcpy(vendor + 4, &edx, 4);
	memcpy(vendor + 8, &ecx, 4);
	vendor[12] = '\0';
	host_is_modelled = strcmp(vendor, emu_modelled_vendor()) == 0;
}

/* Asked once: cpuid is slow under a hypervisor, and callers ask per
 * instruction compared. */
bool emu_host_is_modelled_vendor(void)
{
	static pthread_once_t vendor_once = PTHREAD_ONCE_INIT;
	pthread_once(&vendor_once, ask_host_vendor);
	return host_is_modelled;
}
