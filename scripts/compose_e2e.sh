#!/usr/bin/env bash
# compose_e2e.sh: the docker-compose cluster, end to end, with real failures.
#
#   scripts/compose_e2e.sh
#
# Builds the image from the repository's Dockerfile through the compose
# file's build section (under a tag of its own; the builder image is the one
# scripts/base_image.sh makes from this machine's Go, since no registry is
# reachable, unless NQUEENS_GO_IMAGE names another), checks that --version
# in it names this commit, starts
# deploy/docker-compose.yml under a unique project name with 4 workers of one
# slot each, N=18 at depth 5 (78,295 small tasks: long enough to hurt it
# mid-run; N=17 ended before its worker kill once the solver got faster, and
# N=14 is over in about 2 s, before docker-compose has even started the
# fourth worker) and a 3 s
# lease. The coordinator journals to the compose file's named volume with
# --resume=auto and restart: on-failure. It waits until the coordinator logs
# progress with all 4 workers, then, while the count runs, kills the
# coordinator twice and checks that it comes back and resumes its journal
# with some tasks already committed (the workers rejoin by themselves):
#   - kill -9 of its process from the host (a crash: Docker's restart policy
#                       brings it back; skipped, with a note, where the
#                       script may not signal the container's process),
#   - docker kill       of its container (Docker treats that as a stop by
#                       hand and does not restart it, whatever the policy:
#                       `start coordinator` starts it again, as an operator
#                       would, typed here with another NQUEENS_N, which
#                       must not matter);
# then, once all 4 workers are back:
#   - docker kill       one worker container (its stream breaks: its tasks
#                       must go back to the queue at once),
#   - docker network disconnect  another worker from the project network for
#                       longer than the lease, then reconnects it (nothing
#                       breaks, the worker just goes silent: its lease must
#                       expire, its tasks go elsewhere, and its late results,
#                       if any, must be dropped as duplicates);
# and checks that the coordinator exits 0 with exactly 666090624 solutions
# (DESIGN.md §5) in spite of its deaths, that its log shows it noticed the
# killed worker, and that
# its --json result counts at least one expired lease, taken back (so both
# failures really hit the job). Meanwhile a worker with a wrong token,
# started just before the failures, must be refused. A host Prometheus
# (Debian's prometheus package) scrapes the coordinator's /metrics, published
# on the host's loopback, with the token, and each worker's own /metrics
# (worker --http) at its container's address, and evaluates the alert rules of
# deploy/monitoring/nqueens-rules.yml: `promtool check metrics` must pass on
# it mid-run; at the end the highest nqueens_solutions Prometheus saw must be
# the exact total, every alert rule must have been evaluated without error,
# and every query of the Grafana dashboard (deploy/monitoring) must give data
# for a moment mid-run (without prometheus it is skipped, except under
# CI=true). It prints the logs it relied on, and removes
# its containers, network, volume and image on exit, pass or fail (the
# builder image stays, for the next run).
#
# Without Docker (no client, no daemon, no Compose tool) it skips with exit 0,
# except under CI=true, where that is a failure.
#
# Knobs (environment): E2E_N and E2E_WANT (board size and its known total,
# e.g. E2E_N=14 E2E_WANT=365596; E2E_WANT_UNIQUE, the fundamental count,
# is checked too when given, and for N=18); E2E_LEASE (3s); E2E_DEPTH (task depth, 5:
# small tasks make the run last; "auto" lets the coordinator choose);
# E2E_WORKER_CPUS (each worker container's CPU limit, 0.15: the count must
# outlast the setup and both coordinator kills, which took 35 s of a
# loaded machine while four unlimited workers did 88% of N=18, so it is
# paced by the limit rather than by the machine; 0 for none);
# E2E_TIMEOUT (seconds allowed for the count, 420); E2E_START_WAIT (seconds
# allowed until the first task is done with every worker joined, 120: more
# for big N, whose first tasks are long); E2E_REJOIN_WAIT (seconds allowed
# for the coordinator to resume and every worker to rejoin after a kill, 60:
# a worker rejoins once its running task ends, long for big N); COMPOSE (the Compose
# command; default `docker compose` when that plugin is there, else
# docker-compose); E2E_PROJECT (the Compose project name, default
# nqe2e<time><pid>, unique to the run) and E2E_IMAGE (the image tag it builds
# and removes, default nqueens:e2e-<project>), so that runs side by side on
# one Docker never share containers, volumes or images.
set -euo pipefail
cd "$(dirname "$0")/.."

