#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, then runs the
# Swift tests (unit and real-socket integration tests), the interop suite of third-party
# clients, the Swift API's DocC and the documentation site (strict), the release archive and
# the Debian package on a bare Debian root (and the OCI image, as a CI service and through
# Testcontainers, and in the Kubernetes manifests under podman kube play), the shell blocks of the README and of every documentation page and the
# embedding example as a newcomer runs them, and each libFuzzer target for a bounded time.
#
# Every stage runs even when an earlier one failed, so one failure does not hide the others'
# results; only the stages that need the Swift build (the Swift tests, the interop suite) are
# skipped when it failed. A summary at the end gives each stage's outcome (passed, FAILED, or
# skipped and why) and duration; the exit status is 1 when any stage failed.
#
# Sourced (`source scripts/test.sh`), it only defines the stage functions (run_stage,
# print_summary), so their bookkeeping can be checked on stages of one's own.

# Stage bookkeeping, one entry per stage in the order run.
stage_names=()
stage_outcomes=()   # passed, failed or skipped
stage_seconds=()
stage_details=()    # the reason for a skip or failure, or the stage's own closing tally
stage_log_dir="${TMPDIR:-/tmp}/mockapns-test-stages.$$"

# The outcome recorded for stage NAME, or nothing when it has not run.
stage_outcome() {
    local index
    for index in "${!stage_names[@]}"; do
        if [[ "${stage_names[$index]}" == "$1" ]]; then
            echo "${stage_outcomes[$index]}"
            return 0
        fi
    done
}

record_stage() {
    stage_names+=("$1")
    stage_outcomes+=("$2")
    stage_seconds+=("$3")
    stage_details+=("$4")
}

# run_stage NAME NEEDS COMMAND [ARGUMENTS...]
#   Runs COMMAND as stage NAME, its output shown as it comes and kept to read its outcome.
#   NEEDS names a stage that must have passed first ("-" for none); otherwise the stage is
#   skipped and the summary says why. A stage that exits 0 after printing only skip lines
#   ("NAME: skipped: REASON", as scripts/fuzz.sh and Tests/Release/run.sh print where they
#   cannot run) counts as skipped, not passed: a skip must never read as a pass.
run_stage() {
    local name="$1" needs="$2"
    shift 2
    if [[ "$needs" != - ]]; then
        local prerequisite
        prerequisite="$(stage_outcome "$needs")"
        if [[ "$prerequisite" != passed ]]; then
            local reason="needs the $needs stage, which ${prerequisite:-did not run}"
            echo "== $name: skipped: $reason"
            record_stage "$name" skipped 0 "$reason"
            return 0
        fi
    fi
    if [[ "$(type -t "$1")" == function ]]; then echo "== $name"; else echo "== $name: $*"; fi
    mkdir -p "$stage_log_dir"
    local log="$stage_log_dir/${#stage_names[@]}.log"
    local started=$SECONDS status
    # Only stdout goes through tee: stderr stays where it was, and so does every line's order.
    "$@" | tee "$log"
    status=${PIPESTATUS[0]}
    local seconds=$((SECONDS - started))
    if ((status != 0)); then
        record_stage "$name" failed "$seconds" "exit status $status$(closing_tally "$log" | sed 's/^./; &/')"
        return 0
    fi
    local skips passes
    skips="$(grep -iE '^[A-Za-z][A-Za-z0-9 ./_-]*: skipped: ' "$log" | sed -E 's/^[^:]*: [Ss][Kk][Ii][Pp][Pp][Ee][Dd]: //' | paste -sd ';' - | sed 's/;/; /g')"
    passes="$(grep -cE ': passed: |: [1-9][0-9]* passed|Executed [1-9][0-9]* tests?, with' "$log")"
    if [[ -n "$skips" && "$passes" == 0 ]]; then
        record_stage "$name" skipped "$seconds" "$skips"
    elif [[ -n "$skips" ]]; then
        local tally
        tally="$(closing_tally "$log")"
        record_stage "$name" passed "$seconds" "${tally:+$tally }(skipped: $skips)"
    else
        record_stage "$name" passed "$seconds" "$(closing_tally "$log")"
    fi
}

