#!/usr/bin/env bash
# gdb polls the socket it gives a `target remote | ttreplay` for its
# standard error with a read() before every byte of every reply, as long
# as it is open (replayer/stderr_to_tty.c): when gdb's own standard error
# is a pipe (or a terminal) ttreplay writes its messages there instead
# and the socket is closed; when it is a file the socket stays. Either
# way ttreplay's messages reach gdb's standard error. (What is checked is
# where ttreplay's descriptor 2 leads, read in /proc, never a time.)
set -u
. "$(dirname "$0")/shared/checks.sh"

cat > hello.c <<'EOF2'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
EOF2
cc -g -O0 -o hello hello.c || exit 1
"$build/ttrec" run -q -o hello.idna ./hello > /dev/null || exit 1

# session: gdb's standard output and error to its own standard output;
# prints where each child of gdb has its descriptor 2, then makes
# ttreplay say something on it (a write to memory the recording never
# showed).
session() {
	gdb -batch -nx ./hello -ex "target remote | $build/ttreplay hello.idna" \
		-ex 'python import os, subprocess; print(subprocess.run(["sh", "-c", "for p in $(pgrep -P %d); do echo fd2 $(readlink /proc/$p/fd/2); done" % os.getpid()], capture_output=True, text=True).stdout)' \
		-ex 'set var *(int *)8 = 1' 2>&1
}
session | cat > piped.out
expect piped.out '^fd2 pipe:' "gdb's standard error a pipe: ttreplay's is that pipe"
refuse piped.out '^fd2 socket:' "... and not gdb's socket any more"
expect piped.out '^ttreplay: cannot write 0x8' "... where its messages still reach"
session > file.out
expect file.out '^fd2 socket:' "gdb's standard error a file: ttreplay keeps the socket"
expect file.out '^ttreplay: cannot write 0x8' "... and its messages reach gdb through it"

finish stderr_channel
