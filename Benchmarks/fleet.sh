#!/usr/bin/env bash
# The fleet's cost (`serve --state`), release builds, on a PostgreSQL cluster of the script's
# own (Debian's postgresql, in a temporary folder, on a free port):
#
#   Benchmarks/fleet.sh [ROUNDS] [REQUESTS]
#
# 1. Paired runs, ROUNDS rounds (default 4): in each, a standalone server, then a replica with
#    --state, each new, each pushed REQUESTS requests (default 200000) by h2load -c 1 -m 100
#    after a warm-up of a quarter of them, as Benchmarks/paired.sh pushes. Printed: the server's
#    CPU (user + system) per request, and PostgreSQL's (every process of the cluster), per run;
#    then the medians and the median of the per-round ratios.
# 2. Throughput with 1, 2 and 3 replicas behind HAProxy (mode tcp, round robin): h2load -c 6
#    -m 100 -t 2 through HAProxy, REQUESTS requests after a warm-up; printed: requests per
#    second and the CPU seconds each party used (h2load, HAProxy, the replicas, PostgreSQL),
#    which says where the machine's cores went.
# 3. How soon a change is in force on another replica: 50 times, a scenario loaded through one
#    replica's control API, and the other's control API asked every millisecond until it
#    serves it; printed: the median, 90th percentile and largest delay.
#
# MOCKAPNS_BIN: the release build to measure (default: built here, as lib.sh's release_mockapns).
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
counts_only "$0" "$@"
rounds=${1:-4}
count=${2:-200000}
warm_up=$((count / 4))
scripts/install-deps.sh --test
bin=$(release_mockapns)
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# PostgreSQL: Debian keeps its programs in /usr/lib/postgresql/VERSION/bin; as root, they run
# as the postgres user, which owns the cluster's folder.
pg_bin=$(dirname "$(readlink -f "$(command -v postgres 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/postgres | tail -1)")")
as_postgres=()
if [[ $(id -u) -eq 0 ]]; then as_postgres=(runuser -u postgres --); fi
mkdir -p "$work/pg"
[[ $(id -u) -ne 0 ]] || chown postgres "$work/pg"
"${as_postgres[@]}" "$pg_bin/initdb" -D "$work/pg/data" -A trust -U mockapns >/dev/null
pg_port=$(free_port)
"${as_postgres[@]}" "$pg_bin/postgres" -D "$work/pg/data" -p "$pg_port" -k "$work/pg" -c listen_addresses=127.0.0.1 \
    -c fsync=off >"$work/pg/log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" && break; sleep 0.05; done
"$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" || { echo "fleet.sh: PostgreSQL did not start:" >&2; cat "$work/pg/log" >&2; exit 1; }
psql=(psql -X -q -At -h 127.0.0.1 -p "$pg_port" -U mockapns)
"${psql[@]}" -d postgres -c "CREATE DATABASE mockapns"
state="postgresql://mockapns@127.0.0.1:$pg_port/mockapns"
# The cluster's processes' CPU seconds, together.
pg_cpu() {
    local total=0 pid
    for pid in $(pgrep -u postgres -f "postgres: .*|$pg_bin/postgres -D $work/pg/data" || true); do
        [[ -r /proc/$pid/stat ]] && total=$(python3 -c "print(${total} + $(cpu_seconds "$pid"))")
    done
    echo "$total"
}

token=$(printf 'a1b2c3d4%.0s' {1..8})
printf '{"aps":{"alert":{"title":"Benchmark","body":"%s"},"badge":1,"sound":"default"},"custom":{"id":12345}}' \
    "$(printf 'x%.0s' {1..100})" > "$work/payload.json"
