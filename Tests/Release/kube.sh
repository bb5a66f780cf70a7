#!/usr/bin/env bash
# The Kubernetes manifests of deploy/kubernetes played with `podman kube play`, on the image
# Tests/Release/image.sh built; called by Tests/Release/run.sh right after it.
#
#   Tests/Release/kube.sh IMAGE ARCHIVE VERSION WORK
#
# What users apply is not changed: a copy of the manifests (WORK/kube/play.yaml) gets IMAGE in
# place of the registry's name, names of this run's own for the Deployment, the Secrets, the
# ConfigMaps and the emptyDir (two runs on one machine do not meet), and the three Secrets
# README.md has users make: the server's part of a development set `mockapns certs generate`
# writes, a throwaway PostgreSQL's URL, a random control token. Everything else is played as it
# is: the Deployment's command line, environment (the downward API), probes, resources,
# security context and volumes, the scenario and probe ConfigMaps, and the Namespace and the
# Services, which podman skips.
#
# 1. PostgreSQL of its own: initdb and postgres from /usr/lib/postgresql/*/bin (or PATH), run as
#    the postgres user (PostgreSQL refuses root), as Tests/Interop/fleet.py runs them; a password
#    (scram-sha-256) for the pods' network, which reaches it at that network's gateway.
# 2. podman kube play on a podman network of this run's. Podman 4.3 makes one pod per replica
#    of the Deployment (mockapns-...-pod-0, -1, -2); podman 4.4 and later make one pod of a
#    Deployment whatever its replicas say, so there the copy holds the Deployment twice, under
#    two names, for two replicas that share their state. The host reaches each pod at its
#    address on that network, as a node reaches pods: a published port (a hostPort, or kube
#    play's --publish from podman 4.4 on) would be the same for every pod of the play.
# 3. Every replica healthy within a deadline: GET /v1/health on its control API says "status":
#    "ok" and the fleet "connected", under its pod's name (MOCKAPNS_REPLICA from metadata.name);
#    the readiness probe's command (`mockapns health`) passes in it, and so does the liveness
#    probe as podman made it into the container's healthcheck (`podman healthcheck run`).
# 4. A push with curl over HTTP/2, TLS verified against the development CA, with the sandbox
#    client certificate, to the first replica's provider port: 200 and an apns-id. The second
#    replica's control API finds it (GET /v1/notifications/wait?count=1&token=...: the fleet's
#    records, in PostgreSQL). The last replica refuses the scenario ConfigMap's token as the
#    scenario says (400 BadDeviceToken), and its control API refuses a request without the
#    token (401).
# 5. PostgreSQL stopped: every replica's readiness probe fails (degraded) while its liveness
#    probe passes; PostgreSQL started again (same port, same data): every replica ready again.
# 6. SIGTERM (podman pod stop): every replica exits 0; podman kube down removes the pods.
# PostgreSQL is stopped, and the pods, volumes, secrets and network of the run are removed, on
# every way out (KEEP=1 leaves the pods, volumes, secrets and network for a look; PostgreSQL is
# stopped all the same). WORK/kube keeps the rendered manifests and the logs.
#
# Where podman differs from Kubernetes, the copy or the check follows podman:
# - Podman 4.3 (Debian 12's) reads a Secret of the YAML undecoded into a volume and not at all
#   for secretKeyRef (fixed in 4.4, containers/podman#16269): there the three Secrets are made
#   with `podman secret create` in the forms it reads, under the same names; from 4.4 on they are
#   Secret documents in the copy, as `kubectl create secret` makes them.
# - Before 5.0, podman publishes each containerPort on the same port of the host, on every
#   interface, which three replicas cannot share: there the copy leaves out the container's
#   `ports` list (which only names the ports, for the Services).
# - Podman names an emptyDir's volume after the pod's volume, so the replicas of one play share
#   it (each replica's files there carry its name); Kubernetes gives each pod its own.
# - Podman runs neither readiness nor startup probes, preStop hooks, Services or namespaces, and
#   does not apply fsGroup or a Secret's defaultMode; the readiness probe's command is run here
#   by hand.
#
# Exit 0: passed; 3: skipped (not root, podman, curl with HTTP/2 or PostgreSQL missing, or podman
# unable to run a container or a pod here: the reason is printed); anything else: failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
image=$1 archive=$2 version=$3 work=$4/kube
name=$(basename "$archive" .tar.gz)
manifests=deploy/kubernetes
skip() { echo "release test: SKIPPED: Kubernetes manifests: $*"; exit 3; }
fail() { echo "release test: FAILED: Kubernetes manifests: $*" >&2; exit 1; }
pass() { echo "kube: passed: $*"; }
t0=$SECONDS

