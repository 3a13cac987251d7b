#!/usr/bin/env bash
# A gdb session's first pass over long histories, and jumps after it.
# Records sort -n of 10^6 numbers (one thread, about 5 G instructions) and
# xz of 1 MB (about 2.4 G), then times a gdb session on each trace
# without an index: open and continue to the end of history (the whole
# first pass, serial, with its snapshots), then five `monitor goto` to
# times spread over the history, each followed by a reverse-stepi. Prints
# the recording's wall seconds beside the session's, its peak RSS and how
# many snapshots went to the spill file.
#   BUILD=build bash bench/first_pass_jumps.sh
#   BASELINE=OTHER/ttreplay: also an older build's session on the same traces
set -eu
build=$(cd "${BUILD:-build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export LC_ALL=C
awk 'BEGIN { srand(5); for (i = 0; i < 1000000; i++) printf "%d\n", int(rand() * 2^31) - 2^30 }' > numbers
awk 'BEGIN { srand(3); for (i = 0; i < 26215; i++)
	printf "%08d %x %s %d\n", i, int(rand() * 2^31), (rand() < 0.5 ? "alpha" : "beta"), int(rand() * 1000) }' > text

# The jumps, as fractions of the history (its length asked of the stub).
cat > jumps.gdb <<'EOF'
set pagination off
continue
python
import time, gdb
out = gdb.execute('monitor when', to_string=True)
end = max(int(w) for w in out.replace(',', ' ').split() if w.isdigit())
for f in (0.2, 0.4, 0.3, 0.25, 0.06):
    t0 = time.time(); gdb.execute('monitor goto %d' % int(end * f), to_string=True)
    t1 = time.time(); gdb.execute('reverse-stepi', to_string=True); t2 = time.time()
    print('jump %.1f%%: goto %.3f s, reverse-stepi %.3f s' % (100 * f, t1 - t0, t2 - t1))
end
monitor info
EOF

now() { date +%s.%N; }
session() { # NAME LABEL TTREPLAY TRACE
	/usr/bin/time -f '%e %M' -o time.out gdb -batch -nx -ex 'set remotetimeout 600' \
		-ex "target remote | $3 --no-index $4" -x jumps.gdb > session.out 2>&1
	read -r wall kb < time.out
	local spilled
	spilled=$(sed -n 's/^snapshots in the spill file: \(.*\)/\1/p' session.out)
	printf '%-9s %-9s %8.2f s %6d MB   spilled: %s\n' "$1" "$2" "$wall" $((kb / 1024)) "$spilled"
	grep '^jump' session.out | sed 's/^/      /'
}
record() { # NAME INPUT COMMAND...
	local name=$1 input=$2 t0 t1
	shift 2
	t0=$(now)
	"$build/ttrec" run -q -o "$name.idna" -- "$@" < "$input" > /dev/null
	t1=$(now)
	awk -v n="$name" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-9s recording %8.2f s\n", n, b - a }'
}
record sort numbers sort --parallel=1 -n
record xz text xz -c
for name in sort xz; do
	session "$name" session "$build/ttreplay" "$name.idna"
	if [ -n "${BASELINE:-}" ]; then session "$name" baseline "$BASELINE" "$name.idna"; fi
done