jwt=$("$bin" token --key-id SANDBOX001)
h2load_push() { # PORT COUNT CLIENTS THREADS
    h2load -n "$2" -c "$3" -m 100 -t "$4" -d "$work/payload.json" -H 'apns-topic: com.example.app' \
        -H 'apns-push-type: alert' -H "authorization: bearer $jwt" "https://127.0.0.1:$1/3/device/$token"
}
# Starts a server with flags "$@"; sets $server_pid and $server_http2.
start_server() {
    rm -f "$work/ports.json"
    "$bin" serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --no-control --no-web-push \
        --ports-file "$work/ports.json" --log-level warning "$@" >>"$work/servers.log" 2>&1 &
    server_pid=$!
    pids+=("$server_pid")
    for _ in $(seq 1 200); do [[ -s "$work/ports.json" ]] && break; sleep 0.05; done
    server_http2=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['http2'])" "$work/ports.json")
}
stop_server() { kill "$1"; wait "$1" 2>/dev/null || true; }

echo "== 1. a standalone server and a replica with --state, paired ($rounds rounds of $count requests, h2load -c 1 -m 100)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (before the runs; $(nproc) cores)"
printf '%-6s %-12s %16s %20s %14s\n' round server "CPU us/request" "PostgreSQL us/req" "request/s"
: > "$work/results"
for round in $(seq 1 "$rounds"); do
    for kind in standalone replica; do
        flags=()
        if [[ $kind == replica ]]; then
            "${psql[@]}" -d mockapns -c "DROP TABLE IF EXISTS mockapns_record_blocks, mockapns_changes" 2>/dev/null
            flags=(--state "$state" --replica bench)
        fi
        start_server "${flags[@]}"
        h2load_push "$server_http2" "$warm_up" 1 1 >/dev/null
        sleep 0.3
        before=$(cpu_seconds "$server_pid") pg_before=$(pg_cpu)
        rate=$(h2load_push "$server_http2" "$count" 1 1 | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p')
        sleep 0.5   # what the readers and the shipper still had to do is part of the run
        after=$(cpu_seconds "$server_pid") pg_after=$(pg_cpu)
        stop_server "$server_pid"
        read -r cpu pg < <(python3 -c "import sys; b,a,pb,pa,n=map(float,sys.argv[1:]); print(f'{(a-b)/n*1e6:.3f} {(pa-pb)/n*1e6:.3f}')" \
            "$before" "$after" "$pg_before" "$pg_after" "$count")
        printf '%-6s %-12s %16s %20s %14s\n' "$round" "$kind" "$cpu" "$pg" "$rate"
        echo "$round $kind $cpu" >> "$work/results"
    done
done
python3 - "$work/results" <<'PY'
import statistics, sys
cpu = {}
for line in open(sys.argv[1]):
    round_, kind, value = line.split()
    cpu.setdefault(kind, {})[int(round_)] = float(value)
ratios = [cpu["replica"][r] / cpu["standalone"][r] for r in cpu["standalone"]]
print(f"\nmedians: standalone {statistics.median(cpu['standalone'].values()):.3f} us, "
      f"replica {statistics.median(cpu['replica'].values()):.3f} us; "
      f"median ratio x{statistics.median(ratios):.3f} (per round: {' / '.join(f'{r:.3f}' for r in ratios)})")
PY

echo
echo "== 2. 1, 2 and 3 replicas behind HAProxy (mode tcp, roundrobin), h2load -c 6 -m 100 -t 2, $count requests"
haproxy=$(PATH="$PATH:/usr/sbin:/sbin" command -v haproxy)
printf '%-9s %12s %10s %10s %10s %12s\n' replicas "request/s" "h2load s" "haproxy s" "replicas s" "PostgreSQL s"
for replicas in 1 2 3; do
    "${psql[@]}" -d mockapns -c "DROP TABLE IF EXISTS mockapns_record_blocks, mockapns_changes" 2>/dev/null
    servers=() ports=()
    for index in $(seq 1 "$replicas"); do
        start_server --state "$state" --replica "r$index"
        servers+=("$server_pid") ports+=("$server_http2")
    done
    front=$(free_port)
    {
        printf 'global\n    maxconn 4096\ndefaults\n    mode tcp\n    timeout connect 2s\n    timeout client 60s\n    timeout server 60s\n'
        printf 'frontend apns\n    bind 127.0.0.1:%s\n    default_backend replicas\nbackend replicas\n    balance roundrobin\n' "$front"
        for index in "${!ports[@]}"; do printf '    server r%s 127.0.0.1:%s\n' "$index" "${ports[$index]}"; done
    } > "$work/haproxy.cfg"
    "$haproxy" -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
    haproxy_pid=$!
    pids+=("$haproxy_pid")
    wait_port "$front"
    h2load_push "$front" "$warm_up" 6 2 >/dev/null
    sleep 0.3
    server_before=0
    for pid in "${servers[@]}"; do server_before=$(python3 -c "print($server_before + $(cpu_seconds "$pid"))"); done
    haproxy_before=$(cpu_seconds "$haproxy_pid") pg_before=$(pg_cpu)
    # bash's own `time`: h2load's user and system seconds.
    { TIMEFORMAT='%U %S'; time h2load_push "$front" "$count" 6 2 > "$work/h2load.out"; } 2> "$work/h2load.time"
    rate=$(sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' "$work/h2load.out")
    sleep 0.5
    server_after=0
    for pid in "${servers[@]}"; do server_after=$(python3 -c "print($server_after + $(cpu_seconds "$pid"))"); done
    haproxy_after=$(cpu_seconds "$haproxy_pid") pg_after=$(pg_cpu)
    h2load_cpu=$(awk '{print $1 + $2}' "$work/h2load.time")
    printf '%-9s %12s %10s %10s %10s %12s\n' "$replicas" "$rate" "$h2load_cpu" \
        "$(python3 -c "print(round($haproxy_after - $haproxy_before, 2))")" \
        "$(python3 -c "print(round($server_after - $server_before, 2))")" \
        "$(python3 -c "print(round($pg_after - $pg_before, 2))")"
    kill "$haproxy_pid"; wait "$haproxy_pid" 2>/dev/null || true
    for pid in "${servers[@]}"; do stop_server "$pid"; done
done
echo
echo "== 3. a change made through one replica, in force on another (50 scenarios loaded)"
"${psql[@]}" -d mockapns -c "DROP TABLE IF EXISTS mockapns_record_blocks, mockapns_changes" 2>/dev/null
controls=()
for index in 1 2; do
    rm -f "$work/ports.json"
    "$bin" serve --http2-port 0 --gateway-port 0 --feedback-port 0 --channel-management-port 0 --control-port 0 --no-web-push \
        --ports-file "$work/ports.json" --log-level warning --state "$state" --replica "p$index" >>"$work/servers.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 200); do [[ -s "$work/ports.json" ]] && break; sleep 0.05; done
    controls+=("$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['control'])" "$work/ports.json")")
done
python3 - "${controls[@]}" <<'PY'
import json, statistics, sys, time, urllib.request
first, second = (f"http://127.0.0.1:{port}" for port in sys.argv[1:3])
def call(method, url, body=None):
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)
delays = []
for index in range(50):
    name = f"propagation-{index}"
    call("PUT", f"{first}/v1/scenario", {"name": name, "rules": []})
    made = time.monotonic()
    while call("GET", f"{second}/v1/scenario")["name"] != name:
        if time.monotonic() - made > 5:
            sys.exit(f"the change {name} was not in force on the other replica after 5 s")
        time.sleep(0.001)
    delays.append((time.monotonic() - made) * 1000)
delays.sort()
print(f"in force on the other replica after: median {statistics.median(delays):.1f} ms, "
      f"90th percentile {delays[int(len(delays) * 0.9) - 1]:.1f} ms, largest {delays[-1]:.1f} ms")
PY
echo
echo "CPU: user + system seconds over the measured run; $(nproc) cores, so the parties' seconds over the run's wall time say how busy the machine was."
