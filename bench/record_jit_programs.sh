#!/bin/bash
# record_jit_programs.sh — the recorder on programs that compile code while
# they run: node (V8) and a JVM. Each runs natively RUNS times (the fastest
# run counts), then once under `ttrec run`, in this one invocation; the
# recorded run must print the same and exit the same. Prints wall and CPU
# (user + system, all threads) seconds both ways and their ratios: on a
# shared machine the CPU ratio is the steadier one. Programs missing here
# (no node, no java/javac) are skipped with a line saying so.
#
#   BUILD=build bash bench/record_jit_programs.sh [RUNS]
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
RUNS=${1:-3}
if [ ! -x "$TTREC" ]; then
	echo "record_jit_programs: $TTREC is missing: run make" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export LC_ALL=C

# A numeric loop (V8 compiles it; its % of doubles is x87 fprem in the
# generated code), then objects through JSON and a regular expression.
cat >loop.js <<'EOF'
let s = 0;
for (let i = 0; i < 10000000; i++) s = (s + i * i) % 1000003;
console.log(s);
EOF
cat >json.js <<'EOF'
const o = [];
for (let i = 0; i < 200000; i++) o.push({ k: i, v: "x" + i, t: [i % 7, "y"] });
const t = JSON.parse(JSON.stringify(o));
const re = /^x(\d*)7$/;
let m = 0;
for (const e of t) if (re.test(e.v) && e.t[0] < 3) m++;
console.log(t.length, m);
EOF
# The JVM's interpreter, C1 and C2 on a loop and a TreeMap; exits 3.
cat >Prog.java <<'EOF'
import java.util.TreeMap;
public class Prog {
	public static void main(String[] a) {
		long s = 0;
		for (int i = 0; i < 3000000; i++) s = (s + (long) i * i) % 1000003;
		TreeMap<Integer, String> m = new TreeMap<>();
		for (int i = 0; i < 20000; i++) m.put(i * 7919 % 20011, "v" + i);
		System.out.println(s + " " + m.size() + " " + m.firstKey());
		System.exit(3);
	}
}
EOF

# seconds FILE: "wall cpu" from a /usr/bin/time -f '%e %U %S' file.
seconds() { awk 'END { printf "%s %.2f", $1, $2 + $3 }' "$1"; }

printf '%-10s %8s %8s %9s %9s %7s %7s %13s %8s\n' program native_s nat_cpu recorded_s rec_cpu wall_x cpu_x \
	instructions translated
# bench NAME -- COMMAND...: one row.
bench() {
	local name=$1
	shift 2
	local best="" k rc_n rc_r
	for ((k = 0; k < RUNS; k++)); do
		/usr/bin/time -o "$name.nt" -f '%e %U %S' "$@" >"$name.native" 2>/dev/null
		rc_n=$?
		local t
		t=$(seconds "$name.nt")
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { split(a, x); split(b, y); exit !(x[1] < y[1]) }'; then
			best=$t
		fi
	done
	/usr/bin/time -o "$name.rt" -f '%e %U %S' "$TTREC" run -o "$name.idna" -- "$@" \
		>"$name.rec" 2>"$name.err"
	rc_r=$?
	if [ "$rc_r" -ne "$rc_n" ] || ! cmp -s "$name.native" "$name.rec"; then
		echo "$name: the recorded run differs from the native one (exit $rc_r, natively $rc_n):" >&2
		cat "$name.err" >&2
		return
	fi
	local insns translated
	insns=$(sed -n 's/^ttrec: trace .*: \([0-9]*\) instructions,.*/\1/p' "$name.err")
	translated=$(sed -n 's/.*, \([0-9]*\) blocks translated.*/\1/p' "$name.err")
	awk -v name="$name" -v n="$best" -v r="$(seconds "$name.rt")" -v i="$insns" -v tr="${translated:-0}" 'BEGIN {
		split(n, a); split(r, b)
		printf "%-10s %8.2f %8.2f %9.2f %9.2f %6.1fx %6.1fx %13.0f %8d\n", name, a[1], a[2], b[1], b[2],
			b[1] / a[1], b[2] / (a[2] > 0 ? a[2] : 0.01), i, tr }'
	rm -f "$name.idna"
}

if command -v node >/dev/null; then
	bench node-loop -- node loop.js
	bench node-json -- node json.js
else
	echo "node-*: no node here, skipped"
fi
if command -v java >/dev/null && command -v javac >/dev/null && javac Prog.java 2>/dev/null; then
	bench java -- java -cp . Prog
else
	echo "java: no java/javac here, skipped"
fi
