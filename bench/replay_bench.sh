#!/usr/bin/env bash
# Replay against recording, in one run on one machine. Records CPU-bound
# programs (compute: bench/record_workload; sort -n --parallel=1 of
# shuffled numbers, one thread, so that the first pass can cut it; a
# python3 loop), then times the first pass of each trace (`ttreplay
# --verify`) with block translation and without (--no-jit), beside the
# recording's own time; then measures time travel on the compute trace
# (first pass, backward steps, jumps: bench/replay_bench.c). The second
# table is a second session on each trace without the replay index and
# with it (ttreplay --index made it; the time that took, and its size
# beside the trace's): ttreplay --info (open, the whole history) and a gdb
# session (open, continue to the end of history). The third is the first
# pass on two cores (ttreplay --index --jobs 1 and 2): the CPU time on one
# core over the CPU time of the longest of two ranges.
#   BUILD=build bash bench/replay_bench.sh [SCALE]   (SCALE: compute's, default 5)
#   QUICK=1: small inputs (scale 1, 100000 numbers, 200000 loop turns)
#   BASELINE=OTHER/ttreplay: also its first pass on the same traces (an
#   older build, to measure a change)
set -eu
build=$(cd "${BUILD:-build}" && pwd)
scale=${1:-5}
lines=300000 loops=2000000
if [ "${QUICK:-0}" = 1 ]; then scale=1 lines=100000 loops=200000; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export LC_ALL=C
now() { date +%s.%N; }
# The interpreter itself (a version manager's python3 may be a script).
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
seq 1 "$lines" | shuf --random-source=<(yes) > numbers
printf 'x=0\nfor i in range(%d): x+=i\n' "$loops" > loop.py

# timed OUT COMMAND...: runs it; OUT gets "wall cpu" seconds (cpu: user
# and system time of it and its children: on a machine shared with other
# work, the steadier measure).
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%e %U %S' -o time.out "$@"
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' time.out > "$out"
}

# first_pass TRACE [OPTIONS]: "wall cpu" of ttreplay --verify.
first_pass() {
	local trace=$1
	shift
	timed pass.time "${TTREPLAY:-$build/ttreplay}" --verify --no-index "$@" "$trace" > verify.out
	grep -q 'consistent with the recording' verify.out ||
		{ echo "replay_bench: $trace: $(tail -1 verify.out)" >&2; exit 1; }
	cat pass.time
}

printf '%-8s %13s %8s %8s %8s %8s %8s %8s%s\n' program instructions rec_s rec_cpu \
	rep_s rep_cpu no-jit rep/rec "${BASELINE:+ baseline}"
