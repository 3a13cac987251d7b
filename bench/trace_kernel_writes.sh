#!/bin/bash
# trace_kernel_writes.sh — what logging the kernel's writes (KERNEL_WRITE
# records, man/idna.5) costs in trace size: a few programs recorded with
# this build's ttrec and, with BEFORE=DIR, with the ttrec of an older build
# (one without those records) in the same invocation.
#
#   BUILD=build [BEFORE=old-build] bash bench/trace_kernel_writes.sh
set -u
BUILD=$(cd "${BUILD:-build}" && pwd)
before=${BEFORE:+$(cd "$BEFORE" && pwd)}
for tool in "$BUILD/ttrec" "$BUILD/ttdump" ${before:+"$before/ttrec"}; do
	[ -x "$tool" ] || { echo "trace_kernel_writes: $tool is missing" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seq 1 2000000 | head -c 10485760 > "$tmp/text"
head -c 10485760 /dev/urandom > "$tmp/random"
awk 'BEGIN { srand(1); for (i = 0; i < 200000; i++) print int(rand() * 1e9) }' > "$tmp/numbers"

size() { stat -c %s "$1"; }
printf '%-16s %12s %12s %8s %9s %12s %12s\n' workload before_bytes after_bytes growth kw_records kw_raw_bytes kw_zstd_est
run() { # name command...
	local name=$1; shift
	local b=-
	if [ -n "$before" ]; then
		"$before/ttrec" run -q -o "$tmp/before.idna" -- "$@" > /dev/null
		b=$(size "$tmp/before.idna")
	fi
	"$BUILD/ttrec" run -q -o "$tmp/after.idna" -- "$@" > /dev/null
	local a; a=$(size "$tmp/after.idna")
	"$BUILD/ttdump" "$tmp/after.idna" | awk -v n="$name" -v b="$b" -v a="$a" '
		$1 == "kernel-write" { r = $2; raw = $3; z = $4 }
		END { g = b == "-" ? "-" : sprintf("%+.1f%%", (a - b) * 100 / b)
		      printf "%-16s %12s %12d %8s %9d %12d %12d\n", n, b, a, g, r, raw, z }'
}
run cat-10M-text cat "$tmp/text"
run cat-10M-random cat "$tmp/random"
run sort-200k sort -n "$tmp/numbers"
run python3-pass python3 -c pass
run ls-l-usr-bin ls -l /usr/bin
# ioctls the recorder does not describe: what they may have written is
# logged as read back (4 bytes for TIOCGPTN, a page of the stack for
# TIOCOUTQ).
run ioctl-sized-100k "$BUILD/bench/syscall_workload" ioctl-sized 100000
run ioctl-old-100k "$BUILD/bench/syscall_workload" ioctl-old 100000
