#!/usr/bin/env bash
# Memory: peak resident set (VmHWM from /proc/PID/status) of `mockapns serve` (release build)
# after h2load pushes REQUESTS APNs-shaped notifications (JWT, ~200-byte body) through it,
# for three journal set-ups:
#   * every notification kept, frames off: --journal-frames off --journal-capacity N+100000
#   * everything kept, frames on:           --journal-capacity 6*N (about 5 events a request)
#   * the default ring (100,000 events, oldest dropped)
# The control API's /v1/journal confirms how many events were kept and dropped.
#
#   Benchmarks/memory.sh [REQUESTS]       (default 1000000)
#   MOCKAPNS_BIN=path/to/release/mockapns Benchmarks/memory.sh    (skip the build)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # counts_only, free_port, wait_port, cpu_seconds, release_mockapns
counts_only "$0" "$@"
scripts/install-deps.sh --test
requests=${1:-1000000}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

bin=$(release_mockapns)
token=$(printf 'a1b2c3d4%.0s' {1..8})
jwt=$("$bin" token --key-id SANDBOX001)
printf '{"aps":{"alert":{"title":"Benchmark","body":"%s"},"badge":1,"sound":"default"},"custom":{"id":12345}}' \
    "$(printf 'x%.0s' {1..100})" > "$work/payload.json"

kib() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$2/status"; }
mib() { python3 -c "print(f'{$1/1024:.0f}')"; }

variants=(
    "notifications kept, frames off|--journal-frames off --journal-capacity $((requests + 100000))"
    "everything kept, frames on|--journal-capacity $((requests * 6))"
    "default ring (100000 events)|"
)

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15-minute load average before the runs; $(nproc) cores)"
printf '%-32s %10s %10s %10s %12s %10s\n' "journal" "idle MiB" "peak MiB" "final MiB" "events kept" "dropped"
for variant in "${variants[@]}"; do
    name=${variant%%|*}; flags=${variant#*|}
    rm -f "$work/ports.json"
    # shellcheck disable=SC2086
    "$bin" serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --control-port 0 \
        --ports-file "$work/ports.json" --log-level warning $flags >/dev/null &
    pid=$!
    for _ in $(seq 1 200); do [[ -s "$work/ports.json" ]] && break; sleep 0.05; done
    read -r http2 control < <(python3 -c "import json,sys; p=json.load(open(sys.argv[1])); print(p['http2'], p['control'])" "$work/ports.json")
    idle=$(kib VmRSS "$pid")
    out=$(h2load -n "$requests" -c 8 -m 100 -t 2 -d "$work/payload.json" \
        -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' -H "authorization: bearer $jwt" \
        "https://127.0.0.1:$http2/3/device/$token" 2>&1)
    echo "$out" | grep -q "^requests: .* done" || { echo "$out" >&2; exit 1; }
    stats=$(curl -s "http://127.0.0.1:$control/v1/journal")
    read -r kept dropped < <(python3 -c "import json,sys; j=json.loads(sys.argv[1]); print(j.get('count'), j.get('dropped'))" "$stats")
    peak=$(kib VmHWM "$pid"); final=$(kib VmRSS "$pid")
    printf '%-32s %10s %10s %10s %12s %10s\n' "$name" "$(mib "$idle")" "$(mib "$peak")" "$(mib "$final")" "$kept" "$dropped"
    kill "$pid"; wait "$pid" 2>/dev/null || true
done
echo
echo "commands:"
for variant in "${variants[@]}"; do
    echo "  $bin serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --control-port 0 --ports-file ports.json --log-level warning ${variant#*|}"
done
echo "  h2load -n $requests -c 8 -m 100 -t 2 -d payload.json -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \\"
echo "      -H \"authorization: bearer \$($bin token --key-id SANDBOX001)\" https://127.0.0.1:PORT/3/device/$token"
echo "  then VmHWM and VmRSS from /proc/PID/status, and curl http://127.0.0.1:CONTROL/v1/journal"