n=${E2E_N:-18}
want=${E2E_WANT:-666090624}
want_unique=${E2E_WANT_UNIQUE:-}
[ -n "$want_unique" ] || [ "$n" != 18 ] || want_unique=83263591
lease=${E2E_LEASE:-3s}
depth=${E2E_DEPTH:-5}
run_timeout=${E2E_TIMEOUT:-420}
worker_cpus=${E2E_WORKER_CPUS:-0.15}
start_wait=${E2E_START_WAIT:-120}
rejoin_wait=${E2E_REJOIN_WAIT:-60}
workers=4
lease_s=${lease%s}
[[ "$lease_s" =~ ^[0-9]+$ ]] || { echo "compose_e2e: E2E_LEASE must be whole seconds like 3s, got $lease" >&2; exit 2; }
[[ "$worker_cpus" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "compose_e2e: E2E_WORKER_CPUS must be a number of CPUs like 0.15 (0: no limit), got $worker_cpus" >&2; exit 2; }

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
project=${E2E_PROJECT:-"nqe2e$(date +%s)$$"}
image=${E2E_IMAGE:-"nqueens:e2e-$project"}
[[ "$project" =~ ^[a-z0-9][a-z0-9_-]*$ ]] || { echo "compose_e2e: E2E_PROJECT must be lowercase letters, digits, - and _, got $project" >&2; exit 2; }
export NQUEENS_IMAGE=$image
export NQUEENS_N=$n
export NQUEENS_LEASE=$lease
export NQUEENS_SLOTS=1
# Workers outlast the coordinator's restarts (seconds here) by far.
export NQUEENS_JOIN_TIMEOUT=60s
export NQUEENS_TOKEN="e2e-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export NQUEENS_COORDINATOR_FLAGS="--json --depth $depth --progress-interval 1s"
[ "$depth" != auto ] || NQUEENS_COORDINATOR_FLAGS="--json --progress-interval 1s"
dc_files=(--file deploy/docker-compose.yml) # and the workers' CPU limit, below
dc() { "${compose[@]}" --project-name "$project" "${dc_files[@]}" "$@"; }

coord=""
cleanup() {
	local rc=$?
	set +e
	if [ "$rc" -ne 0 ] && [ -n "$coord" ]; then
		echo "--- logs of every container of $project (the run failed)"
		dc logs --no-color --tail 60 2>&1
	fi
	log "cleaning up project $project and image $image"
	if [ -n "${up_pid:-}" ]; then kill "$up_pid" 2>/dev/null; wait "$up_pid" 2>/dev/null; fi
	[ -z "${bg_pid:-}" ] || kill "$bg_pid" 2>/dev/null
	[ -z "${rss_pid:-}" ] || kill "$rss_pid" 2>/dev/null
	if [ -n "${prom_pid:-}" ]; then kill "$prom_pid" 2>/dev/null; wait "$prom_pid" 2>/dev/null; fi
	[ -z "${build_pid:-}" ] || kill "$build_pid" 2>/dev/null
	dc down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1
	rm -rf "${tmp:-}"
	docker image rm "$image" >/dev/null 2>&1
	# The builder stage's intermediate images this run's build left (the
	# classic builder keeps them as its cache: hundreds of MB a build),
	# newest first so children go before their parents; one that another
	# run's build still uses stays.
	if [ -n "${stage_images_before+set}" ]; then
		stage_images | grep -vxF -e "$stage_images_before" -e '' | xargs -r docker image rm >/dev/null 2>&1
	fi
	left=$(docker ps -aq --filter "label=com.docker.compose.project=$project")
	[ -z "$left" ] || { echo "compose_e2e: containers left behind: $left" >&2; docker rm -f $left >/dev/null 2>&1; }
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# interruptible runs a long wait in the background and waits for it, so that
# SIGINT/SIGTERM reach the trap (and the cleanup) at once instead of after it.
# Its output goes to the file $1 ("" = stdout): a redirection around the call
# would also catch whatever the trap prints.
bg_pid=""
interruptible() {
	local out=$1
	shift
	if [ -n "$out" ]; then "$@" >"$out" & else "$@" & fi
	bg_pid=$!
	wait "$bg_pid"
}

# free_port LOW HIGH prints a port of the host's loopback in LOW..HIGH that
# nothing answers on.
free_port() {
	local port
	for port in $(seq "$1" "$2"); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return 0; }
	done
	return 1
}

# --- Prometheus on the host, scraping the coordinator's status port (published
# on 127.0.0.1 only) with the token, as a deployment's would.
prom_pid=""
prom_web=""
start_prometheus() {
	if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
		[ "${CI:-}" != true ] || fail "prometheus and promtool are not installed (CI=true: apt-get install prometheus)"
		log "SKIP the Prometheus checks: prometheus or promtool is not installed (apt-get install prometheus)"
		return 0
	fi
	local target port
	target=$(dc port coordinator 8080 2>/dev/null | tail -n 1) || true
	[ -n "$target" ] || fail "the coordinator's status port 8080 is not published on the host"
	target=${target/0.0.0.0/127.0.0.1}
	curl -fsS --max-time 5 -H "Authorization: Bearer $NQUEENS_TOKEN" "http://$target/metrics" >"$tmp/metrics.txt" ||
		fail "GET http://$target/metrics with the token failed"
	promtool check metrics <"$tmp/metrics.txt" >"$tmp/promtool.txt" 2>&1 || { indent <"$tmp/promtool.txt"; fail "promtool check metrics failed on the coordinator's /metrics"; }
	log "promtool check metrics: ok on http://$target/metrics ($(grep -c '^nqueens_' "$tmp/metrics.txt") nqueens samples)"
	port=$(free_port 19090 19190) || fail "no free port for Prometheus in 19090..19190"
	prom_web=127.0.0.1:$port
	printf '%s' "$NQUEENS_TOKEN" >"$tmp/token"
	# The workers' own /metrics (worker --http 0.0.0.0:9090), unpublished:
	# scraped at each container's address on the project network, which the
	# host reaches through Docker's bridge.
	local wid ip targets=""
	for wid in $(ids worker); do
		ip=$(docker inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "$wid" | awk '{print $1}')
		[ -z "$ip" ] || targets="$targets${targets:+, }\"$ip:9090\""
	done
	[ -n "$targets" ] || fail "no worker container has an address to scrape"
	printf '[{"targets": [%s]}]\n' "$targets" >"$tmp/workers.json"
	cat >"$tmp/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 500ms
		  scrape_timeout: 500ms
		  evaluation_interval: 1s
		rule_files: ["$PWD/deploy/monitoring/nqueens-rules.yml"]
		scrape_configs:
		  - job_name: nqueens
		    authorization:
		      credentials_file: $tmp/token
		    static_configs:
		      - targets: ["$target"]
		  - job_name: nqueens-worker
		    file_sd_configs:
		      - files: ["$tmp/workers.json"]
	EOF
	prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prometheus" \
		--web.listen-address="$prom_web" --log.level=warn >"$tmp/prometheus.log" 2>&1 &
	prom_pid=$!
	log "prometheus on $prom_web scraping http://$target/metrics and the workers' at $targets every 500ms, evaluating deploy/monitoring/nqueens-rules.yml"
}

# attached NAME: does the coordinator's /api/status list a worker of that
# name (a container's short ID) as attached?
attached() {
	local body
	body=$(curl -fsS --max-time 2 -H "Authorization: Bearer $NQUEENS_TOKEN" "http://127.0.0.1:$http_port/api/status" 2>/dev/null) || return 1
	grep -qF "\"name\":\"$1\"" <<<"$body"
}

# prom_query prints the value of a PromQL query's single result, or nothing.
prom_query() {
	curl -fsS --max-time 5 --get --data-urlencode "query=$1" "http://$prom_web/api/v1/query" 2>/dev/null |
		grep -o '"value":\[[^]]*\]' | sed 's/.*,"\(.*\)"\]/\1/' || true
}

# --- The coordinator dies mid-run and comes back (restart: on-failure, the
# journal on the volume, --resume=auto), and the workers rejoin it.
journal=/state/job.journal
resumed_re="resuming: state=$journal committed_tasks=[0-9]+ tasks=[0-9]+"
resumes() { docker logs "$coord" 2>&1 | grep -Eo "$resumed_re" || true; }
# since_resume prints the coordinator's log since its last resume (docker logs
# holds every run of the container).
since_resume() { docker logs "$coord" 2>&1 | awk '/resuming: /{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}'; }
coord_state() { docker inspect --format '{{.State.Status}} exit={{.State.ExitCode}} restarts={{.RestartCount}}' "$coord"; }
# wait_resumed K WHAT waits for the coordinator's K-th resume, which must
# find some but not all tasks committed in the journal, then for progress
# with all the workers rejoined.
wait_resumed() {
	local k=$1 what=$2 until_t=$((SECONDS + rejoin_wait)) line committed total
	until [ "$(resumes | wc -l)" -ge "$k" ]; do
		[ "$SECONDS" -lt "$until_t" ] || fail "no resume $k in the coordinator's log ${rejoin_wait}s after $what ($(coord_state))"
		sleep 0.1
	done
	line=$(resumes | sed -n "${k}p")
	committed=$(sed 's/.*committed_tasks=\([0-9]*\).*/\1/' <<<"$line")
	total=$(sed 's/.*tasks=\([0-9]*\)$/\1/' <<<"$line")
	[ "$committed" -ge 1 ] && [ "$committed" -lt "$total" ] ||
		fail "after $what the coordinator resumed with $committed of $total tasks committed: want some, not all"
	log "after $what ($((SECONDS - t_down))s down): $line"
	until since_resume | grep -Eq "$progress_re"; do
		running "$coord" || fail "the coordinator exited after $what before its $workers workers rejoined ($(coord_state))"
		[ "$SECONDS" -lt "$until_t" ] || fail "the $workers workers did not rejoin within ${rejoin_wait}s of $what"
		sleep 0.1
	done
	log "all $workers workers rejoined $((SECONDS - t_down))s after $what: $(since_resume | grep -E "$progress_re" | head -n 1)"
}
crashes=0
coordinator_comes_back() {
	# Not grep -q: it would stop reading at the match, docker logs would
	# die of SIGPIPE, and pipefail would fail the check (seen in CI).
	docker logs "$coord" 2>&1 | grep -c "journal created: state=$journal" >/dev/null ||
		fail "the coordinator's first start did not log 'journal created: state=$journal'"
	log "coordinator runs with $(docker inspect --format '{{join .Args " "}}' "$coord" | grep -o -- '--state [^ ]* --resume=[a-z]*'), restart policy $(docker inspect --format '{{.HostConfig.RestartPolicy.Name}}:{{.HostConfig.RestartPolicy.MaximumRetryCount}}' "$coord")"
	# 1. A crash: SIGKILL from outside Docker, as the kernel's OOM killer
	# would. Docker sees the process die and applies the restart policy.
	local pid before
	pid=$(docker inspect --format '{{.State.Pid}}' "$coord")
	if kill -KILL "$pid" 2>/dev/null; then
		t_down=$SECONDS
		crashes=1
		log "kill -9 of the coordinator's process (host pid $pid)"
		until [ "$(docker inspect --format '{{.RestartCount}}' "$coord")" -ge 1 ] && running "$coord"; do
			[ $((SECONDS - t_down)) -lt 30 ] || fail "Docker did not restart the coordinator within 30s of its crash ($(coord_state))"
			sleep 0.1
		done
		log "Docker restarted it: $(coord_state)"
		wait_resumed 1 "the crash"
	else
		log "SKIP the crash: this shell may not signal the coordinator's process (host pid $pid): not root, or a remote Docker"
	fi
	# 2. docker kill: Docker counts it as a stop by hand and never restarts
	# the container, whatever its policy; `up -d` starts it again.
	before=$(docker inspect --format '{{.RestartCount}}' "$coord")
	docker kill "$coord" >/dev/null
	t_down=$SECONDS
	while running "$coord"; do sleep 0.1; done
	sleep 1 # Docker's first restart comes 100ms after an exit, if it comes
	[ "$(coord_state)" = "exited exit=137 restarts=$before" ] ||
		fail "after docker kill the coordinator is '$(coord_state)', want 'exited exit=137 restarts=$before'"
	log "docker kill of the coordinator: $(coord_state) a second later (not restarted); ${compose[*]} start coordinator"
	# deploy/README.md's restart command, typed with another board size:
	# `start` starts the container with the settings it was made with.
	NQUEENS_N=$((n - 1)) dc start coordinator >"$tmp/up-again.log" 2>&1 || { indent <"$tmp/up-again.log"; fail "start coordinator failed"; }
	[ "$(ids coordinator)" = "$coord" ] || fail "start replaced the coordinator container instead of starting it again: $(ids coordinator)"
	wait_resumed $((crashes + 1)) "docker kill and start (typed with NQUEENS_N=$((n - 1)))"
}

log "compose: ${compose[*]} ($("${compose[@]}" version --short 2>/dev/null || echo '?')); docker engine $(docker version --format '{{.Server.Version}}')"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compose-e2e.XXXXXX")
if [ "$worker_cpus" != 0 ]; then
	printf 'services:\n  worker:\n    cpus: %s\n' "$worker_cpus" >"$tmp/worker-cpus.yml"
	dc_files+=(--file "$tmp/worker-cpus.yml")
fi
# --- The image, from the Dockerfile through the compose file's build section.
# No registry here: the builder image is made from this machine's Go.
t_base=$SECONDS
export NQUEENS_GO_IMAGE=${NQUEENS_GO_IMAGE:-$(scripts/base_image.sh)}
log "builder image $NQUEENS_GO_IMAGE ready in $((SECONDS - t_base))s"
# Go stamps the version from .git; a git worktree's .git is a file that
# points outside the build context, so say it with build arguments there.
rev=$(git rev-parse HEAD 2>/dev/null || true)
if [ ! -d .git ]; then
	export NQUEENS_VERSION=$(git describe --tags --always --dirty 2>/dev/null || true)
	export NQUEENS_REVISION=$rev
fi
# The classic builder needs nothing but the engine (BuildKit's front end
# needs the buildx plugin on Docker 23 and later).
docker buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0 COMPOSE_DOCKER_CLI_BUILD=0
stage_images() { docker images -aq --no-trunc --filter label=org.nqueens.stage=build; }
stage_images_before=$(stage_images)
log "building image $image (${compose[*]} build coordinator)"
t_build=$SECONDS
interruptible "$tmp/build.log" dc build coordinator || { indent <"$tmp/build.log"; fail "the image build failed"; }
bg_pid=""
log "built image $image in $((SECONDS - t_build))s ($(($(docker image inspect --format '{{.Size}}' "$image") / 1024 / 1024)) MiB)"
# --version names this commit: the tag (or a pseudo-version) and the
# revision that Go stamps from .git, or the build arguments in a worktree.
want_version="rev ${rev:0:12}"
tag=$(git describe --tags --exact-match 2>/dev/null || true)
[ -z "${NQUEENS_VERSION:-}" ] || want_version="$NQUEENS_VERSION (rev ${rev:0:12}"
[ -z "$tag" ] || [ -n "${NQUEENS_VERSION:-}" ] || want_version="$tag (rev ${rev:0:12}"
for bin in coordinator worker healthprobe; do
	v=$(docker run --rm --no-healthcheck "$image" "nqueens-$bin" --version) || fail "nqueens-$bin --version in the image failed"
	case "$v" in
	*"$want_version"*) log "image: $v" ;;
	*) fail "nqueens-$bin --version in the image says '$v', want '$want_version'" ;;
	esac
