#!/usr/bin/env bash
# HTTP/2 throughput: h2load against `mockapns serve` (release build) with APNs-shaped
# requests (64-hex token path, ~200-byte JSON body, apns-topic, apns-push-type and a provider
# token from `mockapns token`), beside nghttpd answering a static 200 on the same machine in
# the same run. Prints requests/s and the ratio mockapns/nghttpd for -c1 -m100 and -c8 -m100,
# with frame journaling on (the default) and off.
#
#   Benchmarks/http2.sh [REQUESTS]       (default 300000 per run)
#   MOCKAPNS_BIN=path/to/release/mockapns Benchmarks/http2.sh    (skip the build)
#   VARIANTS="frames on,dashboard"     only the variants named (with DASHBOARD=1 for the last)
#   ROUNDS=N Benchmarks/http2.sh      every run N times, interleaved, then the median of each
#                                     figure (this machine's throughput drifts; CPU per request
#                                     and ratios taken minutes apart compare poorly)
#   PUSHY_COMMAND='java ... PushyMockMain PORT server.crt server.pk8.pem'
#                                     also measures pushy's mock (started with PORT replaced by a
#                                     free port; it must answer 200 to the same requests) in the
#                                     same sitting, and prints mockapns against it
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # counts_only, free_port, wait_port, cpu_seconds, release_mockapns
counts_only "$0" "$@"
scripts/install-deps.sh --test
requests=${1:-300000}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

bin=$(release_mockapns)

token=$(printf 'a1b2c3d4%.0s' {1..8})
jwt=$("$bin" token --key-id SANDBOX001)
# An APNs-shaped body of about 200 bytes.
printf '{"aps":{"alert":{"title":"Benchmark","body":"%s"},"badge":1,"sound":"default"},"custom":{"id":12345}}' \
    "$(printf 'x%.0s' {1..100})" > "$work/payload.json"
mkdir -p "$work/docroot/3/device"
: > "$work/docroot/3/device/$token"

# Variants: every frame and notification journaled (the default), frame journaling off
# (`--journal-frames off`; notifications are always journaled), both with the log at warning;
# and the default again at `info`, where the access log writes a line per notification and
# per connection (into a file here, as a CI log would); and the default with the provider
# verdicts off (`"verdicts": {"enabled": false}`), to measure what judging costs.
# With DASHBOARD=1, one more: frames on with the dashboard's live stream subscribed (the
# event kinds and buffer the page asks for, read by curl as fast as it comes), to measure what
# an open dashboard costs.
echo '{"verdicts": {"enabled": false}}' > "$work/verdicts-off.json"
variants=("frames on|--log-level warning" "frames off|--log-level warning --journal-frames off"
          "access log|--log-level info" "verdicts off|--log-level warning --config $work/verdicts-off.json")
if [[ "${DASHBOARD:-0}" == 1 ]]; then variants+=("dashboard|--log-level warning --control-port CONTROL"); fi
# VARIANTS="frames on,dashboard" keeps only the variants named (by the first column).
if [[ -n "${VARIANTS:-}" ]]; then
    chosen=()
    for variant in "${variants[@]}"; do
        [[ ",$VARIANTS," == *",${variant%%|*},"* ]] && chosen+=("$variant")
    done
    variants=("${chosen[@]}")
fi
dashboard_types=notification,broadcast,channelOperation,connectionOpened,connectionClosed,tlsEstablished,tlsFailed,diagnosis,fault,feedbackTuple



