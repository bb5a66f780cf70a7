#!/usr/bin/env bash
# Memory under refusals and junk: the resident memory of `mockapns serve` (release build, the
# default journal: 100,000 events and 128 MiB) sampled every half second while it refuses
# REQUESTS requests of each kind, one fresh server per kind:
#   reset   HTTP/2 streams nghttp2 resets: `authorization: bearer ` (an empty token, so a
#           trailing space, a value HTTP/2 forbids)
#   400     BadDeviceToken (a valid provider token, a device token too short to be one)
#   403     InvalidProviderToken (a provider token that is no JWT)
#   413     PayloadTooLarge (a 5,000-byte payload)
#   legacy  legacy error packets (status 5: a token of the wrong length), LEGACY of them; the
#           gateway closes the connection after each, as Apple's does, so each is a connection
#           (LegacyLoadGenerator: one good notification, then the bad one)
# then a junk soak: malformed and random bytes on all six ports (HTTP/2, gateway, feedback,
# channel management, web push, control), many connections at a time, for SOAK seconds.
# Prints, per run: resident MiB idle, peak (VmHWM), and after the run; the journal's events,
# bytes and drops (control API); the lines the server logged. Fails (exit 1) when a peak
# passes BOUND_MIB (default 320: the bound docs/guide/journal.md states for the defaults).
#
#   Benchmarks/refusals.sh [REQUESTS] [LEGACY] [SOAK]     (default 1000000 1000000 90)
#   MOCKAPNS_BIN=... LEGACY_LOAD_BIN=... Benchmarks/refusals.sh    (skip the builds)
#   KINDS="reset 400" Benchmarks/refusals.sh 100000          (some of the runs only)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # counts_only, free_port, wait_port, cpu_seconds, release_mockapns
counts_only "$0" "$@"
scripts/install-deps.sh --test
requests=${1:-1000000}
legacy_refusals=${2:-1000000}
soak_seconds=${3:-90}
bound_mib=${BOUND_MIB:-320}
kinds=${KINDS:-reset 400 403 413 legacy junk}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
# The soak opens many connections at once: a descriptor each on both sides.
ulimit -n "$(ulimit -Hn)"

bin=$(release_mockapns)
if [[ -z "${LEGACY_LOAD_BIN:-}" ]]; then
    echo "== swift build -c release --product LegacyLoadGenerator" >&2
    swift build -c release --product LegacyLoadGenerator >&2
    LEGACY_LOAD_BIN="$(swift build -c release --show-bin-path)/LegacyLoadGenerator"
fi
generator=$LEGACY_LOAD_BIN
device=$(printf 'a1b2c3d4%.0s' {1..8})
jwt=$("$bin" token --key-id SANDBOX001)
printf '{"aps":{"alert":"refused"}}' > "$work/small.json"
python3 -c "import sys; open(sys.argv[1], 'w').write('{\"aps\":{\"alert\":\"' + 'x' * 4980 + '\"}}')" "$work/large.json"

kib() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$2/status"; }
mib() { python3 -c "print(f'{$1/1024:.0f}')"; }

start_server() {
    rm -f "$work/ports.json"
    "$bin" serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --web-push-port 0 \
        --control-port 0 --ports-file "$work/ports.json" >"$work/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do [[ -s "$work/ports.json" ]] && break; sleep 0.05; done
    port() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/ports.json" "$1"; }
    http2=$(port http2); gateway=$(port gateway); feedback=$(port feedback)
    manage=$(port channelManagement); webpush=$(port webPush); control=$(port control)
    idle=$(kib VmRSS "$pid")
    # The highest resident size seen by the sampler (VmHWM gives the same at the end).
    ( while kill -0 "$pid" 2>/dev/null; do kib VmRSS "$pid" >> "$work/samples"; sleep 0.5; done ) 2>/dev/null &
    sampler=$!
}

