/*
 * server.c — the loops that run a session over file descriptors: a pair
 * (stdin/stdout under GDB's "target remote | CMD") or one TCP connection
 * accepted on a loopback port. While the target runs, the link is polled
 * without blocking for GDB's 0x03 interrupt; other bytes that arrive then
 * are kept and handled after the stop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gdbstub/gdbstub.h"

struct fd_link {
	int in_fd, out_fd;
	/* Bytes read while polling for an interrupt, handled later. */
	uint8_t pending[GDBSTUB_PACKET_SIZE];
	size_t pending_len;
	bool closed;
};

/* One write to GDB. A socket is written with MSG_NOSIGNAL and a pipe with
 * SIGPIPE blocked in this thread: a GDB that went away (during a long
 * reverse-continue, say) ends the session with an error from the write,
 * never the server with a signal. */
static ssize_t write_no_sigpipe(int fd, const void *buf, size_t len)
{
	ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
	if (n >= 0 || errno != ENOTSOCK)
		return n;
	sigset_t pipe_only, old;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	n = write(fd, buf, len);
	int saved = errno;
	if (n < 0 && saved == EPIPE && !sigismember(&old, SIGPIPE)) {
		/* Take back the SIGPIPE the write left pending, so it does not
		 * strike when the mask is restored. */
		struct timespec zero = { 0, 0 };
		sigtimedwait(&pipe_only, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return n;
}

static int link_write(void *ctx, const void *buf, size_t len)
{
	struct fd_link *link = ctx;
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = write_no_sigpipe(link->out_fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			link->closed = true; /* GDB went away */
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static bool link_interrupted(void *ctx)
{
	struct fd_link *link = ctx;
	struct pollfd pfd = { .fd = link->in_fd, .events = POLLIN };
	bool interrupt = false;
	while (!link->closed && link->pending_len < sizeof(link->pending) &&
	       poll(&pfd, 1, 0) > 0) {
		uint8_t byte;
		ssize_t n = read(link->in_fd, &byte, 1);
		if (n <= 0) {
			/* GDB went away: stop now, the main loop sees EOF. */
			link->closed = true;
			return true;
		}
		if (byte == 0x03)
			interrupt = true;
		else
			link->pending[link->pending_len++] = byte;
	}
	return interrupt;
}

/* A write to GDB failed: the session ends. GDB closing the link (even in
 * the middle of a command) ends it as cleanly as a detach; 0 then. */
static int link_lost(const struct fd_link *link)
{
	if (link->closed) {
		fprintf(stderr, "gdbstub: gdb closed the link; the session is over\n");
		return 0;
	}
	fprintf(stderr, "gdbstub: writing to gdb failed: %s\n", strerror(errno));
	return -1;
}

static int serve_link(const struct gdbstub_target *target, struct fd_link *link)
{
	struct gdbstub_io io = { link, link_write, link_interrupted };
	struct gdbstub *stub = gdbstub_new(target, &io);
	if (!stub) {
		fprintf(stderr, "gdbstub: out of memory\n");
		return -1;
	}
	int rc = 0;
	uint8_t buf[4096];
	while (!gdbstub_finished(stub)) {
		if (link->pending_len) {
			uint8_t held[sizeof(link->pending)];
			size_t n = link->pending_len;
			memcpy(held, link->pending, n);
			link->pending_len = 0;
			if (gdbstub_feed(stub, held, n) < 0) {
				rc = link_lost(link);
				break;
			}
			continue;
		}
		if (link->closed)
			break;
		ssize_t n = read(link->in_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ECONNRESET) {
			/* GDB closed its end with our reply unread: gone, as at
			 * end of file. */
			link->closed = true;
			rc = link_lost(link);
			break;
		}
		if (n < 0) {
			fprintf(stderr, "gdbstub: reading from gdb: %s\n", strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0)
			break; /* GDB closed the link: the session is over */
		if (gdbstub_feed(stub, buf, (size_t)n) < 0) {
			rc = link_lost(link);
			break;
		}
	}
	gdbstub_free(stub);
	return rc;
}

int gdbstub_serve_fds(const struct gdbstub_target *target, int in_fd, int out_fd)
{
	static struct fd_link link; /* large; one session at a time */
	memset(&link, 0, sizeof(link));
	link.in_fd = in_fd;
	link.out_fd = out_fd;
	return serve_link(target, &link);
}

int gdbstub_serve_tcp(const struct gdbstub_target *target, const char *bind_addr,
		      uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	if (!bind_addr)
		bind_addr = "127.0.0.1";
	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "gdbstub: not an IPv4 address: %s\n", bind_addr);
		return -1;
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "gdbstub: socket: %s\n", strerror(errno));
		return -1;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	socklen_t sl = sizeof(sa);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		fprintf(stderr, "gdbstub: cannot listen on %s:%u: %s\n", bind_addr,
			port, strerror(errno));
		close(fd);
		return -1;
	}
	fprintf(stderr, "listening on %s:%u\n", bind_addr, ntohs(sa.sin_port));
	int conn;
	do
		conn = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	while (conn < 0 && errno == EINTR);
	close(fd);
	if (conn < 0) {
		fprintf(stderr, "gdbstub: accept: %s\n", strerror(errno));
		return -1;
	}
	/* Packets are small and interactive. */
	setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	int rc = gdbstub_serve_fds(target, conn, conn);
	close(conn);
	return rc;
}
