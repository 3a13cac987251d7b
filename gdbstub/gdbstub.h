/*
 * gdbstub.h — the GDB remote serial protocol server, the only header other
 * folders include besides target.h.
 *
 * A session serves one GDB connection over a target (target.h). It can be
 * driven byte by byte (gdbstub_feed, for tests and fuzzing) or run by the
 * server loops over a pair of file descriptors or a TCP socket.
 */
#ifndef TTREC_GDBSTUB_H
#define TTREC_GDBSTUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdbstub/target.h"

/* Largest packet the stub accepts and sends, advertised as PacketSize. */
#define GDBSTUB_PACKET_SIZE 16384

/* The link to GDB, as a session sees it. */
struct gdbstub_io {
	void *ctx;
	/* Sends all len bytes; negative when the link is gone. */
	int (*write)(void *ctx, const void *buf, size_t len);
	/* Whether GDB sent an interrupt (0x03) since the last call; must not
	 * block. NULL: never. */
	bool (*interrupted)(void *ctx);
};

struct gdbstub;

/* NULL on allocation failure. The target and io must outlive the session. */
struct gdbstub *gdbstub_new(const struct gdbstub_target *target,
			    const struct gdbstub_io *io);
void gdbstub_free(struct gdbstub *stub);

/* Handles received bytes, answering through io. Negative when writing
 * failed. */
int gdbstub_feed(struct gdbstub *stub, const void *buf, size_t len);

/* True once GDB detached or killed the session (D, k, vKill). */
bool gdbstub_finished(const struct gdbstub *stub);

/* Serves one session on in_fd/out_fd until it ends or the link closes.
 * Returns 0 on a clean end, -1 on an I/O error (message on stderr). */
int gdbstub_serve_fds(const struct gdbstub_target *target, int in_fd, int out_fd);

/* Listens on bind_addr:port (NULL: 127.0.0.1), prints "listening on
 * ADDR:PORT" to stderr, accepts one connection and serves it. port 0
 * picks a free port. Returns as gdbstub_serve_fds. */
int gdbstub_serve_tcp(const struct gdbstub_target *target,
		      const char *bind_addr, uint16_t port);

#endif
