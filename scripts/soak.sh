#!/usr/bin/env bash
# soak.sh: a coordinator journaling to --state, killed and resumed RESTARTS
# times at random moments (SIGKILL and SIGTERM alternating at random), with
# real workers that rejoin on their own (--join-timeout). At the end the
# coordinator's total must be the published count for N: a lost or doubled
# task after any resume shows as a wrong total.
#
#   scripts/soak.sh [N] [DEPTH] [RESTARTS] [WORKERS] [MIN_TASKS]    (default 16 7 20 2 0)
#
# MIN_TASKS > 0 passes --min-tasks: the coordinator splits until that many
# tasks are made over the run (10^7 at N=17 is the bookkeeping of a long
# run, with real counts: every split, collapse and commit is checked by
# the published total). SOAK_GAP="MIN MAX" sets the seconds between kills
# (default "2 5").
#
# Per restart it prints the signal, the coordinator's RSS just before the
# kill (VmRSS from /proc), and the resume time: from the process start to
# its gRPC port accepting connections (the journal is replayed before the
# listener opens). Exit 1 on a wrong total.
set -euo pipefail
N=${1:-16} DEPTH=${2:-7} RESTARTS=${3:-20} WORKERS=${4:-2} MIN_TASKS=${5:-0}
read -r GAP_MIN GAP_MAX <<<"${SOAK_GAP:-2 5}"
declare -A WANT=([12]=14200 [13]=73712 [14]=365596 [15]=2279184 [16]=14772512 [17]=95815104 [18]=666090624)
want=${WANT[$N]:?no published count for N=$N in this script}
dir=$(mktemp -d) port=$((20000 + RANDOM % 20000))
trap 'kill $(jobs -p) 2>/dev/null || true; tail -n 5 "$dir"/worker.log "$dir"/coord.log; rm -rf "$dir"' EXIT
cd "$(dirname "$0")/.."
go build -o "$dir/" ./cmd/nqueens-coordinator ./cmd/nqueens-worker
state=$dir/journal
coord() { # start the coordinator in the background; sets cpid, prints resume ms
  local t0 t1
  t0=$(date +%s%N)
  "$dir/nqueens-coordinator" --n "$N" --depth "$DEPTH" --workers 0 --listen "127.0.0.1:$port" \
    --state "$state" --resume=auto --progress off --min-tasks "$MIN_TASKS" --json >"$dir/out.json" 2>>"$dir/coord.log" &
  cpid=$!
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    kill -0 "$cpid" 2>/dev/null || return 0
    sleep 0.01
  done
  t1=$(date +%s%N)
  resume_ms=$(((t1 - t0) / 1000000))
}
for w in $(seq "$WORKERS"); do
  "$dir/nqueens-worker" --join "127.0.0.1:$port" --slots 1 --name "soak$w" --stay \
    --log-level error 2>>"$dir/worker.log" &
done
start=$(date +%s)
for r in $(seq "$RESTARTS"); do
  coord
  sleep "$(awk -v s=$RANDOM -v lo="$GAP_MIN" -v hi="$GAP_MAX" 'BEGIN{srand(s); printf "%.2f", lo + rand()*(hi-lo)}')"
  if ! kill -0 "$cpid" 2>/dev/null; then echo "restart $r: job finished before the kill"; break; fi
  rss=$(awk '/VmRSS/{print $2}' "/proc/$cpid/status")
  sig=$([ $((RANDOM % 2)) = 0 ] && echo KILL || echo TERM)
  kill -"$sig" "$cpid"; wait "$cpid" 2>/dev/null || true
  jbytes=$(stat -c %s "$state" 2>/dev/null || echo 0)
  printf 'restart %2d: SIG%-4s resume %5d ms  rss %6d KiB  journal %9d B\n' "$r" "$sig" "$resume_ms" "$rss" "$jbytes"
done
coord
echo "final run: resume $resume_ms ms"
wait "$cpid" || true
elapsed=$(($(date +%s) - start))
jq -c '{n, solutions, tasks, committed, splits, peak_live_tasks, requeued, duplicates, complete}' "$dir/out.json"
got=$(jq -r .solutions "$dir/out.json")
echo "N=$N depth=$DEPTH restarts=$RESTARTS min_tasks=$MIN_TASKS journal=$(stat -c %s "$state") B wall=${elapsed}s total=$got want=$want"
[ "$got" = "$want" ] && echo "soak: exact" || { echo "soak: WRONG TOTAL"; exit 1; }
