/*
 * test_emu_undefined_flags.c — the emulator's list of architecturally
 * undefined status flags (emu_undefined_flags_after), which comparisons
 * with a CPU of another vendor leave out: a row of each family, counts by
 * immediate and by cl (known or not), count 0 writing nothing, a sequence
 * redefining or propagating a flag, and the modelled vendor.
 */
#include <check.h>
#include <string.h>

#include "emulator/emu.h"
#include "check_main.h"

#define SIX (EMU_CF | EMU_PF | EMU_AF | EMU_ZF | EMU_SF | EMU_OF)

static uint64_t one(const uint8_t *bytes, size_t len)
{
	return emu_undefined_flags(bytes, len);
}

#define ONE(...) one((const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

START_TEST(test_fixed_families)
{
	ck_assert_uint_eq(ONE(0x48, 0x01, 0xc8), 0);                      /* add rax, rcx */
	ck_assert_uint_eq(ONE(0x48, 0x21, 0xc8), EMU_AF);                 /* and rax, rcx */
	ck_assert_uint_eq(ONE(0x84, 0xc8), EMU_AF);                       /* test al, cl */
	ck_assert_uint_eq(ONE(0x48, 0xf7, 0xe3), EMU_SF | EMU_ZF | EMU_AF | EMU_PF); /* mul rbx */
	ck_assert_uint_eq(ONE(0x0f, 0xaf, 0xcb), EMU_SF | EMU_ZF | EMU_AF | EMU_PF); /* imul ecx, ebx */
	ck_assert_uint_eq(ONE(0xf6, 0xf3), SIX);                          /* div bl */
	ck_assert_uint_eq(ONE(0x48, 0xf7, 0xfb), SIX);                    /* idiv rbx */
	ck_assert_uint_eq(ONE(0xc4, 0xe2, 0x70, 0xf2, 0xde), EMU_AF | EMU_PF); /* andn ebx, ecx, esi */
	ck_assert_uint_eq(ONE(0xc4, 0xe2, 0x70, 0xf7, 0xde), EMU_AF | EMU_SF | EMU_PF); /* bextr */
	ck_assert_uint_eq(ONE(0xc4, 0xe2, 0x70, 0xf5, 0xde), EMU_AF | EMU_PF); /* bzhi */
	ck_assert_uint_eq(ONE(0xc4, 0xe2, 0x60, 0xf3, 0xde), EMU_AF | EMU_PF); /* blsi ebx, esi */
	ck_assert_uint_eq(ONE(0xf3, 0x0f, 0xbc, 0xde), EMU_OF | EMU_SF | EMU_AF | EMU_PF); /* tzcnt */
	ck_assert_uint_eq(ONE(0xf3, 0x0f, 0xbd, 0xde), EMU_OF | EMU_SF | EMU_AF | EMU_PF); /* lzcnt */
	ck_assert_uint_eq(ONE(0xf3, 0x0f, 0xb8, 0xde), 0);                /* popcnt ebx, esi */
	ck_assert_uint_eq(ONE(0x0f, 0xbc, 0xde), SIX & ~EMU_ZF);          /* bsf ebx, esi */
	ck_assert_uint_eq(ONE(0x0f, 0xbd, 0xde), SIX & ~EMU_ZF);          /* bsr ebx, esi */
	ck_assert_uint_eq(ONE(0x0f, 0xa3, 0xf3), EMU_OF | EMU_SF | EMU_AF | EMU_PF); /* bt ebx, esi */
	ck_assert_uint_eq(ONE(0x0f, 0xba, 0xeb, 0x05), EMU_OF | EMU_SF | EMU_AF | EMU_PF); /* bts ebx, 5 */
}
END_TEST

