#!/usr/bin/env bash
# bench_solver.sh: time the solver alone (cmd/nqbench) against the C
# reference counter somers.c at N=16 and N=17 on 1 and 2 threads, and print
# the ratios (below 1 = faster than the reference).
#
#   scripts/bench_solver.sh [-r RUNS] [N...]
#
# ANCHORS names the folder holding ratio.sh and somers.c (default: the
# shared anchors beside the repository, ../shared/anchors). The box may be
# shared: repeat, and compare ratios from one run rather than seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
anchors=${ANCHORS:-$root/../shared/anchors}
runs=3
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 17)
[ -x "$anchors/ratio.sh" ] || { echo "bench_solver: $anchors/ratio.sh not found (set ANCHORS)" >&2; exit 2; }
# nqbench is built for the newest GOAMD64 level this CPU runs (override with
# GOAMD64=v1 to measure Go's default).
export GOAMD64=${GOAMD64:-$("$root/scripts/goamd64.sh")}
echo "building nqbench with GOAMD64=${GOAMD64:-(not amd64)}" >&2
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/nqbench" ./cmd/nqbench)
printf '%-4s %-8s %s\n' N threads ratio
for n in "${sizes[@]}"; do
	for t in 1 2; do
		"$bin/nqbench" --n "$n" --threads "$t" >&2 # shows the counts; a wrong one is plain to see
		out=$("$anchors/ratio.sh" -r "$runs" "$n" "$t" -- "$bin/nqbench" --n "$n" --threads "$t")
		echo "$out" >&2
		r=$(awk '/^ratio/ {print $NF}' <<<"$out")
		printf '%-4s %-8s %s\n' "$n" "$t" "$r"
	done
done