compare() { # NAME COMMAND...: one row
	local name=$1
	shift
	local rec jit nojit insns base=""
	timed rec.time "$build/ttrec" run -q -o "$name.idna" -- "$@" > /dev/null
	rec=$(cat rec.time)
	jit=$(first_pass "$name.idna")
	insns=$(sed -n 's/^ttreplay: \([0-9]*\) instructions replayed.*/\1/p' verify.out)
	nojit=$(first_pass "$name.idna" --no-jit)
	if [ -n "${BASELINE:-}" ]; then
		base=$(TTREPLAY=$BASELINE first_pass "$name.idna")
		base=$(printf ' %8.2f' "${base#* }")
	fi
	printf '%-8s %13d %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f%s\n' "$name" "$insns" ${rec% *} \
		${rec#* } ${jit% *} ${jit#* } ${nojit#* } "$(echo "${rec#* } / ${jit#* }" | bc -l)" "$base"
}
compare compute "$build/bench/record_workload" "$scale"
compare sort sort -n --parallel=1 numbers
compare python3 "$PYTHON" loop.py
echo "(seconds: wall and cpu; no-jit, baseline: cpu of ttreplay --verify --no-jit and of"
echo " \$BASELINE --verify; rep/rec: the first pass's speed over the recording's, by cpu)"
echo

# session TRACE [OPTIONS]: "wall cpu" of a gdb session that opens the
# trace and continues to the end of history. gdb's output goes through a
# pipe, as to a terminal: a gdb writing to a file keeps polling ttreplay's
# standard error before each byte it reads (replayer/stderr_to_tty.c).
session() {
	local trace=$1
	shift
	timed session.time gdb -batch -nx -ex 'set remotetimeout 600' \
		-ex "target remote | $build/ttreplay $* $trace" -ex continue 2>&1 | cat > session.out
	grep -q 'No more reverse-execution history\|exited' session.out ||
		{ echo "replay_bench: session on $trace: $(tail -2 session.out)" >&2; exit 1; }
	cat session.time
}
printf '%-8s %9s %9s %9s %9s %9s %9s %9s\n' program make_idx info_no info_idx speed-up \
	gdb_no gdb_idx idx/trace
ratio() { echo "$1 / $2" | bc -l; }
for name in compute sort python3; do
	timed info.time "$build/ttreplay" --info --no-index "$name.idna" > /dev/null
	info_none=$(cat info.time)
	none=$(session "$name.idna" --no-index)
	timed index.time "$build/ttreplay" --index "$name.idna" > /dev/null
	made=$(cat index.time)
	timed info.time "$build/ttreplay" --info "$name.idna" > /dev/null
	info_with=$(cat info.time)
	with=$(session "$name.idna")
	printf '%-8s %9.2f %9.2f %9.2f %9.1f %9.2f %9.2f %9.1f\n' "$name" ${made#* } ${info_none#* } \
		${info_with#* } "$(ratio ${info_none#* } ${info_with#* })" ${none#* } ${with#* } \
		"$(ratio "$(stat -c %s "$name.idna.idx")" "$(stat -c %s "$name.idna")")"
done
echo "(cpu seconds of a second session: make_idx: ttreplay --index (the first pass and writing"
echo " the index); info: ttreplay --info without and with the index (open, the whole history);"
echo " gdb: open, continue to the end of history under gdb; idx/trace: the sizes of TRACE.idx, TRACE)"
echo

# index_jobs TRACE N: "wall cpu longest" of ttreplay --index --jobs N (longest:
# the CPU s of the longest range, which --index prints; the whole CPU
# time when the pass ran on one core).
index_jobs() {
	rm -f "$1.idx"
	timed jobs.time "$build/ttreplay" --index --jobs "$2" "$1" > /dev/null 2> jobs.err
	rm -f "$1.idx"
	local longest
	longest=$(sed -n 's/.*(the longest took \([0-9.]*\) CPU s.*/\1/p' jobs.err)
	echo "$(cat jobs.time) ${longest:-$(cut -d' ' -f2 jobs.time)}"
}
printf '%-8s %9s %9s %9s %9s %9s %9s\n' program wall_1 cpu_1 wall_2 cpu_2 longest_2 scaling
for name in compute sort; do
	one=$(index_jobs "$name.idna" 1)
	two=$(index_jobs "$name.idna" 2)
	read -r w1 c1 _ <<< "$one"
	read -r w2 c2 l2 <<< "$two"
	printf '%-8s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n' "$name" "$w1" "$c1" "$w2" "$c2" "$l2" \
		"$(ratio "$c1" "$l2")"
done
echo "(ttreplay --index, wall and cpu seconds with --jobs 1 and 2; longest_2: the cpu seconds of"
echo " the longest of the two ranges; scaling: cpu_1 / longest_2, what two free cores would bound"
echo " the speed-up by (the join and the index's writing follow the ranges on one core). On a"
echo " machine busy with other work wall time does not show it: a second thread gets no more"
echo " of the CPU there)"
echo

t0=$(now)
"$build/ttrec" run -q -o workload.idna "$build/bench/record_workload" 1 > /dev/null
t1=$(now)
record=$(echo "$t1 - $t0" | bc -l)
printf '%-34s %10.2f s\n' "recording (compute, scale 1)" "$record"
printf '%-34s %10d bytes\n' "trace" "$(stat -c %s workload.idna)"
"$build/bench/replay_bench" workload.idna "$record"
