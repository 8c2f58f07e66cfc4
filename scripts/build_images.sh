#!/usr/bin/env bash
# build_images.sh: build the static binaries on the host and the image
# nqueens:dev (FROM scratch) that holds them. Nothing is pulled.
#
#   scripts/build_images.sh              builds nqueens:dev
#   NQUEENS_IMAGE=nqueens:e2e-1 scripts/build_images.sh   another tag
#
# Idempotent: the binaries are built reproducibly (-trimpath; the VCS stamp
# is the commit and its time, plus a dirty flag), so an unchanged tree
# reuses Docker's cached layers and gives the same image ID, and
# `coordinator --version` in the image names the revision it was built
# from. Needs Go and a reachable Docker daemon.
set -euo pipefail
cd "$(dirname "$0")/.."

image=${NQUEENS_IMAGE:-nqueens:dev}
# The image runs on this machine's Docker engine: build for its architecture
# and, on amd64, for the newest GOAMD64 level this CPU runs (v3 counts about
# 10% faster than Go's default v1). For nodes with older CPUs, say
# GOAMD64=v1 (a binary built for a level its CPU lacks refuses to start).
arch=$(docker version --format '{{.Server.Arch}}' 2>/dev/null || go env GOARCH)
level=
if [ "$arch" = amd64 ]; then
	level=${GOAMD64:-$(scripts/goamd64.sh)}
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nqueens-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
ctx=$work/context
mkdir -p "$ctx/bin" "$ctx/state" "$ctx/tmp"
chmod 0755 "$ctx/state" "$ctx/tmp"

# GOFLAGS without -buildvcs=false (some machines set it): the binaries
# carry the revision they were built from.
goflags=$(printf '%s' "${GOFLAGS:-}" | sed 's/-buildvcs=[a-z]*//g')
for cmd in coordinator worker healthprobe; do
	GOFLAGS=$goflags CGO_ENABLED=0 GOOS=linux GOARCH="$arch" GOAMD64="$level" \
		go build -trimpath -buildvcs=auto -ldflags='-s -w' -o "$ctx/bin/$cmd" "./cmd/$cmd"
done
cp deploy/Dockerfile "$ctx/Dockerfile"

# DOCKER_BUILDKIT=0: the classic builder is all a FROM scratch image needs,
# and it works without the buildx plugin (not installed here). Its output,
# with the builder's deprecation notice, is shown only when it fails.
previous=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
if ! DOCKER_BUILDKIT=0 docker build --tag "$image" \
	--label "org.opencontainers.image.revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	"$ctx" >"$work/build.log" 2>&1; then
	cat "$work/build.log" >&2
	echo "build_images.sh: docker build of $image failed" >&2
	exit 1
fi

id=$(docker image inspect --format '{{.Id}}' "$image")
# The image this tag named before is now untagged: remove it unless a
# container or another tag still uses it, so rebuilding leaves no litter.
if [ -n "$previous" ] && [ "$previous" != "$id" ]; then
	docker image rm "$previous" >/dev/null 2>&1 || true
fi
size=$(docker image inspect --format '{{.Size}}' "$image")
echo "built image $image $id ($((size / 1024 / 1024)) MiB, linux/$arch${level:+ GOAMD64=$level})"
for cmd in coordinator worker healthprobe; do
	printf '  /usr/local/bin/%-12s %s bytes\n' "$cmd" "$(stat -c %s "$ctx/bin/$cmd")"
done
