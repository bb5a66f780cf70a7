#!/usr/bin/env bash
# Installs the `mockapns` command: the system libraries it needs (scripts/install-deps.sh),
# a release build, the binary stripped (strip --strip-all where strip takes it: about 88 MB
# instead of 151) in PREFIX/bin, and its man pages and shell completions
# (scripts/generate-extras.sh):
#   PREFIX/share/man/man1/mockapns.1.gz, mockapns.serve.1.gz, ...   (`man mockapns`,
#       `man mockapns.serve`: man finds PREFIX/share/man for a PREFIX/bin on PATH)
#   bash: PREFIX/share/bash-completion/completions/mockapns (for ~/.local, bash-completion's
#       user folder; bash-completion loads it on the first `mockapns <TAB>`)
#   zsh:  PREFIX/share/zsh/site-functions/_mockapns (on zsh's fpath for /usr/local; for
#       ~/.local add `fpath=(~/.local/share/zsh/site-functions $fpath)` before compinit)
#   fish: for ~/.local, ~/.config/fish/completions/mockapns.fish; else
#       PREFIX/share/fish/vendor_completions.d/mockapns.fish
#
#   scripts/install.sh                  PREFIX is ~/.local (no root needed); ~/.local/bin should be on PATH
#   scripts/install.sh --prefix /usr/local
#   scripts/install.sh --no-extras      the binary only
#
# The release build takes about 8 minutes from cold on 2 cores (after scripts/package.sh, a
# relink); the man pages need swift-argument-parser's generate-manual tool, built once (about a
# minute). Without it the binary is installed all the same.
# SwiftPM's own way works too: `swift package experimental-install --product mockapns` puts it
# (unstripped) in ~/.swiftpm/bin.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${HOME:?HOME is unset; pass --prefix}/.local"
extras=true
while (( $# )); do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --no-extras) extras=false; shift ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "install: unknown argument $1 (usage: scripts/install.sh [--prefix DIR] [--no-extras])" >&2; exit 2 ;;
    esac
done
user_prefix=false
if [[ "${prefix%/}" == "$HOME/.local" ]]; then user_prefix=true; fi

scripts/install-deps.sh
# The commit `mockapns --version` names (scripts/build-commit.sh says why it is set here).
commit=$(scripts/build-commit.sh)
if [[ -n "$commit" ]]; then export MOCKAPNS_BUILD_COMMIT="$commit"; fi
# On Linux the Swift runtime and Foundation are linked in, as scripts/package.sh links them: the
# installed binary does not load them from the toolchain's folder, and the two builds share
# their work (after package.sh, this one is a relink).
flags=()
if [[ "$(uname -s)" == Linux ]]; then flags=(--static-swift-stdlib); fi
cores=$(nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo "?")
echo "== swift build -c release --product mockapns ${flags[*]-}" >&2
echo "install: a release build from cold takes about 8 minutes on 2 cores (this machine has $cores); after an earlier release build, a minute or less" >&2
started=$(date +%s)
swift build -c release --product mockapns ${flags[@]+"${flags[@]}"}
bin_dir="$(swift build -c release ${flags[@]+"${flags[@]}"} --show-bin-path)"
echo "install: the build took $(( $(date +%s) - started )) s" >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$bin_dir/mockapns" "$work/mockapns"
if command -v strip >/dev/null && strip --strip-all "$work/mockapns" 2>/dev/null; then
    stripped=" (stripped)"
else
    cp "$bin_dir/mockapns" "$work/mockapns"
    stripped=" (not stripped: no strip that takes --strip-all here)"
fi
mkdir -p "$prefix/bin"
install -m 0755 "$work/mockapns" "$prefix/bin/mockapns"
echo "installed $prefix/bin/mockapns$stripped"

if $extras; then
    if scripts/generate-extras.sh "$work/mockapns" "$work/extras" >&2; then
        man1="$prefix/share/man/man1"
        mkdir -p "$man1"
        rm -f "$man1"/mockapns.1 "$man1"/mockapns.1.gz "$man1"/mockapns.*.1 "$man1"/mockapns.*.1.gz
        for page in "$work/extras/man/man1"/*.1; do
            if command -v gzip >/dev/null; then
                gzip -9n -c "$page" > "$man1/$(basename "$page").gz" && chmod 0644 "$man1/$(basename "$page").gz"
            else
                install -m 0644 "$page" "$man1/"
            fi
        done
        echo "installed man pages in $man1 (man mockapns, man mockapns.serve, ...)"
        bash_dir="$prefix/share/bash-completion/completions"
        fish_dir="$prefix/share/fish/vendor_completions.d"
        if $user_prefix; then
            bash_dir="${BASH_COMPLETION_USER_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion}/completions"
            fish_dir="${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions"
        fi
        zsh_dir="$prefix/share/zsh/site-functions"
        install -D -m 0644 "$work/extras/bash/mockapns" "$bash_dir/mockapns"
        install -D -m 0644 "$work/extras/zsh/_mockapns" "$zsh_dir/_mockapns"
        install -D -m 0644 "$work/extras/fish/mockapns.fish" "$fish_dir/mockapns.fish"
        echo "installed completions: $bash_dir/mockapns, $zsh_dir/_mockapns, $fish_dir/mockapns.fish"
        if $user_prefix; then
            echo "note: for zsh, add fpath=(\"$zsh_dir\" \$fpath) before compinit in ~/.zshrc"
        fi
    else
        echo "install: no man pages or completions (the messages above say why); the binary is installed" >&2
    fi
fi
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on PATH; add it, e.g. export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
