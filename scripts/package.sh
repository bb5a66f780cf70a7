#!/usr/bin/env bash
# Builds the release archive: a `mockapns` that runs on a Linux without Swift, OpenSSL or
# libnghttp2 installed, in dist/mockapns-<version>-linux-<arch>.tar.gz with the README.
#
#   scripts/package.sh                  build, strip, pack; prints the archive's path last
#   scripts/package.sh --out DIR        the archive into DIR instead of dist/
#   scripts/package.sh --scratch-path DIR   SwiftPM's build folder (default .build)
#
# Linked statically: the Swift runtime and Foundation (--static-swift-stdlib), and OpenSSL
# and libnghttp2 where their archives exist (Debian's libssl-dev and libnghttp2-dev ship
# libssl.a, libcrypto.a and libnghttp2.a). The linker takes the first library of a name it
# finds along its search path, and SwiftPM puts the -L of each library's pkg-config file
# first; so this build gets pkg-config files of its own (PKG_CONFIG_PATH) whose libdir is a
# folder holding only the archives. The normal debug build reads the system's files and
# stays dynamic.
# What is left dynamic is the C runtime every Linux has: glibc (libc, libm) and, for the
# Swift runtime, libstdc++ and libgcc_s. The version is MockAPNsVersion.current, the one
# place it is written.
set -euo pipefail
cd "$(dirname "$0")/.."

out=dist
scratch=.build
while (( $# )); do
    case "$1" in
        --out) out="${2:?--out needs a folder}"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        --scratch-path) scratch="${2:?--scratch-path needs a folder}"; shift 2 ;;
        --scratch-path=*) scratch="${1#--scratch-path=}"; shift ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "package: unknown argument $1 (usage: scripts/package.sh [--out DIR] [--scratch-path DIR])" >&2; exit 2 ;;
    esac
done

version=$(sed -n 's/^ *package static let current = "\([^"]*\)".*/\1/p' Sources/MockAPNs/Server/MockAPNsVersion.swift)
if [[ -z "$version" ]]; then
    echo "package: no version in Sources/MockAPNs/Server/MockAPNsVersion.swift" >&2; exit 1
fi
case "$(uname -s)" in
    Linux) ;;
    *) echo "package: builds the Linux release; on $(uname -s) use scripts/install.sh" >&2; exit 1 ;;
esac
arch=$(uname -m)
name="mockapns-$version-linux-$arch"

scripts/install-deps.sh

# The archives of the C libraries, alone in a folder, and pkg-config files that point there.
static_dir=$(mkdir -p "$scratch" && cd "$scratch" && pwd)/static-libs
rm -rf "$static_dir" && mkdir -p "$static_dir/pkgconfig"
dynamic=()
for spec in openssl:ssl:libssl openssl:crypto:libcrypto libnghttp2:nghttp2:libnghttp2; do
    IFS=: read -r package lib pc <<<"$spec"
    libdir=$(pkg-config --variable=libdir "$package")
    if [[ -f "$libdir/lib$lib.a" ]]; then
        ln -s "$libdir/lib$lib.a" "$static_dir/lib$lib.a"
        sed "s|^libdir=.*|libdir=$static_dir|" "$(pkg-config --variable=pcfiledir "$pc")/$pc.pc" > "$static_dir/pkgconfig/$pc.pc"
    else
        dynamic+=("lib$lib")
        echo "package: no $libdir/lib$lib.a: lib$lib stays a shared library the target must have" >&2
    fi
done
# openssl.pc only requires the other two.
if [[ -f "$static_dir/pkgconfig/libssl.pc" && -f "$static_dir/pkgconfig/libcrypto.pc" ]]; then
    cp "$(pkg-config --variable=pcfiledir openssl)/openssl.pc" "$static_dir/pkgconfig/openssl.pc"
fi

echo "== swift build -c release --product mockapns --static-swift-stdlib" >&2
started=$(date +%s)
PKG_CONFIG_PATH="$static_dir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
    swift build --scratch-path "$scratch" -c release --product mockapns --static-swift-stdlib >&2
bin_dir=$(swift build --scratch-path "$scratch" -c release --static-swift-stdlib --show-bin-path)
echo "package: release build took $(( $(date +%s) - started )) s" >&2

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/bin"
strip --strip-all -o "$stage/$name/bin/mockapns" "$bin_dir/mockapns"
cp README.md "$stage/$name/README.md"

# What the binary still loads: only the C runtime is acceptable.
needed=$(readelf -d "$stage/$name/bin/mockapns" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort)
unexpected=$(grep -Ev '^(libc|libm|libdl|libpthread|librt|libutil|libstdc\+\+|libgcc_s|ld-linux.*)\.so' <<<"$needed" || true)
for lib in "${dynamic[@]}"; do unexpected=$(grep -v "^$lib\.so" <<<"$unexpected" || true); done
if [[ -n "$unexpected" ]]; then
    echo "package: the binary needs shared libraries a bare Linux lacks: $(tr '\n' ' ' <<<"$unexpected")" >&2
    exit 1
fi

mkdir -p "$out"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
size() { stat -c %s "$1" | awk '{printf "%.1f MB", $1 / 1000000}'; }
echo "package: $out/$name.tar.gz ($(size "$out/$name.tar.gz")); bin/mockapns $(size "$stage/$name/bin/mockapns") stripped, $(size "$bin_dir/mockapns") before" >&2
echo "package: shared libraries it loads: $(tr '\n' ' ' <<<"$needed")" >&2
echo "$out/$name.tar.gz"
