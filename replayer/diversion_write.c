/*
 * diversion_write.c — write(2) and writev(2) to file descriptors 1 and 2
 * in a diversion (diversion_write.h). What the function writes is read
 * from the diversion's memory as the kernel would read it: up to the first
 * byte the diversion does not know (a short count, or -EFAULT when that is
 * the first one), at most WRITE_MAX bytes a call (a short count too, which
 * stdio and careful programs loop over).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "replayer/diversion_write.h"

#define WRITE_MAX (1u << 20)
#define IOV_MAX_LINUX 1024

/* Passes [addr, addr + len) to the output, up to the first unknown byte.
 * How many bytes went out. */
static uint64_t emit(struct diversion *d, const struct diversion_run *r, uint64_t addr, uint64_t len)
{
	char buf[4096];
	uint64_t done = 0;
	while (done < len) {
		size_t want = len - done < sizeof(buf) ? (size_t)(len - done) : sizeof(buf);
		size_t got = diversion_read_memory(d, addr + done, buf, want);
		if (got)
			r->output(r->output_ctx, buf, got);
		done += got;
		if (got < want)
			break;
	}
	return done;
}

static int64_t do_write(struct diversion *d, const struct diversion_run *r, uint64_t addr, uint64_t len)
{
	if (len > WRITE_MAX)
		len = WRITE_MAX;
	uint64_t n = emit(d, r, addr, len);
	return n == 0 && len > 0 ? -EFAULT : (int64_t)n;
}

static int64_t do_writev(struct diversion *d, const struct diversion_run *r, uint64_t iov, uint64_t cnt)
{
	if (cnt > IOV_MAX_LINUX)
		return -EINVAL;
	uint64_t total = 0;
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t v[2]; /* iov_base, iov_len */
		if (diversion_read_memory(d, iov + 16 * i, v, sizeof(v)) != sizeof(v))
			return total ? (int64_t)total : -EFAULT;
		uint64_t room = WRITE_MAX - total, len = v[1] < room ? v[1] : room;
		uint64_t n = emit(d, r, v[0], len);
		total += n;
		if (n < len)
			return total ? (int64_t)total : -EFAULT;
		if (len < v[1])
			break;
	}
	return (int64_t)total;
}

bool diversion_write_console(struct diversion *d, const struct diversion_run *r)
{
	struct emu_regs *regs = diversion_regs(d);
	uint64_t nr = regs->gpr[EMU_RAX];
	uint32_t fd = (uint32_t)regs->gpr[EMU_RDI]; /* an int for the kernel */
	if (!r->output || (nr != SYS_write && nr != SYS_writev) || (fd != 1 && fd != 2))
		return false;
	uint64_t a = regs->gpr[EMU_RSI], b = regs->gpr[EMU_RDX];
	int64_t result = nr == SYS_write ? do_write(d, r, a, b) : do_writev(d, r, a, b);
	regs->gpr[EMU_RAX] = (uint64_t)result;
	return true;
}
