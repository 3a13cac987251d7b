/*
 * remote_memory.c — process_vm_readv/writev for the program's own accesses,
 * /proc/PID/mem for the supervisor's forced writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "recorder/remote_memory.h"

void remote_memory_init(struct remote_memory *rm, pid_t pid)
{
	rm->pid = pid;
	rm->mem_fd = -1;
}

void remote_memory_reset(struct remote_memory *rm)
{
	if (rm->mem_fd >= 0)
		close(rm->mem_fd);
	rm->mem_fd = -1;
}

/* Bytes transferred from the start of the range: the kernel stops at the
 * first page it cannot access. */
static size_t transfer(pid_t pid, uint64_t addr, void *buf, size_t size, bool write)
{
	size_t done = 0;
	while (done < size) {
		struct iovec local = { (char *)buf + done, size - done };
		struct iovec remote = { (void *)(uintptr_t)(addr + done), size - done };
		ssize_t n = write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
				  : process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return done;
}

/* Addresses whose range wraps around the top of the address space cannot
 * name mapped memory. */
static bool range_ok(uint64_t addr, size_t size)
{
	return addr + size >= addr;
}

int remote_memory_read(struct remote_memory *rm, uint64_t addr, void *buf, size_t size)
{
	if (!range_ok(addr, size))
		return EMU_MEM_FAULT;
	return transfer(rm->pid, addr, buf, size, false) == size ? EMU_MEM_OK : EMU_MEM_FAULT;
}

int remote_memory_write(struct remote_memory *rm, uint64_t addr, const void *buf, size_t size)
{
	if (!range_ok(addr, size))
		return EMU_MEM_FAULT;
	/* A partial write has already changed memory, as a CPU's store that
	 * faults halfway across a page boundary can; callers that must not
	 * see that check remote_memory_writable() first. */
	return transfer(rm->pid, addr, (void *)buf, size, true) == size ? EMU_MEM_OK
									 : EMU_MEM_FAULT;
}

int remote_memory_write_runs(struct remote_memory *rm, const struct iovec *local,
			     const struct iovec *remote, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t count = n - i < 1024 ? n - i : 1024; /* IOV_MAX */
		ssize_t done = process_vm_writev(rm->pid, local + i, count, remote + i, count, 0);
		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0)
			return EMU_MEM_FAULT;
		/* The kernel stops between elements, never inside one. */
		while (i < n && (size_t)done >= local[i].iov_len) {
			done -= (ssize_t)local[i].iov_len;
			i++;
		}
		if (done != 0)
			return EMU_MEM_FAULT;
	}
	return EMU_MEM_OK;
}

size_t remote_memory_fetch(struct remote_memory *rm, uint64_t addr, void *buf, size_t size)
{
	if (!range_ok(addr, size))
		size = -addr;
	return transfer(rm->pid, addr, buf, size, false);
}

bool remote_memory_writable(struct remote_memory *rm, uint64_t addr, size_t size)
{
	uint8_t chunk[256];
	while (size > 0) {
		size_t n = size < sizeof(chunk) ? size : sizeof(chunk);
		if (remote_memory_read(rm, addr, chunk, n) != EMU_MEM_OK ||
		    remote_memory_write(rm, addr, chunk, n) != EMU_MEM_OK)
			return false;
		addr += n;
		size -= n;
	}
	return true;
}

int remote_memory_poke(struct remote_memory *rm, uint64_t addr, const void *buf, size_t size)
{
	if (rm->mem_fd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)rm->pid);
		rm->mem_fd = open(path, O_RDWR | O_CLOEXEC);
		if (rm->mem_fd < 0)
			return -1;
	}
	size_t done = 0;
	while (done < size) {
		ssize_t n = pwrite(rm->mem_fd, (const char *)buf + done, size - done,
				   (off_t)(addr + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

static int ops_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	return remote_memory_read(ctx, addr, buf, size);
}

static int ops_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	return remote_memory_write(ctx, addr, buf, size);
}

static size_t ops_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	return remote_memory_fetch(ctx, addr, buf, size);
}

const struct emu_memory_ops remote_memory_ops = {
	.read = ops_read,
	.write = ops_write,
	.fetch = ops_fetch,
};
