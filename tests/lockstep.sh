#!/bin/bash
# lockstep.sh — runs real programs on the emulator and the CPU in lockstep
# (build/tests/bin/lockstep) and fails on the first difference. Also checks
# that the default CPUID policy keeps glibc off the vector extensions the
# emulator lacks, and that a missing program is a clear error.
set -u
BUILD=${BUILD:-build}
LOCKSTEP=$BUILD/tests/bin/lockstep
MAX=200000
failed=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'lockstep test input\n%.0s' $(seq 50) >"$tmp/small.txt"

# run NAME ARGS...: one lockstep run; its report goes to $tmp/NAME.log.
run() {
	local name=$1
	shift
	local start=$SECONDS
	"$LOCKSTEP" --max "$MAX" "$@" >/dev/null 2>"$tmp/$name.log" </dev/null
	local rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: lockstep $* (exit $rc)"
		cat "$tmp/$name.log"
		failed=1
		return 1
	fi
	echo "ok: lockstep $* ($((SECONDS - start)) s)"
	sed -n 's/^lockstep: \([0-9]* instructions:.*\)/  \1/p' "$tmp/$name.log"
	# The fallback summary, shortened to the most frequent instructions.
	grep -E '^ +[0-9]+  ' "$tmp/$name.log" | head -15
}

run true -- /bin/true
run ls -- /bin/ls -l /
run gzip -- gzip -c "$tmp/small.txt"
run python -- python3 -c 'print(sum(range(10**5)))'
# A signal handler and an exec: CPUID faulting must be re-armed in the new image.
run signal-exec --max 400000 -- /bin/sh -c 'trap "echo handled" USR1; kill -USR1 $$; exec /bin/true'
if [ -f "$tmp/signal-exec.log" ] && ! grep -q 'signal SIGUSR1 delivered' "$tmp/signal-exec.log"; then
	echo "FAIL: signal-exec: SIGUSR1 was not seen"
	failed=1
fi

# Under the default policy glibc must not pick VEX/EVEX or XSAVE code paths.
for name in true signal-exec; do
	[ -f "$tmp/$name.log" ] || continue
	if grep -qE '^ +[0-9]+  (v[a-z0-9]+|xsave[a-z0-9]*|xrstor[a-z0-9]*|xgetbv)$' "$tmp/$name.log"; then
		echo "FAIL: default CPUID policy: $name stepped AVX or XSAVE instructions"
		failed=1
	else
		echo "ok: default CPUID policy keeps $name off AVX and XSAVE"
	fi
done
# And the native policy must let them through, on a CPU that has them.
if grep -qw avx2 /proc/cpuinfo; then
	if run true-native --policy native -- /bin/true &&
		! grep -qE '^ +[0-9]+  v[a-z0-9]+$' "$tmp/true-native.log"; then
		echo "FAIL: native CPUID policy: /bin/true stepped no AVX instruction on an AVX2 CPU"
		failed=1
	fi
fi

# A program that does not exist is a clear error, not a crash.
"$LOCKSTEP" -- "$tmp/no-such-program" >/dev/null 2>"$tmp/missing.log"
rc=$?
if [ $rc -eq 2 ] && grep -q 'program not found' "$tmp/missing.log"; then
	echo "ok: missing program reported"
else
	echo "FAIL: missing program: exit $rc: $(cat "$tmp/missing.log")"
	failed=1
fi
chmod -x "$tmp/small.txt"
"$LOCKSTEP" -- "$tmp/small.txt" >/dev/null 2>"$tmp/noexec.log"
rc=$?
if [ $rc -eq 2 ] && grep -q 'not executable' "$tmp/noexec.log"; then
	echo "ok: non-executable program reported"
else
	echo "FAIL: non-executable program: exit $rc: $(cat "$tmp/noexec.log")"
	failed=1
fi

exit $failed
