#!/usr/bin/env bash
# gdb polls the socket it gives a `target remote | ttreplay` for its
# standard error with a read() before every byte of every reply, as long
# as it is open (replayer/stderr_to_tty.c): when gdb's own standard error
# is a pipe (or a terminal) ttreplay writes its messages there instead
# and the socket is closed; when it is a file, or when a shell between gdb
# and ttreplay holds the socket too, the socket stays. Either way
# ttreplay's messages reach gdb's standard error. (What is checked is
# where ttreplay's descriptor 2 leads, read in /proc, never a time.)
set -u
. "$(dirname "$0")/shared/checks.sh"

cat > hello.c <<'EOF2'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
EOF2
cc -g -O0 -o hello hello.c || exit 1
"$build/ttrec" run -q -o hello.idna ./hello > /dev/null || exit 1

# session REMOTE: gdb's standard output and error to its own standard
# output, the stub started by `target remote | REMOTE`; prints the name of
# the process between gdb and ttreplay (gdb itself when the shell that
# gdb starts replaced itself) and where ttreplay's descriptor 2 leads,
# then makes ttreplay say something on it (a write to memory the
# recording never showed).
session() {
	gdb -batch -nx ./hello -ex "target remote | $1" \
		-ex "python exec(open('$here/descendants.py').read())" \
		-ex 'set var *(int *)8 = 1' 2>&1
}

here=$PWD
cat > descendants.py <<'EOF2'
import os
def field(pid, name):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split()[1]
def children(pid):
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    out = []
    for p in pids:
        try:
            if int(field(p, "PPid")) == pid:
                out.append(p)
        except (OSError, TypeError):
            pass
    return out
for c in children(os.getpid()):
    for p in [c] + children(c):
        if field(p, "Name") == "ttreplay":
            print("parent", field(int(field(p, "PPid")), "Name"))
            print("fd2", os.readlink("/proc/%d/fd/2" % p))
EOF2

# `exec` makes gdb ttreplay's parent whatever the shell.
session "exec $build/ttreplay hello.idna" | cat > piped.out
sed -n 's/^\(parent\|fd2\) /  exec target remote: \1 /p' piped.out
expect piped.out '^parent gdb$' "the stub started by exec: gdb is ttreplay's parent"
expect piped.out '^fd2 pipe:' "gdb's standard error a pipe: ttreplay's is that pipe"
refuse piped.out '^fd2 socket:' "... and not gdb's socket any more"
expect piped.out '^ttreplay: cannot write 0x8' "... where its messages still reach"

session "exec $build/ttreplay hello.idna" > file.out
expect file.out '^fd2 socket:' "gdb's standard error a file: ttreplay keeps the socket"
expect file.out '^ttreplay: cannot write 0x8' "... and its messages reach gdb through it"

# A second command keeps the shell between them, holding the socket.
session "$build/ttreplay hello.idna; :" | cat > shell.out
expect shell.out '^parent (sh|dash|bash)$' "a shell kept between gdb and ttreplay"
expect shell.out '^fd2 socket:' "... ttreplay keeps the socket the shell holds too"
expect shell.out '^ttreplay: cannot write 0x8' "... and its messages reach gdb through it"

# The usual command, as the manual gives it: where ttreplay's messages
# go depends on whether this machine's shell replaces itself by its last
# command, but they reach gdb either way.
session "$build/ttreplay hello.idna" | cat > plain.out
expect plain.out '^ttreplay: cannot write 0x8' "plain \`target remote | ttreplay\`: messages reach gdb"
sed -n 's/^\(parent\|fd2\) /  plain target remote: \1 /p' plain.out

finish stderr_channel
