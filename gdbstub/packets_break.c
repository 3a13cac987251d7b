/*
 * packets_break.c — Z0..Z4 / z0..z4: execution breakpoints and write, read
 * and access watchpoints of any length and alignment, kept by the target.
 * "Ztype,addr,kind[;cond...]": conditions evaluated by the target are not
 * offered (qSupported does not say ConditionalBreakpoints+), so anything
 * after the kind is malformed.
 */
#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

static bool parse_break(const char *args, const char *end,
			enum gdbstub_break_kind *kind, uint64_t *addr, uint64_t *len)
{
	uint64_t type;
	if (!hex_parse_u64(&args, end, &type) || type > GDBSTUB_WATCH_ACCESS ||
	    !hex_expect(&args, end, ',') || !hex_parse_u64(&args, end, addr) ||
	    !hex_expect(&args, end, ',') || !hex_parse_u64(&args, end, len) ||
	    args != end)
		return false;
	*kind = (enum gdbstub_break_kind)type;
	/* A watchpoint covers at least one byte and does not wrap. */
	if (type >= GDBSTUB_WATCH_WRITE && (*len == 0 || *len - 1 > UINT64_MAX - *addr))
		return false;
	return true;
}

static void change_break(struct gdbstub *stub, const char *args, const char *end,
			 bool insert)
{
	enum gdbstub_break_kind kind;
	uint64_t addr, len;
	if (!parse_break(args, end, &kind, &addr, &len)) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	const struct gdbstub_target_ops *ops = stub->target.ops;
	int rc = insert ? ops->insert_break(stub->target.ctx, kind, addr, len)
			: ops->remove_break(stub->target.ctx, kind, addr, len);
	if (rc < 0)
		reply_error(stub, GDBSTUB_EINVAL);
	else
		reply_ok(stub);
}

void handle_insert_break(struct gdbstub *stub, const char *args, const char *end)
{
	change_break(stub, args, end, true);
}

void handle_remove_break(struct gdbstub *stub, const char *args, const char *end)
{
	change_break(stub, args, end, false);
}
