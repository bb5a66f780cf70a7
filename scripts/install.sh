#!/usr/bin/env bash
# Installs the `mockapns` command: the system libraries it needs (scripts/install-deps.sh),
# a release build, and the binary copied to PREFIX/bin.
#
#   scripts/install.sh                  PREFIX is ~/.local (no root needed); ~/.local/bin should be on PATH
#   scripts/install.sh --prefix /usr/local
#
# SwiftPM's own way works too: `swift package experimental-install --product mockapns` puts it
# in ~/.swiftpm/bin.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${HOME:?HOME is unset; pass --prefix}/.local"
while (( $# )); do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        *) echo "install: unknown argument $1 (usage: scripts/install.sh [--prefix DIR])" >&2; exit 2 ;;
    esac
done

scripts/install-deps.sh
# On Linux the Swift runtime and Foundation are linked in, as scripts/package.sh links them: the
# installed binary does not load them from the toolchain's folder, and the two builds share
# their work (after package.sh, this one is a relink).
flags=()
if [[ "$(uname -s)" == Linux ]]; then flags=(--static-swift-stdlib); fi
echo "== swift build -c release --product mockapns ${flags[*]-}" >&2
swift build -c release --product mockapns ${flags[@]+"${flags[@]}"}
bin_dir="$(swift build -c release ${flags[@]+"${flags[@]}"} --show-bin-path)"
mkdir -p "$prefix/bin"
install -m 0755 "$bin_dir/mockapns" "$prefix/bin/mockapns"
echo "installed $prefix/bin/mockapns"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on PATH; add it, e.g. export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
