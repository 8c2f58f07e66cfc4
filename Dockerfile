# nqueens: nqueens-coordinator, nqueens-worker and nqueens-healthprobe in one
# image FROM scratch, built from source:
#
#   docker build -t nqueens:dev .                                   # amd64 at GOAMD64=v1, runs on any x86-64
#   docker build -t nqueens:dev-v3 --build-arg GOAMD64=v3 .         # faster (about 10%), needs a CPU with AVX2 and BMI2 (2015 on)
#   docker buildx build --platform linux/amd64,linux/arm64 -t REGISTRY/nqueens:TAG --push .
#   docker build --build-arg GO_IMAGE=nqueens-build-base:1.26.8-... .   # a local builder (scripts/base_image.sh)
#
# Two stages: the official Go image compiles static binaries (CGO_ENABLED=0),
# and the image keeps only them: no shell, no package manager, no libc. The
# builder runs on the build machine's own platform and cross-compiles for the
# target (TARGETARCH, which buildx sets), so an arm64 image needs no
# emulation. The classic builder sets no TARGETARCH: it builds for the Go
# toolchain's own architecture.
#
# --version names the build: the Go toolchain stamps the tag (or a
# pseudo-version), the revision and its time from the checkout's .git, which
# is why the build context keeps it (.dockerignore). Where there is no .git
# to stamp from (a git worktree, an exported tree), say it with VERSION,
# REVISION and REVISION_TIME, e.g. --build-arg VERSION=$(git describe --tags
# --always --dirty).
#
# One image for both roles: the binaries share almost all their code, one
# build gives one version of everything, and Kubernetes nodes or a compose
# project load a single image. The command names the role
# (`nqueens-coordinator ...` or `nqueens-worker ...`), as
# deploy/docker-compose.yml and deploy/k8s/ do.

# The builder image: the official one by default; any image with the Go
# toolchain (go.mod's version or later), git and a POSIX shell will do.
ARG GO_IMAGE=golang:1.26
# buildx sets BUILDPLATFORM to the build machine's platform; the classic
# builder sets nothing, and "linux" means this machine's architecture there.
ARG BUILDPLATFORM=linux

FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build
# Marks the classic builder's intermediate images of this stage, which it
# keeps as its cache, so a script can find and remove them.
LABEL org.nqueens.stage=build
WORKDIR /src
# The modules first, in a layer of their own: it is rebuilt only when go.mod
# or go.sum change, not on every edit of the source.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETARCH
# v1 runs on every x86-64 CPU; v3 lets the compiler use BMI's single
# instructions for the solver's bit tricks (about 10% faster counting) but
# the binaries refuse to start on CPUs older than Haswell. Ignored off amd64.
ARG GOAMD64=v1
ARG VERSION=
ARG REVISION=
ARG REVISION_TIME=
# /out/state and /out/tmp: directories the runtime user owns in the image
# (a scratch stage cannot mkdir).
RUN set -eu; \
    mkdir -p /out/bin /out/state /out/tmp; \
    CGO_ENABLED=0 GOOS=linux GOARCH="${TARGETARCH:-$(go env GOARCH)}" GOAMD64="$GOAMD64" \
    go build -trimpath -o /out/bin/ -ldflags "-s -w \
      -X github.com/nqueens/nqueens/internal/version.tag=${VERSION} \
      -X github.com/nqueens/nqueens/internal/version.revision=${REVISION} \
      -X github.com/nqueens/nqueens/internal/version.revisionTime=${REVISION_TIME}" \
      ./cmd/nqueens-coordinator ./cmd/nqueens-worker ./cmd/nqueens-healthprobe

FROM scratch
ARG VERSION=
ARG REVISION=
# Image metadata only; nothing here is fetched.
LABEL org.opencontainers.image.title="nqueens" \
      org.opencontainers.image.description="N-Queens cluster: nqueens-coordinator, nqueens-worker and nqueens-healthprobe (static, FROM scratch)" \
      org.opencontainers.image.source="https://github.com/nqueens/nqueens" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"

COPY --from=build /out/bin/ /usr/local/bin/
# A writable directory for `nqueens-coordinator --state /state/job.journal`
# (a named volume mounted here starts with this ownership), and a temporary
# directory for anything that needs os.TempDir (compose and Kubernetes mount
# a tmpfs or an emptyDir over it, since their root filesystem is read-only).
COPY --from=build --chown=65532:65532 /out/state /state
COPY --from=build --chown=65532:65532 /out/tmp /tmp

ENV PATH=/usr/local/bin

# Numeric, so the runtime (and Kubernetes' runAsNonRoot) needs no /etc/passwd.
USER 65532:65532

# 7070 is where every nqueens container answers grpc.health.v1: the
# coordinator's gRPC port (--listen 0.0.0.0:7070), and the worker's health port
# (--health-listen 0.0.0.0:7070). So this one exec-form check, with no shell,
# fits both roles. 8080 is the coordinator's status server (--http).
EXPOSE 7070 8080
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/nqueens-healthprobe", "--addr", "127.0.0.1:7070", "--timeout", "2s"]

# No ENTRYPOINT: the command names the role. Run alone, the image shows the
# coordinator's usage.
CMD ["nqueens-coordinator", "--help"]
