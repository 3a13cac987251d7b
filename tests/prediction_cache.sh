#!/usr/bin/env bash
# ttrec run --prediction-cache SIZE: the trace's header takes the size, the
# recording's output is the native run's, and the trace replays
# consistently alone, cut into ranges (--jobs 2) and through its index,
# smallest (128 bytes: 16 entries) and large (8M) alike, one thread and
# several, and in the traces of children (--follow-fork). A smaller cache
# misses more: its trace is larger. Sizes that are
# not a power of two from 128 to 128M are usage errors that write nothing.
set -u
shared=$(cd "$(dirname "$0")/shared" && pwd)
. "$shared/checks.sh"
programs=$build/tests/programs

# entries TRACE: the prediction cache's entry count in the trace's header.
entries() {
	"$build/ttdump" "$1" | sed -nE 's/^prediction cache: ([0-9]+) entries.*/\1/p'
}

# recorded NAME SIZE ENTRIES -- COMMAND...: NAME.idna recorded with that
# cache, checked against a native run and replayed three ways.
recorded() {
	local name=$1 size=$2 want=$3
	shift 4
	"$@" > "$name.native" 2>/dev/null
	"$build/ttrec" run -q --checkpoint-interval 500K --prediction-cache "$size" -o "$name.idna" \
		-- "$@" > "$name.out" 2> "$name.err"
	status_is 0 $? "$name: recorded"
	same "$name.native" "$name.out" "$name: output as native"
	local got
	got=$(entries "$name.idna")
	if [ "$got" = "$want" ]; then ok; else bad "$name: header says '$got' entries, not $want"; fi
	"$build/ttreplay" --verify --no-index --jobs 1 "$name.idna" > "$name.v1" 2>&1
	expect "$name.v1" 'consistent with the recording' "$name: replays consistently"
	"$build/ttreplay" --verify --no-index --jobs 2 "$name.idna" > "$name.v2" 2>&1
	expect "$name.v2" 'consistent with the recording' "$name: replays consistently in ranges"
	"$build/ttreplay" --index "$name.idna" > "$name.ix" 2>&1
	status_is 0 $? "$name: index built"
	"$build/ttreplay" --info "$name.idna" > "$name.info" 2>&1
	status_is 0 $? "$name: --info through the index"
	refuse "$name.info" 'rebuil|stale|not trusted' "$name: the index is taken as it is"
}

recorded tiny 128 16 -- "$programs/long_history" plain
recorded large 8M 1048576 -- "$programs/long_history" plain
recorded threads 1K 128 -- "$programs/threads_compute"
recorded default 1M 131072 -- "$programs/long_history" plain

# A child recorded with --follow-fork has its parent's cache size.
"$build/ttrec" run -q --follow-fork --prediction-cache 4K -o fork.idna \
	-- "$programs/fork_pipe" > fork.out 2> fork.err
status_is 0 $? "fork_pipe recorded with --follow-fork"
children=$(ls fork.[0-9]*.idna 2>/dev/null)
if [ -n "$children" ]; then ok; else bad "no child trace beside fork.idna"; fi
for t in fork.idna $children; do
	got=$(entries "$t")
	if [ "$got" = 512 ]; then ok; else bad "$t: '$got' entries, not 512"; fi
done

# The program reads the same memory either way; 16 entries miss more.
tiny=$(stat -c %s tiny.idna) large=$(stat -c %s large.idna)
if [ "$tiny" -gt "$large" ]; then ok
else bad "a 16-entry cache's trace ($tiny bytes) is not larger than an 8M one's ($large)"; fi

# usage SIZE: refused with the rule, status 64, no trace written.
usage() {
	"$build/ttrec" run -q --prediction-cache "$1" -o bad.idna -- /bin/true > bad.out 2> bad.err
	status_is 64 $? "--prediction-cache $1 refused"
	expect bad.err "bad --prediction-cache '$1': a power of two from 128 to 128M" \
		"--prediction-cache $1 says why"
	if [ -e bad.idna ]; then bad "--prediction-cache $1 wrote a trace"; rm -f bad.idna; else ok; fi
}
for size in 0 64 3M 256M 1T ten -1; do usage "$size"; done

# --verify writes no trace: a trace's option is refused with it.
"$build/ttrec" run --verify --prediction-cache 4M /bin/true > verify.out 2>&1
status_is 64 $? "--verify refuses --prediction-cache"
expect verify.out 'prediction-cache' "--verify names the option it refuses"

finish prediction_cache
