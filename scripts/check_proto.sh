#!/usr/bin/env bash
# check_proto.sh: fails when the wire contract is not lint-clean, when it
# breaks compatibility (breaking: FILE) with the version committed on
# BREAKING_AGAINST (default: the main branch; a fresh clone compares with
# itself, a working tree with its last commit), or when the committed
# generated Go differs from what `buf generate` produces.
# Run from anywhere; buf and the protoc plugins come from tools/go.mod.
set -euo pipefail
cd "$(dirname "$0")/.."

buf() { go tool -modfile=tools/go.mod buf "$@"; }

buf lint
if git rev-parse --verify -q "refs/heads/${BREAKING_AGAINST:-main}" >/dev/null 2>&1; then
	buf breaking --against ".git#branch=${BREAKING_AGAINST:-main}"
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Generate into a scratch copy of the template's output folder and compare.
sed "s#out: proto#out: $out#" buf.gen.yaml >"$out/buf.gen.yaml"
buf generate --template "$out/buf.gen.yaml"
status=0
while IFS= read -r -d '' f; do
	rel=${f#"$out"/}
	if ! cmp -s "$f" "proto/$rel"; then
		echo "check_proto: proto/$rel is stale; run: go tool -modfile=tools/go.mod buf generate" >&2
		status=1
	fi
done < <(find "$out" -name '*.go' -print0)
exit $status
