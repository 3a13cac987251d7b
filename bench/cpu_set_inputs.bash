# cpu_set_inputs.bash — sourced (not a bench of its own: make bench runs bench/*.sh)
# by the benches of the CPU-bound set (record_bench.sh, peers.sh) after `set -u`, with NAME set to the bench's
# name and --quick possibly in $1: checks the build, makes a scratch folder
# $tmp (removed on exit) and the set's inputs in it (data.txt,
# data-small.txt, numbers.txt), and sets TTREC, PYTHON, the sizes
# (mb, lines, scale, loops), now() and native_run.
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
quick=0
[ "${1:-}" = --quick ] && quick=1
for tool in "$TTREC" "$BUILD/bench/record_workload"; do
	if [ ! -x "$tool" ]; then
		echo "$NAME: $tool is missing: run make bench" >&2
		exit 1
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
if [ $quick = 1 ]; then mb=1; lines=100000; scale=1; loops=200000
else mb=4; lines=1000000; scale=5; loops=2000000; fi
# Compressible but not trivial data: numbered lines with pseudo-random words.
awk -v n=$((mb * 1024 * 1024 / 40)) 'BEGIN { srand(3); for (i = 0; i < n; i++)
	printf "%08d %x %s %d\n", i, int(rand() * 2^31), (rand() < 0.5 ? "alpha" : "beta"), int(rand() * 1000) }' \
	>"$tmp/data.txt"
head -c $((mb * 1024 * 1024 / 4)) "$tmp/data.txt" >"$tmp/data-small.txt"
awk -v n=$lines 'BEGIN { srand(5); for (i = 0; i < n; i++) printf "%d\n", int(rand() * 2^31) - 2^30 }' \
	>"$tmp/numbers.txt"
# The interpreter itself: a version manager's python3 may be a shell script
# that execs it, and recording that script's shells is not the benchmark.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')

now() { date +%s.%N; }

# native_run NAME INPUT -- COMMAND...: the program run natively, its output
# in $tmp/native.out (what every other run is compared with); prints its
# wall seconds, or says it failed (status 1).
native_run() {
	local name=$1 input=$2
	shift 3
	local t0 t1
	t0=$(now)
	"$@" <"$input" >"$tmp/native.out" 2>/dev/null || { echo "$name: native run failed" >&2; return 1; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
