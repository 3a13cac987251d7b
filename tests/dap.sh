#!/usr/bin/env bash
# VS Code's reverse buttons: replayer/vscode/ttreplay-dap.js, driven over
# the Debug Adapter Protocol by tests/dap/dap_session.js as VS Code drives
# it, on a recording of tests/replay/programs/counter.c. The adapter's one
# dependency (cdt-gdb-adapter, from the npm registry) is installed into a
# scratch folder.
set -u
build=$(cd "${BUILD:-build}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

for tool in node npm gdb; do
	if ! command -v "$tool" > /dev/null; then
		echo "FAIL: $tool is not installed: the DAP adapter cannot be tested"
		echo "dap: 0 passed, 1 failed"
		exit 1
	fi
done
mkdir adapter
cp "$top/replayer/vscode/package.json" "$top/replayer/vscode/ttreplay-dap.js" adapter/
installed=0
for attempt in 1 2 3; do
	if (cd adapter && npm install --no-audit --no-fund --omit=dev > "$work/npm.log" 2>&1); then
		installed=1
		break
	fi
	sleep $((attempt * 5))
done
if [ "$installed" -ne 1 ]; then
	echo "FAIL: npm install of the adapter's dependency: $(tail -3 "$work/npm.log" | tr '\n' ' ')"
	echo "dap: 0 passed, 1 failed"
	exit 1
fi

cp "$top/tests/replay/programs/counter.c" .
cc -g -O0 -o counter counter.c || exit 1
"$build/ttrec" run -q -o counter.idna ./counter 5 > /dev/null
timeout 600 node "$top/tests/dap/dap_session.js" "$work/adapter/ttreplay-dap.js" \
	"$build/ttreplay" "$work/counter.idna" "$work/counter" "$work/counter.c"
