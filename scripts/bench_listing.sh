#!/usr/bin/env bash
# bench_listing.sh: listing N=16 against counting it (issue 4, item 1).
#
#   count  coordinator --n N --workers W --progress off
#   list   coordinator --n N --workers W --progress off --solutions FILE --format cols
#   goal   list / count <= 3
#
# Usage: scripts/bench_listing.sh [N (default 16)] [RUNS (default 3)] [WORKERS (default 2)]
# The runs are interleaved and each figure is the median of RUNS whole-process
# wall times (the machine is shared and noisy). Every listing is checked for
# its line count.
# PROFILE=DIR also profiles one more listing run: perf record of the whole
# process into DIR/list.perf when perf is installed (its top symbols are
# printed), else a pprof CPU profile of the solver's ListTask benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-16}
RUNS=${2:-3}
WORKERS=${3:-2}
declare -A known=([8]=92 [10]=724 [12]=14200 [13]=73712 [14]=365596 [15]=2279184 [16]=14772512 [17]=95815104)
want=${known[$N]:-}

# Binaries are built for the newest GOAMD64 level this CPU runs (override
# with GOAMD64=v1 to measure Go's default).
export GOAMD64=${GOAMD64:-$(scripts/goamd64.sh)}
echo "building with GOAMD64=${GOAMD64:-(not amd64)}" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/coordinator" ./cmd/nqueens-coordinator

# measure CMD...: "wall cpu" seconds of one run (cpu = user + sys), output discarded.
measure() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >/dev/null 2>&1
	awk '{printf "%s %.2f\n", $1, $2 + $3}' "$tmp/time"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { printf '%s\n' "${@:2}" | awk -v c="$1" '{print $c}' | median; }

args=(--n "$N" --workers "$WORKERS" --progress off --log-level warn)
declare -a cnt lst
for ((i = 0; i < RUNS; i++)); do
	cnt+=("$(measure "$tmp/coordinator" "${args[@]}")")
	lst+=("$(measure "$tmp/coordinator" "${args[@]}" --solutions "$tmp/out" --format cols)")
	lines=$(wc -l <"$tmp/out")
	if [[ -n "$want" && "$lines" != "$want" ]]; then
		echo "bench_listing: run $i listed $lines solutions, want $want" >&2
		exit 1
	fi
	rm -f "$tmp/out"
done
c_m=$(col 1 "${cnt[@]}")
l_m=$(col 1 "${lst[@]}")
printf 'N=%s, %s workers, median of %s runs, seconds (wall / cpu):\n' "$N" "$WORKERS" "$RUNS"
printf '  count                    %8.2f / %8.2f   runs: %s\n' "$c_m" "$(col 2 "${cnt[@]}")" "${cnt[*]}"
printf '  list --format cols       %8.2f / %8.2f   runs: %s\n' "$l_m" "$(col 2 "${lst[@]}")" "${lst[*]}"
printf '  ratio list / count: wall %.2f, cpu %.2f   goal <= 3 (wall)\n' \
	"$(echo "$l_m / $c_m" | bc -l)" "$(echo "$(col 2 "${lst[@]}") / $(col 2 "${cnt[@]}")" | bc -l)"

if [[ -n "${PROFILE:-}" ]]; then
	# Where a listing's time goes: the whole process under perf when the
	# machine has it (solver, worker, gRPC, checks, spills and formatting
	# all show), else a pprof profile of the solver's ListTask alone.
	mkdir -p "$PROFILE"
	cp "$tmp/coordinator" "$PROFILE/coordinator"
	if command -v perf >/dev/null; then
		perf record -g -o "$PROFILE/list.perf" "$PROFILE/coordinator" "${args[@]}" --solutions "$tmp/out" --format cols >/dev/null 2>&1
		perf report -i "$PROFILE/list.perf" --no-children --sort symbol -g none 2>/dev/null | grep '%' | grep -v '^#' | head -20 | cut -c1-110
		echo "profile: perf report -i $PROFILE/list.perf"
	else
		go test -run '^$' -bench '^BenchmarkListTask$/N=16' -benchtime 2x -cpuprofile "$PROFILE/solver.pprof" -o "$PROFILE/solver.test" ./solver >/dev/null
		go tool pprof -top "$PROFILE/solver.test" "$PROFILE/solver.pprof" | head -20
		echo "profile: go tool pprof $PROFILE/solver.test $PROFILE/solver.pprof"
	fi
fi