# This run's names: the manifests' own with a suffix.
run=rt$$
network=mockapns-kube-test-$$
sources=(mockapns-credentials mockapns-state mockapns-control-token mockapns-scenarios mockapns-probes)
pg_pid="" pg_dir="" made_objects=false played=false made_network=false
stop_postgres() {
    # SIGINT: PostgreSQL's fast shutdown; killed when it has not ended within 30 s.
    kill -INT "$pg_pid" 2>/dev/null || true
    local deadline=$((SECONDS + 30))
    while kill -0 "$pg_pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -KILL "$pg_pid" 2>/dev/null || true
    wait "$pg_pid" 2>/dev/null || true
    pg_pid=""
}
cleanup() {
    if [[ -n "$pg_pid" ]]; then stop_postgres; fi
    if [[ -n "$pg_dir" ]]; then rm -rf "$pg_dir"; fi
    [[ -z "${KEEP:-}" ]] && $made_objects || return 0
    if $played; then podman kube down "$work/play.yaml" > /dev/null 2>&1 || true; fi
    local pods
    pods=$(podman pod ps -q --filter "name=^mockapns-$run" 2>/dev/null || true)
    if [[ -n "$pods" ]]; then podman pod rm -f $pods > /dev/null 2>&1 || true; fi
    podman pod rm -f "mockapns-$run-probe" > /dev/null 2>&1 || true
    local source
    for source in "${sources[@]}"; do
        # A Secret or ConfigMap mounted as a volume is a named volume of its name.
        podman volume rm -f "$source-$run" > /dev/null 2>&1 || true
        podman secret rm "$source-$run" > /dev/null 2>&1 || true
    done
    # The emptyDir's volume (podman removes it with the pods it served).
    podman volume rm -f "tmp-$run" > /dev/null 2>&1 || true
    if $made_network; then podman network rm -f "$network" > /dev/null 2>&1 || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- what it needs --------------------------------------------------------------------------
[[ $(id -u) -eq 0 ]] || skip "needs root: podman's pods on a bridge this machine reaches, PostgreSQL run as the postgres user"
command -v podman > /dev/null || skip "podman is not installed (scripts/install-deps.sh --test installs it on Debian)"
command -v setpriv > /dev/null || skip "setpriv (util-linux) is not installed: it runs PostgreSQL as the postgres user"
[[ " $(curl -V 2>/dev/null | tr '\n' ' ') " == *" HTTP2 "* ]] || skip "curl with HTTP/2 is needed for the push"
# PostgreSQL's server programs: where PATH or pg_config says, else the newest of Debian's.
pg_bin=""
for folder in "$(dirname "$(realpath "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")")" \
    "$(pg_config --bindir 2>/dev/null || true)" $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -Vr); do
    if [[ -x "$folder/initdb" && -x "$folder/postgres" ]]; then pg_bin=$folder; break; fi
done
[[ -n "$pg_bin" ]] || skip "PostgreSQL's initdb and postgres not found (PATH, pg_config --bindir, /usr/lib/postgresql/*/bin); scripts/install-deps.sh --test installs them"
pg_tool() { if [[ -x "$pg_bin/$1" ]]; then echo "$pg_bin/$1"; else command -v "$1" || true; fi; }
psql=$(pg_tool psql) pg_isready=$(pg_tool pg_isready)
[[ -n "$psql" && -n "$pg_isready" ]] || skip "PostgreSQL's psql and pg_isready not found (in $pg_bin or on PATH)"
id postgres > /dev/null 2>&1 || skip "there is no postgres user to run PostgreSQL as (PostgreSQL refuses root)"

