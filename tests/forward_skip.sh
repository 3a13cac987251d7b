#!/usr/bin/env bash
# Forward continues skip the snapshot segments that cannot stop them
# (replayer/search_forward.c): the same gdb script (breakpoints far
# ahead, one in a thread made meanwhile, signals gdb stops at and one it
# passes on, a caught syscall, a watched write, the end of history, a
# breakpoint never hit) is answered identically by a session whose
# continues run the first pass as they go (--no-index, nothing run
# first: up to the end of history its continues skip only segments the
# pass has read, and the script asks nothing that needs the whole history
# until then), one that made the whole pass first, and one that read the
# replay index; the last two skip segments (monitor info counts them).
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -g -O0 -pthread -o ahead "$here/programs/ahead.c" || exit 1
"$build/ttrec" run -q -o ahead.idna ./ahead > /dev/null || exit 1

# session OUT FIRST-COMMAND [TTREPLAY-OPTIONS]: what gdb shows from the
# script's first part on, the line of monitor info that differs by how the
# pass was made (and how many segments were skipped) left out (OUT.raw:
# all of it).
session() {
	local out=$1 first=$2; shift 2
	gdb -batch -nx -ex 'set remotetimeout 600' ./ahead \
		-ex "target remote | $build/ttreplay $* ahead.idna" -ex "$first" \
		-x "$here/ahead.gdb" > "$out.raw" 2>&1
	sed -n '/^@@ /,$p' "$out.raw" |
		grep -vE '^(ttreplay: reading the trace|first pass: |segments forward continues skipped: )' > "$out"
}
skipped() { sed -n 's/^segments forward continues skipped: \([0-9]*\)$/\1/p' "$1"; }

# stops OUT: each stop of the script, where it should be.
stops() {
	local f=$1.raw
	expect "$f" '^Breakpoint 1, touch \(k=1\)' "$1: a breakpoint far ahead"
	count "$f" 'received signal SIGUSR1' 2 "$1: a signal far ahead"
	refuse "$f" 'received signal SIGUSR2' "$1: a signal gdb passes on is no stop"
	expect "$f" '^Thread 2 hit Breakpoint 1, touch \(k=10\)' "$1: a breakpoint in a thread made meanwhile"
	expect "$f" 'call to syscall getppid' "$1: a caught syscall's entry"
	expect "$f" 'returned from syscall getppid' "$1: a caught syscall's return"
	expect "$f" '^Hardware watchpoint 3: late_value\[0\]' "$1: a watched write far ahead"
	expect "$f" '^Thread 1 hit Breakpoint 1, touch \(k=2\)' "$1: the last breakpoint hit"
	count "$f" 'No more reverse-execution history' 3 "$1: the end of history"
	refuse "$f" 'never_called \(\)' "$1: a breakpoint never hit"
	expect "$f" '^@@ figures' "$1: the script ran to its end"
}
count() { # count FILE PATTERN N DESCRIPTION
	local n
	n=$(grep -cE -- "$2" "$1")
	[ "$n" = "$3" ] && ok || bad "$4: '$2' $n times, not $3"
}

session ahead.out echo --no-index
stops ahead.out

session whole.out 'monitor snapshots' --no-index
stops whole.out
same ahead.out whole.out "the session that made the pass first"
[ "$(skipped whole.out.raw)" -gt 0 ] 2>/dev/null && ok ||
	bad "no segment skipped after the pass: $(grep '^segments' whole.out.raw)"

"$build/ttreplay" --index ahead.idna > /dev/null 2>&1
session indexed.out echo
stops indexed.out
same ahead.out indexed.out "the session that read the index"
expect indexed.out.raw '^first pass: read from .*ahead\.idna\.idx$' "the index was read"
[ "$(skipped indexed.out.raw)" -gt 0 ] 2>/dev/null && ok ||
	bad "no segment skipped with the index: $(grep '^segments' indexed.out.raw)"

# monitor next-write looks past the signals and the caught syscall on the
# way (a continue stops at them; the search must not end there and say
# there is no write).
gdb -batch -nx -ex 'set remotetimeout 600' ./ahead -ex "target remote | $build/ttreplay ahead.idna" \
	-ex 'break touch' -ex 'catch syscall getppid' -ex continue \
	-ex 'eval "monitor next-write %lu 8", (unsigned long) &late_value[0]' \
	-ex 'monitor when' > next-write.out 2>&1
expect next-write.out '^next-write of \[0x[0-9a-f]+, \+8\): time [0-9]+, by the instruction at ' \
	"monitor next-write past a signal and a caught syscall"
expect next-write.out '^Breakpoint 1, touch \(k=1\)' "next-write: from the first breakpoint"
if [ "$(grep -c '^time [0-9]* of ' next-write.out)" = 1 ]; then ok
else bad "next-write: monitor when after it: $(grep '^time' next-write.out)"; fi

finish forward_skip