rps() { sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p'; }

h2load_args() { # clients
    echo -n "-n $requests -c $1 -m 100 -t $(($1 < 2 ? 1 : 2))"
}

run_h2load() { # port, clients, extra args...
    local port=$1 clients=$2; shift 2
    # shellcheck disable=SC2046
    h2load $(h2load_args "$clients") "$@" \
        -d "$work/payload.json" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \
        "https://127.0.0.1:$port/3/device/$token" 2>&1
}

nghttpd_port=$(free_port)
nghttpd -d "$work/docroot" "$nghttpd_port" certs-dev/server-key.pem certs-dev/server.pem >/dev/null 2>&1 &
nghttpd_pid=$!
wait_port "$nghttpd_port"

# pushy's mock, when given: measured like nghttpd, once per client count and round.
measure_pushy() { # clients -> "requests/s cpu-us-per-request"
    local port pid before out
    port=$(free_port)
    # shellcheck disable=SC2086
    ${PUSHY_COMMAND//PORT/$port} >/dev/null 2>"$work/pushy.log" &
    pid=$!
    wait_port "$port"
    run_h2load "$port" "$1" -H "authorization: bearer $jwt" >/dev/null   # warm-up (the JVM's too)
    run_h2load "$port" "$1" -H "authorization: bearer $jwt" >/dev/null
    before=$(cpu_seconds "$pid")
    out=$(run_h2load "$port" "$1" -H "authorization: bearer $jwt")
    echo "$(echo "$out" | rps) $(python3 -c "print(f'{($(cpu_seconds "$pid") - $before) / $requests * 1e6:.1f}')")"
    kill "$pid"; wait "$pid" 2>/dev/null || true
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15-minute load average before the runs; $(nproc) cores)"
printf '%-12s %-12s %14s %14s %8s %14s %14s %8s\n' "h2load" "variant" "mockapns r/s" "nghttpd r/s" "ratio" "CPU us/req" "nghttpd us/req" "CPU x"
rounds=${ROUNDS:-1}
: > "$work/results.tsv"
for round in $(seq 1 "$rounds"); do
for clients in 1 8; do
    run_h2load "$nghttpd_port" "$clients" >/dev/null   # warm-up
    base_cpu_before=$(cpu_seconds "$nghttpd_pid")
    base=$(run_h2load "$nghttpd_port" "$clients" | rps)
    base_cpu=$(python3 -c "print(f'{($(cpu_seconds "$nghttpd_pid") - $base_cpu_before) / $requests * 1e6:.1f}')")
    pushy_rps=""; pushy_cpu=""
    if [[ -n "${PUSHY_COMMAND:-}" ]]; then
        read -r pushy_rps pushy_cpu < <(measure_pushy "$clients")
        printf '%-12s %-12s %14s %14s %8s %14s %14s %8s\n' "-c$clients -m100" "pushy" "$pushy_rps" "$base" \
            "$(python3 -c "print(f'{$pushy_rps/$base:.2f}')")" "$pushy_cpu" "$base_cpu" "$(python3 -c "print(f'{$pushy_cpu/$base_cpu:.2f}')")"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "-c$clients -m100" "pushy" "$pushy_rps" "$base" "$pushy_cpu" "$base_cpu" >> "$work/results.tsv"
    fi
    for variant in "${variants[@]}"; do
        name=${variant%%|*}; flag=${variant#*|}
        mock_port=$(free_port)
        control_port=""
        control="--no-control"
        if [[ "$flag" == *CONTROL* ]]; then
            control_port=$(free_port)
            control=""
            flag=${flag//CONTROL/$control_port}
        fi
        # shellcheck disable=SC2086
        "$bin" serve --http2-port "$mock_port" --gateway-port 0 --feedback-port 0 --channel-management-port 0 $control \
            $flag >/dev/null 2>"$work/serve.log" &
        mock_pid=$!
        wait_port "$mock_port"
        stream_pid=""
        if [[ -n "$control_port" ]]; then
            wait_port "$control_port"
            curl -sN "http://127.0.0.1:$control_port/v1/events/stream?type=$dashboard_types&buffer=500&after=0" > "$work/stream.txt" &
            stream_pid=$!
        fi
        run_h2load "$mock_port" "$clients" -H "authorization: bearer $jwt" >/dev/null   # warm-up
        cpu_before=$(cpu_seconds "$mock_pid")
        mock_out=$(run_h2load "$mock_port" "$clients" -H "authorization: bearer $jwt")
        cpu=$(python3 -c "print(f'{($(cpu_seconds "$mock_pid") - $cpu_before) / $requests * 1e6:.1f}')")
        kill "$mock_pid"; wait "$mock_pid" 2>/dev/null || true
        if [[ -n "$stream_pid" ]]; then
            wait "$stream_pid" 2>/dev/null || true
            name="$name ($(grep -c '^id: ' "$work/stream.txt") events streamed)"
        fi
        mock=$(echo "$mock_out" | rps)
        status=$(echo "$mock_out" | sed -n 's/^status codes: \([0-9]* 2xx\).*/\1/p')
        errored=$(echo "$mock_out" | sed -n 's/^requests: .* \([0-9]*\) errored.*/\1/p')
        [[ -n "$mock" ]] || { echo "$mock_out" >&2; mock=0; }
        printf '%-12s %-12s %14s %14s %8s %14s %14s %8s   (%s)\n' "-c$clients -m100" "$name" "$mock" "$base" \
            "$(python3 -c "print(f'{$mock/$base:.2f}')")" "$cpu" "$base_cpu" "$(python3 -c "print(f'{$cpu/$base_cpu:.2f}')")" \
            "mockapns: $status, $errored errored${pushy_rps:+; against pushy: requests/s x$(python3 -c "print(f'{$mock/$pushy_rps:.2f}')"), CPU a request x$(python3 -c "print(f'{$cpu/$pushy_cpu:.2f}')")}"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "-c$clients -m100" "${variant%%|*}" "$mock" "$base" "$cpu" "$base_cpu" >> "$work/results.tsv"
    done
done
done
if (( rounds > 1 )); then
    echo
    echo "median of $rounds rounds:"
    python3 - "$work/results.tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    run, variant, mock, base, cpu, base_cpu = line.rstrip("\n").split("\t")
    rows.setdefault((run, variant), []).append((float(mock), float(base), float(cpu), float(base_cpu)))
print(f"{'h2load':<12} {'variant':<12} {'mockapns r/s':>14} {'nghttpd r/s':>14} {'ratio':>8} {'CPU us/req':>14} {'nghttpd us/req':>14} {'CPU x':>8}")
for (run, variant), values in rows.items():
    mock = statistics.median(v[0] for v in values)
    base = statistics.median(v[1] for v in values)
    ratio = statistics.median(v[0] / v[1] for v in values)
    cpu = statistics.median(v[2] for v in values)
    base_cpu = statistics.median(v[3] for v in values)
    cpu_ratio = statistics.median(v[2] / v[3] for v in values)
    print(f"{run:<12} {variant:<12} {mock:>14.0f} {base:>14.0f} {ratio:>8.2f} {cpu:>14.1f} {base_cpu:>14.1f} {cpu_ratio:>8.2f}")
# Each variant against the first row (pushy's mock when measured, else frames on), round by
# round: the paired ratios cancel most of the drift between rounds.
print()
runs = sorted({run for run, _ in rows})
variants = list(dict.fromkeys(variant for _, variant in rows))
print(f"against {variants[0]}, median of the per-round ratios:")
for run in runs:
    first = rows[(run, variants[0])]
    for variant in variants[1:]:
        other = rows[(run, variant)]
        throughput = statistics.median(o[0] / f[0] for f, o in zip(first, other))
        cpu = statistics.median(o[2] / f[2] for f, o in zip(first, other))
        print(f"{run:<12} {variant:<12} requests/s {100 * (throughput - 1):+.1f}%   CPU a request {100 * (cpu - 1):+.1f}%")
PY
fi
echo
echo "commands:"
for variant in "${variants[@]}"; do
    echo "  $bin serve --http2-port PORT --gateway-port 0 --feedback-port 0 --channel-management-port 0 --no-control ${variant#*|} 2>serve.log"
done
echo "  nghttpd -d DOCROOT PORT certs-dev/server-key.pem certs-dev/server.pem   (DOCROOT/3/device/$token: empty file)"
echo "  h2load -n $requests -c C -m 100 -t T -d payload.json -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \\"
echo "      -H \"authorization: bearer \$($bin token --key-id SANDBOX001)\" https://127.0.0.1:PORT/3/device/$token"
echo "      (C,T = 1,1 and 8,2; one warm-up run before each measured run; nghttpd gets no authorization header;"
echo "       payload.json: $(wc -c < "$work/payload.json") bytes)"
echo "CPU us/req: the server's user + system CPU time over the measured run divided by the requests"
echo "(nghttpd's the same over its run); CPU x: mockapns's CPU per request over nghttpd's;"
echo "unlike requests/s it barely moves when other processes share the machine."
echo "A token connection starts at SETTINGS_MAX_CONCURRENT_STREAMS 1 and is raised after the first"
echo "good request, as Apple does: streams h2load opens before that are refused (\"errored\")."
