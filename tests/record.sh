#!/bin/bash
# record.sh — records real programs with `ttrec run` and compares each with a
# native run of the same command: stdout, stderr and exit status must be
# byte-identical (ttrec's own "killed by signal" line aside), and the trace
# must replay consistently (`ttreplay --verify`). Covers
# coreutils, compressors, interpreters, shell pipelines, a #! script, the
# C programs of tests/programs/, and ttrec's own error statuses.
set -u
BUILD=${BUILD:-build}
SAN=${SAN:-0}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
PROGRAMS=$BUILD/tests/programs
# Bound every recording: a recorder that stops noticing the program must
# fail the test, not hang it.
LIMIT=60
failed=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC

# Inputs: deterministic, smaller under the sanitizers.
if [ "$SAN" = 1 ]; then lines=2000; else lines=20000; fi
awk -v n="$lines" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%d\n", int(rand() * 1000000) - 500000 }' \
	>"$tmp/numbers.txt"
awk -v n="$lines" 'BEGIN { for (i = 0; i < n; i++) printf "line %d: the quick brown fox %d jumps\n", i, i * i % 977 }' \
	>"$tmp/text.txt"
mkdir -p "$tmp/tree/a/b" "$tmp/tree/c"
for f in a/one a/b/two a/b/three c/four five; do
	printf 'file %s\nneedle in %s\nhay\n' "$f" "$f" >"$tmp/tree/$f.txt"
done
# Fixed times and modes, so ls -l and tar see the same tree on every run.
find "$tmp/tree" -exec touch -h -d '2024-01-02 03:04:05' {} +
chmod -R u=rwX,go=rX "$tmp/tree"
cat >"$tmp/script.sh" <<'EOF'
#!/bin/sh
# A #! script: the kernel runs /bin/sh on it.
echo "script args: $*"
i=0
while [ $i -lt 5 ]; do i=$((i + 1)); done
echo "counted to $i"
exit 4
EOF
chmod +x "$tmp/script.sh"

# record NAME STDIN [--killed] -- COMMAND...: runs COMMAND natively and under
# ttrec with STDIN as input, in the same directory and environment.
record() {
	local name=$1 input=$2
	shift 2
	local killed=0
	if [ "$1" = --killed ]; then killed=1; shift; fi
	shift # --
	local d=$tmp/run-$name start=$SECONDS
	mkdir -p "$d"
	(cd "$d" && "$@") <"$input" >"$d/native.out" 2>"$d/native.err"
	local native_rc=$?
	(cd "$d" && timeout "$LIMIT" "$TTREC" run -q -o "$d/trace.idna" -- "$@") \
		<"$input" >"$d/rec.out" 2>"$d/rec.err"
	local rec_rc=$?
	local why=""
	[ $rec_rc -eq $native_rc ] || why="exit status $rec_rc, natively $native_rc"
	cmp -s "$d/native.out" "$d/rec.out" || why="$why${why:+; }stdout differs"
	if [ $killed = 1 ]; then
		# ttrec says which signal; the rest of stderr is the program's.
		local sig=$((native_rc - 128))
		grep -q "^ttrec: the program was killed by signal $sig " "$d/rec.err" ||
			why="$why${why:+; }no 'killed by signal $sig' message"
		grep -v '^ttrec: ' "$d/rec.err" >"$d/rec.err.program"
		mv "$d/rec.err.program" "$d/rec.err"
	fi
	cmp -s "$d/native.err" "$d/rec.err" || why="$why${why:+; }stderr differs"
	[ -s "$d/trace.idna" ] || why="$why${why:+; }no trace written"
	# The recording must replay to the same end (ttreplay --verify).
	if [ -s "$d/trace.idna" ] &&
	   ! timeout "$LIMIT" "$BUILD/ttreplay" --verify "$d/trace.idna" >"$d/verify.out" 2>&1; then
		why="$why${why:+; }replay: $(tail -1 "$d/verify.out")"
	fi
	if [ -n "$why" ]; then
		echo "FAIL: $name: $why"
		diff "$d/native.out" "$d/rec.out" | head -10
		diff "$d/native.err" "$d/rec.err" | head -10
		failed=1
		return 1
	fi
	echo "ok: $name ($((SECONDS - start)) s)"
}

