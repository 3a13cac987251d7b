/*
 * encode_operands.h — register and immediate operands for Zydis's encoder,
 * shared by the tests that assemble the code they run (native_stub.h's
 * native harness, test_emu_jit.c's generated programs).
 */
#ifndef TTREC_TEST_ENCODE_OPERANDS_H
#define TTREC_TEST_ENCODE_OPERANDS_H

#include <string.h>
#include <Zydis/Zydis.h>

#include "emulator/emu.h"

/* GPR number n (enum emu_gpr) as a register of `size` bytes. For size 1,
 * numbers 4..7 are spl..dil; EMU_GPR_COUNT + 0..3 are ah, ch, dh, bh. */
static ZydisRegister stub_gpr(unsigned n, unsigned size)
{
	if (size == 1 && n >= EMU_GPR_COUNT)
		return (ZydisRegister)(ZYDIS_REGISTER_AH + (n - EMU_GPR_COUNT));
	if (size == 1 && n >= 4 && n < 8)
		return (ZydisRegister)(ZYDIS_REGISTER_SPL + (n - 4));
	if (size == 1 && n >= 8)
		return (ZydisRegister)(ZYDIS_REGISTER_R8B + (n - 8));
	ZydisRegisterClass cls = size == 1 ? ZYDIS_REGCLASS_GPR8 :
				 size == 2 ? ZYDIS_REGCLASS_GPR16 :
				 size == 4 ? ZYDIS_REGCLASS_GPR32 : ZYDIS_REGCLASS_GPR64;
	return ZydisRegisterEncode(cls, (ZyanU8)n);
}

static ZydisEncoderOperand stub_op_reg(unsigned n, unsigned size)
{
	ZydisEncoderOperand o;
	memset(&o, 0, sizeof(o));
	o.type = ZYDIS_OPERAND_TYPE_REGISTER;
	o.reg.value = stub_gpr(n, size);
	return o;
}

static ZydisEncoderOperand stub_op_imm(uint64_t v)
{
	ZydisEncoderOperand o;
	memset(&o, 0, sizeof(o));
	o.type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
	o.imm.u = v;
	return o;
}

#endif
