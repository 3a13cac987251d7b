"""A GDB remote-protocol client that talks to `ttreplay TRACE` over its
standard input and output (as `target remote | ttreplay TRACE` does) and
checks what gdb does not exercise. Usage: client.py TTREPLAY TRACE PROBE
  points  64 breakpoints and watchpoints inserted, the 65th refused (E16),
          then accepted again once one is removed
  whole   a write watchpoint over the whole address space
          (Z2,0,ffffffffffffffff): continue to the end, then two
          reverse-continues each stop at a write, and a forward continue
          stops at the next one; one over all above user space lets
          reverse and forward continues reach both ends of history
  fuzz    well-framed packets mutated from real ones (a fixed count, a
          fixed seed): every one is answered or ends the session cleanly
          (a new server is started then), the server never dies of a signal
          and answers a plain query at the end
Prints one "ok: ..." line per check, "FAIL: ..." and exits 1 on the first
failure."""
import random
import re
import select
import subprocess
import sys

PACKET = re.compile(rb"\$([^#$]*)#[0-9a-fA-F]{2}")
REPLY_SECONDS = 600  # only a hung server takes this long


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def frame(payload):
    return b"$%s#%02x" % (payload, sum(payload) & 0xFF)


class Server:
    def __init__(self, ttreplay, trace):
        self.proc = subprocess.Popen([ttreplay, trace], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.data = b""
        self.send(b"QStartNoAckMode")
        if self.reply() != b"OK":
            fail("QStartNoAckMode not accepted")
        self.proc.stdin.write(b"+")
        self.proc.stdin.flush()

    def send(self, payload):
        self.proc.stdin.write(frame(payload))
        self.proc.stdin.flush()

    def reply(self):
        """The next packet's payload, or None once the server has gone."""
        while True:
            found = PACKET.search(self.data)
            if found:
                self.data = self.data[found.end():]
                return found.group(1)
            ready, _, _ = select.select([self.proc.stdout], [], [], REPLY_SECONDS)
            if not ready:
                fail("no answer in %d s" % REPLY_SECONDS)
            chunk = self.proc.stdout.read1(65536)
            if not chunk:
                return None
            self.data += chunk

    def ask(self, payload):
        try:
            self.send(payload)
        except BrokenPipeError:
            return None
        return self.reply()

    def ended(self):
        """The server's exit status once it has gone: never a signal."""
        status = self.proc.wait(timeout=REPLY_SECONDS)
        if status < 0:
            fail("ttreplay died of signal %d" % -status)
        return status


def stopped_at_write(answer):
    return answer is not None and answer.startswith(b"T") and b"watch:" in answer


def probe_points(server):
    for i in range(64):
        kind = i % 4  # 0 software, 1 hardware breakpoint, 2 write, 3 read watch
        size = 1 if kind < 2 else 8
        answer = server.ask(b"Z%d,%x,%d" % (kind, 0x400000 + 16 * i, size))
        if answer != b"OK":
            fail("point %d not inserted: %r" % (i + 1, answer))
    print("ok: 64 breakpoints and watchpoints inserted")
    answer = server.ask(b"Z0,500000,1")
    if answer != b"E16":
        fail("the 65th point answered %r, not E16" % answer)
    print("ok: the 65th refused with E16")
    if server.ask(b"z0,400000,1") != b"OK" or server.ask(b"Z0,500000,1") != b"OK":
        fail("a point could not replace a removed one")
    print("ok: a removed point's place taken by a new one")


def probe_whole(server):
    answer = server.ask(b"c")
    if answer is None or not answer.startswith((b"T", b"W", b"X")):
        fail("continue to the end answered %r" % answer)
    if server.ask(b"Z2,0,ffffffffffffffff") != b"OK":
        fail("a watchpoint over the whole address space was refused")
    first = server.ask(b"bc")
    if not stopped_at_write(first):
        fail("reverse-continue answered %r, not a stop at a write" % first)
    second = server.ask(b"bc")
    if not stopped_at_write(second):
        fail("a second reverse-continue answered %r" % second)
    print("ok: two reverse-continues stopped at writes")
    forward = server.ask(b"c")
    if not stopped_at_write(forward):
        fail("continue answered %r, not a stop at the next write" % forward)
    print("ok: a forward continue stopped at the next write")
    # Above user space nothing is written: both ends of history are
    # reached (a page-by-page check of this range would never end).
    if server.ask(b"z2,0,ffffffffffffffff") != b"OK" or \
       server.ask(b"Z2,800000000000,ffff800000000000") != b"OK":
        fail("a watchpoint above user space was refused")
    for command, end in ((b"bc", b"replaylog:begin"), (b"c", b"replaylog:end")):
        answer = server.ask(command)
        if answer is None or end not in answer:
            fail("%r under a watch above user space answered %r" % (command, answer))
    print("ok: under a watch above user space both ends of history were reached")


CORPUS = [
    b"qSupported:multiprocess+;swbreak+;hwbreak+", b"vMustReplyEmpty", b"Hg0",
    b"Hc-1", b"?", b"qfThreadInfo", b"qsThreadInfo", b"qAttached", b"g", b"p10",
    b"P10=0000000000000000", b"m401000,40", b"x401000,40", b"M1000,2:0000",
    b"vCont?", b"vCont;s:1;c", b"vCont;c", b"c", b"s", b"bs", b"bc", b"C0b",
    b"Z0,401000,1", b"z0,401000,1", b"Z1,401020,1", b"Z2,1000,8", b"Z3,1004,4",
    b"Z4,1003,2", b"z2,1000,8", b"qXfer:features:read:target.xml:0,ffb",
    b"qXfer:auxv:read::0,1000", b"qXfer:exec-file:read:1:0,fff",
    b"qXfer:threads:read::0,1000", b"qXfer:libraries-svr4:read::0,1000",
    b"qRcmd,68656c70", b"qRcmd,7768656e", b"qRcmd,676f746f20353030", b"T1",
    b"qC", b"qSymbol::", b"vFile:setfs:0", b"vFile:open:2f6574632f686f737473,0,0",
    b"vFile:pread:0,40,0", b"vFile:close:0", b"vKill;1", b"D", b"k",
]
INTERESTING = b",:;=-}*0123456789abcdefABCDEF"


def mutate(rng, seed):
    out = bytearray(seed)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(out))
        what = rng.randrange(5)
        byte = rng.choice(INTERESTING) if rng.randrange(3) else rng.randrange(256)
        if what == 0 and at < len(out):
            out[at] = byte
        elif what == 1:
            out.insert(at, byte)
        elif what == 2 and at < len(out):
            del out[at]
        elif what == 3:
            del out[at:]
        elif what == 4:
            out[at:at] = b"ffffffffffffffff1"
    # What would break the framing is escaped as gdb does.
    escaped = bytearray()
    for b in out:
        if b in b"$#}*":
            escaped += bytes([0x7D, b ^ 0x20])
        else:
            escaped.append(b)
    return bytes(escaped)


def probe_fuzz(ttreplay, trace, count):
    rng = random.Random(21)
    server = Server(ttreplay, trace)
    sessions = 1
    for _ in range(count):
        payload = mutate(rng, rng.choice(CORPUS))
        if server.ask(payload) is None:
            status = server.ended()
            if status != 0:
                fail("ttreplay exited %d after %r" % (status, payload))
            server = Server(ttreplay, trace)
            sessions += 1
    if server.ask(b"qAttached") != b"1":
        fail("the last session does not answer qAttached")
    server.proc.stdin.close()
    server.ended()
    print("ok: %d mutated packets answered over %d sessions" % (count, sessions))


def main():
    ttreplay, trace, probe = sys.argv[1:4]
    if probe == "fuzz":
        probe_fuzz(ttreplay, trace, int(sys.argv[4]) if len(sys.argv) > 4 else 1500)
        return
    server = Server(ttreplay, trace)
    {"points": probe_points, "whole": probe_whole}[probe](server)
    server.proc.stdin.close()
    if server.ended() != 0:
        fail("ttreplay did not exit 0 when the link closed")


main()