done

# A small program of deploy/k8s/check's module that runs the dashboard's
# queries and reads the rules' health from Prometheus' API.
if command -v prometheus >/dev/null 2>&1; then
	(cd deploy/k8s/check && go build -o "$tmp/promcheck" ./cmd/promcheck) || fail "go build of promcheck failed"
fi

# The status port on a fixed host port, not one Docker picks at each start:
# the coordinator is restarted mid-run, and Prometheus must find it again.
http_port=$(free_port 18080 18180) || fail "no free port for the coordinator's status server in 18080..18180"
export NQUEENS_HTTP_PORT=$http_port
log "starting project $project: coordinator + $workers workers, N=$n, lease $lease, depth $depth, 1 slot and $worker_cpus CPUs (0: no limit) each"
# Compose starts the workers only once the coordinator is healthy, and
# docker-compose 1.x takes seconds to create them: by the time `up` returns
# the count may be well along. So `up` runs in the background and the
# coordinator's log is watched from its first second.
dc up --detach --scale worker=$workers >"$tmp/up.log" 2>&1 &
up_pid=$!
ids() { docker ps -aq --filter "label=com.docker.compose.project=$project" --filter "label=com.docker.compose.service=$1"; }
# name shows a container's name and its short ID, which is also its host
# name and so the worker_name in the coordinator's log.
name() { printf '%s(%.12s)' "$(docker inspect --format '{{.Name}}' "$1" | sed 's,^/,,')" "$1"; }
running() { [ "$(docker inspect --format '{{.State.Running}}' "$1")" = true ]; }
deadline=$((SECONDS + 120))
until coord=$(ids coordinator) && [ -n "$coord" ]; do
	kill -0 "$up_pid" 2>/dev/null || { indent <"$tmp/up.log"; fail "compose up ended without a coordinator container"; }
	[ "$SECONDS" -lt "$deadline" ] || fail "no coordinator container after 120s"
	sleep 0.1
