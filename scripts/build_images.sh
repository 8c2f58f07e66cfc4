#!/usr/bin/env bash
# build_images.sh: build the image nqueens:dev from the repository's
# Dockerfile, on a machine with no image registry as on any other.
#
#   scripts/build_images.sh                                  nqueens:dev (GOAMD64=v1: any x86-64 CPU)
#   NQUEENS_GOAMD64=v3 NQUEENS_IMAGE=nqueens:dev-v3 scripts/build_images.sh   the faster variant
#   NQUEENS_GO_IMAGE=golang:1.26 scripts/build_images.sh     the official builder image (pulled)
#
# The builder image is NQUEENS_GO_IMAGE, by default the one
# scripts/base_image.sh makes from this machine's Go toolchain and module
# cache (made once, then reused), so nothing is pulled. Where the build
# context has no .git to stamp the version from (a git worktree), the
# version and revision are given as build arguments, so --version in the
# image names the commit either way. A rebuild removes the image the tag
# named before, unless something still uses it, and the build leaves no
# intermediate images behind. It prints the image, its
# size and how long the build took.
set -euo pipefail
cd "$(dirname "$0")/.."

image=${NQUEENS_IMAGE:-nqueens:dev}
go_image=${NQUEENS_GO_IMAGE:-$(scripts/base_image.sh)}
args=(--build-arg "GO_IMAGE=$go_image" --build-arg "GOAMD64=${NQUEENS_GOAMD64:-v1}")
if [ ! -d .git ]; then
	args+=(--build-arg "VERSION=$(git describe --tags --always --dirty 2>/dev/null || true)"
		--build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || true)")
fi
# The classic builder needs nothing more than the engine; BuildKit's
# front end needs the buildx plugin on Docker 23 and later.
docker buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0

# The builder stage's intermediate images that the classic builder keeps
# as its cache (hundreds of MB a build, of use only to a build of the same
# tree) are removed when the script ends, newest first; one that another
# build still uses stays.
stage_images() { docker images -aq --no-trunc --filter label=org.nqueens.stage=build; }
stage_images_before=$(stage_images)
log=$(mktemp "${TMPDIR:-/tmp}/nqueens-build.XXXXXX")
trap 'rm -f "$log"; stage_images | grep -vxF -e "$stage_images_before" -e "" | xargs -r docker image rm >/dev/null 2>&1 || true' EXIT
previous=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
start=$SECONDS
if ! docker build --tag "$image" "${args[@]}" . >"$log" 2>&1; then
	cat "$log" >&2
	echo "build_images.sh: docker build of $image failed" >&2
	exit 1
fi
id=$(docker image inspect --format '{{.Id}}' "$image")
if [ -n "$previous" ] && [ "$previous" != "$id" ]; then
	docker image rm "$previous" >/dev/null 2>&1 || true
fi
size=$(docker image inspect --format '{{.Size}}' "$image")
echo "built image $image $id ($((size / 1024 / 1024)) MiB) in $((SECONDS - start))s with $go_image, GOAMD64=${NQUEENS_GOAMD64:-v1}"
docker run --rm --no-healthcheck "$image" nqueens-coordinator --version
