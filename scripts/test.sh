#!/usr/bin/env bash
# test.sh: every test of the project, as CI runs it (.ci/run calls this).
#
#   scripts/test.sh            vet, gofmt, proto checks, all tests with -race,
#                              short fuzz runs, Kubernetes manifest checks and
#                              the docker-compose end-to-end test
#
# Needs only Go and, for the compose test, Docker; buf and the protoc plugins
# come through tools/go.mod (go tool -modfile), nothing is installed by hand.
# FUZZTIME (default 10s) is the budget of each fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}

# step announces the next check; set -e ends the script at the first one
# that fails, so reaching the end means every step passed.
steps=0
step() { steps=$((steps + 1)); printf '\n=== %s\n' "$*"; }

step "gofmt"
bad=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$bad" ]; then echo "gofmt would change: $bad" >&2; exit 1; fi

step "go vet"
go vet ./...

step "proto: buf lint and generated code is fresh"
scripts/check_proto.sh

step "go test -race"
go test -race -count=1 -timeout 20m ./...

step "fuzz (${fuzztime} per target)"
# Every Fuzz function in the module, each run alone for a short fixed budget;
# their seed corpora live in testdata/fuzz and run in the step above too.
# Go 1.26's fuzz coordinator can fail a target with a bare "context
# deadline exceeded" when -fuzztime runs out while a worker is busy
# (go.dev/issue/75804, fixed in Go 1.27): such a run, with no failing input
# written and no other failure, is run once more; any other failure fails.
fuzz() { # fuzz PKG FUNC: one target; its output is kept in $fuzzlog
	go test -run '^$' -fuzz "^${2}\$" -fuzztime "$fuzztime" "$1" 2>&1 | tee "$fuzzlog"
	return "${PIPESTATUS[0]}"
}
deadline_flake() {
	grep -q 'context deadline exceeded' "$fuzzlog" &&
		! grep -Eq 'Failing input written|panic:|_test\.go:[0-9]+:' "$fuzzlog"
}
fuzzlog=$(mktemp)
trap 'rm -f "$fuzzlog"' EXIT
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
		echo "--- $pkg $f"
		if ! fuzz "$pkg" "$f"; then
			deadline_flake || exit 1
			echo "--- $pkg $f: the Go 1.26 fuzztime deadline race (go.dev/issue/75804), no failing input; once more"
			fuzz "$pkg" "$f" || exit 1
		fi
	done
done

step "kubernetes manifests decode strictly"
(cd deploy/k8s/check && go test -count=1 ./...)

step "kubectl kustomize deploy/k8s renders, and its output decodes strictly"
# What `kubectl apply -k deploy/k8s` would send, through the same strict
# decoder (kubectl comes from Debian's kubectl package).
command -v kubectl >/dev/null || { echo "kubectl is not installed (apt-get install kubectl)" >&2; exit 1; }
# (pipefail: a kustomize failure fails the step too.)
kubectl kustomize deploy/k8s | (cd deploy/k8s/check && go run ./cmd/k8sdecode)

step "docker-compose end-to-end"
scripts/compose_e2e.sh

echo
echo "all checks passed"
echo "checks: $steps passed, 0 failed"
