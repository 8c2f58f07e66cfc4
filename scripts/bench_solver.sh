#!/usr/bin/env bash
# bench_solver.sh: time the solver alone (cmd/nqueens-bench) and the cluster
# (cmd/nqueens-coordinator with embedded workers, one per thread) with each
# counting engine, join and backtrack, against somers.c (the plain bitmask
# counter with mirror halving, in the shared anchors folder) at N=16, 17
# and 18 on 1 and 2 threads, and print the ratios (below 1 = faster than
# somers.c).
#
#   scripts/bench_solver.sh [-q] [-r RUNS] [N...]
#
# Each ratio is the ratio of medians of RUNS (default 3) interleaved runs,
# from ../shared/anchors/ratio.sh, which builds somers.c itself; this
# script builds only nqbench. somers.c takes about 5 s at N=16, 38 s at
# N=17 and 4-5 minutes at N=18 on one thread here, so a full run takes
# about an hour on 2 cores; -q (or BENCH_QUICK=1) is a quick look: N=16
# only, one run each. ANCHORS names the folder holding ratio.sh and
# somers.c (default: the shared anchors beside the repository,
# ../shared/anchors, or beside the main checkout when run from a git
# worktree). The box may be shared: repeat, and compare ratios from one run
# rather than seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
anchors=${ANCHORS:-$root/../shared/anchors}
if [ -z "${ANCHORS:-}" ] && [ ! -d "$anchors" ]; then
	# In a git worktree, the shared folder sits beside the main checkout.
	common=$(cd "$root" && git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
	[ -z "$common" ] || anchors=$(dirname "$common")/../shared/anchors
fi
runs=3 quick=${BENCH_QUICK:-}
while [ $# -gt 0 ]; do
	case $1 in
	-q) quick=1; shift ;;
	-r) [ $# -ge 2 ] || { echo "bench_solver: -r needs a number" >&2; exit 2; }; runs=$2; shift 2 ;;
	-*) echo "usage: $0 [-q] [-r RUNS] [N...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
sizes=("$@")
if [ -n "$quick" ]; then
	runs=1
	[ ${#sizes[@]} -gt 0 ] || sizes=(16)
fi
[ ${#sizes[@]} -gt 0 ] || sizes=(16 17 18)
[ -x "$anchors/ratio.sh" ] || { echo "bench_solver: $anchors/ratio.sh not found (set ANCHORS)" >&2; exit 2; }
# nqbench is built for the newest GOAMD64 level this CPU runs (override with
# GOAMD64=v1 to measure Go's default).
export GOAMD64=${GOAMD64:-$("$root/scripts/goamd64.sh")}
echo "building nqbench with GOAMD64=${GOAMD64:-(not amd64)}; $runs run(s) per ratio" >&2
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/nqueens-bench" ./cmd/nqueens-bench && go build -o "$bin/nqueens-coordinator" ./cmd/nqueens-coordinator)
ratio() { # engine n threads [cluster]: one ratio.sh set, its output to stderr, the ratio to stdout
	local out cmd=("$bin/nqueens-bench" --n "$2" --threads "$3" --engine "$1")
	[ -z "${4:-}" ] || cmd=("$bin/nqueens-coordinator" --n "$2" --workers "$3" --engine "$1" --json --progress off)
	out=$("$anchors/ratio.sh" -r "$runs" "$2" "$3" -- "${cmd[@]}")
	echo "$out" >&2
	awk '/^ratio/ {print $NF}' <<<"$out"
}
rows=()
for n in "${sizes[@]}"; do
	for t in 1 2; do
		for e in join backtrack; do
			"$bin/nqueens-bench" --n "$n" --threads "$t" --engine "$e" >&2 # shows the counts; a wrong one is plain to see
		done
		j=$(ratio join "$n" "$t")
		b=$(ratio backtrack "$n" "$t")
		cj=$(ratio join "$n" "$t" cluster)
		cb=$(ratio backtrack "$n" "$t" cluster)
		rows+=("$(printf '%-4s %-8s %-12s %-12s %-14s %s' "$n" "$t" "$j" "$b" "$cj" "$cb")")
	done
done
echo "ratios of nqbench's and the cluster's time to somers.c's (below 1 = faster)"
printf '%-4s %-8s %-12s %-12s %-14s %s\n' N threads join backtrack cluster-join cluster-backtrack
printf '%s\n' "${rows[@]}"
