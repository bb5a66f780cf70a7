#!/usr/bin/env bash
# Legacy binary gateway throughput: LegacyLoadGenerator (Swift, NIO + our OpenSSL handler in
# client mode, client certificate certs-dev/client-sandbox.pem) writes pre-encoded command-2
# notifications over 1 and 4 TLS connections to `mockapns serve` (release build), and to a
# raw TLS sink (`openssl s_server` writing what it reads to /dev/null, one per connection) as
# the baseline. Prints notifications/s and the ratio mockapns/sink.
#
#   Benchmarks/legacy.sh [NOTIFICATIONS]      (default 1000000 per run)
#   MOCKAPNS_BIN=... LEGACY_LOAD_BIN=... Benchmarks/legacy.sh     (skip the builds)
#
# The clock of a mockapns run stops when the gateway's error packet for a final, deliberately
# bad notification arrives: the gateway reads frames in order, so every earlier notification
# has been parsed and judged by then. The sink run stops when the last byte is written.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # counts_only, free_port, wait_port, cpu_seconds
counts_only "$0" "$@"
scripts/install-deps.sh --test
notifications=${1:-1000000}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

if [[ -z "${MOCKAPNS_BIN:-}" || -z "${LEGACY_LOAD_BIN:-}" ]]; then
    echo "== swift build -c release --product mockapns --product LegacyLoadGenerator" >&2
    swift build -c release --product mockapns >&2
    swift build -c release --product LegacyLoadGenerator >&2
fi
bin_dir=$(swift build -c release --show-bin-path)
mockapns=${MOCKAPNS_BIN:-$bin_dir/mockapns}
generator=${LEGACY_LOAD_BIN:-$bin_dir/LegacyLoadGenerator}



rate() { sed -n 's/.*notifications_per_second=\([0-9]*\).*/\1/p'; }

"$mockapns" serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --no-control --ports-file "$work/ports.json" \
    --log-level warning >/dev/null &
mock_pid=$!
for _ in $(seq 1 200); do [[ -s "$work/ports.json" ]] && break; sleep 0.05; done
gateway=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['gateway'])" "$work/ports.json")

# One `openssl s_server` per connection (it serves one connection at a time); its standard
# input stays open so it never closes on its own.
sink_run() { # connections
    local ports=() port sinks=()
    for _ in $(seq 1 "$1"); do
        port=$(free_port)
        # Own process group, outside the $(...) pipe, so the caller can end it and its sleep.
        setsid bash -c "sleep 600 | exec openssl s_server -accept $port -cert certs-dev/server.pem \
            -key certs-dev/server-key.pem -verify 1 -CAfile certs-dev/ca.pem -quiet -naccept 1" \
            </dev/null >/dev/null 2>&1 &
        sinks+=("$!")
        ports+=("$port")
    done
    sleep 0.3   # s_server is listening well within this; probing would use up its one accept
    local IFS=,
    "$generator" --port "${ports[*]}" --connections "$1" --notifications "$notifications" --no-marker || true
    for pid in "${sinks[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15-minute load average before the runs; $(nproc) cores)"
printf '%-12s %18s %18s %8s %18s\n' "connections" "mockapns notif/s" "TLS sink notif/s" "ratio" "CPU us/notif"
for connections in 1 4; do
    "$generator" --port "$gateway" --connections "$connections" --notifications 200000 >/dev/null   # warm-up
    cpu_before=$(cpu_seconds "$mock_pid")
    mock=$("$generator" --port "$gateway" --connections "$connections" --notifications "$notifications" | rate)
    cpu=$(python3 -c "print(f'{($(cpu_seconds "$mock_pid") - $cpu_before) / $notifications * 1e6:.2f}')")
    sink=$(sink_run "$connections" | rate)
    printf '%-12s %18s %18s %8s %18s\n' "$connections" "$mock" "$sink" "$(python3 -c "print(f'{$mock/$sink:.2f}')")" "$cpu"
done
echo
echo "commands:"
echo "  $mockapns serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --no-control --ports-file ports.json --log-level warning"
echo "  $generator --port GATEWAY --connections C --notifications $notifications          (C = 1 and 4, after a 200000 warm-up)"
echo "  sleep 600 | openssl s_server -accept PORT -cert certs-dev/server.pem -key certs-dev/server-key.pem -verify 1 -CAfile certs-dev/ca.pem -quiet -naccept 1 >/dev/null   (one per connection)"
echo "  $generator --port PORT1[,PORT2...] --connections C --notifications $notifications --no-marker"
echo "  CPU us/notif: the server's user + system CPU time over the measured run per notification"
echo "  (command-2 frames: 32-byte token, 100-byte payload, identifier, expiry, priority: 153 bytes each)"
