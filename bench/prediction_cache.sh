#!/bin/bash
# prediction_cache.sh — what the prediction cache's size (ttrec run
# --prediction-cache) buys and costs on the CPU-bound set of record_bench.sh:
# for each program and size, the trace's bits per instruction, the
# recording's wall and CPU seconds beside the native run's (ratio), and the
# first pass of `ttreplay --verify --no-index` (CPU seconds, peak RSS). Sizes
# default to 1M (ttrec's default) 4M 16M; SIZES="..." picks others.
#
#   BUILD=build bash bench/prediction_cache.sh [--quick]
#
# Bits per instruction do not depend on the machine's load; the seconds do,
# so compare the rows of one run.
set -u
NAME=prediction_cache
. "$(dirname "$0")/cpu_set_inputs.bash"
TTREPLAY=$BUILD/ttreplay
SIZES=${SIZES:-1M 4M 16M}

# measure OUT -- COMMAND...: runs it under /usr/bin/time; OUT gets
# "wall cpu peak_kb" (cpu = user + system).
measure() {
	local out=$1
	shift 2
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" || return 1
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/time" >"$out"
}

printf '%-8s %6s %8s %12s %12s %12s %12s\n' program cache bits/ins 'record wall' 'record cpu' \
	'replay cpu' 'replay MB'
# bench NAME INPUT -- COMMAND...: one row per cache size.
bench() {
	local name=$1 input=$2
	shift 3
	local native
	native=$(native_run "$name" "$input" -- "$@") || return
	local size
	for size in $SIZES; do
		if ! measure "$tmp/rec" -- "$TTREC" run --prediction-cache="$size" -o "$tmp/rec.idna" -- "$@" \
			<"$input" >"$tmp/rec.out" 2>"$tmp/rec.err" || ! cmp -s "$tmp/native.out" "$tmp/rec.out"; then
			echo "$name: recording with --prediction-cache=$size failed or its output differs:" >&2
			tail -n 3 "$tmp/rec.err" >&2
			continue
		fi
		local bits
		bits=$(grep -o '[0-9.]* bits/instruction' "$tmp/rec.err" | cut -d' ' -f1)
		if ! measure "$tmp/rep" -- "$TTREPLAY" --verify --no-index --jobs 1 "$tmp/rec.idna" \
			>/dev/null 2>"$tmp/rep.err"; then
			echo "$name: ttreplay --verify failed with --prediction-cache=$size:" >&2
			tail -n 3 "$tmp/rep.err" >&2
			continue
		fi
		read -r rw rc _ <"$tmp/rec"
		read -r _ pc pk <"$tmp/rep"
		awk -v name="$name" -v size="$size" -v bits="$bits" -v n="$native" -v rw="$rw" -v rc="$rc" \
			-v pc="$pc" -v pk="$pk" 'BEGIN { printf "%-8s %6s %8s %12s %12s %12s %12d\n", name, size, bits,
			sprintf("%.2f (%.1fx)", rw, rw / n), sprintf("%.2f", rc), sprintf("%.2f", pc), pk / 1024 }'
		rm -f "$tmp/rec.idna"
	done
}

bench compute /dev/null -- "$BUILD/bench/record_workload" $scale
bench gzip-6 "$tmp/data.txt" -- gzip -6 -c
bench xz "$tmp/data-small.txt" -- xz -c
bench sort-n "$tmp/numbers.txt" -- sort --parallel=1 -n
bench python3 /dev/null -- "$PYTHON" -c "print(sum(i * i % 7 for i in range($loops)))"
