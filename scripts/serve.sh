#!/usr/bin/env bash
# Installs what is missing, builds, and runs `mockapns serve` with the committed certs-dev/
# and Apple-faithful defaults. Extra arguments go to `mockapns serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --product mockapns
exec "$(swift build --show-bin-path)/mockapns" serve "$@"
