#!/bin/bash
# peers.sh — the recorder beside emulators that record nothing, measured in
# the same minute on the CPU-bound set of record_bench.sh: each program runs
# natively, under QEMU's user mode (qemu-x86_64), under Valgrind with no
# tool (valgrind --tool=none), under `ttrec run` and `ttrec run --no-jit`.
# Prints seconds and the ratio to native of each. The machine's load moves
# every column alike, so compare ratios of one run, not across runs.
#
#   BUILD=build bash bench/peers.sh [--quick]
#
# The peers are Debian packages this script does not install:
#   apt-get install qemu-user valgrind
# A peer that is missing is skipped with a message (its column shows "-").
set -u
NAME=peers
. "$(dirname "$0")/cpu_set_inputs.bash"

QEMU=$(command -v qemu-x86_64 || true)
VALGRIND=$(command -v valgrind || true)
[ -n "$QEMU" ] || echo "peers: qemu-x86_64 not found (Debian package qemu-user): its column is skipped" >&2
[ -n "$VALGRIND" ] || echo "peers: valgrind not found (Debian package valgrind): its column is skipped" >&2

# timed INPUT -- COMMAND...: runs it, prints its seconds, or "-" when it
# failed or its output differs from the native run's.
timed() {
	local input=$1
	shift 2
	local t0 t1
	t0=$(now)
	"$@" <"$input" >"$tmp/peer.out" 2>"$tmp/peer.err"
	local rc=$?
	t1=$(now)
	if [ $rc -ne 0 ] || ! cmp -s "$tmp/native.out" "$tmp/peer.out"; then
		echo "peers: '$1' exited $rc or its output differs from the native run's:" >&2
		tail -n 3 "$tmp/peer.err" >&2
		echo -
		return
	fi
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

printf '%-10s %9s %16s %16s %16s %16s\n' program native_s qemu-x86_64 valgrind-none \
	'ttrec run' 'ttrec --no-jit'
# bench NAME INPUT -- COMMAND...: one row, each peer as "seconds (ratio)".
bench() {
	local name=$1 input=$2
	shift 3
	local native q=- v=- r j
	native=$(native_run "$name" "$input" -- "$@") || return
	# qemu-x86_64 does not search PATH.
	[ -n "$QEMU" ] && q=$(timed "$input" -- "$QEMU" "$(command -v "$1")" "${@:2}")
	[ -n "$VALGRIND" ] && v=$(timed "$input" -- "$VALGRIND" -q --tool=none "$@")
	r=$(timed "$input" -- "$TTREC" run -q -o "$tmp/rec.idna" -- "$@")
	j=$(timed "$input" -- "$TTREC" run -q --no-jit -o "$tmp/rec.idna" -- "$@")
	rm -f "$tmp/rec.idna"
	awk -v name="$name" -v n="$native" -v q="$q" -v v="$v" -v r="$r" -v j="$j" '
		function cell(s) { return s == "-" ? "-" : sprintf("%.2f (%.1fx)", s, s / n) }
		BEGIN { printf "%-10s %9.3f %16s %16s %16s %16s\n", name, n, cell(q), cell(v), cell(r), cell(j) }'
}

bench compute /dev/null -- "$BUILD/bench/record_workload" $scale
bench gzip-6 "$tmp/data.txt" -- gzip -6 -c
bench xz "$tmp/data-small.txt" -- xz -c
bench sort-n "$tmp/numbers.txt" -- sort --parallel=1 -n
bench python3 /dev/null -- "$PYTHON" -c "print(sum(i * i % 7 for i in range($loops)))"