START_TEST(test_counts)
{
	ck_assert_uint_eq(ONE(0xd1, 0xe3), EMU_AF);                       /* shl ebx, 1 */
	ck_assert_uint_eq(ONE(0xc1, 0xeb, 0x03), EMU_AF | EMU_OF);        /* shr ebx, 3 */
	ck_assert_uint_eq(ONE(0xc1, 0xfb, 0x20), 0);                      /* sar ebx, 32: masked 0 */
	ck_assert_uint_eq(ONE(0x48, 0xc1, 0xfb, 0x21), EMU_AF | EMU_OF);  /* sar rbx, 33 */
	ck_assert_uint_eq(ONE(0xd1, 0xc3), 0);                            /* rol ebx, 1 */
	ck_assert_uint_eq(ONE(0xc1, 0xd3, 0x02), EMU_OF);                 /* rcl ebx, 2 */
	ck_assert_uint_eq(ONE(0x0f, 0xa4, 0xf3, 0x01), EMU_AF);           /* shld ebx, esi, 1 */
	ck_assert_uint_eq(ONE(0x0f, 0xac, 0xf3, 0x07), EMU_AF | EMU_OF);  /* shrd ebx, esi, 7 */
	ck_assert(!emu_undefined_result((const uint8_t[]){ 0x66, 0x0f, 0xa4, 0xf3, 0x10 }, 5, NULL));
	ck_assert_uint_eq(ONE(0x66, 0x0f, 0xa4, 0xf3, 0x11), SIX);        /* shld bx, si, 17 */
	ck_assert(emu_undefined_result((const uint8_t[]){ 0x66, 0x0f, 0xa4, 0xf3, 0x11 }, 5, NULL));

	/* By cl: any count without the registers, else cl's. */
	const uint8_t shl_cl[] = { 0xd3, 0xe3 }, rol_cl[] = { 0xd3, 0xc3 };
	ck_assert_uint_eq(emu_undefined_flags(shl_cl, 2), EMU_AF | EMU_OF);
	ck_assert_uint_eq(emu_undefined_flags(rol_cl, 2), EMU_OF);
	struct emu_regs r;
	memset(&r, 0, sizeof(r));
	r.gpr[EMU_RCX] = 0x101; /* cl = 1 */
	ck_assert_uint_eq(emu_undefined_flags_after(shl_cl, 2, &r, 0), EMU_AF);
	ck_assert_uint_eq(emu_undefined_flags_after(rol_cl, 2, &r, 0), 0);
	r.gpr[EMU_RCX] = 0x40; /* masked to 0 for 32 bits: nothing written */
	ck_assert_uint_eq(emu_undefined_flags_after(shl_cl, 2, &r, EMU_PF), EMU_PF);
	const uint8_t shld16_cl[] = { 0x66, 0x0f, 0xa5, 0xf3 };
	ck_assert(emu_undefined_result(shld16_cl, 4, NULL));
	r.gpr[EMU_RCX] = 16;
	ck_assert(!emu_undefined_result(shld16_cl, 4, &r));
	r.gpr[EMU_RCX] = 17;
	ck_assert(emu_undefined_result(shld16_cl, 4, &r));
	/* Unknown count: perhaps nothing written, so what was undefined stays. */
	ck_assert_uint_eq(emu_undefined_flags_after(rol_cl, 2, NULL, EMU_AF), EMU_AF | EMU_OF);
}
END_TEST

START_TEST(test_sequences)
{
	const uint8_t add[] = { 0x48, 0x01, 0xc8 }, adc[] = { 0x48, 0x11, 0xc8 };
	const uint8_t inc[] = { 0x48, 0xff, 0xc0 }, seto[] = { 0x0f, 0x90, 0xc2 };
	/* A defined write ends undefinedness; a flag not written keeps it. */
	ck_assert_uint_eq(emu_undefined_flags_after(add, 3, NULL, SIX), 0);
	ck_assert_uint_eq(emu_undefined_flags_after(inc, 3, NULL, SIX), EMU_CF);
	ck_assert_uint_eq(emu_undefined_flags_after(seto, 3, NULL, EMU_OF), EMU_OF);
	/* adc reads an undefined CF: everything it writes is undefined. */
	ck_assert_uint_eq(emu_undefined_flags_after(adc, 3, NULL, EMU_CF), SIX);
	ck_assert_uint_eq(emu_undefined_flags_after(adc, 3, NULL, EMU_AF), 0);
}
END_TEST

START_TEST(test_vendor)
{
	ck_assert_str_eq(emu_modelled_vendor(), "GenuineIntel");
	unsigned eax, ebx, ecx, edx;
	__asm__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0), "c"(0));
	char vendor[13];
	memcpy(vendor, &ebx, 4);
	memcpy(vendor + 4, &edx, 4);
	memcpy(vendor + 8, &ecx, 4);
	vendor[12] = '\0';
	ck_assert_int_eq(emu_host_is_modelled_vendor(), strcmp(vendor, "GenuineIntel") == 0);
}
END_TEST

static Suite *emu_undefined_flags_suite(void)
{
	Suite *s = suite_create("emu_undefined_flags");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_fixed_families);
	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_sequences);
	tcase_add_test(tc, test_vendor);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_undefined_flags_suite)