rm -rf "$work" && mkdir -p "$work"
tar -C "$work" -xzf "$archive"
host_bin="$work/$name/bin/mockapns"

# The manifests name the image of the version being released.
manifest_image=$(sed -n 's/^ *image: *//p' "$manifests/deployment.yaml")
[[ "$manifest_image" == *":$version" ]] \
    || fail "$manifests/deployment.yaml names the image '$manifest_image', not one tagged with this release's version $version"

# Podman's defaults raise a container's limits and use crun; where the host refuses either (a
# sandbox without CAP_SYS_RESOURCE, cgroups v1), this run's containers.conf keeps the caller's
# limits and uses runc, as image.sh's flags do (`kube play` takes no --ulimit).
if ! podman run --rm "$image" --version > "$work/probe.log" 2>&1; then
    {
        echo "[containers]"
        printf 'default_ulimits = ["nofile=%s:%s", "nproc=4096:4096"]\n' "$(ulimit -n)" "$(ulimit -Hn)"
        if command -v runc > /dev/null; then printf '[engine]\nruntime = "runc"\n'; fi
    } > "$work/containers.conf"
    export CONTAINERS_CONF="$work/containers.conf"
    podman run --rm "$image" --version > "$work/probe.log" 2>&1 \
        || skip "podman cannot run a container here: $(tail -2 "$work/probe.log" | tr '\n' ' ')"
fi
# A pod needs its infra container, which podman makes from catatonit.
made_objects=true
if ! { podman pod create --name "mockapns-$run-probe" && podman pod start "mockapns-$run-probe"; } > "$work/pod-probe.log" 2>&1; then
    skip "podman cannot run a pod here: $(tail -2 "$work/pod-probe.log" | tr '\n' ' ')(its infra container needs catatonit: scripts/install-deps.sh --test installs it)"
fi
podman pod rm -f "mockapns-$run-probe" > /dev/null 2>&1 || true
podman_version=$(podman version --format '{{.Client.Version}}')
IFS=. read -r podman_major podman_minor _ <<<"$podman_version"
kube_secrets=false
if ((podman_major > 4 || (podman_major == 4 && podman_minor >= 4))); then kube_secrets=true; fi
# Before 5.0, podman publishes every containerPort on the same port of the host, on every
# interface: the replicas would take each other's ports (and this machine's 2195-2200).
publishes_container_ports=false
if ((podman_major < 5)); then publishes_container_ports=true; fi

# --- the network and PostgreSQL ---------------------------------------------------------------
podman network create "$network" > "$work/network.log" 2>&1 || fail "podman network create: $(tail -3 "$work/network.log")"
made_network=true
read -r subnet gateway < <(podman network inspect -f '{{range .Subnets}}{{.Subnet}} {{.Gateway}}{{"\n"}}{{end}}' "$network" | head -1)
[[ -n "$subnet" && -n "$gateway" ]] || fail "podman network inspect $network names no subnet and gateway"

pg_dir=$(mktemp -d /tmp/mockapns-kube-postgres.XXXXXX)
chown postgres: "$pg_dir"
pg_password=$(head -c 24 /dev/urandom | base64 | tr '+/' '-_')
printf '%s\n' "$pg_password" > "$pg_dir/password"
chown postgres: "$pg_dir/password"
# setpriv, env and the program each exec the next: started in the background, $! is the
# postmaster itself.
as_postgres=(setpriv --reuid=postgres --regid=postgres --init-groups --
    env -i LC_ALL=C PATH=/usr/bin:/bin HOME="$pg_dir" USER=postgres LOGNAME=postgres)
