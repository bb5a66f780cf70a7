# Shell helpers the benchmark scripts share (sourced, not run).

# The command line of a benchmark script whose arguments are counts: `-h`/`--help` prints the
# script's header comment and exits 0; an argument that is not a whole number (a flag, a
# typo) is refused with the usage instead of being taken as a count.
#   counts_only "$0" "$@"
counts_only() {
    local script=$1; shift
    local usage
    usage=$(sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$script")
    for argument in "$@"; do
        case "$argument" in
            -h|--help) echo "$usage"; exit 0 ;;
        esac
    done
    for argument in "$@"; do
        if [[ ! "$argument" =~ ^[1-9][0-9]*$ ]]; then
            echo "$(basename "$script"): '$argument' is not a count (a whole number from 1)" >&2
            echo "$usage" >&2
            exit 2
        fi
    done
}

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# Waits (up to 10 s) until something accepts connections on 127.0.0.1:$1.
wait_port() {
    for _ in $(seq 1 200); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "port $1 never opened" >&2; return 1
}

# CPU seconds (user + system) process $1 has used so far.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat"; }

# The release mockapns to measure: $MOCKAPNS_BIN when set (a build made elsewhere), else this
# checkout built in release with the flags given (progress on stderr). Prints its path.
#   bin=$(release_mockapns)    bin=$(release_mockapns --static-swift-stdlib)
release_mockapns() {
    if [[ -n "${MOCKAPNS_BIN:-}" ]]; then echo "$MOCKAPNS_BIN"; return 0; fi
    echo "== swift build -c release --product mockapns $*" >&2
    swift build -c release --product mockapns "$@" >&2 || return 1
    echo "$(swift build -c release "$@" --show-bin-path)/mockapns"
}
