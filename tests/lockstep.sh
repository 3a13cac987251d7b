#!/bin/bash
# lockstep.sh — `ttrec run --verify`: real programs run on the emulator and
# the CPU in lockstep, bounded by --verify-max, must show no difference, and
# keep their output and exit status. Also: the default CPUID policy keeps
# glibc off the vector extensions the emulator lacks (on a CPU with CPUID
# faulting; without it, ttrec reports that the CPU's answers were used); a value changed behind
# the program's back is reported as a divergence (status 1, the differing
# register marked, a one-line verdict); options about the trace are refused;
# a missing program is a clear error; an xsavec whose XSTATE_BV keeps an
# initial component in use is taken as the CPU's.
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
PROGRAMS=$BUILD/tests/programs
MAX=100000
LIMIT=120
failed=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'lockstep test input\n%.0s' $(seq 50) >"$tmp/small.txt"

fail() {
	echo "FAIL: $*"
	failed=1
}

# verify NAME [TTREC OPTIONS] -- PROGRAM ARGS...: one verified run (at most
# $MAX instructions in lockstep, the rest native); its output and status
# must be the native run's. The report goes to $tmp/NAME.log.
verify() {
	local name=$1
	shift
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	local start=$SECONDS
	"$@" </dev/null >"$tmp/$name.native" 2>/dev/null
	local native_rc=$?
	timeout "$LIMIT" "$TTREC" run --verify --verify-max "$MAX" "${opts[@]}" -- "$@" \
		</dev/null >"$tmp/$name.out" 2>"$tmp/$name.log"
	local rc=$?
	if [ $rc -ne $native_rc ] || ! cmp -s "$tmp/$name.native" "$tmp/$name.out"; then
		fail "ttrec run --verify $* (exit $rc, natively $native_rc; output $(cmp -s "$tmp/$name.native" "$tmp/$name.out" && echo same || echo differs))"
		cat "$tmp/$name.log"
		return 1
	fi
	echo "ok: ttrec run --verify $* ($((SECONDS - start)) s)"
	sed -n 's/^ttrec: verify: \([0-9]* instructions verified:.*\)/  \1/p' "$tmp/$name.log"
	# The fallback summary, shortened to the most frequent instructions.
	grep -E '^ +[0-9]+  ' "$tmp/$name.log" | head -8
}

# /bin/true whole, to its own end (about 110,000 instructions).
MAX=200000 verify true -- /bin/true
if ! grep -q 'the program exited with status 0' "$tmp/true.log" ||
	grep -q 'stopped verifying' "$tmp/true.log"; then
	fail "/bin/true was not verified to its end"
fi
verify ls -- /bin/ls -l /usr
verify gzip -- gzip -c "$tmp/small.txt"
verify python -- python3 -c 'print(sum(range(10**5)))'
# x87 arithmetic past its first instructions (~105,000 in): on AMD the CPU
# keeps no last-instruction pointer while no exception is pending.
MAX=250000 verify x87 -- "$PROGRAMS/x87_modulo"
MAX=50000 verify exit-status -- /bin/sh -c 'echo to stdout; exit 3'
# A signal handler and an exec: CPUID faulting must be re-armed in the new image.
MAX=400000 verify signal-exec -- /bin/sh -c 'trap "echo handled" USR1; kill -USR1 $$; exec /bin/true'
if [ -f "$tmp/signal-exec.log" ] && ! grep -q 'signal SIGUSR1 delivered' "$tmp/signal-exec.log"; then
	fail "signal-exec: SIGUSR1 was not seen"
fi

