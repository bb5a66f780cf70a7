#!/usr/bin/env bash
# The release in an OCI image (the repository's Containerfile: FROM scratch over a minimal
# Debian root), built and run with podman; called by Tests/Release/run.sh.
#
#   Tests/Release/image.sh ROOT ARCHIVE VERSION WORK [TAG_FILE]
#
# With TAG_FILE the image is left for the part after this one (Tests/Release/kube.sh): its tag
# is written there once it is built, and the caller removes it.
#
# Three ways of running it (docs/guide/containers.md):
# 1. as a user runs it: its own command line, its HEALTHCHECK, the printed curl line, SIGTERM;
# 2. as a CI service (GitHub Actions or GitLab `services:`): detached, its HTTP/2 and control
#    ports published on 127.0.0.1, a named volume for the credentials, healthy by its
#    HEALTHCHECK; the CA copied out, a provider token from `mockapns token` in it, a push with
#    curl over HTTP/2 verified against that CA, the push read back from the control API;
# 3. through the Python Testcontainers module (python/mockapns/testcontainers.py): its test,
#    python/tests/test_testcontainers.py, in a venv of its own (WORK/testcontainers-venv),
#    against podman's Docker API (`podman system service`): the image named, and an image the
#    module makes itself from the release binary (as a platform wheel carries it) over the root
#    imported as a base image.
#
# Exit 0: passed; 3: skipped (podman missing or unable to run a container here, or a part that
# cannot run here, such as pip without PyPI: the reason is printed); anything else: failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$1 archive=$2 version=$3 work=$4/image tag_file=${5:-}
name=$(basename "$archive" .tar.gz)
# One tag per run, so that two runs on one machine do not remove each other's image.
tag="localhost/mockapns-release-test:$version-$$"
skip() { echo "release test: SKIPPED: OCI image: $*"; exit 3; }
fail() { echo "release test: FAILED: OCI image: $*" >&2; exit 1; }

# Global options (--runtime, when the host needs it: below) go before podman's verb.
global=()
pod() { podman "${global[@]}" "$@"; }
container=mockapns-release-test-$$
service=mockapns-ci-service-$$ volume=mockapns-ci-credentials-$$
api_pid="" api_dir=""
cleanup() {
    if [[ -n "$api_pid" ]]; then kill "$api_pid" 2>/dev/null || true; wait "$api_pid" 2>/dev/null || true; fi
    if [[ -n "$api_dir" ]]; then rm -rf "$api_dir"; fi
    # KEEP=1 leaves the containers, the volume and the image for a look after a failure.
    [[ -z "${KEEP:-}" ]] || return 0
    pod rm -f "$container" "$service" >/dev/null 2>&1 || true
    pod volume rm -f "$volume" >/dev/null 2>&1 || true
    if [[ -z "$tag_file" ]]; then podman rmi -f "$tag" >/dev/null 2>&1 || true; fi
    if [[ -n "${base_tag:-}" ]]; then
        for made in $(podman images -q --filter "reference=localhost/mockapns-wheel" 2>/dev/null); do podman rmi -f "$made" >/dev/null 2>&1 || true; done
        podman rmi -f "$base_tag" >/dev/null 2>&1 || true
    fi
}
trap cleanup EXIT

command -v podman >/dev/null || skip "podman is not installed (scripts/install-deps.sh --test installs it on Debian)"
command -v nsenter >/dev/null || skip "nsenter (util-linux) is not installed"

rm -rf "$work" && mkdir -p "$work/context" "$work/data" "$work/out"
# The root without what the chroot test put in it and what only apt and people read.
tar -C "$root" --exclude=./.complete --exclude='./proc/*' --exclude='./opt/*' --exclude='./srv/*' --exclude='./root/.mockapns' \
    --exclude='./var/cache/apt/*' --exclude='./var/lib/apt/lists/*' --exclude='./usr/share/doc/*' --exclude='./usr/share/man/*' \
    --exclude='./usr/share/locale/*' -cf "$work/context/rootfs.tar" .
tar -C "$work/context" -xzf "$archive"
podman build --quiet --layers=false --format docker --build-arg "RELEASE=$name" -f Containerfile -t "$tag" "$work/context" > "$work/build.log" 2>&1 \
    || fail "podman build: $(tail -5 "$work/build.log")"
if [[ -n "$tag_file" ]]; then printf '%s\n' "$tag" > "$tag_file"; fi
# The same root as a base image of its own, for the Testcontainers module's image made from
# the binary a wheel carries (below).
base_tag="localhost/mockapns-release-test-base:$version-$$"
podman import "$work/context/rootfs.tar" "$base_tag" > "$work/import.log" 2>&1 \
    || fail "podman import of the root: $(tail -3 "$work/import.log")"
rm -f "$work/context/rootfs.tar"

