#!/usr/bin/env bash
# Interop suite: real third-party clients (curl, nghttp, openssl s_client, aioapns, PyAPNs)
# against `mockapns serve` on ephemeral ports. Creates .venv-interop/ with the pinned Python
# clients (Tests/Interop/requirements.txt) and the Python helper (python/), and runs pytest
# over Tests/Interop and the helper's own tests (python/tests).
#
#   Tests/Interop/run.sh [pytest args...]     e.g. Tests/Interop/run.sh -k legacy -v
#
# MOCKAPNS_BIN overrides the server binary (default: the debug build, built if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in curl nghttp openssl; do
    command -v "$tool" >/dev/null || { echo "interop: $tool missing; run scripts/install-deps.sh --test" >&2; exit 1; }
done

if [[ -z "${MOCKAPNS_BIN:-}" ]]; then
    MOCKAPNS_BIN="$(swift build --show-bin-path)/mockapns"
    if [[ ! -x "$MOCKAPNS_BIN" ]]; then
        echo "== swift build --product mockapns"
        swift build --product mockapns
    fi
fi
export MOCKAPNS_BIN
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ beside the tests

venv=.venv-interop
requirements=Tests/Interop/requirements.txt
if [[ ! -x "$venv/bin/python" ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    echo "== creating $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$venv/requirements.txt"
fi
# The Python helper (python/: the mockapns package and its pytest plugin), editable so the
# suite runs the checkout's code; installed again when its pyproject.toml changes.
helper=python/pyproject.toml
if ! cmp -s "$helper" "$venv/pyproject.toml"; then
    echo "== installing the Python helper (pip install --editable ./python)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --editable ./python
    cp "$helper" "$venv/pyproject.toml"
fi

report="$venv/junit.xml"
status=0
# --rootdir: test ids from the repository root (else python/pyproject.toml would be taken as
# pytest's configuration file).
"$venv/bin/python" -m pytest Tests/Interop python/tests --rootdir . -p no:cacheprovider -rfEsx --junitxml="$report" "$@" || status=$?

# One plain closing line, whatever pytest printed above it.
"$venv/bin/python" - "$report" "$status" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
    suites = [root] if root.tag == "testsuite" else list(root)
    total = sum(int(s.get("tests", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    print(f"interop: {total - failed - skipped} passed, {failed} failed, {skipped} skipped")
except Exception as error:  # pytest died before writing its report
    print(f"interop: 0 passed, 1 failed ({error})")
    sys.exit(1)
PY
exit "$status"