n=/dev/null
record ls-l "$n" -- ls -l "$tmp/tree" "$tmp/tree/a"
record sort-n "$tmp/numbers.txt" -- sort -n
record sha256sum "$n" -- sha256sum "$tmp/numbers.txt" "$tmp/text.txt"
record cat "$tmp/text.txt" -- cat - "$tmp/numbers.txt"
record wc "$n" -- wc "$tmp/text.txt" "$tmp/numbers.txt"
gzip -c "$tmp/text.txt" >"$tmp/text.gz"
record gzip "$tmp/text.txt" -- gzip -c
record gunzip "$tmp/text.gz" -- gunzip -c
xz -c "$tmp/numbers.txt" >"$tmp/numbers.xz"
record xz "$tmp/numbers.txt" -- xz -c
record xz-d "$tmp/numbers.xz" -- xz -dc
head -c 200000 "$tmp/text.txt" >"$tmp/text-head.txt"
record bzip2 "$tmp/text-head.txt" -- bzip2 -c
record python3 "$n" -- python3 -c '
import math
xs = [math.sin(i) * 1e3 / (i + 1) for i in range(2000)]
print(f"{sum(xs):.12f} {max(xs):.17g} {math.fsum(xs)!r}")
print(sorted({str(i * 7 % 13): i for i in range(100)}.items())[:5])'
record perl "$n" -- perl -e '
my $s = 0; $s += sqrt($_) / 3 for 1 .. 5000;
printf("%.15g %.6e %s\n", $s, exp(-$s / 1000), join(",", map { $_ ** 0.5 } 1 .. 4));'
record awk "$tmp/numbers.txt" -- awk '{ s += $1; q += $1 * $1 / 3.0 } END { printf "%.10g %.10g %g\n", s, q, sqrt(q) / (NR + 0.5) }'
record grep-r "$n" -- grep -rn needle "$tmp/tree"
record find "$n" -- find "$tmp/tree" -name '*.txt' -size -1k
record tar-c "$n" -- tar cf - -C "$tmp" tree
tar cf "$tmp/tree.tar" -C "$tmp" tree
record tar-t "$tmp/tree.tar" -- tar tvf -
record sh-pipes "$tmp/numbers.txt" -- sh -c 'sort -n | uniq -c | sort -rn | head -3; echo "sum $(awk "{s+=\$1} END {print s}" "$0")"' "$tmp/numbers.txt"
record shebang "$n" -- "$tmp/script.sh" one two

# Our own programs: each covers one behaviour (see its header comment).
for p in fork_pipe kernel_writes exec_other vfork_exec mmap_shared getrandom clocks clock_syscalls self_modifying x87_modulo x87_interrupted hot_code_writes \
	sigalrm_timer busy_alarm segv_longjmp sigfpe sigusr1_siginfo sigaltstack syscall_flags \
	pthread_create threads_sync threads_exit threads_signals threads_exec clone_vm_shared \
	fork_syscall_regs threads_wakeup_write threads_quiet_flush cache_flush affinity_view recvmsg_views kernel_outputs \
	syscall_wrappers random_insns stop_continue kernel_changes vector_stores; do
	record "$p" "$n" -- "$PROGRAMS/$p"
done
# A program behaving while recorded as natively (stack growth, signals
# aimed at ttrec, threads that yield, legacy entry points).
for p in stack_growth shm_detach vsyscall_legacy vdso_present; do
	record "$p" "$n" -- "$PROGRAMS/$p"
done
for mode in ignored handled-thread blocked; do
	record "sigtrap_program-$mode" "$n" -- "$PROGRAMS/sigtrap_program" "$mode"
done
record sigtrap_program-default "$n" --killed -- "$PROGRAMS/sigtrap_program" default
# Threads give way: at each sched_yield, and after a bounded time when
# a thread makes only system calls (without, 277,000 and 131,000 calls).
for mode in alternate:10000 syscall-loop:20000; do
	record "threads_yield-${mode%:*}" "$n" -- "$PROGRAMS/threads_yield" "${mode%:*}" || continue
	calls=$("$BUILD/ttreplay" --info "$tmp/run-threads_yield-${mode%:*}/trace.idna" |
		awk '/^syscalls:/ { print $2 }')
	if [ -z "$calls" ] || [ "$calls" -ge "${mode#*:}" ]; then
		echo "FAIL: threads_yield-${mode%:*}: ${calls:-?} system calls (want < ${mode#*:})"
		failed=1
	fi
done
# --chaos: the program behaves as natively, the seed is printed, and the
# order is random: a yielding thread is often picked again, so the
# alternation takes more sched_yield calls than the 2,000 of round robin.
chaos=$tmp/chaos
mkdir -p "$chaos"
if ! timeout "$LIMIT" "$TTREC" run --chaos=7 -o "$chaos/t.idna" -- "$PROGRAMS/threads_yield" alternate \
	>"$chaos/out" 2>"$chaos/err" || ! cmp -s "$chaos/out" "$tmp/run-threads_yield-alternate/native.out" ||
   ! grep -q '^ttrec: chaos mode, seed 7$' "$chaos/err" ||
   ! timeout "$LIMIT" "$BUILD/ttreplay" --verify "$chaos/t.idna" >"$chaos/verify" 2>&1; then
	echo "FAIL: chaos: output, seed line or replay:"
	cat "$chaos/err" "$chaos/verify" 2>/dev/null | tail -5
	failed=1
