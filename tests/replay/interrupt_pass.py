#!/usr/bin/env python3
"""interrupt_pass.py TTREPLAY TRACE: Ctrl-C while ttreplay reads the trace
ahead (its first pass, which the first continue runs on) stops the resume
with SIGINT at once, where the program was, and the next resume goes on
with the pass to the end of history.

Speaks the GDB remote protocol to `TTREPLAY TRACE` on pipes. The interrupt
byte goes out right behind the continue packet: whether the stub reads it
with the packet or polls it from the pipe while the pass runs, it is
there before the pass's first check. Exit status 0 when every check
passes; each failure is printed."""
import subprocess
import sys


def checksum(body):
    return '%02x' % (sum(body.encode()) & 0xff)


class Stub:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)

    def send(self, body, then=b''):
        self.p.stdin.write(('$%s#%s' % (body, checksum(body))).encode() + then)
        self.p.stdin.flush()

    def reply(self):
        """The next packet's body (acks skipped, each packet acked)."""
        c = self.p.stdout.read(1)
        while c in (b'+', b'-'):
            c = self.p.stdout.read(1)
        if c != b'$':
            raise RuntimeError('unexpected byte %r from the stub' % c)
        body = b''
        while True:
            c = self.p.stdout.read(1)
            if not c:
                raise RuntimeError('the stub closed the connection')
            if c == b'#':
                break
            body += c
        self.p.stdout.read(2)
        try:
            self.p.stdin.write(b'+')
            self.p.stdin.flush()
        except BrokenPipeError:
            pass  # a stub may end right after its last reply (D's OK)
        return body.decode()

    def stop_reply(self):
        """The reply to a resume: console output (O packets, the first
        pass's progress) comes before it."""
        body = self.reply()
        while body.startswith('O') and body != 'OK':
            body = self.reply()
        return body


def main():
    ttreplay, trace = sys.argv[1], sys.argv[2]
    stub = Stub([ttreplay, trace])
    failures = []
    stub.send('qSupported:swbreak+')
    stub.reply()
    stub.send('c', b'\x03')
    first = stub.stop_reply()
    if not first.startswith('T02'):
        failures.append('Ctrl-C during the first pass: stop reply %r, not T02' % first)
    stub.send('c')
    second = stub.stop_reply()
    if not second or second[0] not in 'TSWX':
        failures.append('the next continue: reply %r' % second)
    stub.send('D')
    stub.reply()
    try:
        stub.p.stdin.close()
    except BrokenPipeError:
        pass
    err = stub.p.stderr.read().decode()
    stub.p.wait()
    if 'interrupted while reading the trace ahead' not in err:
        failures.append('the pass was not interrupted (stderr: %r)' % err[-300:])
    if 'ttreplay: ' in err.replace('ttreplay: interrupted', ''):
        failures.append('ttreplay reported an error: %r' % err[-300:])
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
