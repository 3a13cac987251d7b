/*
 * ops_alu.c — two-operand arithmetic and logic (add adc sub sbb and or xor
 * cmp test) and the one-operand forms (inc dec neg not). The operation is
 * the binding's `op`; the binder picks, by operation and operand shape, a
 * handler generated from one template (see alu_handlers).
 */
#include "binding.h"
#include "operand.h"

enum alu_op { ALU_ADD, ALU_ADC, ALU_SUB, ALU_SBB, ALU_AND, ALU_OR, ALU_XOR,
	      ALU_CMP, ALU_TEST, ALU_INC, ALU_DEC, ALU_NEG, ALU_NOT };

#define ALU_INLINE static inline __attribute__((always_inline))

/* Computes a op b (b unused by the one-operand forms) and leaves the status
 * flags pending (flags.h): most are overwritten before anything reads them. */
ALU_INLINE uint64_t alu_compute(struct emu_cpu *cpu, enum alu_op op, uint64_t a,
				uint64_t b, unsigned size)
{
	uint64_t r;
	unsigned cf;
	switch (op) {
	case ALU_ADD:
		r = a + b;
		emu_set_lazy_flags(cpu, EMU_LAZY_ADD, a, b, r, size);
		break;
	case ALU_ADC:
		cf = emu_carry_flag(cpu);
		r = a + b + cf;
		emu_set_lazy_flags_carry(cpu, EMU_LAZY_ADD, a, b, r, size, cf, false, 0);
		break;
	case ALU_SUB:
	case ALU_CMP:
		r = a - b;
		emu_set_lazy_flags(cpu, EMU_LAZY_SUB, a, b, r, size);
		break;
	case ALU_SBB:
		cf = emu_carry_flag(cpu);
		r = a - b - cf;
		emu_set_lazy_flags_carry(cpu, EMU_LAZY_SUB, a, b, r, size, cf, false, 0);
		break;
	case ALU_AND:
	case ALU_TEST: r = a & b; emu_set_lazy_flags(cpu, EMU_LAZY_LOGIC, a, b, r, size); break;
	case ALU_OR: r = a | b; emu_set_lazy_flags(cpu, EMU_LAZY_LOGIC, a, b, r, size); break;
	case ALU_XOR: r = a ^ b; emu_set_lazy_flags(cpu, EMU_LAZY_LOGIC, a, b, r, size); break;
	/* inc and dec leave CF alone. */
	case ALU_INC:
	case ALU_DEC:
		cf = emu_carry_flag(cpu);
		r = op == ALU_INC ? a + 1 : a - 1;
		emu_set_lazy_flags_carry(cpu, op == ALU_INC ? EMU_LAZY_ADD : EMU_LAZY_SUB, a, 1, r,
					 size, 0, true, cf);
		break;
	case ALU_NEG: r = 0 - a; emu_set_lazy_flags(cpu, EMU_LAZY_SUB, 0, a, r, size); break;
	default: /* ALU_NOT: no flags */
		r = ~a;
		break;
	}
	return r & emu_size_mask(size);
}

ALU_INLINE bool alu_writes_result(enum alu_op op)
{
	return op != ALU_CMP && op != ALU_TEST;
}

static void note_lock(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	if (insn->attr & EMU_ATTR_LOCK)
		emu_note_sync(cpu, EMU_SYNC_LOCK, insn->addr);
}

/*
 * Each operation gets its own handler for each operand shape, generated
 * from these templates (the operation and shape are constants in each):
 * no dispatch on either at run time. The shapes: register-register,
 * register-immediate, register-memory, memory-register, memory-immediate,
 * and any (lock prefix, anything else).
 */
enum alu_shape { SHAPE_REG_REG, SHAPE_REG_IMM, SHAPE_REG_MEM, SHAPE_MEM_REG, SHAPE_MEM_IMM,
		 SHAPE_ANY };

/* dst op= src with dst in memory (no lock prefix): the address is computed
 * once for the read and the write. */