done

# --- The coordinator's peak resident memory over all its processes (it is
# killed and restarted): its VmHWM, read from the host every second.
rss_sampler() {
	local peak=0 pid hwm
	while :; do
		pid=$(docker inspect --format '{{.State.Pid}}' "$coord" 2>/dev/null || echo 0)
		if [ "${pid:-0}" -gt 0 ] && hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ]; then
			peak=$hwm
			echo "$peak" >"$tmp/rss_peak_kb"
		fi
		sleep 1
	done
}
rss_sampler &
rss_pid=$!
rss_peak() { if [ -s "$tmp/rss_peak_kb" ]; then echo "$(($(cat "$tmp/rss_peak_kb") / 1024)) MB"; else echo "unknown (host /proc not readable)"; fi; }


# --- Wait until the count is under way: a progress line of the coordinator
# with tasks done and every worker joined.
progress_re="progress: tasks_done=[1-9][0-9]* .*workers=$workers\b"
deadline=$((SECONDS + start_wait))
until docker logs "$coord" 2>&1 | grep -Eq "$progress_re"; do
	running "$coord" || fail "the coordinator exited before reporting progress with $workers workers"
	[ "$SECONDS" -lt "$deadline" ] || fail "no progress with $workers workers in the coordinator's log after ${start_wait}s"
	sleep 0.1
