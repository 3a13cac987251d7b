#!/bin/bash
# record_threads.sh — recording threaded programs: each one natively and
# under `ttrec run` in the same invocation (wall-clock ratio: natively the
# threads share the machine's cores, recorded they take turns on one),
# then replayed (`ttreplay --verify`). Reports threads, slices (SWITCH key
# frames), trace size and replay speed. Run by `make bench`.
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
WORKLOAD=$BUILD/bench/threads_workload
for tool in "$TTREC" "$BUILD/ttreplay" "$BUILD/ttdump" "$WORKLOAD"; do
	[ -x "$tool" ] || { echo "record_threads: $tool is missing: run make bench" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
awk 'BEGIN { srand(11); for (i = 0; i < 120000; i++) printf "%d %x %s\n", i, int(rand() * 2^31), (rand() < 0.5 ? "alpha" : "beta") }' \
	>"$tmp/data.txt"
cat >"$tmp/threads_queue.py" <<'PY'
import threading, queue
q, out = queue.Queue(), []
def work():
    while True:
        n = q.get()
        if n is None:
            return
        out.append(sum(i * i % 7 for i in range(n)))
ts = [threading.Thread(target=work) for _ in range(4)]
[t.start() for t in ts]
for n in range(200):
    q.put(2000 + n)
for t in ts:
    q.put(None)
[t.join() for t in ts]
print(len(out), sum(out))
PY

now() { date +%s.%N; }
# The interpreter itself, not a version manager's shell-script python3.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
printf '%-22s %8s %9s %9s %8s %12s %8s %9s %10s\n' program threads native_s recorded_s slowdown \
	instructions slices bits/insn replay_M/s
# row NAME -- COMMAND...: record, compare with native, replay.
row() {
	local name=$1
	shift 2
	local t0 t1 t2 t3
	t0=$(now)
	"$@" >"$tmp/native.out" 2>"$tmp/native.err" || { echo "$name: native run failed: $(tail -1 "$tmp/native.err")" >&2; return; }
	t1=$(now)
	"$TTREC" run -o "$tmp/t.idna" -- "$@" >"$tmp/rec.out" 2>"$tmp/rec.err"
	local rc=$?
	t2=$(now)
	if [ $rc -ne 0 ] || ! cmp -s "$tmp/native.out" "$tmp/rec.out"; then
		echo "$name: the recorded run differs from the native one (exit $rc)" >&2
		return
	fi
	"$BUILD/ttreplay" --verify "$tmp/t.idna" >"$tmp/verify.out" 2>&1 ||
		{ echo "$name: replay: $(tail -1 "$tmp/verify.out")" >&2; return; }
	t3=$(now)
	local insns threads slices bytes
	insns=$(sed -n 's/^ttrec: trace .*: \([0-9]*\) instructions,.*/\1/p' "$tmp/rec.err")
	threads=$(sed -n 's/^ttrec: trace .* instructions, \([0-9]*\) thread.*/\1/p' "$tmp/rec.err")
	slices=$("$BUILD/ttdump" --records "$tmp/t.idna" | grep -c 'key-frame .*reason=1')
	bytes=$(stat -c %s "$tmp/t.idna")
	awk -v name="$name" -v th="$threads" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" \
		-v i="$insns" -v s="$slices" -v b="$bytes" 'BEGIN {
		n = t1 - t0; r = t2 - t1; v = t3 - t2
		printf "%-22s %8d %9.3f %9.2f %7.1fx %12.0f %8d %9.3f %10.1f\n",
			name, th, n, r, r / n, i, s, b * 8 / i, i / v / 1e6 }'
}

row threads_workload-1 -- "$WORKLOAD" 40 1
row threads_workload-4 -- "$WORKLOAD" 40 4
row xz-T2 -- xz -T2 -1 -c "$tmp/data.txt"
row python3-4-threads -- "$PYTHON" "$tmp/threads_queue.py"
