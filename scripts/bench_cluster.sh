#!/usr/bin/env bash
# bench_cluster.sh: the cluster's speed figures (issue 3).
#
#   overhead  coordinator --n N --workers 2  vs  nqbench --n N --threads 2   goal <= 1.05
#   scaling   coordinator --workers 1        vs  --workers 2                 goal >= 1.9
#   memory    peak RSS of the coordinator process counting N=MEM_N            goal < 100 MB
#
# Usage: scripts/bench_cluster.sh [N (default 17)] [RUNS (default 3)] [MEM_N (default 18)]
# Each figure is the median of RUNS whole-process wall times; the machine is
# shared and noisy, so the runs are interleaved and compared as ratios.
# Set MEM_N=0 to skip the (long) memory run.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-17}
RUNS=${2:-3}
MEM_N=${3:-18}

# Binaries are built for the newest GOAMD64 level this CPU runs (override
# with GOAMD64=v1 to measure Go's default).
export GOAMD64=${GOAMD64:-$(scripts/goamd64.sh)}
echo "building with GOAMD64=${GOAMD64:-(not amd64)}" >&2
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/nqueens-coordinator" ./cmd/nqueens-coordinator
go build -o "$bin/nqueens-bench" ./cmd/nqueens-bench

# measure CMD...: "wall cpu" seconds of one run (cpu = user + sys), output discarded.
measure() {
	local f
	f=$(mktemp)
	/usr/bin/time -f '%e %U %S' -o "$f" "$@" >/dev/null 2>&1
	awk '{printf "%s %.2f\n", $1, $2 + $3}' "$f"
	rm -f "$f"
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { printf '%s\n' "${@:2}" | awk -v c="$1" '{print $c}' | median; }

declare -a nq w2 w1
for ((i = 0; i < RUNS; i++)); do
	nq+=("$(measure "$bin/nqueens-bench" --n "$N" --threads 2)")
	w2+=("$(measure "$bin/nqueens-coordinator" --n "$N" --workers 2 --progress off --log-level warn)")
	w1+=("$(measure "$bin/nqueens-coordinator" --n "$N" --workers 1 --progress off --log-level warn)")
done
nq_m=$(col 1 "${nq[@]}")
w2_m=$(col 1 "${w2[@]}")
w1_m=$(col 1 "${w1[@]}")
nq_c=$(col 2 "${nq[@]}")
w2_c=$(col 2 "${w2[@]}")
w1_c=$(col 2 "${w1[@]}")

printf 'N=%s, median of %s runs, seconds (wall / cpu):\n' "$N" "$RUNS"
printf '  nqbench --threads 2        %8.2f / %8.2f   runs: %s\n' "$nq_m" "$nq_c" "${nq[*]}"
printf '  coordinator --workers 2    %8.2f / %8.2f   runs: %s\n' "$w2_m" "$w2_c" "${w2[*]}"
printf '  coordinator --workers 1    %8.2f / %8.2f   runs: %s\n' "$w1_m" "$w1_c" "${w1[*]}"
printf '  overhead (workers 2 / nqbench 2): wall %.3f, cpu %.3f   goal <= 1.05\n' \
	"$(echo "$w2_m / $nq_m" | bc -l)" "$(echo "$w2_c / $nq_c" | bc -l)"
printf '  scaling (workers 1 / workers 2):  wall %.3f               goal >= 1.9\n' "$(echo "$w1_m / $w2_m" | bc -l)"
printf '  (the cpu ratio is the overhead a busy shared machine cannot hide; wall ratios need an idle one)\n'

if [[ "$MEM_N" != 0 ]]; then
	# The coordinator alone: remote workers in another process, so the
	# figure is the coordinator's own memory, not the solver's.
	go build -o "$bin/nqueens-worker" ./cmd/nqueens-worker
	port=$((20000 + RANDOM % 20000))
	"$bin/nqueens-coordinator" --n "$MEM_N" --workers 0 --listen "127.0.0.1:$port" --progress off --log-level warn --json >"$bin/mem.json" &
	cpid=$!
	"$bin/nqueens-worker" --join "127.0.0.1:$port" --slots 2 --log-level warn &
	wpid=$!
	peak=0
	while kill -0 "$cpid" 2>/dev/null; do
		kb=$(awk '/VmHWM/ {print $2}' "/proc/$cpid/status" 2>/dev/null || echo 0)
		[[ -n "$kb" && "$kb" -gt "$peak" ]] && peak=$kb
		sleep 0.5
	done
	wait "$cpid" || true
	wait "$wpid" || true
	printf 'N=%s: coordinator peak RSS (VmHWM) %.1f MB   goal < 100 MB; result %s\n' "$MEM_N" "$(echo "$peak / 1024" | bc -l)" "$(cat "$bin/mem.json")"
fi