# Podman's defaults raise the container's limits and use crun; where the host refuses either
# (a sandbox without CAP_SYS_RESOURCE, cgroups v1), keep the caller's limits and use runc.
run_flags=()
if ! podman run --rm "$tag" --version > "$work/probe.log" 2>&1; then
    run_flags=(--ulimit "nofile=$(ulimit -n):$(ulimit -Hn)" --ulimit nproc=4096:4096)
    command -v runc >/dev/null && run_flags+=(--runtime runc)
    if ! podman run --rm "${run_flags[@]}" "$tag" --version > "$work/probe.log" 2>&1; then
        skip "podman cannot run a container here: $(tail -2 "$work/probe.log" | tr '\n' ' ')"
    fi
fi
local_flags=()
for ((i = 0; i < ${#run_flags[@]}; i++)); do
    if [[ "${run_flags[i]}" == --runtime ]]; then global+=(--runtime "${run_flags[i + 1]}"); i=$((i + 1)); else local_flags+=("${run_flags[i]}"); fi
done

printed=$(pod run --rm "${local_flags[@]}" "$tag" --version 2> "$work/version.err")
source Tests/Release/version.sh
is_version_line "$printed" "$version" \
    || fail "--version printed '$printed', expected $version [(commit ...)]: $(cat "$work/version.err")"

# The image as a user runs it: its own command line (Apple's ports on all interfaces) and
# its HEALTHCHECK, the credentials in a volume. It gets a network namespace of its own with
# loopback only (--network none), and the host's clients reach it there through nsenter.
pod run -d --name "$container" --network none "${local_flags[@]}" \
    -v "$work/data:/var/lib/mockapns" "$tag" > "$work/run.log" 2>&1 || fail "podman run: $(tail -3 "$work/run.log")"
pid=$(pod inspect -f '{{.State.Pid}}' "$container")
in_container_network() { nsenter -t "$pid" -n "$@"; }
host_bin="$work/context/$name/bin/mockapns"
health=$(in_container_network "$host_bin" health --wait 20 2>&1) || fail "mockapns health (its default control URL): $health"
pod healthcheck run "$container" > "$work/healthcheck.log" 2>&1 || fail "the image's HEALTHCHECK: $(cat "$work/healthcheck.log")"
line=$(pod logs "$container" 2>/dev/null | sed -n 's/^try: //p')
[[ -n "$line" ]] || fail "no curl line printed: $(pod logs "$container" 2>&1 | tail -5)"
line=${line//\/var\/lib\/mockapns\/mockapns/$work/data/mockapns}
status=$(in_container_network bash -c "$line -sS -o /dev/null -w '%{http_code}'" 2>&1) || true
[[ "$status" == 200 ]] || fail "the printed curl line got '$status': $line; the server said: $(pod logs "$container" 2>&1 | tail -4)"
pod stop -t 10 "$container" > /dev/null 2>&1
code=$(pod inspect -f '{{.State.ExitCode}}' "$container")
[[ "$code" == 0 ]] || fail "after SIGTERM (podman stop) the server exited $code: $(pod logs "$container" 2>&1 | tail -5)"
pod logs "$container" 2>/dev/null | grep -q "received SIGTERM, shutting down" || fail "no shutdown line after SIGTERM"
echo "image: $(podman image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1000000}') ($tag): --version; serve with its own command line; mockapns health and the HEALTHCHECK; the printed curl line answered 200; SIGTERM, exit 0"
pod rm -f "$container" > /dev/null 2>&1 || true

# --- the image as a CI service ----------------------------------------------------------
# As a CI system runs a service container (GitHub Actions `services:`, or `docker run -d` in a
# GitLab job; docs/guide/containers.md): detached, the ports published (here on 127.0.0.1,
# each on a free port the runtime picks, as `ports: - 2197` does), a named volume for the
# credentials, a known control token (requests through a
# published port come from another address, so the control API asks for it), and the steps
# begin once the HEALTHCHECK (`mockapns health`) says healthy. Podman runs a HEALTHCHECK on a
# systemd timer, which a machine without systemd lacks: here `podman healthcheck run` is polled
# (what the timer would do), with a deadline.
ci_pass() { echo "image: passed: CI service: $*"; }
ci_fail() {
    echo "--- logs of the CI service container $service ---" >&2
    pod logs "$service" >&2 2>&1 || true
    fail "CI service: $*"
}
control_token=$(head -c 24 /dev/urandom | base64 | tr '+/' '-_')
pod run -d --name "$service" "${local_flags[@]}" -e "MOCKAPNS_CONTROL_TOKEN=$control_token" \
    -p 127.0.0.1::2197 -p 127.0.0.1::2198 -v "$volume:/var/lib/mockapns" "$tag" > "$work/ci-run.log" 2>&1 \
    || ci_fail "podman run -d: $(tail -3 "$work/ci-run.log")"
host_port() { pod port "$service" "$1/tcp" | sed -n '1s/.*://p'; }
http2_port=$(host_port 2197) control_port=$(host_port 2198)
[[ -n "$http2_port" && -n "$control_port" ]] || ci_fail "no published ports: $(pod port "$service" 2>&1)"
ci_pass "podman run -d -p 127.0.0.1:$http2_port:2197 -p 127.0.0.1:$control_port:2198 -v $volume:/var/lib/mockapns"

started=$SECONDS deadline=$((SECONDS + 60))
until pod healthcheck run "$service" > "$work/ci-healthcheck.log" 2>&1; do
    state=$(pod inspect -f '{{.State.Status}}' "$service" 2>&1)
    [[ "$state" == running ]] || ci_fail "the container is $state before it was healthy"
    ((SECONDS < deadline)) || ci_fail "not healthy within 60 s: $(tail -3 "$work/ci-healthcheck.log")"
    sleep 0.2
done
health=$(pod inspect -f '{{.State.Health.Status}}' "$service")
[[ "$health" == healthy ]] || ci_fail "the HEALTHCHECK passed but the health status is '$health'"
ci_pass "healthy by its HEALTHCHECK (mockapns health) after $((SECONDS - started)) s"

# The credentials: out of the container, and in the named volume for any other container.
pod cp "$service:/var/lib/mockapns/mockapns/ca.pem" "$work/ci-ca.pem" > "$work/ci-cp.log" 2>&1 \
    || ci_fail "podman cp of the CA: $(cat "$work/ci-cp.log")"
pod run --rm "${local_flags[@]}" -v "$volume:/credentials:ro" --entrypoint /bin/cat "$tag" /credentials/mockapns/ca.pem \
    > "$work/ci-volume-ca.pem" 2> "$work/ci-volume.log" || ci_fail "reading the volume: $(tail -3 "$work/ci-volume.log")"
cmp -s "$work/ci-ca.pem" "$work/ci-volume-ca.pem" || ci_fail "the volume's ca.pem differs from the container's"
jwt=$(pod exec "$service" mockapns token 2> "$work/ci-token.log") || ci_fail "podman exec mockapns token: $(cat "$work/ci-token.log")"
[[ "$jwt" =~ ^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$ ]] || ci_fail "mockapns token printed '$jwt'"
ci_pass "the CA copied out (podman cp, and the same in the volume); a provider token from podman exec mockapns token"

device=$(printf 'a1b2c3d4%.0s' 1 2 3 4 5 6 7 8)
status=$(curl --http2 -sS -D "$work/ci-push.headers" -o "$work/ci-push.body" -w '%{http_code} %{http_version}' \
    --cacert "$work/ci-ca.pem" -H "authorization: bearer $jwt" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \
    -d '{"aps":{"alert":"from a CI job"}}' "https://127.0.0.1:$http2_port/3/device/$device" 2> "$work/ci-push.err") || true
apns_id=$(sed -n 's/^apns-id: *\([^[:space:]]*\).*/\1/Ip' "$work/ci-push.headers" 2>/dev/null | head -1)
[[ "$status" == "200 2" && -n "$apns_id" ]] \
    || ci_fail "the push got '$status' ($(cat "$work/ci-push.err" "$work/ci-push.body" 2>/dev/null)), apns-id '$apns_id'"
ci_pass "a push over HTTP/2 to 127.0.0.1:$http2_port, TLS verified against that CA: 200, apns-id $apns_id"

control="http://127.0.0.1:$control_port"
refused=$(curl -sS -o /dev/null -w '%{http_code}' "$control/v1/health" 2>&1) || true
[[ "$refused" == 401 ]] || ci_fail "the control API without the token answered '$refused', expected 401"
journal=$(curl -sS -H "authorization: Bearer $control_token" "$control/v1/notifications?token=$device" 2>&1) || true
grep -q "\"responseApnsId\":\"$apns_id\"" <<<"$journal" && grep -q '"status":200' <<<"$journal" \
    || ci_fail "the journal (GET /v1/notifications) lacks the push: $journal"
ci_pass "the control API on 127.0.0.1:$control_port: 401 without the token; with it, the journal has the push (apns-id $apns_id, 200)"

pod stop -t 10 "$service" > /dev/null 2>&1
code=$(pod inspect -f '{{.State.ExitCode}}' "$service")
[[ "$code" == 0 ]] || ci_fail "after podman stop the server exited $code"
pod rm "$service" > "$work/ci-rm.log" 2>&1 || ci_fail "podman rm: $(cat "$work/ci-rm.log")"
pod volume rm "$volume" > "$work/ci-rm.log" 2>&1 || fail "CI service: podman volume rm: $(cat "$work/ci-rm.log")"
if pod volume exists "$volume" 2>/dev/null; then fail "CI service: the volume $volume is still there"; fi
ci_pass "stopped (exit 0), the container and the volume removed"

# --- the Python Testcontainers module ----------------------------------------------------
# python/tests/test_testcontainers.py starts the image through mockapns.testcontainers, over
# podman's Docker API. Testcontainers' reaper (Ryuk) is off: it is one more image, pulled from
# Docker Hub, that mounts the Docker socket into itself (podman's socket is elsewhere, and
# needs a privileged container for it); the module removes its container when the `with`
# block ends, and this script removes anything left of the image's containers. Connection
# mode docker_host: the API's socket is on this machine, in this network namespace, so the
# published ports are on localhost (Testcontainers would otherwise, inside a container, go
# through the default gateway).
tc_skip=""
tc_pass() { echo "image: passed: Testcontainers: $*"; }
venv=$4/testcontainers-venv
if ! python3 -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    tc_skip="python3 3.10 or later with venv and ensurepip is needed (testcontainers 4.15 needs 3.10)"
else
    # The venv is kept between runs and made again when python/pyproject.toml changes; the
    # package is installed editable, so it is the checkout's code.
    stamp="$(cat python/pyproject.toml) pytest==9.2.0"
    if [[ ! -x "$venv/bin/python" ]] || [[ "$(cat "$venv/stamp" 2>/dev/null)" != "$stamp" ]]; then
        rm -rf "$venv"
        if python3 -m venv "$venv" > "$work/venv.log" 2>&1 \
            && "$venv/bin/pip" install --quiet --disable-pip-version-check --editable "./python[testcontainers]" pytest==9.2.0 \
                >> "$work/venv.log" 2>&1; then
            printf '%s' "$stamp" > "$venv/stamp"
        else
            tc_skip="could not make the venv (python3 -m venv; pip install ./python[testcontainers] pytest, which needs PyPI): $(tail -3 "$work/venv.log" | tr '\n' ' ')"
            rm -rf "$venv"
        fi
    fi
fi
if [[ -z "$tc_skip" ]]; then
    api_dir=$(mktemp -d /tmp/mockapns-podman-api.XXXXXX)
    socket="$api_dir/podman.sock"
    # Not through pod(): $! must be podman itself.
    podman "${global[@]}" system service --time=0 "unix://$socket" > "$work/podman-service.log" 2>&1 &
    api_pid=$!
    deadline=$((SECONDS + 30))
    until [[ "$(curl -sS --unix-socket "$socket" http://d/_ping 2>/dev/null)" == OK ]]; do
        kill -0 "$api_pid" 2>/dev/null || fail "Testcontainers: podman system service exited: $(tail -3 "$work/podman-service.log")"
        ((SECONDS < deadline)) || fail "Testcontainers: podman system service did not answer on $socket within 30 s"
        sleep 0.1
    done
    limits=""
    if ((${#run_flags[@]})); then limits="nofile=$(ulimit -n):$(ulimit -Hn),nproc=4096:4096"; fi
    started=$SECONDS
    tc_status=0
    env MOCKAPNS_IMAGE="$tag" DOCKER_HOST="unix://$socket" TESTCONTAINERS_RYUK_DISABLED=true \
        MOCKAPNS_RELEASE_BINARY="$work/context/$name/bin/mockapns" MOCKAPNS_BASE_IMAGE="$base_tag" \
        TESTCONTAINERS_CONNECTION_MODE=docker_host MOCKAPNS_TEST_ULIMITS="$limits" PYTHONDONTWRITEBYTECODE=1 \
        "$venv/bin/python" -m pytest python/tests/test_testcontainers.py --rootdir . -p no:cacheprovider -rfEs -q \
        > "$work/testcontainers.log" 2>&1 || tc_status=$?
    leftovers=$(pod ps -aq --filter "ancestor=$tag")
    if [[ -n "$leftovers" ]]; then pod rm -f $leftovers > /dev/null 2>&1 || true; fi
    summary=$(tail -1 "$work/testcontainers.log")
    if ((tc_status != 0)) || ! grep -qE '^3 passed' <<<"$summary"; then
        cat "$work/testcontainers.log" >&2
        fail "Testcontainers: python/tests/test_testcontainers.py (exit $tc_status): $summary"
    fi
    [[ -z "$leftovers" ]] || fail "Testcontainers: the module left a container behind: $leftovers"
    tc_pass "python/tests/test_testcontainers.py against $tag over podman's Docker API: $summary ($((SECONDS - started)) s)"
fi
if [[ -n "$tc_skip" ]]; then
    echo "release test: SKIPPED: OCI image: Testcontainers: $tc_skip (the parts above passed)"
    exit 3
fi