done
start_prometheus
coordinator_comes_back
mapfile -t wids < <(ids worker | sort)
[ "${#wids[@]}" -eq "$workers" ] || fail "want $workers worker containers, got ${#wids[@]}"
killed=${wids[0]}
cut_off=${wids[1]}
# The project's network, read from the running coordinator (a container
# that is only created has none yet).
network=$(docker inspect --format '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' "$coord" | awk '{print $1}')
[ -n "$network" ] || fail "the coordinator is on no network"

# A stranger on the project network with the wrong token must be turned away
# (the real workers got theirs from the environment). It starts before the
# failures and is checked after them: Docker may hand a new container the
# address the disconnected worker just gave up, and the coordinator's packets
# to that address would then meet a kernel that answers with a reset,
# breaking the stream at once instead of leaving it silent until the lease
# expires. `docker run -d` returns once the container runs, with its address.
intruder=$(docker run -d --network "$network" --label "com.docker.compose.project=$project" \
	--env NQUEENS_TOKEN=not-the-token "$image" nqueens-worker --join coordinator:7070 --slots 1 --join-timeout 3s)

# --- Failures, at once, while the coordinator is still counting (names and
# logs come after: every docker call takes a moment).
running "$coord" || fail "the count finished before a worker could be killed: make it longer (a larger E2E_N with its E2E_WANT, or a larger E2E_DEPTH)"
# Its session may still be joining after the restarts above, and on a busy
# machine one status request can take seconds: wait for the event, not a
# single answer.
deadline=$((SECONDS + 60))
until attached "${killed:0:12}"; do
	running "$coord" || fail "the count finished before a worker could be killed: make it longer"
	[ "$SECONDS" -lt "$deadline" ] || fail "worker $killed is not attached to the coordinator (/api/status) 60s after the workers rejoined"
	sleep 0.2