ALU_INLINE int alu_binary_to_memory(struct emu_cpu *cpu, const struct emu_insn *insn,
				    enum alu_op op, uint64_t b)
{
	unsigned size = insn->opnd[0].size;
	uint64_t addr = emu_mem_addr(cpu, insn), a;
	int r = emu_mem_read_uint(cpu, addr, size, &a);
	if (r != EMU_OK)
		return r;
	/* A faulting write must leave the flags as they were. */
	struct emu_lazy_flags before = cpu->lazy;
	uint64_t res = alu_compute(cpu, op, a, b & emu_size_mask(size), size);
	if (alu_writes_result(op) && (r = emu_mem_write_uint(cpu, addr, size, res)) != EMU_OK) {
		cpu->lazy = before;
		return r;
	}
	return EMU_OK;
}

/* dst op= src. */
ALU_INLINE int alu_binary(struct emu_cpu *cpu, const struct emu_insn *insn,
			  enum alu_op op, enum alu_shape shape)
{
	unsigned size = insn->opnd[0].size;
	uint64_t a, b;
	int r;
	if (shape == SHAPE_MEM_IMM)
		return alu_binary_to_memory(cpu, insn, op, insn->imm);
	if (shape == SHAPE_MEM_REG)
		return alu_binary_to_memory(cpu, insn, op, emu_gpr_get(cpu, insn->opnd[1].reg, size));
	if (shape == SHAPE_ANY) {
		note_lock(cpu, insn);
		if ((r = emu_opnd_read(cpu, insn, 0, &a)) != EMU_OK)
			return r;
		if ((r = emu_opnd_read(cpu, insn, 1, &b)) != EMU_OK)
			return r;
	} else {
		a = emu_gpr_get(cpu, insn->opnd[0].reg, size);
		if (shape == SHAPE_REG_REG) {
			b = emu_gpr_get(cpu, insn->opnd[1].reg, size);
		} else if (shape == SHAPE_REG_IMM) {
			b = insn->imm;
		} else if ((r = emu_mem_read_uint(cpu, emu_mem_addr(cpu, insn), size, &b)) != EMU_OK) {
			return r;
		}
	}
	if (shape != SHAPE_ANY) {
		uint64_t res = alu_compute(cpu, op, a, b & emu_size_mask(size), size);
		if (alu_writes_result(op))
			emu_gpr_set(cpu, insn->opnd[0].reg, size, res);
		return EMU_OK;
	}
	/* A faulting write must leave the flags as they were. */
	struct emu_lazy_flags before = cpu->lazy;
	uint64_t res = alu_compute(cpu, op, a, b & emu_size_mask(size), size);
	if (alu_writes_result(op) && (r = emu_opnd_write(cpu, insn, 0, res)) != EMU_OK) {
		cpu->lazy = before;
		return r;
	}
	return EMU_OK;
}

/* inc dec neg not, on a register or (any) memory. */
ALU_INLINE int alu_unary(struct emu_cpu *cpu, const struct emu_insn *insn,
			 enum alu_op op, enum alu_shape shape)
{
	unsigned size = insn->opnd[0].size;
	if (shape == SHAPE_REG_REG) {
		uint64_t a = emu_gpr_get(cpu, insn->opnd[0].reg, size);
		emu_gpr_set(cpu, insn->opnd[0].reg, size, alu_compute(cpu, op, a, 0, size));
		return EMU_OK;
	}
	uint64_t a;
	int r;
	note_lock(cpu, insn);
	if ((r = emu_opnd_read(cpu, insn, 0, &a)) != EMU_OK)
		return r;
	struct emu_lazy_flags before = cpu->lazy;
	uint64_t res = alu_compute(cpu, op, a, 0, size);
	if ((r = emu_opnd_write(cpu, insn, 0, res)) != EMU_OK) {
		cpu->lazy = before;
		return r;
	}
	return EMU_OK;
}

#define ALU_BINARY_OPS(X) X(ALU_ADD) X(ALU_ADC) X(ALU_SUB) X(ALU_SBB) X(ALU_AND) \
	X(ALU_OR) X(ALU_XOR) X(ALU_CMP) X(ALU_TEST)
#define ALU_UNARY_OPS(X) X(ALU_INC) X(ALU_DEC) X(ALU_NEG) X(ALU_NOT)