# Whether this CPU has CPUID faulting (arch_prctl ARCH_SET_CPUID, tried in
# a child), independently of ttrec: the default CPUID policy needs it.
host_has_cpuid_faulting() {
	python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
pid = os.fork()
if pid == 0:
    os._exit(0 if libc.syscall(158, 0x1012, 0) == 0 else 1)  # arch_prctl(ARCH_SET_CPUID, 0)
os._exit(os.WEXITSTATUS(os.waitpid(pid, 0)[1]))
'
}
if host_has_cpuid_faulting; then
	# Under the default policy glibc must not pick VEX/EVEX or XSAVE code paths.
	for name in true signal-exec; do
		[ -f "$tmp/$name.log" ] || continue
		if grep -q 'cpuid policy default (no CPUID faulting)' "$tmp/$name.log"; then
			fail "default CPUID policy: $name: ttrec found no CPUID faulting on a CPU that has it"
		elif grep -qE '^ +[0-9]+  (v[a-z0-9]+|xsave[a-z0-9]*|xrstor[a-z0-9]*|xgetbv)$' "$tmp/$name.log"; then
			fail "default CPUID policy: $name stepped AVX or XSAVE instructions"
		else
			echo "ok: default CPUID policy keeps $name off AVX and XSAVE"
		fi
	done
else
	# Without CPUID faulting no policy can be applied: the program sees the
	# CPU's own answers. ttrec must say so, and the cpuid instructions must
	# have run on the CPU (stepped natively), not been answered by ttrec.
	for name in true signal-exec; do
		[ -f "$tmp/$name.log" ] || continue
		if ! grep -q 'cpuid policy default (no CPUID faulting)' "$tmp/$name.log"; then
			fail "no CPUID faulting on this CPU: $name's report does not say so"
		elif ! grep -qE '^ +[0-9]+  cpuid$' "$tmp/$name.log"; then
			fail "no CPUID faulting on this CPU: $name stepped no cpuid natively"
		else
			echo "ok: no CPUID faulting on this CPU: $name ran with the CPU's own cpuid answers, reported"
		fi
	done
fi
# And the native policy must let them through, on a CPU that has them:
# glibc's start-up then steps xgetbv (XSAVE enabled), and on a CPU with
# AVX-512 its EVEX string functions, which the emulator steps (their
# AVX2 forms it emulates, and they are not listed).
if grep -qw avx2 /proc/cpuinfo; then
	if MAX=200000 verify true-native --cpuid=native -- /bin/true &&
		! grep -qE '^ +[0-9]+  (v[a-z0-9]+|xsave[a-z0-9]*|xrstor[a-z0-9]*|xgetbv)$' \
			"$tmp/true-native.log"; then
		fail "native CPUID policy: /bin/true stepped no AVX or XSAVE instruction on an AVX2 CPU"
	fi
fi

# A deliberate divergence: an untraced child changes a shared counter
# between the emulator's read and the CPU's.
timeout "$LIMIT" "$TTREC" run --verify "$PROGRAMS/shared_counter_race" \
	</dev/null >/dev/null 2>"$tmp/race.log"
rc=$?
if [ $rc -eq 1 ] && grep -q '^ttrec: verify: DIVERGENCE at instruction [0-9]*, 0x[0-9a-f]*: ' "$tmp/race.log" &&
	grep -q '<-- differs' "$tmp/race.log" &&
	[ "$(tail -1 "$tmp/race.log" | grep -c '^ttrec: verify: FAILED: the emulator differs from the CPU at instruction [0-9]*$')" = 1 ]; then
	echo "ok: divergence reported (exit 1): $(tail -1 "$tmp/race.log")"
else
	fail "shared_counter_race: exit $rc (want 1), report:"
	cat "$tmp/race.log"
fi

# expect_usage_error PATTERN -- ARGS...: ttrec refuses the command line (64).
expect_usage_error() {
	local pattern=$1
	shift 2
	"$TTREC" "$@" </dev/null >/dev/null 2>"$tmp/usage.log"
	local rc=$?
	if [ $rc -eq 64 ] && [ "$(wc -l <"$tmp/usage.log")" -eq 1 ] && grep -q -- "$pattern" "$tmp/usage.log"; then
		echo "ok: refused: ttrec $* ($(cat "$tmp/usage.log"))"
	else
		fail "ttrec $*: exit $rc (want 64), message: $(cat "$tmp/usage.log")"
	fi
}
expect_usage_error '-o makes no sense with --verify' -- run --verify -o "$tmp/x.idna" /bin/true
expect_usage_error '--ring makes no sense with --verify' -- run --ring 1M --verify /bin/true
expect_usage_error '--checkpoint-interval makes no sense' -- run --verify --checkpoint-interval 1000 /bin/true
expect_usage_error '--verify-max needs --verify' -- run --verify-max 10 /bin/true
expect_usage_error 'bad --verify-max' -- run --verify --verify-max ten /bin/true
[ -e "$tmp/x.idna" ] && fail "a refused --verify wrote a trace"

