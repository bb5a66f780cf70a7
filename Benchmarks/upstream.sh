#!/usr/bin/env bash
# Upstream mode's cost: h2load pushes APNs-shaped requests (as Benchmarks/http2.sh sends them,
# with a provider token) through one `mockapns serve --upstream` to another, and straight to
# the second for comparison. Prints requests/s and each server's CPU per request (process
# user+system time / requests): the proxy's is what relaying costs, on top of judging each
# request itself for the fidelity check.
#
#   Benchmarks/upstream.sh [REQUESTS]       (default 100000 per run)
#   MOCKAPNS_BIN=path/to/release/mockapns Benchmarks/upstream.sh    (skip the build)
#   ROUNDS=N Benchmarks/upstream.sh         every run N times, interleaved, then the medians
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # counts_only, free_port, wait_port, cpu_seconds, release_mockapns
counts_only "$0" "$@"
scripts/install-deps.sh --test
requests=${1:-100000}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

bin=$(release_mockapns)

token=$(printf 'a1b2c3d4%.0s' {1..8})
jwt=$("$bin" token --key-id SANDBOX001 --key-dir certs-dev)
printf '{"aps":{"alert":{"title":"Benchmark","body":"%s"},"badge":1,"sound":"default"},"custom":{"id":12345}}' \
    "$(printf 'x%.0s' {1..100})" > "$work/payload.json"

serve() { # port, extra flags... -> pid
    local port=$1; shift
    "$bin" serve --cert-dir certs-dev --http2-port "$port" --gateway-port 0 --feedback-port 0 --channel-management-port 0 \
        --no-web-push --no-control --log-level warning "$@" >/dev/null 2>>"$work/serve.log" &
    echo $!
}

rps() { sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p'; }
h2() { # port -> h2load output
    h2load -n "$requests" -c 4 -m 100 -t 2 -d "$work/payload.json" -H 'apns-topic: com.example.app' \
        -H 'apns-push-type: alert' -H "authorization: bearer $jwt" "https://127.0.0.1:$1/3/device/$token" 2>&1
}
per_request() { python3 -c "print(f'{($2 - $1) / $requests * 1e6:.1f}')"; }

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (before the runs; $(nproc) cores)"
printf '%-16s %12s %18s %20s %10s\n' "path" "req/s" "proxy CPU us/req" "upstream CPU us/req" "2xx"
: > "$work/results.tsv"
for round in $(seq 1 "${ROUNDS:-1}"); do
    for path in direct proxied; do
        upstream_port=$(free_port)
        upstream_pid=$(serve "$upstream_port")
        wait_port "$upstream_port"
        target=$upstream_port
        proxy_pid=""
        if [[ $path == proxied ]]; then
            target=$(free_port)
            proxy_pid=$(serve "$target" --upstream "https://127.0.0.1:$upstream_port" --upstream-ca certs-dev/ca.pem)
            wait_port "$target"
        fi
        h2 "$target" >/dev/null   # warm-up
        upstream_before=$(cpu_seconds "$upstream_pid")
        proxy_before=${proxy_pid:+$(cpu_seconds "$proxy_pid")}
        out=$(h2 "$target")
        upstream_cpu=$(per_request "$upstream_before" "$(cpu_seconds "$upstream_pid")")
        proxy_cpu="-"
        [[ -n "$proxy_pid" ]] && proxy_cpu=$(per_request "$proxy_before" "$(cpu_seconds "$proxy_pid")")
        ok=$(echo "$out" | sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p')
        printf '%-16s %12s %18s %20s %10s\n' "$path" "$(echo "$out" | rps)" "$proxy_cpu" "$upstream_cpu" "$ok"
        printf '%s\t%s\t%s\t%s\n' "$path" "$(echo "$out" | rps)" "$proxy_cpu" "$upstream_cpu" >> "$work/results.tsv"
        kill $proxy_pid "$upstream_pid" 2>/dev/null || true
        wait 2>/dev/null || true
    done
done
if [[ "${ROUNDS:-1}" -gt 1 ]]; then
    echo "medians of ${ROUNDS} rounds:"
    python3 - "$work/results.tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    path, rps, proxy, upstream = line.rstrip("\n").split("\t")
    rows.setdefault(path, []).append((rps, proxy, upstream))
for path, values in rows.items():
    def median(i):
        numbers = [float(v[i]) for v in values if v[i] not in ("", "-")]
        return f"{statistics.median(numbers):.1f}" if numbers else "-"
    print(f"{path:<16} {median(0):>12} {median(1):>18} {median(2):>20}")
PY
fi
