#!/bin/bash
# replay_disconnect.sh — a GDB that goes away in the middle of a command
# ends its session, never the server: `ttreplay --port` runs a recording
# to its end, the client sends a reverse-continue and closes the connection
# without waiting (tests/replay-disconnect/client.py), or (round "unread")
# closes with a reply unread, which resets the connection. ttreplay must
# say the link was closed and exit 0, not die of SIGPIPE (141).
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
TTREC=$BUILD/ttrec
TTREPLAY=$BUILD/ttreplay
failed=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

"$TTREC" run -q -o seq.idna seq 1 20000 >/dev/null || { echo "FAIL: recording seq"; exit 1; }

for round in 1 2 3 unread; do
	mode=; [ "$round" = unread ] && mode=unread
	# (Not truncated by the redirection alone: this loop could read the
	# last round's port before the new server's shell opened the file.)
	rm -f server.err
	"$TTREPLAY" --port 0 seq.idna 2>server.err &
	server=$!
	port=
	while kill -0 $server 2>/dev/null; do
		port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' server.err)
		[ -n "$port" ] && break
		sleep 0.05
	done
	if [ -z "$port" ]; then
		echo "FAIL: round $round: ttreplay did not report a port: $(cat server.err)"
		failed=1
		continue
	fi
	python3 "$HERE/replay-disconnect/client.py" "$port" $mode >client.out 2>&1 ||
		{ echo "FAIL: round $round: client: $(cat client.out)"; failed=1; }
	wait $server
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q 'gdb closed the link' server.err; then
		echo "FAIL: round $round: ttreplay exited $rc after the client went away: $(cat server.err)"
		failed=1
	else
		echo "ok: round $round: the client went away ${mode:-during reverse-continue}; ttreplay ended the session, exit 0"
	fi
done
exit $failed
