#!/usr/bin/env bash
# compose_e2e.sh: the docker-compose cluster, end to end, with real failures.
#
#   scripts/compose_e2e.sh
#
# Builds the image (scripts/build_images.sh, under a tag of its own), starts
# deploy/docker-compose.yml under a unique project name with 4 workers of one
# slot each at N=14 and a 3s lease, waits until the coordinator reports
# progress, then, while the count is running:
#   - docker kill       one worker container (its stream breaks: its tasks
#                       must go back to the queue at once),
#   - docker network disconnect  another worker from the project network for
#                       longer than the lease, then reconnects it (nothing
#                       breaks, the worker just goes silent: its lease must
#                       expire, its tasks go elsewhere, and its late results,
#                       if any, must be dropped as duplicates);
# and checks that the coordinator exits 0 with exactly 365596 solutions. The
# logs it relied on are printed. Its containers, network, volume and image are
# removed on exit, pass or fail.
#
# Without Docker (no client, no daemon, no Compose tool) it skips with exit 0,
# except under CI=true, where that is a failure.
#
# Knobs (environment): E2E_N and E2E_WANT (board size and its known total,
# e.g. E2E_N=16 E2E_WANT=14772512), E2E_LEASE (3s), E2E_DEPTH (task prefix
# depth; small tasks make the run last), E2E_TIMEOUT (seconds for the whole
# count, 240), COMPOSE (the Compose command, e.g. "docker-compose"; default
# `docker compose` when the plugin is there, else docker-compose).
set -euo pipefail
cd "$(dirname "$0")/.."

n=${E2E_N:-14}
want=${E2E_WANT:-365596}
lease=${E2E_LEASE:-3s}
depth=${E2E_DEPTH:-5}
run_timeout=${E2E_TIMEOUT:-240}
workers=4
lease_s=${lease%s}
[[ "$lease_s" =~ ^[0-9]+$ ]] || { echo "compose_e2e: E2E_LEASE must be whole seconds like 3s, got $lease" >&2; exit 2; }

indent() { sed 's/^/    /'; }
log() { printf 'compose_e2e [%3ds]: %s\n' "$SECONDS" "$*"; }
fail() { printf 'compose_e2e: FAIL: %s\n' "$*" >&2; exit 1; }
skip() {
	if [ "${CI:-}" = true ]; then
		fail "$* (CI=true: the compose end-to-end test must run)"
	fi
	echo "compose_e2e: SKIP: $* (under CI=true this fails)"
	exit 0
}

# --- Is there a Docker to test with?
command -v docker >/dev/null 2>&1 || skip "docker is not installed"
docker info >/dev/null 2>&1 || skip "the Docker daemon is not reachable (docker info failed)"
if [ -n "${COMPOSE:-}" ]; then
	read -r -a compose <<<"$COMPOSE"
elif docker compose version >/dev/null 2>&1; then
	compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
	compose=(docker-compose)
else
	skip "neither 'docker compose' nor docker-compose is installed"
fi
"${compose[@]}" version >/dev/null 2>&1 || skip "'${compose[*]}' does not run"

# --- A project, image and token of our own, removed whatever happens.
project="nqe2e$(date +%s)$$"
image="nqueens:e2e-$project"
export NQUEENS_IMAGE=$image
export NQUEENS_N=$n
export NQUEENS_LEASE=$lease
export NQUEENS_SLOTS=1
export NQUEENS_TOKEN="e2e-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export NQUEENS_COORDINATOR_FLAGS="--json --depth $depth"
dc() { "${compose[@]}" --project-name "$project" --file deploy/docker-compose.yml "$@"; }

