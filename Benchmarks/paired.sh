#!/usr/bin/env bash
# Paired runs: the server CPU (user + system) per request or notification of two or more
# release builds of `mockapns`, measured alternately in one sitting, each round running every
# build in turn, so that the machine's drift (2-3x in wall-clock throughput between hours here)
# falls on all of them alike. Prints each run, then each build's median and its median ratio,
# round by round, to the first build's (the "before").
#
#   Benchmarks/paired.sh http2|legacy ROUNDS BEFORE AFTER [MORE...]
#
#   http2:  h2load -c CLIENTS -m 100 (CLIENTS=1 unless set; -t 2 from 2 clients) pushes
#           REQUESTS APNs-shaped requests (default 200000, a 64-hex token, a ~200-byte body,
#           a provider token) after a warm-up of a quarter of them
#   legacy: LegacyLoadGenerator (LEGACY_LOAD_BIN, else built) writes NOTIFICATIONS command-2
#           notifications (default 800000) on one TLS connection after a warm-up of 200000
#
# BEFORE, AFTER, ...: paths of release builds (`swift build -c release --product mockapns`,
# copied aside between the builds). A new server is started for every run.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # free_port, cpu_seconds

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
for argument in "$@"; do
    case "$argument" in
        -h|--help) usage; exit 0 ;;
    esac
done
refuse() { echo "paired.sh: $1" >&2; usage >&2; exit 2; }
(( $# >= 4 )) || refuse "give a path (http2 or legacy), a count of rounds and at least two builds"
path=$1 rounds=$2
shift 2
case "$path" in http2|legacy) ;; *) refuse "'$path' is not a path to measure (http2 or legacy)" ;; esac
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || refuse "'$rounds' is not a count of rounds (a whole number from 1)"
for bin in "$@"; do
    [[ -x "$bin" ]] || refuse "'$bin' is not an executable build of mockapns"
done
clients=${CLIENTS:-1}
[[ "$clients" =~ ^[1-9][0-9]*$ ]] || refuse "CLIENTS='$clients' is not a count"
scripts/install-deps.sh --test
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

if [[ "$path" == legacy ]]; then
    count=${NOTIFICATIONS:-800000}
    warm_up=200000
    if [[ -z "${LEGACY_LOAD_BIN:-}" ]]; then
        echo "== swift build -c release --product LegacyLoadGenerator" >&2
        swift build -c release --product LegacyLoadGenerator >&2
    fi
    generator=${LEGACY_LOAD_BIN:-$(swift build -c release --show-bin-path)/LegacyLoadGenerator}
else
    count=${REQUESTS:-200000}
    warm_up=$((count / 4))
    token=$(printf 'a1b2c3d4%.0s' {1..8})
    printf '{"aps":{"alert":{"title":"Benchmark","body":"%s"},"badge":1,"sound":"default"},"custom":{"id":12345}}' \
        "$(printf 'x%.0s' {1..100})" > "$work/payload.json"
    threads=1; (( clients > 1 )) && threads=2
fi

# One run of build $1: prints "CPU-µs-per-unit rate".
run() {
    local bin=$1 pid port jwt before after rate
    rm -f "$work/ports.json"
    "$bin" serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --no-control \
        --ports-file "$work/ports.json" --log-level warning >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do [[ -s "$work/ports.json" ]] && break; sleep 0.05; done
    if [[ "$path" == legacy ]]; then
        port=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['gateway'])" "$work/ports.json")
        "$generator" --port "$port" --connections 1 --notifications "$warm_up" >/dev/null
        before=$(cpu_seconds "$pid")
        rate=$("$generator" --port "$port" --connections 1 --notifications "$count" | sed -n 's/.*notifications_per_second=\([0-9]*\).*/\1/p')
    else
        port=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['http2'])" "$work/ports.json")
        jwt=$("$bin" token --key-id SANDBOX001)
        push() {
            h2load -n "$1" -c "$clients" -m 100 -t "$threads" -d "$work/payload.json" -H 'apns-topic: com.example.app' \
                -H 'apns-push-type: alert' -H "authorization: bearer $jwt" "https://127.0.0.1:$port/3/device/$token"
        }
        push "$warm_up" >/dev/null
        before=$(cpu_seconds "$pid")
        rate=$(push "$count" | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p')
    fi
    sleep 0.3   # what the readers still had to do is part of the run
    after=$(cpu_seconds "$pid")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    python3 -c "import sys; print(f'{(float(sys.argv[2]) - float(sys.argv[1])) / int(sys.argv[3]) * 1e6:.3f} {sys.argv[4] or 0}')" \
        "$before" "$after" "$count" "$rate"
}

unit=request; [[ "$path" == legacy ]] && unit=notification
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (before the runs; $(nproc) cores)"
printf '%-6s %-40s %16s %14s\n' round build "CPU us/$unit" "$unit/s"
for round in $(seq 1 "$rounds"); do
    index=0
    for bin in "$@"; do
        read -r cpu rate < <(run "$bin")
        printf '%-6s %-40s %16s %14s\n' "$round" "$bin" "$cpu" "$rate"
        echo "$round $index $cpu" >> "$work/results"
        index=$((index + 1))
    done
done

python3 - "$work/results" "$@" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
builds = sys.argv[2:]
cpu = {}
for round_, index, value in rows:
    cpu.setdefault(int(index), {})[int(round_)] = float(value)
print("\nmedians, and the median of the per-round ratios to the first build:")
for index, build in enumerate(builds):
    ratios = [cpu[index][r] / cpu[0][r] for r in cpu[0] if cpu[0][r] > 0]
    print(f"  {build:<40} {statistics.median(cpu[index].values()):8.3f} us   x{statistics.median(ratios):.3f}"
          f"   (per round: {' / '.join(f'{r:.3f}' for r in ratios)})")
PY
echo
echo "commands (each run a new server: mockapns serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --no-control --log-level warning):"
if [[ "$path" == legacy ]]; then
    echo "  LegacyLoadGenerator --port GATEWAY --connections 1 --notifications $count   (after $warm_up)"
else
    echo "  h2load -n $count -c $clients -m 100 -t $threads -d payload.json -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \\"
    echo "      -H \"authorization: bearer \$(mockapns token --key-id SANDBOX001)\" https://127.0.0.1:PORT/3/device/$token   (after $warm_up)"
fi
echo "CPU us/$unit: the server's user + system CPU over the measured run (and 0.3 s after it) per $unit."