done
docker kill "$killed" >/dev/null
t_kill=$SECONDS
running "$coord" || fail "the count finished before a worker could be cut off: make it longer"
docker network disconnect "$network" "$cut_off"
t_cut=$SECONDS
log "work under way: $(since_resume | grep -E "$progress_re" | tail -n 1)"
# The image's HEALTHCHECK (healthprobe, exec form, no shell) is what let the
# workers start (depends_on: service_healthy); show that it said so.
coord_health=$(docker inspect --format '{{.State.Health.Status}}' "$coord")
log "coordinator health (healthprobe): $coord_health"
[ "$coord_health" = healthy ] || fail "coordinator health is $coord_health, want healthy"
log "coordinator $(name "$coord"); workers $(for w in "${wids[@]}"; do printf '%s ' "$(name "$w")"; done); network $network"
log "docker kill $(name "$killed") at ${t_kill}s: exit code $(docker inspect --format '{{.State.ExitCode}}' "$killed")"
log "docker network disconnect $network $(name "$cut_off") at ${t_cut}s"
intruder_rc=$(docker wait "$intruder")
intruder_out=$(docker logs "$intruder" 2>&1)
docker rm "$intruder" >/dev/null
log "worker with a wrong token: exit code $intruder_rc: $(tail -n 1 <<<"$intruder_out")"
[ "$intruder_rc" -ne 0 ] || fail "a worker with a wrong token was let in"
grep -Eqi 'token|unauthenticated' <<<"$intruder_out" || fail "a worker with a wrong token failed, but not for its token: $intruder_out"
# The coordinator lets the killed worker go: whether its log says so at info
# level depends on which side of the stream saw the break first, but its
# /api/status must stop listing it.
detached=""
until ! attached "${killed:0:12}"; do
	running "$coord" && [ $((SECONDS - t_kill)) -lt 10 ] || break
	sleep 0.2
