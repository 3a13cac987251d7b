"""A GDB remote-protocol client that goes away in the middle of a command:
connects to ttreplay --port, runs the replay to the end of history with
`c`, then sends a reverse-continue (`bc`) and closes the connection at once,
without waiting for the answer. With `unread`, it asks for the registers
and closes once their reply has arrived, unread: the server's next read
then fails with ECONNRESET instead of seeing an end of file.
Usage: client.py PORT [unread]"""
import re
import select
import socket
import sys


def packet(payload):
    return b"$%s#%02x" % (payload, sum(payload) & 0xFF)


def read_packet(conn):
    """Reads until one whole packet has arrived; returns it."""
    data = b""
    while True:
        found = re.search(rb"\$[^#]*#[0-9a-fA-F]{2}", data)
        if found:
            return found.group(0)
        chunk = conn.recv(4096)
        if not chunk:
            raise SystemExit("client: the server closed the link")
        data += chunk


def main():
    conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    if sys.argv[2:] == ["unread"]:
        conn.sendall(packet(b"g"))
        # The whole reply is waiting (peeked at, not taken): the server
        # wrote it and waits for the next packet when the reset comes.
        while True:
            waiting = conn.recv(1 << 16, socket.MSG_PEEK)
            if not waiting:
                raise SystemExit("client: the server closed the link")
            if re.search(rb"\$[^#]*#[0-9a-fA-F]{2}", waiting):
                break
            select.select([], [], [], 0.01)
        conn.close()
        return
    conn.sendall(packet(b"c"))
    print("client: continue answered", read_packet(conn).decode(errors="replace"))
    conn.sendall(b"+" + packet(b"bc"))
    conn.close()


main()