# The last line in which a stage counted its results (XCTest's "Executed N tests, with M
# failures", "interop: N passed, ..."), to quote in the summary.
closing_tally() {
    grep -E 'Executed [0-9]+ tests?, with|^[A-Za-z][A-Za-z ]*: [0-9]+ passed' "$1" | tail -n 1 | sed -E 's/^[[:space:]]+//'
}

format_seconds() {
    local total="$1"
    if ((total >= 60)); then
        printf '%dm %02ds' $((total / 60)) $((total % 60))
    else
        printf '%ds' "$total"
    fi
}

# Prints one line per stage, then the verdict; returns 1 when any stage failed.
print_summary() {
    local index failed=() width=0 name
    for name in "${stage_names[@]}"; do
        ((${#name} > width)) && width=${#name}
    done
    echo
    echo "== summary"
    for index in "${!stage_names[@]}"; do
        local outcome="${stage_outcomes[$index]}" detail="${stage_details[$index]}" shown
        case "$outcome" in
            passed) shown="passed" ;;
            failed) shown="FAILED"; failed+=("${stage_names[$index]}") ;;
            skipped) shown="skipped" ;;
            *) shown="$outcome" ;;
        esac
        printf '  %-*s  %-7s  %8s' "$width" "${stage_names[$index]}" "$shown" "$(format_seconds "${stage_seconds[$index]}")"
        if [[ -n "$detail" ]]; then printf '  %s' "$detail"; fi
        printf '\n'
    done
    if ((${#failed[@]} > 0)); then
        local list
        list="$(printf '%s, ' "${failed[@]}")"
        echo "test.sh: ${#failed[@]} of ${#stage_names[@]} stages FAILED: ${list%, }"
        return 1
    fi
    echo "test.sh: every stage passed or was skipped (${#stage_names[@]} stages)"
    return 0
}

swift_tests() {
    swift test --skip-build 2>&1 | tee .build/swift-test.log
    # `swift test` exits non-zero on failure; PIPESTATUS carries it through tee.
    return "${PIPESTATUS[0]}"
}

interop_tests() {
    if [[ ! -x Tests/Interop/run.sh ]]; then
        echo "interop: skipped: Tests/Interop/run.sh is not there or not executable"
        return 0
    fi
    Tests/Interop/run.sh
}

main() {
    set -uo pipefail
    cd "$(dirname "$0")/.." || exit 1
    trap 'rm -rf "$stage_log_dir"' EXIT
    # Interrupted, stop: the next stage must not start as if the stage had merely failed.
    trap 'echo "test.sh: interrupted" >&2; exit 130' INT TERM

    run_stage install - scripts/install-deps.sh --test
    run_stage build - swift build --build-tests
    run_stage "swift test" build swift_tests
    # The front door: at most 40 public types through `import MockAPNs`, each public symbol
    # documented, nothing public elsewhere (from the compiler's symbol graphs of the build).
    run_stage "public api" build scripts/public-api.py
    # The Swift API's DocC documentation, a warning failing it; then the documentation site
    # (mkdocs, strict), its generated reference pages checked against what the build says.
    run_stage docc build scripts/docc.sh
    run_stage docs build scripts/docs.sh
    run_stage interop build interop_tests
    # The release archive on a bare Debian root, in an OCI image, and that image in the
    # Kubernetes manifests (deploy/kubernetes) as a fleet under podman kube play.
    run_stage release - Tests/Release/run.sh
    # Heap allocations per notification against the committed ceilings, on the release build
    # the release stage made (a no-op build after it).
    run_stage allocations - Benchmarks/allocations.sh
    # After the release archive: the install step's release build (scripts/install.sh) is then a
    # relink of package.sh's (about 25 s here; 13 min on its own). The README, block by block,
    # and every page of the documentation site, block by block, as a newcomer follows them in one
# terminal (after a check of that runner on stand-ins); then the embedding example in a
# package outside the repository.
    run_stage "readme runner" - python3 Tests/Readme/test_run.py
    run_stage readme - Tests/Readme/run.py
    run_stage embedding - Tests/Readme/embedding.py
    run_stage fuzz - scripts/fuzz.sh ci "${MOCKAPNS_FUZZ_SECONDS:-15}"

    print_summary
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
