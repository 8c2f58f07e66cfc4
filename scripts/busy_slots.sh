#!/usr/bin/env bash
# busy_slots.sh: issue 11's first check. A coordinator with no embedded
# workers (--workers 0) counts N; three worker processes of two slots join
# a second after it starts. /api/status is sampled every 50 ms; the script
# prints how many samples before 95% of the work had every slot leased,
# the samples that did not, and the summary (tasks, runs, exact count).
#
# Usage: scripts/busy_slots.sh [N (default 17)]. Needs curl and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-17}
GOAMD64=$(scripts/goamd64.sh) go build -o bin/ ./cmd/nqueens-coordinator ./cmd/nqueens-worker
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
bin/nqueens-coordinator --n "$N" --workers 0 --listen 127.0.0.1:0 --http 127.0.0.1:0 --json >"$tmp/summary.json" 2>"$tmp/log" &
coord=$!
for _ in $(seq 100); do grep -q 'status server listening' "$tmp/log" 2>/dev/null && grep -q 'coordinator: listening' "$tmp/log" && break; sleep 0.05; done
grpc=$(sed -n 's/.*coordinator: listening: addr=\([^ ]*\).*/\1/p' "$tmp/log" | head -1)
http=$(sed -n 's/.*status server listening: addr=\([^ ]*\).*/\1/p' "$tmp/log" | head -1)
sleep 1
for i in 1 2 3; do bin/nqueens-worker --join "$grpc" --slots 2 --name "w$i" 2>/dev/null & done
while kill -0 "$coord" 2>/dev/null; do
	curl -s "http://$http/api/status" >>"$tmp/samples" && echo >>"$tmp/samples" || true
	sleep 0.05
done
wait "$coord"
python3 - "$tmp/samples" "$tmp/summary.json" <<'PY'
import json, sys
samples = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
samples = [s for s in samples if len(s.get("workers_attached") or []) == 3 and s["fraction"] < 0.95]
busy = [s for s in samples if all(w["leases"] >= w["slots"] for w in s["workers_attached"])]
print(f"samples with 3 workers before 95% of the work: {len(samples)}; every slot leased in {len(busy)}")
for s in samples:
    if s not in busy:
        print("  not busy:", round(s["fraction"], 3), "queued", s["tasks_queued"], "leases", [w["leases"] for w in s["workers_attached"]])
d = json.load(open(sys.argv[2]))
print({k: d[k] for k in ["n", "solutions", "tasks", "runs", "splits", "elapsed_seconds", "complete"]})
PY