#define ALU_BINARY_HANDLERS(OP) \
	static int OP##_reg_reg(struct emu_cpu *c, const struct emu_insn *i) \
	{ return alu_binary(c, i, OP, SHAPE_REG_REG); } \
	static int OP##_reg_imm(struct emu_cpu *c, const struct emu_insn *i) \
	{ return alu_binary(c, i, OP, SHAPE_REG_IMM); } \
	static int OP##_reg_mem(struct emu_cpu *c, const struct emu_insn *i) \
	{ return alu_binary(c, i, OP, SHAPE_REG_MEM); } \
	static int OP##_mem_reg(struct emu_cpu *c, const struct emu_insn *i) \
	{ return alu_binary(c, i, OP, SHAPE_MEM_REG); } \
	static int OP##_mem_imm(struct emu_cpu *c, const struct emu_insn *i) \
	{ return alu_binary(c, i, OP, SHAPE_MEM_IMM); } \
	static int OP##_any(struct emu_cpu *c, const struct emu_insn *i) \
	{ return alu_binary(c, i, OP, SHAPE_ANY); }
ALU_BINARY_OPS(ALU_BINARY_HANDLERS)

#define ALU_UNARY_HANDLERS(OP) \
	static int OP##_reg(struct emu_cpu *c, const struct emu_insn *i) \
	{ return alu_unary(c, i, OP, SHAPE_REG_REG); } \
	static int OP##_any(struct emu_cpu *c, const struct emu_insn *i) \
	{ return alu_unary(c, i, OP, SHAPE_ANY); }
ALU_UNARY_OPS(ALU_UNARY_HANDLERS)

