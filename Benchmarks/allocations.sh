#!/usr/bin/env bash
# Heap allocations per notification through the whole server (release build, default
# configuration), for one HTTP/2 push and one legacy command-2 notification, checked against
# the ceilings committed in Benchmarks/allocation-ceilings.txt. Wall time is noisy on a shared
# machine; allocation counts are not, so this is the guard the test suite runs (a stage of
# scripts/test.sh): a change that adds allocations to the request path fails it.
#
#   Benchmarks/allocations.sh [COUNT]     (default 20000 notifications per path)
#   MOCKAPNS_BIN=path/to/release/mockapns Benchmarks/allocations.sh     (skip the build)
#
# Counting: Benchmarks/AllocationCounter/malloc-counter.c, preloaded into the server, counts
# every malloc, calloc, realloc and aligned allocation in a file the measuring script reads
# while the server runs (Benchmarks/AllocationCounter/measure.py says how a figure is taken).
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh   # counts_only, release_mockapns
counts_only "$0" "$@"
count=${1:-20000}
command -v h2load >/dev/null || scripts/install-deps.sh --test
# The Swift toolchain's clang (it builds the package's C targets), else the system's cc.
compiler=$(command -v clang || command -v cc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The flags of scripts/package.sh: after the release stage this build is a no-op.
bin=$(release_mockapns --static-swift-stdlib)
"$compiler" -O2 -shared -fPIC -o "$work/malloc-counter.so" Benchmarks/AllocationCounter/malloc-counter.c -ldl
python3 Benchmarks/AllocationCounter/measure.py "$bin" "$work/malloc-counter.so" Benchmarks/allocation-ceilings.txt "$count"
