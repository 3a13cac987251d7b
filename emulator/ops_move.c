/*
 * ops_move.c — data movement between registers and memory that does not
 * compute: mov, movzx, movsx, movsxd, lea, cmovcc, setcc, bswap, movbe,
 * xlat.
 * The op of the extending moves says whether to sign-extend.
 */
#include "binding.h"
#include "operand.h"

enum move_op { MOVE_PLAIN, MOVE_SIGN_EXTEND };

#define MOVE_INLINE static inline __attribute__((always_inline))

/*
 * mov, movzx, movsx, movsxd and lea get one handler per operation and
 * operand shape, generated from the template below (operation and shape
 * are constants in each), as ops_alu.c does: the common shapes skip the
 * operand-kind dispatch of emu_opnd_read / emu_opnd_write.
 */
enum move_shape { MOVE_REG_REG, MOVE_REG_IMM, MOVE_REG_MEM, MOVE_REG_AGEN, MOVE_MEM_REG,
		  MOVE_MEM_IMM, MOVE_ANY,
		  /* 8 bytes at [base + disp]: most loads and stores of
		   * pointers and counters; no addressing or size decisions */
		  MOVE_REG_MEM_Q_BASE, MOVE_MEM_REG_Q_BASE, MOVE_SHAPES };

/* The address of a [base + disp] operand (no index, segment or 32-bit
 * addressing: move_shape_of checks). */
MOVE_INLINE uint64_t base_disp_addr(const struct emu_cpu *cpu, const struct emu_insn *insn)
{
	return cpu->regs.gpr[insn->mem.base] + (uint64_t)insn->mem.disp;
}

/* dst = (extended) src. */
MOVE_INLINE int move_shaped(struct emu_cpu *cpu, const struct emu_insn *insn,
			    enum move_op op, enum move_shape shape)
{
	const struct emu_operand *dst = &insn->opnd[0], *src = &insn->opnd[1];
	uint64_t v;
	int r;
	switch (shape) {
	case MOVE_REG_REG:
	case MOVE_MEM_REG: v = emu_gpr_get(cpu, src->reg, src->size); break;
	case MOVE_REG_IMM:
	case MOVE_MEM_IMM: v = insn->imm; break; /* the write truncates it */
	case MOVE_REG_AGEN: v = emu_mem_addr(cpu, insn); break;
	case MOVE_REG_MEM:
		if ((r = emu_mem_read_uint(cpu, emu_mem_addr(cpu, insn), src->size, &v)) != EMU_OK)
			return r;
		break;
	case MOVE_REG_MEM_Q_BASE:
		if ((r = emu_mem_read_uint(cpu, base_disp_addr(cpu, insn), 8, &v)) != EMU_OK)
			return r;
		break;
	case MOVE_MEM_REG_Q_BASE: v = cpu->regs.gpr[src->reg / 8]; break;
	default:
		if ((r = emu_opnd_read(cpu, insn, 1, &v)) != EMU_OK)
			return r;
		break;
	}
	if (op == MOVE_SIGN_EXTEND)
		v = (uint64_t)emu_sign_extend(v, src->size);
	switch (shape) {
	case MOVE_MEM_REG:
	case MOVE_MEM_IMM: return emu_mem_write_uint(cpu, emu_mem_addr(cpu, insn), dst->size, v);
	case MOVE_MEM_REG_Q_BASE: return emu_mem_write_uint(cpu, base_disp_addr(cpu, insn), 8, v);
	case MOVE_REG_MEM_Q_BASE: cpu->regs.gpr[dst->reg / 8] = v; return EMU_OK;
	case MOVE_ANY: return emu_opnd_write(cpu, insn, 0, v);
	default: emu_gpr_set(cpu, dst->reg, dst->size, v); return EMU_OK;
	}
}

#define MOVE_OPS(X) X(MOVE_PLAIN) X(MOVE_SIGN_EXTEND)
#define MOVE_HANDLER(OP, SHAPE) \
	static int OP##_##SHAPE(struct emu_cpu *c, const struct emu_insn *i) \
	{ return move_shaped(c, i, OP, SHAPE); }
#define MOVE_HANDLERS(OP) MOVE_HANDLER(OP, MOVE_REG_REG) MOVE_HANDLER(OP, MOVE_REG_IMM) \
	MOVE_HANDLER(OP, MOVE_REG_MEM) MOVE_HANDLER(OP, MOVE_REG_AGEN) \
	MOVE_HANDLER(OP, MOVE_MEM_REG) MOVE_HANDLER(OP, MOVE_MEM_IMM) MOVE_HANDLER(OP, MOVE_ANY) \
	MOVE_HANDLER(OP, MOVE_REG_MEM_Q_BASE) MOVE_HANDLER(OP, MOVE_MEM_REG_Q_BASE)
MOVE_OPS(MOVE_HANDLERS)

/* The handlers of each operation by shape: [op][shape]. */
#define MOVE_ROW(OP) [OP] = { OP##_MOVE_REG_REG, OP##_MOVE_REG_IMM, OP##_MOVE_REG_MEM, \
	OP##_MOVE_REG_AGEN, OP##_MOVE_MEM_REG, OP##_MOVE_MEM_IMM, OP##_MOVE_ANY, \
	OP##_MOVE_REG_MEM_Q_BASE, OP##_MOVE_MEM_REG_Q_BASE },
static emu_handler *const move_handlers[][MOVE_SHAPES] = { MOVE_OPS(MOVE_ROW) };

/* cmovcc reads its source even when the condition is false (a bad address
 * faults either way), and a 32-bit destination is zero-extended either way.
 * One handler per condition (binding.h), like setcc. */