/* The handlers of each operation by shape: [op][shape]. */
#define ALU_BINARY_ROW(OP) \
	[OP] = { OP##_reg_reg, OP##_reg_imm, OP##_reg_mem, OP##_mem_reg, OP##_mem_imm, OP##_any },
#define ALU_UNARY_ROW(OP) [OP] = { [SHAPE_REG_REG] = OP##_reg, [SHAPE_ANY] = OP##_any },
static emu_handler *const alu_handlers[][SHAPE_ANY + 1] = {
	ALU_BINARY_OPS(ALU_BINARY_ROW)
	ALU_UNARY_OPS(ALU_UNARY_ROW)
};

static emu_handler *bind_binary(struct emu_insn *insn)
{
	if (insn->nopnd != 2)
		return NULL;
	enum alu_shape shape = SHAPE_ANY;
	if (insn->opnd[0].kind == EMU_OPND_GPR && !(insn->attr & EMU_ATTR_LOCK)) {
		switch (insn->opnd[1].kind) {
		case EMU_OPND_GPR: shape = SHAPE_REG_REG; break;
		case EMU_OPND_IMM: shape = SHAPE_REG_IMM; break;
		case EMU_OPND_MEM: shape = SHAPE_REG_MEM; break;
		default: break;
		}
	} else if (insn->opnd[0].kind == EMU_OPND_MEM && !(insn->attr & EMU_ATTR_LOCK)) {
		switch (insn->opnd[1].kind) {
		case EMU_OPND_GPR: shape = SHAPE_MEM_REG; break;
		case EMU_OPND_IMM: shape = SHAPE_MEM_IMM; break;
		default: break;
		}
	}
	return alu_handlers[insn->op][shape];
}

static emu_handler *bind_unary(struct emu_insn *insn)
{
	if (insn->nopnd != 1)
		return NULL;
	bool reg = insn->opnd[0].kind == EMU_OPND_GPR && !(insn->attr & EMU_ATTR_LOCK);
	return alu_handlers[insn->op][reg ? SHAPE_REG_REG : SHAPE_ANY];
}

/*
 * cmp or test fused with the conditional jump after it: one dispatch for
 * the pair, and the condition decided from the operands just compared.
 * The flags are still left pending for whatever reads them later.
 */
ALU_INLINE int compare_and_branch(struct emu_cpu *cpu, const struct emu_insn *insn,
				  enum alu_op op, enum alu_shape shape, unsigned cc)
{
	int r = alu_binary(cpu, insn, op, shape);
	if (r != EMU_OK)
		return r;
	const struct emu_insn *jcc = insn + 1;
	if (emu_cond(cpu, cc)) {
		cpu->regs.rip = jcc->imm;
		emu_note_flow(cpu, EMU_FLOW_BRANCH_TAKEN, jcc->addr, jcc->imm);
	}
	return EMU_OK;
}

#define FUSED_OPS(X) X(ALU_CMP) X(ALU_TEST)
#define FUSED_TEMPLATES(OP) \
	ALU_INLINE int OP##_reg_reg_jcc(struct emu_cpu *c, const struct emu_insn *i, unsigned cc) \
	{ return compare_and_branch(c, i, OP, SHAPE_REG_REG, cc); } \
	ALU_INLINE int OP##_reg_imm_jcc(struct emu_cpu *c, const struct emu_insn *i, unsigned cc) \
	{ return compare_and_branch(c, i, OP, SHAPE_REG_IMM, cc); } \
	ALU_INLINE int OP##_reg_mem_jcc(struct emu_cpu *c, const struct emu_insn *i, unsigned cc) \
	{ return compare_and_branch(c, i, OP, SHAPE_REG_MEM, cc); } \
	ALU_INLINE int OP##_mem_reg_jcc(struct emu_cpu *c, const struct emu_insn *i, unsigned cc) \
	{ return compare_and_branch(c, i, OP, SHAPE_MEM_REG, cc); } \
	ALU_INLINE int OP##_mem_imm_jcc(struct emu_cpu *c, const struct emu_insn *i, unsigned cc) \
	{ return compare_and_branch(c, i, OP, SHAPE_MEM_IMM, cc); } \
	ALU_INLINE int OP##_any_jcc(struct emu_cpu *c, const struct emu_insn *i, unsigned cc) \
	{ return compare_and_branch(c, i, OP, SHAPE_ANY, cc); } \
	EMU_CONDITION_HANDLERS(OP##_reg_reg_fused, OP##_reg_reg_jcc) \
	EMU_CONDITION_HANDLERS(OP##_reg_imm_fused, OP##_reg_imm_jcc) \
	EMU_CONDITION_HANDLERS(OP##_reg_mem_fused, OP##_reg_mem_jcc) \
	EMU_CONDITION_HANDLERS(OP##_mem_reg_fused, OP##_mem_reg_jcc) \
	EMU_CONDITION_HANDLERS(OP##_mem_imm_fused, OP##_mem_imm_jcc) \
	EMU_CONDITION_HANDLERS(OP##_any_fused, OP##_any_jcc)
FUSED_OPS(FUSED_TEMPLATES)

emu_handler *emu_fuse_compare(const struct emu_insn *cmp, unsigned cc)
{
#define FUSED_CASES(OP) \
	if (cmp->handler == OP##_reg_reg) return OP##_reg_reg_fused_by_condition[cc]; \
	if (cmp->handler == OP##_reg_imm) return OP##_reg_imm_fused_by_condition[cc]; \
	if (cmp->handler == OP##_reg_mem) return OP##_reg_mem_fused_by_condition[cc]; \
	if (cmp->handler == OP##_mem_reg) return OP##_mem_reg_fused_by_condition[cc]; \
	if (cmp->handler == OP##_mem_imm) return OP##_mem_imm_fused_by_condition[cc]; \
	if (cmp->handler == OP##_any) return OP##_any_fused_by_condition[cc];
	FUSED_OPS(FUSED_CASES)
#undef FUSED_CASES
	return NULL;
}

static const struct emu_binding alu_bindings[] = {
	{ ZYDIS_MNEMONIC_ADD, ALU_ADD, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_ADC, ALU_ADC, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_SUB, ALU_SUB, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_SBB, ALU_SBB, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_AND, ALU_AND, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_OR, ALU_OR, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_XOR, ALU_XOR, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_CMP, ALU_CMP, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_TEST, ALU_TEST, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_INC, ALU_INC, NULL, bind_unary },
	{ ZYDIS_MNEMONIC_DEC, ALU_DEC, NULL, bind_unary },
	{ ZYDIS_MNEMONIC_NEG, ALU_NEG, NULL, bind_unary },
	{ ZYDIS_MNEMONIC_NOT, ALU_NOT, NULL, bind_unary },
};

EMU_FAMILY(emu_family_alu, alu_bindings);
