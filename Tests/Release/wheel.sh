#!/usr/bin/env bash
# The platform wheel (scripts/wheel.sh) as a provider team uses it; called by Tests/Release/run.sh.
#
#   Tests/Release/wheel.sh ARCHIVE WORK
#
# Builds the wheel from ARCHIVE (auditwheel must find it consistent with its manylinux tag),
# installs it with pytest and httpx[http2] into a fresh venv (WORK/wheel/venv), and runs
# Tests/Release/wheel/test_provider.py there with no binary path given: no MOCKAPNS_BIN, and
# a PATH holding the venv and the system's folders only, so the server the fixture starts
# can only be the one the wheel carries. The provider test pushes over HTTP/2.
#
# Exit 0: passed; 3: skipped (no python3 with venv, or no PyPI to install from: the reason is
# printed); anything else: failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
archive=$1 work=$(mkdir -p "$2" && cd "$2" && pwd)/wheel
skip() { echo "release test: SKIPPED: wheel: $*"; exit 3; }
fail() { echo "release test: FAILED: wheel: $*" >&2; exit 1; }

command -v python3 >/dev/null || skip "python3 is not installed"
python3 -c 'import ensurepip, venv' 2>/dev/null || skip "python3 has no venv module (python3-venv)"

rm -rf "$work" && mkdir -p "$work/dist" "$work/tests"
wheel=$(scripts/wheel.sh "$archive" --out "$work/dist" 2> "$work/wheel.log" | tail -1) \
    || { grep -q "cannot install auditwheel" "$work/wheel.log" && skip "$(tail -1 "$work/wheel.log")"; fail "scripts/wheel.sh: $(tail -5 "$work/wheel.log")"; }
sed 's/^/  /' "$work/wheel.log"
case "$(basename "$wheel")" in
    mockapns-*-py3-none-manylinux_2_*_"$(uname -m)".whl) ;;
    *) fail "the wheel is named $(basename "$wheel"), not mockapns-<version>-py3-none-manylinux_2_<N>_$(uname -m).whl" ;;
esac

python3 -m venv "$work/venv"
if ! "$work/venv/bin/pip" install --quiet "$wheel" pytest 'httpx[http2]' > "$work/pip.log" 2>&1; then
    grep -qiE "connection|resolve|network|No matching distribution" "$work/pip.log" && skip "pip cannot reach PyPI: $(tail -1 "$work/pip.log")"
    fail "pip install of the wheel: $(tail -5 "$work/pip.log")"
fi
# Outside the checkout, so nothing of it (python/, conftest files) is on the test's path.
cp Tests/Release/wheel/test_provider.py "$work/tests/"
if (cd "$work/tests" && env -u MOCKAPNS_BIN PATH="$work/venv/bin:/usr/bin:/bin" HOME="$work" \
        "$work/venv/bin/python" -m pytest -p no:cacheprovider -q -rfE test_provider.py) > "$work/pytest.log" 2>&1; then
    echo "release test: passed: wheel: $(basename "$wheel") in a fresh venv: $(tail -1 "$work/pytest.log")"
else
    cat "$work/pytest.log" >&2
    fail "the provider test with the wheel's server (above)"
fi