done
attached "${killed:0:12}" || detached="it left /api/status's workers_attached within $((SECONDS - t_kill))s of the kill"
wait_more=$((lease_s + 2 - (SECONDS - t_cut)))
[ "$wait_more" -le 0 ] || interruptible "" sleep "$wait_more"
still_running=no
running "$coord" && still_running=yes
docker network connect "$network" "$cut_off" 2>/dev/null || log "(reconnect failed: $(name "$cut_off") has exited)"
cut_for=$((SECONDS - t_cut))
log "docker network connect $network $(name "$cut_off") after ${cut_for}s, longer than the ${lease} lease (coordinator still counting then: $still_running)"
# A moment mid-run, scraped for a while since the coordinator's last start,
# once it knows an ETA (after a resume that takes a task of this run: long
# for big N): the dashboard's queries are evaluated there at the end. Not
# grep -q (see coordinator_comes_back).
eta_by=$((SECONDS + rejoin_wait))
until since_resume | grep -Ec 'progress: .* eta=[0-9]' >/dev/null; do
	running "$coord" && [ "$SECONDS" -lt "$eta_by" ] || break
	sleep 0.5
done
t_mid=$(date +%s.%N | cut -c1-14)
# On a loaded machine the failures above take long, and the count may end
# before its log shows an ETA, or before this moment: the dashboard is then
# read at the last moment Prometheus holds an ETA, found once the run is
# over.
eta_seen=yes
since_resume | grep -Ec 'progress: .* eta=[0-9]' >/dev/null && running "$coord" || eta_seen=""

wait "$up_pid" || { indent <"$tmp/up.log"; fail "compose up failed"; }
echo "--- compose up"
indent <"$tmp/up.log"

# --- The result.
log "waiting for the coordinator to exit (at most ${run_timeout}s)"
if ! interruptible "$tmp/code" timeout "$run_timeout" docker wait "$coord"; then
	fail "the coordinator did not exit within ${run_timeout}s"
fi
code=$(cat "$tmp/code")
log "coordinator exited with code $code"

echo "--- containers of $project"
docker ps -a --filter "label=com.docker.compose.project=$project" --format '{{.Names}}\t{{.Status}}' | sort | indent
echo "--- coordinator log (stderr; first and last lines, and every line about workers, leases and failures)"
coord_err=$(docker logs "$coord" 2>&1 >/dev/null)
head -n 2 <<<"$coord_err" | indent
echo "    ..."
{ grep -Ei 'journal created|resuming|join|leave|left|lost|broke|disconnect|expire|requeue|retry|cancel|drain|duplicate|conflict|error|warn' <<<"$coord_err" || true; } | tail -n 40 | indent
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
# Its deaths: each start after the first resumed the journal (each checked
# as it came; Docker's restart count was checked then too, since starting
# the container again resets it).
[ "$(resumes | wc -l)" -eq $((crashes + 1)) ] || fail "the coordinator resumed $(resumes | wc -l) times, want $((crashes + 1))"
field() { grep -o "\"$1\": *[0-9]*" <<<"$result" | head -n 1 | grep -o '[0-9]*$' || true; }
got=$(field solutions)
[ "$got" = "$want" ] || fail "coordinator reports ${got:-no} solutions for N=$n, want $want"
if [ -n "$want_unique" ]; then
	got_unique=$(field unique)
	[ "$got_unique" = "$want_unique" ] || fail "coordinator reports ${got_unique:-no} fundamental solutions for N=$n, want $want_unique"
