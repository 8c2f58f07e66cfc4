#!/usr/bin/env bash
# dashboard_screenshot.sh: the README's picture of the live dashboard, taken
# from a real run: a coordinator counting N=19 with three worker processes
# (alpha, beta, gamma, one slot each) on this machine, photographed by
# headless Chromium (Debian's chromium package) WAIT seconds after they
# joined.
#
#   scripts/dashboard_screenshot.sh [OUT.png]     (default docs/dashboard.png)
#
# N and WAIT (default 19 and 15) change the board and the moment.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/dashboard.png}
n=${N:-19} wait=${WAIT:-15}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "dashboard_screenshot: no chromium (apt-get install chromium)" >&2; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/" ./cmd/nqueens-coordinator ./cmd/nqueens-worker
"$tmp/nqueens-coordinator" --n "$n" --workers 0 --listen 127.0.0.1:0 --http 127.0.0.1:0 --progress off >/dev/null 2>"$tmp/coordinator.log" &
pids+=($!)
# The coordinator logs the two addresses it bound.
addr() { grep -o "$1: addr=[0-9.:]*" "$tmp/coordinator.log" | head -1 | cut -d= -f2 || true; }
for _ in $(seq 100); do
	grpc=$(addr 'coordinator: listening') http=$(addr 'status server listening')
	[ -n "$grpc" ] && [ -n "$http" ] && break
	sleep 0.1
done
[ -n "$grpc" ] && [ -n "$http" ] || { cat "$tmp/coordinator.log" >&2; exit 1; }
for name in alpha beta gamma; do
	"$tmp/nqueens-worker" --join "$grpc" --name "$name" --slots 1 2>"$tmp/$name.log" &
	pids+=($!)
done
sleep "$wait"
# --timeout: the page keeps its event stream open, so it never goes idle;
# take the picture 3 s after the page has loaded and had its first events.
"$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
	--window-size=1280,690 --timeout=3000 --screenshot="$(realpath -m "$out")" "http://$http/" 2>"$tmp/browser.log" ||
	{ cat "$tmp/browser.log" >&2; exit 1; }
echo "dashboard_screenshot: $out (N=$n, ${wait}s into the run)"
