#!/usr/bin/env bash
# base_image.sh: make a local Go builder image for the Dockerfile's GO_IMAGE,
# for machines that cannot pull the official golang image (no registry), and
# print its name:
#
#   docker build --build-arg GO_IMAGE="$(scripts/base_image.sh)" -t nqueens:dev .
#
# The image is made from this machine's own files, with `docker import` of a
# root filesystem holding:
#   /usr/local/go   the Go toolchain that `go` here runs (its tests and
#                   documentation left out)
#   /go/pkg/mod     every module go.mod needs, so `go mod download` in the
#                   Dockerfile finds them all (GOPROXY=off: a missing module
#                   fails at once instead of trying the network); taken from
#                   this machine's module cache, or the module proxy for
#                   those it lacks
#   sh, git and a few core tools (mkdir, mv, cp, ...), with the shared
#                   libraries they load (ldd): the Dockerfile's RUN needs a
#                   shell and its tools, and the go command stamps the
#                   build's revision with git
#   CA certificates for a GOPROXY set by hand
# and the official image's layout (GOPATH=/go, PATH), so the Dockerfile
# cannot tell the two apart. Then it compiles the three programs once in it
# (CGO_ENABLED=0, -trimpath, GOAMD64=v1, as the Dockerfile does by default)
# and keeps the Go build cache that leaves: the image builds that follow
# compile only the packages of this repository that changed, not the
# standard library and every dependency again (classic docker build has no
# cache mounts).
#
# Idempotent and fast once made: the name holds the Go version and a hash of
# go.mod and go.sum (nqueens-build-base:1.26.8-<hash>), and an image of that
# name is reused as it is (a few tens of milliseconds). Making one takes a
# minute or two, and as long again for the compilation. Other nqueens-build-base images (older go.sum) are
# removed when a new one is made, unless something still uses them.
# NQUEENS_BASE_IMAGE names the image instead (and nothing is removed).
set -euo pipefail
cd "$(dirname "$0")/.."

goroot=$(go env GOROOT)
gover=$(go env GOVERSION)
hash=$(cat go.mod go.sum | sha256sum | cut -c1-12)
image=${NQUEENS_BASE_IMAGE:-nqueens-build-base:${gover#go}-$hash}
if docker image inspect "$image" >/dev/null 2>&1; then
	echo "$image"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nqueens-base.XXXXXX")
# The module cache's files are read-only: make them writable to remove them.
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/usr/local" "$root/go/pkg/mod" "$root/go/bin" "$root/root" "$root/etc/ssl/certs" "$root/tmp"
chmod 1777 "$root/tmp"

# The toolchain, without what no build reads.
# --anchored: "go/doc" must match the top-level doc directory only, not the
# standard library's go/doc package (src/go/doc), which the build needs.
tar -C "$(dirname "$goroot")" --anchored --exclude="$(basename "$goroot")/test" --exclude="$(basename "$goroot")/doc" \
	--exclude="$(basename "$goroot")/api" --no-anchored --exclude='testdata' -cf - "$(basename "$goroot")" |
	tar -C "$root/usr/local" -xf -
[ "$(basename "$goroot")" = go ] || mv "$root/usr/local/$(basename "$goroot")" "$root/usr/local/go"

# The modules, from this machine's download cache first (no network), then
# wherever GOPROXY points.
GOFLAGS=-mod=mod GOMODCACHE="$root/go/pkg/mod" \
	GOPROXY="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)" \
	go mod download >/dev/null

# A shell, git and the core tools, with the libraries they load, at the same paths.
copy_with_libs() {
	local bin=$1 lib
	mkdir -p "$root$(dirname "$bin")"
	cp -L "$bin" "$root$bin"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
copy_with_libs "$(readlink -f /bin/sh)"
[ -e "$root/bin/sh" ] || { mkdir -p "$root/bin"; ln -s "$(readlink -f /bin/sh)" "$root/bin/sh"; }
copy_with_libs "$(command -v git)"
for tool in mkdir mv cp rm ls cat chmod ln; do copy_with_libs "$(command -v "$tool")"; done
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/" 2>/dev/null || true
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"

bare=$image-bare
tar -C "$root" -cf - . | docker import \
	--change 'ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin' \
	--change 'ENV GOPATH=/go' --change 'ENV GOPROXY=off' --change 'ENV GOTOOLCHAIN=local' \
	--change 'ENV HOME=/root' --change 'WORKDIR /go' \
	--message "nqueens build base: $gover and the modules of go.sum $hash, from this machine" \
	- "$bare" >/dev/null

# The build cache: the programs compiled once from this checkout (mounted
# read-only), the results thrown away, the cache kept in the image.
warm=$(docker create --volume "$PWD:/src:ro" --workdir /src --env CGO_ENABLED=0 --env GOAMD64=v1 \
	"$bare" go build -trimpath -buildvcs=false ./cmd/nqueens-coordinator ./cmd/nqueens-worker ./cmd/nqueens-healthprobe)
if ! docker start --attach "$warm" >"$work/warm.log" 2>&1; then
	cat "$work/warm.log" >&2
	docker rm "$warm" >/dev/null
	docker image rm "$bare" >/dev/null
	echo "base_image.sh: compiling the programs in $bare failed" >&2
	exit 1
fi
docker commit --change 'WORKDIR /go' --change 'CMD ["/bin/sh"]' "$warm" "$image" >/dev/null
docker rm "$warm" >/dev/null
docker image rm "$bare" >/dev/null

# Older bases (another go.sum or Go) are dead weight; one still in use (a
# build of a run beside this one) is kept. A name given by hand is left alone.
if [ -z "${NQUEENS_BASE_IMAGE:-}" ]; then
	docker images --format '{{.Repository}}:{{.Tag}}' nqueens-build-base | grep -vxF "$image" |
		xargs -r docker image rm >/dev/null 2>&1 || true
fi
echo "$image"