pg_client() { env -i PATH=/usr/bin:/bin PGCONNECT_TIMEOUT=5 "$@"; }
"${as_postgres[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U mockapns -E UTF8 --locale=C --no-sync \
    --pwfile="$pg_dir/password" > "$pg_dir/initdb.log" 2>&1 || fail "initdb: $(tail -5 "$pg_dir/initdb.log")"
# Every address, since the network's bridge (its gateway) appears only with its first pod;
# pg_hba.conf lets in only this machine (initdb's trust lines) and the pods' network, with the
# password. Nothing outlives the test: no flushes to disk.
cat >> "$pg_dir/data/postgresql.conf" <<EOF
listen_addresses = '*'
unix_socket_directories = ''
fsync = off
full_page_writes = off
EOF
echo "host mockapns mockapns $subnet scram-sha-256" >> "$pg_dir/data/pg_hba.conf"
# start_postgres: the postmaster on $pg_port, until it accepts connections; 1 when the port
# was taken (its output in $pg_dir/postgres-N.log, N counting the starts).
starts=0
start_postgres() {
    starts=$((starts + 1))
    local log="$pg_dir/postgres-$starts.log" deadline=$((SECONDS + 60))
    "${as_postgres[@]}" "$pg_bin/postgres" -D "$pg_dir/data" -p "$pg_port" > "$log" 2>&1 &
    pg_pid=$!
    until pg_client "$pg_isready" -q -h 127.0.0.1 -p "$pg_port" -U mockapns -d postgres -t 2; do
        if ! kill -0 "$pg_pid" 2>/dev/null; then
            wait "$pg_pid" 2>/dev/null || true
            pg_pid=""
            if grep -q "could not bind" "$log"; then return 1; fi
            fail "postgres exited while starting: $(tail -5 "$log")"
        fi
        ((SECONDS < deadline)) || fail "postgres did not accept connections within 60 s: $(tail -5 "$log")"
        sleep 0.1
    done
}
for attempt in 1 2 3; do
    pg_port=$((20000 + RANDOM % 40000))
    if start_postgres; then break; fi
    ((attempt < 3)) || fail "postgres found its port taken three times: $(tail -3 "$pg_dir/postgres-$starts.log")"
done
pg_client "$psql" -X -q -h 127.0.0.1 -p "$pg_port" -U mockapns -d postgres -c 'create database mockapns' \
    > "$pg_dir/psql.log" 2>&1 || fail "create database: $(cat "$pg_dir/psql.log")"
state_url="postgresql://mockapns:$pg_password@$gateway:$pg_port/mockapns"
pass "PostgreSQL $("$pg_bin/postgres" --version | sed -n 's/^postgres (PostgreSQL) \([^ ]*\).*/\1/p') as the postgres user, for the pods at $gateway:$pg_port (network $network, $subnet), with a password"

