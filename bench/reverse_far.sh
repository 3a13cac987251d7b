#!/usr/bin/env bash
# reverse_far.sh — the issue's "10^9 instructions back": from the end of
# the history of bench/reverse_far.c, reverse-continue to a breakpoint hit
# once at the start, and reverse-continue under a watchpoint to the only
# write of a variable, also at the start; both in the first session
# (which makes the first pass: the end of history needs it) and in a
# second one that reads the replay index. Times are gdb's wall time per
# command (its Python), beside the recording's.
#   BUILD=build bash bench/reverse_far.sh [ITERATIONS]   (default 1.25 x 10^8: about 10^9 instructions)
set -eu
build=$(cd "${BUILD:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
iterations=${1:-125000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cc -g -O1 -o reverse_far "$here/reverse_far.c"
/usr/bin/time -f '%e %U %S' -o rec.time "$build/ttrec" run -q -o far.idna ./reverse_far "$iterations" > /dev/null
echo "recording: $(awk '{ printf "%s s wall, %.2f s CPU", $1, $2 + $3 }' rec.time);" \
	"$("$build/ttreplay" --no-index --info far.idna | sed -n 's/^instructions: //p') instructions"
cat > timed.gdb <<'EOF2'
python
import time
def timed(label, *cmds):
    t0 = time.perf_counter()
    for c in cmds:
        gdb.execute(c, to_string=True)
    took = time.perf_counter() - t0
    where = gdb.selected_frame().name() if gdb.selected_thread() else "(no thread)"
    print("%-40s %9.3f s   stopped in %s" % (label, took, where))
timed("continue to the end of history", "continue")
gdb.execute("break called_once", to_string=True)
timed("reverse-continue to the breakpoint", "reverse-continue")
gdb.execute("delete", to_string=True)
timed("continue to the end again", "continue")
gdb.execute("watch written_once", to_string=True)
timed("watch + reverse-continue to the write", "reverse-continue")
end
EOF2
for session in "first (no index yet)" "second (the index)"; do
	echo "$session session:"
	gdb -batch -nx ./reverse_far -ex 'set remotetimeout 600' \
		-ex "target remote | $build/ttreplay far.idna" -x timed.gdb 2>&1 | grep ' s   '
done