else
	calls=$("$BUILD/ttreplay" --info "$chaos/t.idna" | awk '/^syscalls:/ { print $2 }')
	if [ "${calls:-0}" -le 2500 ]; then
		echo "FAIL: chaos: $calls system calls, as many as without --chaos"
		failed=1
	else
		echo "ok: chaos ($calls system calls)"
	fi
fi
# The stack grows under the emulator, without native steps.
if "$BUILD/ttdump" "$tmp/run-stack_growth/trace.idna" | grep -q '^  native '; then
	echo "FAIL: stack_growth: the stack's growth took native steps"
	failed=1
fi
record threads_exit-main-first "$n" -- "$PROGRAMS/threads_exit" main-first
record threads_exit-blocked-workers "$n" -- "$PROGRAMS/threads_exit" blocked-workers
record threads_signals-crash "$n" --killed -- "$PROGRAMS/threads_signals" crash
record threads_exec-from-thread "$n" -- "$PROGRAMS/threads_exec" from-thread
record mmap_private_file "$n" -- "$PROGRAMS/mmap_private_file" mapped.tmp
record mmap_alias "$n" -- "$PROGRAMS/mmap_alias" alias.tmp
record mmap_private_copy "$n" -- "$PROGRAMS/mmap_private_copy" copy.tmp
record fp_state_signals "$n" -- "$PROGRAMS/fp_state_signals"
record leader_exit_join "$n" -- "$PROGRAMS/leader_exit_join"
record pi_futex_waiters "$n" -- "$PROGRAMS/pi_futex_waiters"
record lazy_flush "$n" -- "$PROGRAMS/lazy_flush"
record syscall_reach "$n" -- "$PROGRAMS/syscall_reach"
# A thread made after a long time alone waits for its creator's turn to
# end, as natively it comes after the creator's next instructions (not
# compared with a native run: there the order is the kernel's choice).
if timeout "$LIMIT" "$TTREC" run -q -o "$tmp/first.idna" -- "$PROGRAMS/thread_first_turn" \
	>"$tmp/first.out" 2>&1 && grep -q 'went on: no$' "$tmp/first.out"; then
	echo "ok: thread_first_turn"
else
	echo "FAIL: thread_first_turn: the new thread ran first:"
	cat "$tmp/first.out"
	failed=1
fi
record tsc_sigsegv "$n" -- "$PROGRAMS/tsc_sigsegv"
# Static, non-PIE builds of two of them: no dynamic loader, fixed addresses.
for p in sigusr1_siginfo self_modifying; do
	if cc -std=gnu11 -D_GNU_SOURCE -O1 -static -no-pie -o "$tmp/$p-static" \
		"$(dirname "$0")/programs/$p.c" 2>"$tmp/cc.err"; then
		record "$p-static" "$n" -- "$tmp/$p-static"
	else
		echo "FAIL: cannot build $p statically:"
		cat "$tmp/cc.err"
		failed=1
	fi
done
# The emulator runs clflush itself: no native step, which would also have
# forgotten everything the recorder had cached.
if timeout "$LIMIT" "$TTREC" run -o "$tmp/flush.idna" -- "$PROGRAMS/cache_flush" >/dev/null 2>"$tmp/flush.err" &&
   ! grep -q 'native fallbacks' "$tmp/flush.err"; then
	echo "ok: cache_flush emulated"
else
	echo "FAIL: cache_flush: not emulated:"
	cat "$tmp/flush.err"
	failed=1
fi
# A system call of unknown effect is counted in the summary, and so are
# the bytes it may have written (FS_IOC_GETFLAGS: 8), logged as read back.
if timeout "$LIMIT" "$TTREC" run -o "$tmp/undescribed.idna" -- "$PROGRAMS/kernel_outputs" \
	>/dev/null 2>"$tmp/undescribed.err" &&
   grep -q '^ttrec: 1 system call of unknown effect .*: ioctl 0x80086601=1$' "$tmp/undescribed.err" &&
   grep -q '^ttrec: they may have written 8 bytes, .* (0 unreadable' "$tmp/undescribed.err"; then
	echo "ok: an undescribed ioctl is counted"
else
	echo "FAIL: the summary does not count the undescribed ioctl:"
	cat "$tmp/undescribed.err"
	failed=1