fi
# The failures really hit the job: the coordinator noticed the killed
# worker (its log names the container's host name after it joined), and the
# cut-off worker's lease ran out and was taken back.
killed_host=${killed:0:12}
noticed=$({ grep -F "$killed_host" <<<"$coord_err" || true; } | { grep -v 'worker joined' || true; } | head -n 1)
noticed=${noticed:-$detached}
[ -n "$noticed" ] || fail "the coordinator never let the killed worker $killed_host go: its log does not mention it after it joined, and /api/status listed it 10s after the kill"
log "coordinator noticed the kill: $noticed"
expired=$(field expired)
requeued=$(field requeued)
[ "${expired:-0}" -ge 1 ] || fail "no lease expired (expired=${expired:-?}): the disconnect did not outlast a held lease"
[ "${requeued:-0}" -ge "$expired" ] || fail "requeued=${requeued:-?} < expired=$expired: expired leases must go back to the queue"
prom_note="Prometheus checks skipped"
if [ -n "$prom_pid" ]; then
	# The highest value any scrape saw: the coordinator's last scrape may come
	# before its last commit only if it exits at once after it, so the status
	# server must outlive the count by a scrape interval or two.
	# A few tries: Prometheus may still be starting after a short run.
	for _ in $(seq 20); do
		prom_up=$(prom_query "max_over_time(up{job=\"nqueens\"}[1h])")
		[ -z "$prom_up" ] || break
		sleep 0.5
	done
	prom_got=$(prom_query "max_over_time(nqueens_solutions{job=\"nqueens\"}[1h])")
	log "prometheus: max nqueens_solutions = ${prom_got:-none}, max up = ${prom_up:-none}"
	[ "$prom_up" = 1 ] || { indent <"$tmp/prometheus.log"; fail "Prometheus never scraped the coordinator (with the token)"; }
	[ "$prom_got" = "$want" ] || fail "Prometheus' nqueens_solutions is ${prom_got:-absent}, want $want"
	prom_wtasks=$(prom_query "sum(max_over_time(nqueens_worker_sent_tasks_total{job=\"nqueens-worker\"}[1h]))")
	log "prometheus: tasks the workers' own /metrics say they sent: ${prom_wtasks:-none}"
	[ -n "$prom_wtasks" ] && [ "${prom_wtasks%%.*}" -gt 0 ] || fail "Prometheus scraped no worker's /metrics (nqueens_worker_sent_tasks_total)"
	# The alert rules: loaded, and evaluated without error all along.
	"$tmp/promcheck" rules --url "http://$prom_web" deploy/monitoring/nqueens-rules.yml >"$tmp/rules.txt" 2>&1 ||
		{ indent <"$tmp/rules.txt"; fail "the alert rules did not all evaluate in Prometheus"; }
	echo "--- alert rules in Prometheus"
	indent <"$tmp/rules.txt"
	# The dashboard: every panel's query gives data for the moment mid-run.
	if [ -z "$eta_seen" ]; then
		t_eta=$(prom_query 'max_over_time(timestamp(nqueens_eta_seconds{job="nqueens"})[1h:500ms])')
		[ -z "$t_eta" ] || { t_mid=$(printf '%.3f' "$t_eta"); log "the count ended before the moment chosen mid-run: the dashboard is read at $t_mid, Prometheus' last ETA sample"; }
	fi
	"$tmp/promcheck" dashboard --url "http://$prom_web" --time "$t_mid" --var job=nqueens --var worker_job=nqueens-worker \
		--var __rate_interval=1m \
		deploy/monitoring/nqueens-dashboard.json >"$tmp/dashboard.txt" 2>&1 ||
		{ indent <"$tmp/dashboard.txt"; fail "a query of the Grafana dashboard failed or gave no data at $t_mid"; }
	echo "--- Grafana dashboard queries at $t_mid"
	indent <"$tmp/dashboard.txt"
	prom_note="Prometheus saw nqueens_solutions=$prom_got; $(tail -n 1 "$tmp/rules.txt"); $(tail -n 1 "$tmp/dashboard.txt")"
fi
deaths="coordinator killed with docker kill"
[ "$crashes" -eq 0 ] || deaths="coordinator crashed (kill -9, restarted by Docker) and killed with docker kill"
log "PASS: ($prom_note) N=$n counted $got solutions (want $want), exit 0 after ${SECONDS}s, coordinator peak RSS $(rss_peak); $deaths, resumed $(resumes | wc -l) times; one worker killed (exit 137), one cut off for ${cut_for}s > ${lease} lease; a wrong-token worker refused; leases expired=$expired requeued=$requeued"