static inline __attribute__((always_inline)) int cmov(struct emu_cpu *cpu,
							  const struct emu_insn *insn, unsigned cc)
{
	uint64_t v;
	int r = emu_opnd_read(cpu, insn, 1, &v);
	if (r != EMU_OK)
		return r;
	if (!emu_cond(cpu, cc))
		v = emu_gpr_get(cpu, insn->opnd[0].reg, insn->opnd[0].size);
	emu_gpr_set(cpu, insn->opnd[0].reg, insn->opnd[0].size, v);
	return EMU_OK;
}
EMU_CONDITION_HANDLERS(cmov, cmov)

static inline __attribute__((always_inline)) int setcc(struct emu_cpu *cpu,
							   const struct emu_insn *insn, unsigned cc)
{
	return emu_opnd_write(cpu, insn, 0, emu_cond(cpu, cc));
}
EMU_CONDITION_HANDLERS(setcc, setcc)

static emu_handler *bind_cmov(struct emu_insn *insn)
{
	return cmov_by_condition[insn->op & 15];
}

static emu_handler *bind_setcc(struct emu_insn *insn)
{
	return setcc_by_condition[insn->op & 15];
}

static uint64_t byte_swap(uint64_t v, unsigned size)
{
	switch (size) {
	case 2: return __builtin_bswap16((uint16_t)v);
	case 4: return __builtin_bswap32((uint32_t)v);
	default: return __builtin_bswap64(v);
	}
}

/* bswap reg (one operand, swapped in place) and movbe (dst = swapped src). */
static int swap_bytes(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned src = insn->nopnd - 1;
	uint64_t v;
	int r = emu_opnd_read(cpu, insn, src, &v);
	if (r != EMU_OK)
		return r;
	return emu_opnd_write(cpu, insn, 0, byte_swap(v, insn->opnd[0].size));
}

/* bswap of a 16-bit register is undefined; compilers never emit it. */
static emu_handler *bind_swap(struct emu_insn *insn)
{
	return insn->opnd[0].size == 2 && insn->nopnd == 1 ? NULL : swap_bytes;
}

/* xlat: al = [rbx + al], with the segment override if any. */
static int xlat(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t base = cpu->regs.gpr[EMU_RBX];
	if (insn->mem.addr32)
		base = (uint32_t)base;
	uint64_t a = base + (cpu->regs.gpr[EMU_RAX] & 0xff);
	if (insn->mem.addr32)
		a = (uint32_t)a;
	uint64_t v;
	int r = emu_mem_read_uint(cpu, emu_seg_addr(cpu, insn, a), 1, &v);
	if (r == EMU_OK)
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), 1, v);
	return r;
}

static bool is_integer_operand(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR || o->kind == EMU_OPND_MEM ||
	       o->kind == EMU_OPND_IMM || o->kind == EMU_OPND_AGEN;
}

/* An 8-byte register and an 8-byte [base + disp] memory operand. */
static bool quad_base_disp(const struct emu_insn *insn, unsigned reg, unsigned mem)
{
	const struct emu_mem_operand *m = &insn->mem;
	return insn->opnd[reg].size == 8 && insn->opnd[mem].size == 8 &&
	       insn->op == MOVE_PLAIN && m->base != EMU_NO_REG && m->index == EMU_NO_REG &&
	       m->seg == EMU_SEG_NONE && !m->addr32;
}

static enum move_shape move_shape_of(const struct emu_insn *insn)
{
	enum emu_operand_kind dst = insn->opnd[0].kind, src = insn->opnd[1].kind;
	if (dst == EMU_OPND_GPR)
		switch (src) {
		case EMU_OPND_GPR: return MOVE_REG_REG;
		case EMU_OPND_IMM: return MOVE_REG_IMM;
		case EMU_OPND_MEM:
			return quad_base_disp(insn, 0, 1) ? MOVE_REG_MEM_Q_BASE : MOVE_REG_MEM;
		case EMU_OPND_AGEN: return MOVE_REG_AGEN;
		default: return MOVE_ANY;
		}
	if (dst == EMU_OPND_MEM && src == EMU_OPND_GPR)
		return quad_base_disp(insn, 1, 0) ? MOVE_MEM_REG_Q_BASE : MOVE_MEM_REG;
	if (dst == EMU_OPND_MEM && src == EMU_OPND_IMM)
		return MOVE_MEM_IMM;
	return MOVE_ANY;
}

static emu_handler *bind_move(struct emu_insn *insn)
{
	if (insn->nopnd != 2 || !is_integer_operand(&insn->opnd[0]) ||
	    !is_integer_operand(&insn->opnd[1]))
		return NULL;
	return move_handlers[insn->op][move_shape_of(insn)];
}

static const struct emu_binding move_bindings[] = {
	{ ZYDIS_MNEMONIC_MOV, MOVE_PLAIN, NULL, bind_move },
	{ ZYDIS_MNEMONIC_MOVZX, MOVE_PLAIN, NULL, bind_move },
	{ ZYDIS_MNEMONIC_MOVSX, MOVE_SIGN_EXTEND, NULL, bind_move },
	{ ZYDIS_MNEMONIC_MOVSXD, MOVE_SIGN_EXTEND, NULL, bind_move },
	{ ZYDIS_MNEMONIC_LEA, MOVE_PLAIN, NULL, bind_move },
	{ ZYDIS_MNEMONIC_BSWAP, 0, NULL, bind_swap },
	{ ZYDIS_MNEMONIC_MOVBE, 0, swap_bytes, NULL },
	{ ZYDIS_MNEMONIC_XLAT, 0, xlat, NULL },
	EMU_CONDITION_BINDINGS(CMOV, NULL, bind_cmov),
	EMU_CONDITION_BINDINGS(SET, NULL, bind_setcc),
};

EMU_FAMILY(emu_family_move, move_bindings);
