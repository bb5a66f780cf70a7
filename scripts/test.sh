#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, then runs the
# Swift tests (unit and real-socket integration tests), the interop suite of third-party
# clients, the release archive on a bare Debian root (and in an OCI image), the README's shell
# blocks and its embedding example as a newcomer runs them, and each libFuzzer target for a
# bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test

echo "== swift build --build-tests"
swift build --build-tests

echo "== swift test"
swift test --skip-build 2>&1 | tee .build/swift-test.log
# `swift test` exits non-zero on failure; pipefail carries it through tee.

if [[ -x Tests/Interop/run.sh ]]; then
    echo "== interop suite"
    Tests/Interop/run.sh
fi

echo "== release archive on a bare Debian root (Tests/Release/run.sh)"
Tests/Release/run.sh

# After the release archive: the install step's release build (scripts/install.sh) is then a
# relink of package.sh's (about 25 s here; 13 min on its own).
echo "== the README, block by block, as a newcomer follows it (Tests/Readme/run.py)"
Tests/Readme/run.py

echo "== the README's embedding example in a package outside the repository (Tests/Readme/embedding.py)"
Tests/Readme/embedding.py

echo "== fuzz targets, ${MOCKAPNS_FUZZ_SECONDS:-15}s each"
scripts/fuzz.sh ci "${MOCKAPNS_FUZZ_SECONDS:-15}"