# --- the Secrets' contents, as README.md has users make them ---------------------------------
"$host_bin" certs generate --out "$work/credentials" > "$work/certs.log" 2>&1 || fail "mockapns certs generate: $(tail -3 "$work/certs.log")"
credentials=(ca.pem ca-key.pem server.pem server-key.pem keys.json)
for key in "$work/credentials"/AuthKey_*.p8; do credentials+=("$(basename "$key")"); done
control_token=$(head -c 24 /dev/urandom | base64 | tr '+/' '-_')
# secret_document NAME KEY=FILE...: a Secret as `kubectl create secret generic NAME --from-file=KEY=FILE ...` makes it.
secret_document() {
    printf -- '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\ntype: Opaque\ndata:\n' "$1"
    shift
    local pair
    for pair; do printf '  %s: %s\n' "${pair%%=*}" "$(base64 -w0 < "${pair#*=}")"; done
}
printf '%s' "$state_url" > "$work/state-url"
printf '%s' "$control_token" > "$work/control-token"
chmod 600 "$work/state-url" "$work/control-token"
credential_pairs=()
for file in "${credentials[@]}"; do credential_pairs+=("$file=$work/credentials/$file"); done

# --- the copy of the manifests -----------------------------------------------------------------
own_names() {
    sed -E -e "s/\<(mockapns-(credentials|state|control-token|scenarios|probes))\>/\1-$run/g" "$@"
}
deployment() { # NAME: deployment.yaml under that name, with this run's image
    own_names "$manifests/deployment.yaml" | sed -E -e "s/^  name: mockapns\$/  name: $1/" -e "s#^( +image: ).*#\1$image#" \
            -e "s/^( +- name: )tmp\$/\1tmp-$run/" \
        | if $publishes_container_ports; then without_ports; else cat; fi
}
# The container's `ports` list left out (Kubernetes publishes nothing from it, and the Services,
# which name its ports, are Kubernetes' alone): from `ports:` to the next line as little indented.
without_ports() {
    awk '/^ *ports:$/ { skipping = 1; indent = index($0, "p"); next }
         skipping && match($0, /[^ ]/) && RSTART <= indent { skipping = 0 }
         !skipping { print }'
}
{
    for file in namespace services probes scenario; do
        echo "---"
        own_names "$manifests/$file.yaml"
    done
    echo "---"
    deployment "mockapns-$run"
    if $kube_secrets; then
        echo "---"
        deployment "mockapns-$run-b"
        secret_document "mockapns-credentials-$run" "${credential_pairs[@]}"
        secret_document "mockapns-state-$run" "url=$work/state-url"
        secret_document "mockapns-control-token-$run" "token=$work/control-token"
    fi
} > "$work/play.yaml"
if ! $kube_secrets; then
    # What podman 4.3 reads: for a volume, the files' text under `data` as it is; for
    # secretKeyRef, a JSON object of base64 values.
    {
        echo "data:"
        for file in "${credentials[@]}"; do
            echo "  $file: |"
            sed 's/^/    /' "$work/credentials/$file"
        done
    } > "$work/credentials.secret"
    printf '{"url":"%s"}' "$(base64 -w0 < "$work/state-url")" > "$work/state.secret"
    printf '{"token":"%s"}' "$(base64 -w0 < "$work/control-token")" > "$work/control-token.secret"
    for secret in credentials state control-token; do
        podman secret create "mockapns-$secret-$run" "$work/$secret.secret" > "$work/secret.log" 2>&1 \
            || fail "podman secret create mockapns-$secret-$run: $(cat "$work/secret.log")"
    done
    chmod 600 "$work"/*.secret
fi
chmod 600 "$work/play.yaml"

# --- podman kube play -------------------------------------------------------------------------
played=true
podman kube play --network "$network" "$work/play.yaml" > "$work/play.log" 2>&1 \
    || fail "podman kube play: $(tail -8 "$work/play.log")"
mapfile -t pods < <(podman pod ps --filter "name=^mockapns-$run" --format '{{.Name}}' | sort)
((${#pods[@]} >= 2)) || fail "podman kube play made ${#pods[@]} pod(s) (${pods[*]}), expected a pod per replica: $(tail -5 "$work/play.log")"
if $kube_secrets; then
    how="one pod per Deployment (podman $podman_version), the Deployment played under two names"
else
    how="one pod per replica of the Deployment (podman $podman_version)"
fi
pass "podman kube play: ${#pods[@]} pods, $how: ${pods[*]}"

containers=() addresses=()
for pod in "${pods[@]}"; do
    container="$pod-mockapns"
    address=$(podman inspect -f "{{(index .NetworkSettings.Networks \"$network\").IPAddress}}" "$container" 2>/dev/null || true)
    [[ -n "$address" ]] || fail "no address of $container on $network"
    containers+=("$container") addresses+=("$address")
done
show_logs() {
    local container
    for container in "${containers[@]}"; do
        echo "--- last lines of $container ---" >&2
        podman logs --tail 15 "$container" >&2 2>&1 || true
    done
}
fail_logs() { show_logs; fail "$@"; }

control() { # INDEX PATH [curl options]: the control API of a replica, with the token
    local index=$1 path=$2
    shift 2
    curl -sS -m 30 -H "authorization: Bearer $control_token" "$@" "http://${addresses[index]}:2198$path"
}

# --- healthy: the fleet connected, each replica under its pod's name --------------------------
started=$SECONDS deadline=$((SECONDS + 120))
for i in "${!pods[@]}"; do
    until health=$(control "$i" /v1/health 2>&1) && grep -Eq '"status" *: *"ok"' <<<"$health" \
        && grep -Eq '"state" *: *"connected"' <<<"$health"; do
        state=$(podman inspect -f '{{.State.Status}}' "${containers[i]}" 2>&1)
        [[ "$state" == running ]] || fail_logs "${containers[i]} is $state before it was healthy"
        ((SECONDS < deadline)) || fail_logs "${pods[i]} not healthy within 120 s: GET /v1/health: $health"
        sleep 0.2
    done
    grep -Eq "\"replica\" *: *\"${pods[i]}\"" <<<"$health" \
        || fail_logs "${pods[i]} does not name itself after its pod (MOCKAPNS_REPLICA from metadata.name): $health"
done
pass "every replica healthy after $((SECONDS - started)) s: GET /v1/health says \"status\": \"ok\", the fleet connected, the replica named after its pod"

for i in "${!pods[@]}"; do
    ready=$(podman exec "${containers[i]}" /usr/local/bin/mockapns health 2>&1) \
        || fail_logs "the readiness probe's mockapns health in ${containers[i]}: $ready"
    podman healthcheck run "${containers[i]}" > "$work/healthcheck.log" 2>&1 \
        || fail_logs "the liveness probe (podman healthcheck run ${containers[i]}): $(cat "$work/healthcheck.log")"
done
pass "the probes pass in every replica: readiness (mockapns health: $ready), liveness (probes.yaml, as podman's healthcheck)"

# --- a push on one replica, read back from another ---------------------------------------------
last=$((${#pods[@]} - 1))
device=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
credentials_dir="$work/credentials"
push() { # INDEX TOKEN: curl over HTTP/2 to a replica's provider port, the server's name checked as localhost
    curl --http2 -sS -m 30 -D "$work/push.headers" -o "$work/push.body" -w '%{http_code} %{http_version}' \
        --cacert "$credentials_dir/ca.pem" --cert "$credentials_dir/client-sandbox.pem" --key "$credentials_dir/client-sandbox-key.pem" \
        --connect-to "localhost:2197:${addresses[$1]}:2197" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \
        -d '{"aps":{"alert":"from a pod"}}' "https://localhost:2197/3/device/$2" 2> "$work/push.err" || true
}
status=$(push 0 "$device")
apns_id=$(sed -n 's/^apns-id: *\([^[:space:]]*\).*/\1/Ip' "$work/push.headers" 2>/dev/null | head -1)
[[ "$status" == "200 2" && -n "$apns_id" ]] \
    || fail_logs "the push to ${pods[0]} got '$status' ($(cat "$work/push.err" "$work/push.body" 2>/dev/null)), apns-id '$apns_id'"
pass "a push over HTTP/2 to ${pods[0]} (${addresses[0]}:2197), TLS verified against the development CA, with its sandbox client certificate: 200, apns-id $apns_id"

code=$(control 1 "/v1/notifications/wait?count=1&token=$device&timeout=15000" -o "$work/wait.body" -w '%{http_code}' 2> "$work/wait.err") || true
grep -q "\"responseApnsId\":\"$apns_id\"" "$work/wait.body" 2>/dev/null && grep -q '"status":200' "$work/wait.body" && [[ "$code" == 200 ]] \
    || fail_logs "GET /v1/notifications/wait on ${pods[1]} answered '$code': $(cat "$work/wait.body" "$work/wait.err" 2>/dev/null | head -c 600)"
pass "${pods[1]}'s control API finds it (GET /v1/notifications/wait?count=1&token=...): apns-id $apns_id, 200, served by ${pods[0]}"

bad=$(sed -n 's/.*"tokens": *\["\([0-9A-Fa-f]*\)".*/\1/p' "$manifests/scenario.yaml" | head -1)
[[ -n "$bad" ]] || fail "$manifests/scenario.yaml has no rule with a token to try (change this check with the scenario)"
status=$(push "$last" "$bad")
[[ "$status" == "400 2" ]] && grep -q '"reason":"BadDeviceToken"' "$work/push.body" \
    || fail_logs "a push of the scenario's token to ${pods[last]} got '$status': $(cat "$work/push.err" "$work/push.body" 2>/dev/null)"
refused=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' "http://${addresses[last]}:2198/v1/health" 2>&1) || true
[[ "$refused" == 401 ]] || fail_logs "${pods[last]}'s control API without the token answered '$refused', expected 401"
pass "${pods[last]} refuses the scenario ConfigMap's token (400 BadDeviceToken); its control API refuses a request without the token (401)"

# --- PostgreSQL away: not ready, still alive; back: ready again ----------------------------------
stop_postgres
started=$SECONDS deadline=$((SECONDS + 60))
for i in "${!pods[@]}"; do
    until ! ready=$(podman exec "${containers[i]}" /usr/local/bin/mockapns health 2>&1) && grep -q degraded <<<"$ready"; do
        ((SECONDS < deadline)) || fail_logs "${pods[i]} still says '$ready' 60 s after PostgreSQL stopped"
        sleep 0.2
    done
    podman healthcheck run "${containers[i]}" > "$work/healthcheck.log" 2>&1 \
        || fail_logs "the liveness probe fails in ${containers[i]} while PostgreSQL is away: $(cat "$work/healthcheck.log")"
done
degraded_after=$((SECONDS - started))
start_postgres || fail "postgres could not start again on port $pg_port: $(tail -3 "$pg_dir/postgres-$starts.log")"
started=$SECONDS deadline=$((SECONDS + 60))
for i in "${!pods[@]}"; do
    until podman exec "${containers[i]}" /usr/local/bin/mockapns health > "$work/ready.log" 2>&1; do
        ((SECONDS < deadline)) || fail_logs "${pods[i]} not ready within 60 s of PostgreSQL's return: $(cat "$work/ready.log")"
        sleep 0.2
    done
done
pass "PostgreSQL stopped: within ${degraded_after} s every replica is not ready (mockapns health: ${ready#Error: }) and still alive (the liveness probe passes); started again: every replica ready after $((SECONDS - started)) s"

# --- SIGTERM, then kube down -------------------------------------------------------------------
for i in "${!pods[@]}"; do
    podman pod stop -t 20 "${pods[i]}" > "$work/stop.log" 2>&1 || fail_logs "podman pod stop ${pods[i]}: $(cat "$work/stop.log")"
    code=$(podman inspect -f '{{.State.ExitCode}}' "${containers[i]}")
    [[ "$code" == 0 ]] || fail_logs "after SIGTERM (podman pod stop) ${containers[i]} exited $code"
    logs=$(podman logs "${containers[i]}" 2>&1 || true)
    grep -q "received SIGTERM, shutting down" <<<"$logs" || fail_logs "no shutdown line from ${containers[i]} after SIGTERM"
done
podman kube down "$work/play.yaml" > "$work/down.log" 2>&1 || fail "podman kube down: $(tail -5 "$work/down.log")"
played=false
left=$(podman pod ps -q --filter "name=^mockapns-$run")
[[ -z "$left" ]] || fail "podman kube down left pods: $left"
pass "SIGTERM (podman pod stop): every replica exited 0; podman kube down removed the pods"

echo "kube: ${#pods[@]} replicas of $image from $manifests (podman $podman_version kube play), sharing a PostgreSQL: healthy, a push on one read back on another, the scenario, PostgreSQL away and back, SIGTERM, kube down ($((SECONDS - t0)) s)"