# A program that does not exist, or cannot run, is a clear error.
"$TTREC" run --verify -- "$tmp/no-such-program" >/dev/null 2>"$tmp/missing.log"
rc=$?
if [ $rc -eq 66 ] && grep -q 'program not found' "$tmp/missing.log"; then
	echo "ok: missing program reported"
else
	fail "missing program: exit $rc: $(cat "$tmp/missing.log")"
fi
chmod -x "$tmp/small.txt"
"$TTREC" run --verify -- "$tmp/small.txt" >/dev/null 2>"$tmp/noexec.log"
rc=$?
if [ $rc -eq 77 ] && grep -q 'not executable' "$tmp/noexec.log"; then
	echo "ok: non-executable program reported"
else
	fail "non-executable program: exit $rc: $(cat "$tmp/noexec.log")"
fi

# rseq fails with ENOSYS under --verify as it does recorded: a registered
# area's cpu_id changes under both whenever the process changes CPU.
out=$(timeout 120 "$TTREC" run --verify -q -- "$BUILD/tests/programs/rseq_registration" 2>"$tmp/rseq.log")
rc=$?
if [ $rc -eq 0 ] &&
   [ "$out" = 'rseq registered by glibc: no, own registration: ENOSYS, sched_getcpu: answers' ]; then
	echo "ok: rseq answered ENOSYS under --verify"
else
	fail "rseq under --verify: exit $rc: $out $(cat "$tmp/rseq.log")"
fi

# xsavec after movaps loaded a zero into an XMM register: the CPU may keep
# SSE in use (XSTATE_BV bit 1) with every XMM register zero, where the
# emulator clears the bit; the verifier takes the CPU's header. Some CPUs
# keep it only while the kernel has not restored the program's registers
# in between: ttrec and the program on different CPUs make that the
# usual case (else both clear it, and the run checks nothing more).
pin_ttrec=() pin_program=()
# The first two CPUs this test may use (a container's set may not start at 0).
read -r cpu_a cpu_b < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
if [ -n "${cpu_b:-}" ]; then
	pin_ttrec=(taskset -c "$cpu_a") pin_program=(taskset -c "$cpu_b")
fi
out=$(timeout "$LIMIT" "${pin_ttrec[@]}" "$TTREC" run --verify -- "${pin_program[@]}" \
	"$PROGRAMS/xsave_in_use" 2>"$tmp/xsave.log")
rc=$?
if [ $rc -eq 0 ] && grep -q 'the program exited with status 0' "$tmp/xsave.log" &&
   { [ "$out" = 'xsavec of an initial SSE state: done' ] ||
     [ "$out" = 'no xsavec on this CPU: skipped' ]; }; then
	taken=$(sed -n 's/^ttrec: verify: \([0-9]*\) xsave headers took.*/\1/p' "$tmp/xsave.log")
	echo "ok: xsavec of an initial SSE state verified ($out; the CPU's XSTATE_BV taken ${taken:-0} times)"
else
	fail "xsave_in_use under --verify: exit $rc: $out $(head -20 "$tmp/xsave.log")"
fi

# Lockstep checks one thread against the CPU: a threaded program is
# refused clearly (ttrec run records it), not hung.
timeout 60 "$TTREC" run --verify -- "$BUILD/tests/programs/pthread_create" >/dev/null 2>"$tmp/thread.log"
rc=$?
if [ $rc -eq 70 ] && grep -q 'creates a thread' "$tmp/thread.log"; then
	echo "ok: threaded program refused by --verify"
else
	fail "threaded program under --verify: exit $rc: $(cat "$tmp/thread.log")"
fi

exit $failed