h2() { # PATH PAYLOAD HEADERS...
    local path=$1 payload=$2; shift 2
    local arguments=(-n "$requests" -c 8 -m 100 -t 2 -d "$payload" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert')
    for header in "$@"; do arguments+=(-H "$header"); done
    local out
    out=$(h2load "${arguments[@]}" "https://127.0.0.1:$http2$path" 2>&1)
    echo "$out" | grep -q "^requests: .* done" || { echo "$out" >&2; return 1; }
    echo "$out" | sed -n 's/^requests: \(.*\)/    h2load: \1/p; s/^status codes: \(.*\)/    h2load status codes: \1/p' >&2
}

legacy() {
    # Rounds of 500 connections, one refusal each.
    local left=$legacy_refusals round
    while (( left > 0 )); do
        round=$(( left < 500 ? left : 500 ))
        "$generator" --port "$gateway" --connections "$round" --notifications 1 >/dev/null
        left=$(( left - round ))
    done
}

junk() {
    local deadline=$(( SECONDS + soak_seconds )) seed=0
    while (( SECONDS < deadline )); do
        seed=$(( seed + 1 ))
        for target in "http2 $http2" "http2 $manage" "http2 $webpush" "legacy $gateway" "feedback $feedback" "control $control"; do
            set -- $target
            python3 Tests/RobustnessClients/clients.py garbage "$1" "$2" certs-dev/ca.pem "" 200 "$seed" >/dev/null &
        done
        wait_for_clients
    done
}
wait_for_clients() { for job in $(jobs -p); do [[ "$job" == "$sampler" || "$job" == "$pid" ]] || wait "$job" || true; done; }

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15-minute load average before the runs; $(nproc) cores)"
echo "requests per HTTP/2 kind: $requests; legacy refusals: $legacy_refusals; junk soak: $soak_seconds s; bound: $bound_mib MiB"
printf '%-8s %9s %9s %9s %10s %10s %10s %10s\n' "kind" "idle MiB" "peak MiB" "after MiB" "events" "bytes MiB" "dropped" "log lines"
failed=0
for kind in $kinds; do
    rm -f "$work/samples"
    start_server
    case $kind in
        reset) h2 "/3/device/$device" "$work/small.json" 'authorization: bearer ' ;;
        400) h2 "/3/device/a1b2c3" "$work/small.json" "authorization: bearer $jwt" ;;
        403) h2 "/3/device/$device" "$work/small.json" 'authorization: bearer not.a.jwt' ;;
        413) h2 "/3/device/$device" "$work/large.json" "authorization: bearer $jwt" ;;
        legacy) legacy ;;
        junk) junk ;;
        *) echo "unknown kind $kind" >&2; exit 2 ;;
    esac
    sleep 2   # the readers catch up
    stats=$(curl -s "http://127.0.0.1:$control/v1/journal")
    read -r events bytes dropped < <(python3 -c "import json,sys; j=json.loads(sys.argv[1]); print(j['count'], j.get('bytes', 0), j['dropped'])" "$stats")
    peak=$(kib VmHWM "$pid"); after=$(kib VmRSS "$pid")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
    sampled=$(sort -n "$work/samples" 2>/dev/null | tail -1)
    sampled=${sampled:-0}
    (( sampled > peak )) && peak=$sampled
    lines=$(wc -l < "$work/server.log")
    printf '%-8s %9s %9s %9s %10s %10s %10s %10s\n' "$kind" "$(mib "$idle")" "$(mib "$peak")" "$(mib "$after")" "$events" \
        "$(mib $(( bytes / 1024 )))" "$dropped" "$lines"
    if (( peak > bound_mib * 1024 )); then
        echo "    FAIL: the peak passed the bound of $bound_mib MiB" >&2
        failed=1
    fi
done
echo
echo "commands (one server per kind: $bin serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --web-push-port 0 --control-port 0 --ports-file ports.json):"
echo "  reset:  h2load -n $requests -c 8 -m 100 -t 2 -d small.json -H 'authorization: bearer ' https://127.0.0.1:HTTP2/3/device/$device"
echo "  400:    the same with -H \"authorization: bearer \$($bin token --key-id SANDBOX001)\" and /3/device/a1b2c3"
echo "  403:    the same with -H 'authorization: bearer not.a.jwt'"
echo "  413:    the same with a valid token and a 5,000-byte payload"
echo "  legacy: $generator --port GATEWAY --connections 500 --notifications 1, $(( (legacy_refusals + 499) / 500 )) times"
echo "  junk:   python3 Tests/RobustnessClients/clients.py garbage KIND PORT certs-dev/ca.pem '' 200 SEED on the six ports at once, for $soak_seconds s"
exit "$failed"