coord=""
cleanup() {
	local rc=$?
	set +e
	if [ "$rc" -ne 0 ] && [ -n "$coord" ]; then
		echo "--- logs of every container of $project (the run failed)"
		dc logs --no-color --tail 60 2>&1
	fi
	log "cleaning up project $project and image $image"
	dc down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1
	docker image rm "$image" >/dev/null 2>&1
	left=$(docker ps -aq --filter "label=com.docker.compose.project=$project")
	[ -z "$left" ] || { echo "compose_e2e: containers left behind: $left" >&2; docker rm -f $left >/dev/null 2>&1; }
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "compose: ${compose[*]} ($("${compose[@]}" version --short 2>/dev/null || echo '?')); docker engine $(docker version --format '{{.Server.Version}}')"
log "building image $image"
scripts/build_images.sh

log "starting project $project: coordinator + $workers workers, N=$n, lease $lease, depth $depth, 1 slot each"
dc up --detach --scale worker=$workers 2>&1 | indent
coord=$(dc ps -q coordinator)
mapfile -t wids < <(dc ps -q worker | sort)
[ -n "$coord" ] || fail "no coordinator container"
[ "${#wids[@]}" -eq "$workers" ] || fail "want $workers worker containers, got ${#wids[@]}"
name() { docker inspect --format '{{.Name}}' "$1" | sed 's,^/,,'; }
running() { [ "$(docker inspect --format '{{.State.Running}}' "$1")" = true ]; }
network=$(docker inspect --format '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$coord" | awk '{print $1}')
killed=${wids[0]}
cut_off=${wids[1]}
log "coordinator $(name "$coord"); workers $(for w in "${wids[@]}"; do printf '%s ' "$(name "$w")"; done); network $network"

# --- Wait until the count is under way: the coordinator logs progress.
progress_re='tasks_done=[1-9]|done=[1-9]'
deadline=$((SECONDS + 60))
until docker logs "$coord" 2>&1 | grep -Eq "$progress_re"; do
	running "$coord" || fail "the coordinator exited before reporting any progress"
	[ "$SECONDS" -lt "$deadline" ] || fail "no progress in the coordinator's log after 60s"
	sleep 0.2
done
log "work under way: $(docker logs "$coord" 2>&1 | grep -E "$progress_re" | tail -1)"

# --- Failures, while the coordinator is still counting.
running "$coord" || fail "the count finished before a worker could be killed: make it longer (E2E_DEPTH, or E2E_N=16 E2E_WANT=14772512)"
docker kill "$killed" >/dev/null
log "docker kill $(name "$killed"): exit code $(docker inspect --format '{{.State.ExitCode}}' "$killed")"
running "$coord" || fail "the count finished before a worker could be cut off: make it longer"
docker network disconnect "$network" "$cut_off"
log "docker network disconnect $network $(name "$cut_off")"
sleep $((lease_s * 2 + 1))
still_running=no
running "$coord" && still_running=yes
docker network connect "$network" "$cut_off" 2>/dev/null || log "(reconnect failed: $(name "$cut_off") has exited)"
log "docker network connect $network $(name "$cut_off") after $((lease_s * 2 + 1))s, longer than the ${lease} lease (coordinator still counting: $still_running)"

# --- The result.
log "waiting for the coordinator to exit (at most ${run_timeout}s)"
if ! code=$(timeout "$run_timeout" docker wait "$coord"); then
	fail "the coordinator did not exit within ${run_timeout}s"
fi
log "coordinator exited with code $code"

echo "--- containers of $project"
docker ps -a --filter "label=com.docker.compose.project=$project" --format '{{.Names}}\t{{.Status}}' | sort | indent
echo "--- coordinator log (stderr; first and last lines, and every line about workers, leases and failures)"
coord_err=$(docker logs "$coord" 2>&1 >/dev/null)
head -n 10 <<<"$coord_err" | indent
echo "    ..."
{ grep -Ei 'join|leave|left|lost|broke|disconnect|expire|requeue|retry|cancel|drain|duplicate|conflict|error|warn' <<<"$coord_err" || true; } | tail -n 40 | indent
echo "    ..."
tail -n 5 <<<"$coord_err" | indent
echo "--- coordinator result (stdout)"
result=$(docker logs "$coord" 2>/dev/null)
indent <<<"$result"
echo "--- killed worker $(name "$killed") (log tail)"
docker logs --tail 8 "$killed" 2>&1 | indent
echo "--- disconnected worker $(name "$cut_off") (log tail)"
docker logs --tail 12 "$cut_off" 2>&1 | indent

[ "$(docker inspect --format '{{.State.ExitCode}}' "$killed")" = 137 ] || fail "worker $(name "$killed") was not killed (exit code is not 137)"
[ "$code" = 0 ] || fail "coordinator exit code $code, want 0"
got=$(echo "$result" | grep -o '"solutions": *[0-9]*' | head -1 | grep -o '[0-9]*$' || true)
[ "$got" = "$want" ] || fail "coordinator reports ${got:-no} solutions for N=$n, want $want"
[ "$still_running" = yes ] || fail "the count ended before the cut-off worker's lease could expire: the failures were not tested mid-run"
log "PASS: N=$n counted $got solutions (want $want) with one worker killed and one cut off for longer than its lease"