fi
# rseq registration fails while recorded (the kernel would update the area
# behind the recorder's back); the program does without it.
if timeout "$LIMIT" "$TTREC" run -q -o "$tmp/rseq.idna" -- "$PROGRAMS/rseq_registration" \
	>"$tmp/rseq.out" 2>&1 &&
   grep -q '^rseq registered by glibc: no, own registration: ENOSYS, sched_getcpu: answers$' "$tmp/rseq.out" &&
   "$BUILD/ttreplay" --verify "$tmp/rseq.idna" >/dev/null 2>&1; then
	echo "ok: rseq refused"
else
	echo "FAIL: rseq while recorded: $(cat "$tmp/rseq.out")"
	failed=1
fi
# The program's own ptrace: TRACEME answers 0 as natively; attaching to
# its parent, which while recorded is ttrec, is refused instead of
# stopping the recorder; the summary says both.
record ptrace_parent-traceme "$n" -- "$PROGRAMS/ptrace_parent" traceme
if timeout "$LIMIT" "$TTREC" run -o "$tmp/seize.idna" -- "$PROGRAMS/ptrace_parent" seize-parent \
	>"$tmp/seize.out" 2>"$tmp/seize.err" &&
   grep -q '^PTRACE_SEIZE of the parent: -1 EPERM$' "$tmp/seize.out" &&
   grep -q '^still running$' "$tmp/seize.out" &&
   grep -q "^ttrec: the program's ptrace could not be recorded: ptrace attaching to ttrec refused" \
	"$tmp/seize.err"; then
	echo "ok: ptrace of ttrec refused"
else
	echo "FAIL: ptrace of ttrec: $(cat "$tmp/seize.out" "$tmp/seize.err")"
	failed=1
fi
# Children let go untraced are not the program's threads.
if timeout "$LIMIT" "$TTREC" run -o "$tmp/forks.idna" -- sh -c 'a=$(echo hi); b=$(echo there)' \
	>/dev/null 2>"$tmp/forks.err" && grep -q ' instructions, 1 thread, ' "$tmp/forks.err"; then
	echo "ok: forked children are not counted as threads"
else
	echo "FAIL: forked children counted as threads:"
	cat "$tmp/forks.err"
	failed=1
fi
record crash_null "$n" --killed -- "$PROGRAMS/crash_null"
record abort_program "$n" --killed -- "$PROGRAMS/abort_program"

# SIGPIPE raised by the program's own write: it dies of it at once, as
# natively (141), and ttrec says so.
native=$(set -o pipefail; yes 2>/dev/null | head -2; echo "status ${PIPESTATUS[0]}")
recorded=$(set -o pipefail; timeout "$LIMIT" "$TTREC" run -q -o "$tmp/yes.idna" yes 2>"$tmp/yes.err" | head -2;
	echo "status ${PIPESTATUS[0]}")
if [ "$native" != "$recorded" ] || ! grep -q 'killed by signal 13 ' "$tmp/yes.err"; then
	echo "FAIL: sigpipe: natively '$native', recorded '$recorded'"
	cat "$tmp/yes.err"
	failed=1
else
	echo "ok: sigpipe (${recorded##* })"
fi

# expect_error NAME STATUS PATTERN -- ARGS...: ttrec itself fails with
# STATUS and a one-line message matching PATTERN.
expect_error() {
	local name=$1 want=$2 pattern=$3
	shift 4
	local out=$tmp/error-$name.err
	timeout "$LIMIT" "$TTREC" "$@" </dev/null >/dev/null 2>"$out"
	local rc=$?
	if [ $rc -ne "$want" ] || [ "$(wc -l <"$out")" -ne 1 ] || ! grep -q "$pattern" "$out"; then
		echo "FAIL: $name: exit $rc (want $want), message:"
		cat "$out"
		failed=1
		return 1
	fi
	echo "ok: $name (exit $rc: $(cat "$out"))"
}
printf 'not a program\n' >"$tmp/not-executable"
chmod 644 "$tmp/not-executable"
expect_error not-found 66 'not found' -- run -q -o "$tmp/e1.idna" "$tmp/no-such-program"
expect_error not-executable 77 'not executable' -- run -q -o "$tmp/e2.idna" "$tmp/not-executable"
expect_error trace-not-writable 73 'no-such-dir' -- run -q -o "$tmp/no-such-dir/t.idna" /bin/true
if [ -e "$tmp/e1.idna" ] || [ -e "$tmp/e2.idna" ]; then
	echo "FAIL: a failed start left a trace file behind"
	failed=1
fi

exit $failed
