#!/usr/bin/env bash
# HTTP/2 throughput: h2load against `mockapns serve` (release build) with APNs-shaped
# requests, beside nghttpd answering a static 200 on the same machine in the same run.
# Prints requests/s and the ratio mockapns/nghttpd for -c1 -m100 and -c8 -m100.
#
#   Benchmarks/http2.sh [REQUESTS]       (default 300000 per run)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
requests=${1:-300000}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

swift build -c release --product mockapns >/dev/null
bin="$(swift build -c release --show-bin-path)/mockapns"

token=$(printf 'a1b2c3d4%.0s' {1..8})
# An APNs-shaped body of about 200 bytes.
printf '{"aps":{"alert":{"title":"Benchmark","body":"%s"},"badge":1,"sound":"default"},"custom":{"id":12345}}' \
    "$(printf 'x%.0s' {1..100})" > "$work/payload.json"
mkdir -p "$work/docroot/3/device"
: > "$work/docroot/3/device/$token"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

wait_port() {
    for _ in $(seq 1 200); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "port $1 never opened" >&2; return 1
}

rps() { sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p'; }

run_h2load() { # port, clients, extra args...
    local port=$1 clients=$2; shift 2
    h2load -n "$requests" -c "$clients" -m 100 -t "$((clients < 2 ? 1 : 2))" "$@" \
        -d "$work/payload.json" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \
        "https://127.0.0.1:$port/3/device/$token" 2>&1
}

mock_port=$(free_port)
"$bin" serve --http2-port "$mock_port" --log-level warning >/dev/null &
wait_port "$mock_port"

nghttpd_port=$(free_port)
nghttpd -d "$work/docroot" "$nghttpd_port" certs-dev/server-key.pem certs-dev/server.pem >/dev/null 2>&1 &
wait_port "$nghttpd_port"

printf '%-22s %14s %14s %8s\n' "h2load" "mockapns r/s" "nghttpd r/s" "ratio"
for clients in 1 8; do
    run_h2load "$mock_port" "$clients" >/dev/null   # warm-up
    mock_out=$(run_h2load "$mock_port" "$clients")
    nghttpd_out=$(run_h2load "$nghttpd_port" "$clients")
    mock=$(echo "$mock_out" | rps); base=$(echo "$nghttpd_out" | rps)
    if ! echo "$mock_out" | grep -q "succeeded, 0 errored"; then echo "$mock_out" >&2; fi
    status=$(echo "$mock_out" | sed -n 's/^status codes: \(.*\)/\1/p')
    printf '%-22s %14s %14s %8s   (%s)\n' "-c$clients -m100" "$mock" "$base" \
        "$(python3 -c "print(f'{$mock/$base:.2f}')")" "mockapns $status"
done
echo
echo "command: h2load -n $requests -c {1,8} -m 100 -d payload.json -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' https://127.0.0.1:PORT/3/device/$token"
