#!/usr/bin/env bash
# replay_rsp.sh — the RSP server of ttreplay as a raw client sees it
# (tests/replay-rsp/client.py, over the server's standard input and
# output): at most 64 breakpoints and watchpoints (man/ttreplay.1), the
# 65th refused with E16; a write watchpoint over the whole address space
# stops reverse and forward continues at writes (it once made each
# reverse-continue take a minute: bounded here by the client's generous
# per-answer limit, no time measured); and well-framed mutated packets
# over the live server loop and a real replay, a fixed count from a fixed
# seed, never kill the server.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/shared/checks.sh"

"$build/ttrec" run -q -o seq.idna seq 1 20000 > /dev/null || { bad "recording seq"; finish replay_rsp; exit 1; }
for probe in points whole fuzz; do
	if python3 "$here/replay-rsp/client.py" "$build/ttreplay" seq.idna $probe > $probe.out 2>&1; then ok
	else bad "$probe: $(grep -v '^ok' $probe.out | tail -3 | tr '\n' ' ')"; fi
	cat $probe.out
done
finish replay_rsp
