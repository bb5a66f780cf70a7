#!/usr/bin/env bash
# Prints the commit `mockapns --version` names, for MOCKAPNS_BUILD_COMMIT (Package.swift reads
# it): HEAD's first 12 hex digits, with ", modified" when the checkout has changes; nothing
# outside a git checkout. scripts/package.sh and scripts/install.sh export it before they
# build, so a build after `git pull` names the new commit (SwiftPM evaluates the manifest again
# when its environment changes, not when git's HEAD does).
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(git rev-parse HEAD 2>/dev/null) || exit 0
commit=${commit:0:12}
git diff --quiet HEAD 2>/dev/null || commit+=", modified"
echo "$commit"
