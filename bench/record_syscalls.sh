#!/bin/bash
# record_syscalls.sh — what one system call costs while recorded: each kind
# of bench/syscall_workload natively and under `ttrec run`, in this one
# invocation. The clocks ttrec answers itself (clock, timeofday) against
# syscalls the real process runs (cputime, getppid, read).
#
#   BUILD=build bash bench/record_syscalls.sh [CALLS]
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
WORKLOAD=$BUILD/bench/syscall_workload
for tool in "$TTREC" "$WORKLOAD"; do
	[ -x "$tool" ] || { echo "record_syscalls: $tool is missing: run make bench" >&2; exit 1; }
done
calls=${1:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }

printf '%-10s %7s %10s %11s %12s %14s %10s\n' kind calls native_s recorded_s native_us/call recorded_us/call slowdown
for kind in clock timeofday cputime getppid read; do
	t0=$(now)
	"$WORKLOAD" $kind "$calls" >"$tmp/native.out" || { echo "$kind: native run failed" >&2; continue; }
	t1=$(now)
	"$TTREC" run -q -o "$tmp/t.idna" -- "$WORKLOAD" $kind "$calls" >"$tmp/rec.out"
	rc=$?
	t2=$(now)
	if [ $rc -ne 0 ] || ! cmp -s "$tmp/native.out" "$tmp/rec.out"; then
		echo "$kind: the recorded run differs from the native one (exit $rc)" >&2
		continue
	fi
	awk -v k=$kind -v n="$calls" -v t0="$t0" -v t1="$t1" -v t2="$t2" 'BEGIN {
		a = t1 - t0; b = t2 - t1
		printf "%-10s %7d %10.3f %11.3f %12.3f %14.2f %9.0fx\n", k, n, a, b, a / n * 1e6, b / n * 1e6, b / a }'
done
