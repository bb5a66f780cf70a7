#!/usr/bin/env bash
# libFuzzer targets (Fuzz/): the legacy frame decoder, the JSON parser, the journal's packed
# store (what is recorded reads back exactly), the scenario and
# configuration decoders, provider tokens, the HTTP/2 request validator and the HTTP/2
# connection handler. Built with the fuzzer and address sanitizers in Fuzz/.build.
#
#   scripts/fuzz.sh build                   build every target
#   scripts/fuzz.sh run SECONDS [TARGET...] fuzz each target for SECONDS, growing a corpus in
#                                           Fuzz/.build/corpus/TARGET seeded from Fuzz/Corpus/TARGET;
#                                           crashes are written to Fuzz/.build/crashes/
#   scripts/fuzz.sh ci SECONDS              build, then fuzz each target for SECONDS from the
#                                           committed corpus; skipped (exit 0, with the reason)
#                                           when this toolchain cannot build fuzzers
#
# A crash found here becomes a regression test in the normal test suite, and its input (if
# small) joins Fuzz/Corpus/TARGET.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(
    FuzzLegacyFrameDecoder FuzzJSONParser FuzzJournal FuzzScenarioDecoder FuzzConfigurationDecoder
    FuzzProviderToken FuzzHTTP2RequestValidator FuzzHTTP2Connection FuzzWebPush
)
flags=(-c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
# On Linux, linked with lld: gold warns once per sanitizer symbol it cannot export (over a
# thousand lines per build) where lld links the same binary without a word.
linker_flag=()
if [[ "$(uname -s)" == Linux ]]; then linker_flag=(-use-ld=lld); flags+=(-Xswiftc -use-ld=lld); fi

# Whether this toolchain can link a Swift libFuzzer target at all (it cannot on macOS with
# Xcode's toolchain, for one). Prints the reason when it cannot.
toolchain_builds_fuzzers() {
    local probe
    probe="$(mktemp -d)"
    cat > "$probe/probe.swift" <<'SWIFT'
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt { 0 }
SWIFT
    local status=0
    swiftc -sanitize=fuzzer,address -parse-as-library ${linker_flag[@]+"${linker_flag[@]}"} "$probe/probe.swift" -o "$probe/probe" >"$probe/log" 2>&1 || status=$?
    if (( status != 0 )); then
        echo "swiftc -sanitize=fuzzer,address cannot build a fuzzer here: $(head -c 300 "$probe/log" | tr '\n' ' ')"
    fi
    rm -rf "$probe"
    return "$status"
}

# The fuzz targets are in the main manifest only with MOCKAPNS_FUZZ set, built in Fuzz/.build.
fuzz_build() {
    MOCKAPNS_FUZZ=1 swift build --build-path Fuzz/.build "${flags[@]}" "$@"
}

build() {
    local target
    for target in "${targets[@]}"; do
        fuzz_build --product "$target"
    done
}

run() {
    local seconds="$1"; shift
    local chosen=("$@")
    (( ${#chosen[@]} )) || chosen=("${targets[@]}")
    local bin
    bin="$(fuzz_build --show-bin-path)"
    mkdir -p Fuzz/.build/crashes Fuzz/.build/logs
    local failed=0 passed=0
    for target in "${chosen[@]}"; do
        local corpus="Fuzz/.build/corpus/$target"
        local log="Fuzz/.build/logs/$target.log"
        mkdir -p "$corpus"
        # New inputs go to the scratch corpus (first directory); the committed one is only read.
        local status=0
        "$bin/$target" "$corpus" "Fuzz/Corpus/$target" \
            -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=20000 \
            -print_final_stats=1 -artifact_prefix="Fuzz/.build/crashes/$target-" >"$log" 2>&1 || status=$?
        local last executions
        last="$(grep -E '^#[0-9]+' "$log" | tail -n 1)"
        executions="$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')"
        echo "fuzz: $target ${seconds}s: ${executions:-?} executions; ${last:-no status line}"
        if (( status != 0 )); then
            echo "fuzz: $target FAILED (exit $status); the input is in Fuzz/.build/crashes/, the log in $log" >&2
            grep -E "ERROR|Fatal error|precondition|SUMMARY|^    #[0-9]+ " "$log" | head -n 30 >&2
            failed=$((failed + 1))
        else
            passed=$((passed + 1))
        fi
    done
    echo "fuzz: $passed passed, $failed failed"
    (( failed == 0 ))
}

case "${1:-}" in
    build) build ;;
    run) shift; run "$@" ;;
    ci)
        seconds="${2:-15}"
        if ! reason="$(toolchain_builds_fuzzers)"; then
            echo "fuzz: skipped: $reason"
            exit 0
        fi
        build
        rm -rf Fuzz/.build/corpus Fuzz/.build/crashes
        run "$seconds"
        ;;
    *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
