#!/usr/bin/env bash
# goamd64.sh: print the highest GOAMD64 level (v3, v2 or v1) whose binaries
# run on this machine, for the scripts that build the binaries it runs:
#
#   export GOAMD64=${GOAMD64:-$(scripts/goamd64.sh)}
#
# v3 lets the compiler use BMI's single instructions for the solver's bit
# tricks (x & -x, x &^ y): about 10% faster counting here. A binary built
# for a level the CPU lacks refuses to start, so the level is found by
# running a tiny program built for each: Go's own start-up check decides,
# not a guess from /proc/cpuinfo. Prints nothing off amd64 (where GOAMD64
# means nothing).
set -euo pipefail
[ "$(go env GOARCH)" = amd64 ] || exit 0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/goamd64.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'package main\n\nfunc main() {}\n' >"$tmp/main.go"
for level in v3 v2; do
	if (cd "$tmp" && GOAMD64=$level GOFLAGS= GO111MODULE=off go build -o "probe-$level" main.go) >/dev/null 2>&1 &&
		"$tmp/probe-$level" >/dev/null 2>&1; then
		echo "$level"
		exit 0
	fi
done
echo v1
