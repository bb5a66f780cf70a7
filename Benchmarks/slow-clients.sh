#!/usr/bin/env bash
# Clients that stop reading: CONNECTIONS TLS connections to `mockapns serve` (release build),
# each opening a huge flow-control window and sending up to REQUESTS requests it never reads
# the answers to, every answer carrying a 16 KiB body (a scenario's `respond`). Without a
# brake the server would buffer CONNECTIONS × REQUESTS × 16 KiB; with it, each connection's
# output stops at what the socket takes. Prints the server's resident memory (VmRSS) idle,
# with every connection open and stalled, and its peak (VmHWM). The journal keeps its last
# 1,000 events only, so the figures are the connections' own, not the journal's.
#
#   Benchmarks/slow-clients.sh [CONNECTIONS] [REQUESTS]     (default 10000 and 100)
#   PLAIN=1 Benchmarks/slow-clients.sh ...   Apple's own answers (200, no body) instead
#   MOCKAPNS_BIN=path/to/release/mockapns Benchmarks/slow-clients.sh    (skip the build)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # counts_only, free_port, wait_port, cpu_seconds
counts_only "$0" "$@"
connections=${1:-10000}
requests=${2:-100}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
# Each connection is a descriptor on both sides.
ulimit -n "$(ulimit -Hn)"

if [[ -z "${MOCKAPNS_BIN:-}" ]]; then
    echo "== swift build -c release --product mockapns" >&2
    swift build -c release --product mockapns >&2
    MOCKAPNS_BIN="$(swift build -c release --show-bin-path)/mockapns"
fi
bin=$MOCKAPNS_BIN
body=$(printf 'x%.0s' $(seq 1 16384))
printf '{"name": "big-answers", "rules": [{"stage": "beforeValidation", "action": {"type": "respond", "status": 200, "body": "%s"}}]}' \
    "$body" > "$work/scenario.json"

kib() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$2/status"; }
mib() { python3 -c "print(f'{$1/1024:.0f}')"; }

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15-minute load average before the run; $(nproc) cores)"
"$bin" serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --no-control --no-auth \
    --journal-capacity 1000 $( [[ -z "${PLAIN:-}" ]] && echo --scenario "$work/scenario.json") --ports-file "$work/ports.json" --log-level warning >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do [[ -s "$work/ports.json" ]] && break; sleep 0.05; done
http2=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['http2'])" "$work/ports.json")
idle=$(kib VmRSS "$pid")

coproc CLIENTS { python3 Tests/RobustnessClients/clients.py slow-readers "$http2" certs-dev/ca.pem "$connections" "$requests"; }
read -r ready opened sent <&"${CLIENTS[0]}"
[[ "$ready" == ready ]] || { echo "the clients said: $ready $opened $sent" >&2; exit 1; }
# Let the server answer all it will: until its resident memory stops moving for a second.
previous=0
for _ in $(seq 1 60); do
    now=$(kib VmRSS "$pid")
    (( now == previous )) && break
    previous=$now
    sleep 1
done
stalled=$(kib VmRSS "$pid"); peak=$(kib VmHWM "$pid")
echo close >&"${CLIENTS[1]}"
wait "$CLIENTS_PID" 2>/dev/null || true
# Apple's own answers are a few dozen bytes: nothing big to hold back.
unbounded=$( [[ -z "${PLAIN:-}" ]] && python3 -c "print(f'{$sent * 16 / 1024:.0f}')" || echo "-")

printf '%-12s %-10s %-10s %10s %12s %10s %18s\n' connections requests "sent" "idle MiB" "stalled MiB" "peak MiB" "unbounded MiB"
printf '%-12s %-10s %-10s %10s %12s %10s %18s\n' "$opened" "$requests" "$sent" "$(mib "$idle")" "$(mib "$stalled")" "$(mib "$peak")" "$unbounded"
printf 'per stalled connection: %s KiB\n' "$(python3 -c "print(f'{($peak - $idle) / $opened:.1f}')")"
echo
echo "commands:"
echo "  $bin serve --http2-port 0 --no-control --no-auth --journal-capacity 1000 --scenario scenario.json --ports-file ports.json --log-level warning"
echo "      (scenario.json: one beforeValidation rule answering 200 with a 16 KiB body)"
echo "  python3 Tests/RobustnessClients/clients.py slow-readers PORT certs-dev/ca.pem $connections $requests"
echo "  then VmRSS and VmHWM from /proc/PID/status once VmRSS stops moving"
echo "unbounded MiB: what the answers to the requests sent would take if the server buffered them all."
