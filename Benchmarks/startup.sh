#!/usr/bin/env bash
# Start-up time.
#  * CLI: from spawning `mockapns serve` (release build) until its HTTP/2 port accepts a TCP
#    connection, and until its ports file is written (every listener bound: HTTP/2, gateway,
#    feedback, control API). Median of RUNS starts, polled every 0.5 ms from Python.
#  * Embedded: `MockAPNsServer(configuration:)` + `start()` in a process of its own
#    (Benchmarks/EmbeddedStartup, release build), median of RUNS warm starts after a first.
#
#   Benchmarks/startup.sh [RUNS]      (default 20)
#   MOCKAPNS_BIN=path/to/release/mockapns Benchmarks/startup.sh    (skip the CLI build)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # counts_only, free_port, wait_port, cpu_seconds
counts_only "$0" "$@"
runs=${1:-20}

if [[ -z "${MOCKAPNS_BIN:-}" ]]; then
    echo "== swift build -c release --product mockapns" >&2
    swift build -c release --product mockapns >&2
    MOCKAPNS_BIN="$(swift build -c release --show-bin-path)/mockapns"
fi

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15-minute load average before the runs; $(nproc) cores)"
python3 - "$MOCKAPNS_BIN" "$runs" <<'PY'
import json, os, signal, socket, statistics, subprocess, sys, tempfile, time

binary, runs = sys.argv[1], int(sys.argv[2])

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

accept, ready = [], []
with tempfile.TemporaryDirectory() as work:
    for run in range(runs + 1):
        port = free_port()
        ports_file = os.path.join(work, f"ports-{run}.json")
        args = [binary, "serve", "--http2-port", str(port), "--gateway-port", "0", "--feedback-port", "0", "--channel-management-port", "0",
                "--control-port", "0", "--ports-file", ports_file, "--log-level", "warning"]
        started = time.perf_counter()
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        accepted = None
        while time.perf_counter() - started < 10:
            if accepted is None:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                    accepted = time.perf_counter() - started
                except OSError:
                    pass
            if accepted is not None and os.path.exists(ports_file) and os.path.getsize(ports_file) > 0:
                break
            time.sleep(0.0005)
        else:
            sys.exit(f"mockapns did not start within 10 s: {args}")
        written = time.perf_counter() - started
        process.send_signal(signal.SIGTERM)
        process.wait(10)
        if run == 0:
            continue  # the first start warms the page cache
        accept.append(accepted * 1000)
        ready.append(written * 1000)

def row(name, values):
    values = sorted(values)
    print(f"{name:<44} {statistics.median(values):8.1f} {values[0]:8.1f} {values[-1]:8.1f}")

print(f"{'CLI start-up (ms, ' + str(runs) + ' starts)':<44} {'median':>8} {'min':>8} {'max':>8}")
row("spawn -> HTTP/2 port accepts", accept)
row("spawn -> ports file written (all listeners)", ready)
print()
print("command: " + " ".join([binary, "serve", "--http2-port", "PORT", "--gateway-port", "0", "--feedback-port", "0", "--channel-management-port", "0",
                              "--control-port", "0", "--ports-file", "FILE", "--log-level", "warning"]))
PY

echo
echo "== swift build -c release --product EmbeddedStartup" >&2
swift build -c release --product EmbeddedStartup >&2
embedded="$(swift build -c release --show-bin-path)/EmbeddedStartup"
"$embedded" "$PWD/certs-dev" "$((runs + 1))" | sed "s/^/release build: /"
echo "command: $embedded $PWD/certs-dev $((runs + 1))"
