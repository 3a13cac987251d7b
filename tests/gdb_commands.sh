#!/usr/bin/env bash
# ttreplay's gdb commands (ttreplay --gdb-commands): when, goto,
# checkpoint/restart and last-write EXPR, sourced into a real gdb; the
# state gdb shows after goto and restart is the new time's, not what gdb
# had cached. Also every tool's --version.
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -g -O0 -o counter "$here/programs/counter.c" || exit 1
"$build/ttrec" run -q -o counter.idna ./counter 6 > /dev/null
"$build/ttreplay" --gdb-commands > ttreplay.gdb
replay() { # OUT gdb-arguments...
	local out=$1; shift
	gdb -batch -nx -ex 'set remotetimeout 600' -x ttreplay.gdb ./counter \
		-ex "target remote | $build/ttreplay counter.idna" "$@" > "$out" 2>&1
}

# The script loads without a complaint, gdb's confirm setting left as it was.
replay load.out -ex 'show confirm'
if grep -qiE 'error|undefined|not defined' load.out; then bad "loading: $(grep -m1 -iE 'error|undefined' load.out)"
else ok; fi
expect load.out 'Whether to confirm potentially dangerous operations is on' \
	"confirm on again after loading"

# bump(3) then bump(4): a checkpoint at the first, restart from the second.
# `by` lives on the stack, which gdb caches: without the flushes restart
# does, it would still show 4.
replay restart.out -ex 'break bump' -ex continue -ex checkpoint -ex continue -ex 'print by' \
	-ex 'restart 1' -ex 'print by' -ex 'print counter' -ex 'restart' -ex 'when'
expect restart.out '^checkpoint 1 at time [0-9]+' "checkpoint"
expect restart.out '^\$1 = 4$' "at the second bump"
expect restart.out '^now at checkpoint 1, time [0-9]+' "restart 1"
expect restart.out '^#0  bump \(by=3\)' "restart shows the checkpoint's frame"
expect restart.out '^\$2 = 3$' "restart: the argument of the first bump"
expect restart.out '^\$3 = 21$' "restart: counter as it was then"
expect restart.out '^checkpoint 1 at time' "restart without N lists the checkpoints"
expect restart.out '^time [0-9]+ of [0-9]+' "when"

# Who wrote counter last? Then go there: the frame is the writer's.
replay who.out -ex 'break bump' -ex continue -ex continue -ex 'last-write counter'
when=$(sed -n 's/^last-write of .*: time \([0-9]*\), .*/\1/p' who.out)
if [ -n "$when" ]; then ok; else bad "last-write counter: $(grep -m1 -i 'write\|error' who.out)"; fi
replay goto.out -ex "goto ${when:-0}" -ex 'print by'
expect goto.out '^#0  .* in bump \(by=3\)|^#0  bump \(by=3\)' "goto the last write: in the first bump"
expect goto.out '^\$1 = 3$' "goto: the argument there"
replay usage.out -ex 'goto' -ex 'restart 9'
expect usage.out 'usage: goto TIME' "goto without a time"
expect usage.out 'usage: monitor restart N' "restart of an unknown checkpoint"

# On a terminal ttreplay starts gdb itself, with the commands loaded.
if command -v script > /dev/null; then
	timeout 300 script -qec "$build/ttreplay counter.idna -- -batch -ex 'help goto' -ex when" \
		/dev/null > terminal.out 2>&1 < /dev/null
	expect terminal.out 'Move the replay to TIME' "the gdb ttreplay starts has the commands"
	expect terminal.out 'time 0 of [0-9]+' "... and is connected to the trace"
else
	echo "gdb_commands: no script(1): the terminal case is not checked"
fi

# The first resume, `monitor when` or `monitor goto` far ahead of a
# session waits for the first pass over the whole trace (seconds on this
# one, more under the sanitizers): its progress lines keep gdb's 2-second
# packet waits from running out ("Ignoring packet error"). --no-index: each
# session makes the pass (the first would otherwise write an index the
# others read).
cc -g -O0 -o late "$here/programs/late.c" || exit 1
"$build/ttrec" run -q -o late.idna ./late > /dev/null
for first in continue 'monitor when' 'monitor goto 200000000' stepi; do
	gdb -batch -nx ./late -ex "target remote | $build/ttreplay --no-index late.idna" -ex "$first" \
		> first.out 2>&1
	if grep -q 'Ignoring packet error\|Remote connection closed\|Remote communication error' first.out
	then bad "gdb gave up waiting on a first '$first': $(grep -m1 'packet error\|Remote' first.out)"
	else ok; fi
	if grep 'reading the trace' first.out |
	   grep -qvE '^ttreplay: reading the trace: [0-9]+ M instructions so far$'
	then bad "a progress line mixed with other output: $(grep -m1 'reading the trace' first.out)"
	else ok; fi
done

# The tools' --version; a ring too small for four chunks is a usage error.
for tool in ttrec ttreplay ttdump; do
	if "$build/$tool" --version | grep -qE "^$tool [0-9]+\.[0-9]+ \(trace format [0-9]+\.[0-9]+\)$"
	then ok; else bad "$tool --version"; fi
done
"$build/ttrec" run --ring 1 -o ring.idna true > ring.out 2>&1
rc=$?
if [ "$rc" -eq 64 ] && [ ! -e ring.idna ]; then ok; else bad "--ring 1: status $rc"; fi

finish gdb_commands
