#!/usr/bin/env bash
# Generates what goes beside a built `mockapns`: its man pages and its shell completions, both
# made by swift-argument-parser from the binary's own command tree, so they always match it.
# Used by scripts/package.sh (the .deb) and scripts/install.sh.
#
#   scripts/generate-extras.sh BIN OUTDIR
#   scripts/generate-extras.sh --scratch-path DIR BIN OUTDIR   SwiftPM's build folder (default: the checkout's .build)
#   scripts/generate-extras.sh --no-man BIN OUTDIR             completions only
#
# OUTDIR gets (uncompressed):
#   man/man1/mockapns.1, mockapns.serve.1, ...   one page per command and subcommand
#   bash/mockapns   zsh/_mockapns   fish/mockapns.fish
#
# Completions: `BIN --generate-completion-script bash|zsh|fish` (the bash one without its
# #! line: a completion file is sourced, never run).
# Man pages: swift-argument-parser's `generate-manual` tool (what its `generate-manual`
# package plugin runs), built from the copy of swift-argument-parser SwiftPM checked out for
# this package (DIR/checkouts/swift-argument-parser, the version BIN was built with), into
# DIR/generate-manual: offline, about a minute the first time, nothing after. (The plugin
# itself would first build every product of the package in debug mode.) It runs
# `BIN --experimental-dump-help` and writes mdoc pages dated SOURCE_DATE_EPOCH when set, else
# the date of the checkout's last commit, so the same sources give the same pages.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

scratch="$repo/.build"
man=true
while (( $# )); do
    case "$1" in
        --scratch-path) scratch="${2:?--scratch-path needs a folder}"; shift 2 ;;
        --scratch-path=*) scratch="${1#--scratch-path=}"; shift ;;
        --no-man) man=false; shift ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        -*) echo "generate-extras: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
if (( $# != 2 )); then
    echo "generate-extras: usage: scripts/generate-extras.sh [--scratch-path DIR] [--no-man] BIN OUTDIR" >&2; exit 2
fi
bin=$1 outdir=$2
[[ "$bin" == */* ]] || bin="./$bin"
[[ -x "$bin" ]] || { echo "generate-extras: $bin is not an executable" >&2; exit 1; }

mkdir -p "$outdir/bash" "$outdir/zsh" "$outdir/fish"
"$bin" --generate-completion-script bash | sed '1{/^#!/d}' | sed '1{/^$/d}' > "$outdir/bash/mockapns"
"$bin" --generate-completion-script zsh > "$outdir/zsh/_mockapns"
"$bin" --generate-completion-script fish > "$outdir/fish/mockapns.fish"
for file in "$outdir/bash/mockapns" "$outdir/zsh/_mockapns" "$outdir/fish/mockapns.fish"; do
    grep -q serve "$file" || { echo "generate-extras: $file does not offer the serve command" >&2; exit 1; }
done

$man || exit 0
checkout="$scratch/checkouts/swift-argument-parser"
if [[ ! -f "$checkout/Tools/generate-manual/GenerateManual.swift" ]]; then
    echo "generate-extras: no $checkout/Tools/generate-manual (build the package first: it checks swift-argument-parser out)" >&2
    exit 1
fi
tool_scratch="$scratch/generate-manual"
if ! swift build --package-path "$checkout" --scratch-path "$tool_scratch" -c release --product generate-manual > "$outdir/generate-manual-build.log" 2>&1; then
    echo "generate-extras: building swift-argument-parser's generate-manual failed:" >&2
    tail -20 "$outdir/generate-manual-build.log" >&2
    exit 1
fi
rm -f "$outdir/generate-manual-build.log"
tool="$(swift build --package-path "$checkout" --scratch-path "$tool_scratch" -c release --show-bin-path)/generate-manual"

if [[ -n "${SOURCE_DATE_EPOCH:-}" ]]; then
    date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F 2>/dev/null || date -u -r "$SOURCE_DATE_EPOCH" +%F)
else
    date=$(git -C "$repo" log -1 --format=%cs 2>/dev/null || date -u +%F)
fi
rm -rf "$outdir/man/man1" && mkdir -p "$outdir/man/man1"
"$tool" "$bin" --multi-page --section 1 --date "$date" --output-directory "$outdir/man/man1"
[[ -s "$outdir/man/man1/mockapns.1" && -s "$outdir/man/man1/mockapns.serve.1" ]] \
    || { echo "generate-extras: generate-manual wrote no mockapns.1 or mockapns.serve.1" >&2; exit 1; }
# A subcommand's page names the command in words (.Nm "mockapns serve"), which whatis (the
# `man -k` index, lexgrog) cannot parse; its NAME section gets the page's name first
# (mockapns.serve, mockapns serve - ...), and the SYNOPSIS keeps the command in words.
for page in "$outdir/man/man1"/mockapns.*.1; do
    name=$(basename "$page" .1)
    awk -v name="$name" -v cmd="${name//./ }" '
        $0 == ".Nm \"" cmd "\"" && !named { print ".Nm " name " ,"; print; named = 1; next }
        $0 == ".Nm" { print ".Nm \"" cmd "\""; next }
        { print }' "$page" > "$page.new"
    mv "$page.new" "$page"
done
