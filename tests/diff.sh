#!/bin/bash
# tests/diff.sh — the emulator against the CPU: the differential harness's
# self-test (it must catch injected wrong results), then every mnemonic the
# emulator binds. Fails on any failed case, crash or uncovered mnemonic.
# Environment: BUILD (the build directory), SAN (1 under sanitizers).
set -u
bin="${BUILD:-build}/tests/bin/diff"
if [ ! -x "$bin" ]; then
	echo "diff.sh: $bin not built" >&2
	exit 1
fi
# Generous bounds: the run takes seconds; a hang must not stall the build.
limit=600
status=0
timeout "$limit" "$bin" --self-test || status=1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
timeout "$limit" "$bin" >"$out"
rc=$?
# The per-mnemonic table only when something is wrong; always the summary.
if [ $rc -ne 0 ]; then
	cat "$out"
	status=1
else
	grep '^diff: ' "$out"
fi
grep -q '^diff: [0-9]* passed, 0 failed$' "$out" || status=1
exit $status
