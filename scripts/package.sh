#!/usr/bin/env bash
# Builds the release archive: a `mockapns` that runs on a Linux without Swift, OpenSSL or
# libnghttp2 installed, in dist/mockapns-<version>-linux-<arch>.tar.gz with the README; and,
# where dpkg-deb is installed, the same binary as a Debian package beside it,
# dist/mockapns_<version>_<debian arch>.deb (a pre-release's "-" is "~" there, so that
# 1.0.0~rc.1 sorts before 1.0.0; the arch is `dpkg --print-architecture`, e.g. amd64).
#
#   scripts/package.sh                  build, strip, pack; prints the archive's path last
#                                       (the .deb's path goes to stderr; it is in the same folder)
#   scripts/package.sh --out DIR        the archive and the .deb into DIR instead of dist/
#   scripts/package.sh --scratch-path DIR   SwiftPM's build folder (default .build)
#
# Linked statically: the Swift runtime and Foundation (--static-swift-stdlib), and OpenSSL,
# libnghttp2 and jemalloc (the server's allocator, Package.swift says why) where their
# archives exist (Debian's libssl-dev, libnghttp2-dev and libjemalloc-dev ship libssl.a,
# libcrypto.a, libnghttp2.a and libjemalloc.a). The linker takes the first library of a name
# it finds along its search path, and SwiftPM puts the -L of each library's pkg-config file
# first; so this build gets pkg-config files of its own (PKG_CONFIG_PATH) whose libdir is a
# folder holding only the archives, and that folder as the first -L of the link (jemalloc is
# linked by name, with no pkg-config file). The normal debug build reads the system's files
# and stays dynamic.
# What is left dynamic is the C runtime every Linux has: glibc (libc, libm) and, for the
# Swift runtime, libstdc++ and libgcc_s. The version is MockAPNsVersion.current, the one
# place it is written.
#
# The .deb (dpkg-deb --build --root-owner-group) holds /usr/bin/mockapns (stripped), a man page
# per command (/usr/share/man/man1/mockapns.1.gz, mockapns.serve.1.gz, ...), the bash, zsh and
# fish completions, and /usr/share/doc/mockapns (README.md.gz, copyright, changelog.gz); the
# man pages and completions come from scripts/generate-extras.sh, the control file from
# packaging/debian/control.in, the copyright file from packaging/debian/copyright (@YEARS@:
# the first commit's year to the release date's). Depends is what dpkg-shlibdeps finds the
# binary needs (libc6, libgcc-s1, libstdc++6; anything else fails the build), or without
# dpkg-shlibdeps, the same from its NEEDED entries and glibc symbol versions. Maintainer is "$DEBFULLNAME <$DEBEMAIL>" when both are set, else a placeholder.
# Dates (man pages, changelog, file times) are SOURCE_DATE_EPOCH, else the last commit's. When
# lintian is installed, its findings on the .deb are printed (they do not fail the build).
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
# jemalloc, linked by name (-ljemalloc). Its malloc and free must be the whole process's, the
# C libraries' calls included, so the executable must export them; but Swift's static link
# passes --exclude-libs ALL, which keeps every archive member's symbols to itself (glibc
# would then free jemalloc's blocks, and the server crashes at its first getenv). So the
# archive's members are merged into one object, and "libjemalloc.a" here is a linker script
# naming that object: an object file's symbols are exported (-export-dynamic) like the
# program's own.
jemalloc_libdir=$(pkg-config --variable=libdir jemalloc)
if [[ -f "$jemalloc_libdir/libjemalloc_pic.a" ]]; then
    ld -r --whole-archive "$jemalloc_libdir/libjemalloc_pic.a" -o "$static_dir/jemalloc.o"
    printf 'INPUT(%s)\n' "$static_dir/jemalloc.o" > "$static_dir/libjemalloc.a"
else
    dynamic+=("libjemalloc")
    echo "package: no $jemalloc_libdir/libjemalloc_pic.a: libjemalloc stays a shared library the target must have" >&2
fi
# openssl.pc only requires the other two.
if [[ -f "$static_dir/pkgconfig/libssl.pc" && -f "$static_dir/pkgconfig/libcrypto.pc" ]]; then
    cp "$(pkg-config --variable=pcfiledir openssl)/openssl.pc" "$static_dir/pkgconfig/openssl.pc"
fi

# The commit `mockapns --version` names (scripts/build-commit.sh says why it is set here).
commit=$(scripts/build-commit.sh)
if [[ -n "$commit" ]]; then export MOCKAPNS_BUILD_COMMIT="$commit"; fi
echo "== swift build -c release --product mockapns --static-swift-stdlib" >&2
started=$(date +%s)
PKG_CONFIG_PATH="$static_dir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
    swift build --scratch-path "$scratch" -c release --product mockapns --static-swift-stdlib -Xlinker -L"$static_dir" >&2
bin_dir=$(swift build --scratch-path "$scratch" -c release --static-swift-stdlib --show-bin-path)
echo "package: release build took $(( $(date +%s) - started )) s" >&2

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/bin"
# As Debian's dh_strip strips a program: no symbols, no compiler-version comments.
strip --strip-all --remove-section=.comment --remove-section=.note -o "$stage/$name/bin/mockapns" "$bin_dir/mockapns"
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

# --- the Debian package ------------------------------------------------------------------
if command -v dpkg-deb >/dev/null && command -v dpkg >/dev/null; then
    umask 022
    started=$(date +%s)
    deb_arch=$(dpkg --print-architecture)
    deb_version=${version/-/\~}
    if [[ ! "$deb_version" =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
        echo "package: $version does not make a Debian version ($deb_version)" >&2; exit 1
    fi
    deb="$out/mockapns_${deb_version}_$deb_arch.deb"
    epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
    maintainer="MockAPNs maintainers <maintainers@mockapns.invalid>"
    if [[ -n "${DEBFULLNAME:-}" && -n "${DEBEMAIL:-}" ]]; then maintainer="$DEBFULLNAME <$DEBEMAIL>"; fi

    SOURCE_DATE_EPOCH=$epoch scripts/generate-extras.sh --scratch-path "$scratch" "$stage/$name/bin/mockapns" "$stage/extras" >&2

    # dpkg-shlibdeps's layout: debian/control in the current folder, the package's root in
    # debian/<package>.
    src="$stage/deb"
    root="$src/debian/mockapns"
    mkdir -p "$root/DEBIAN"
    printf 'Source: mockapns\nMaintainer: %s\n\nPackage: mockapns\nArchitecture: any\n' "$maintainer" > "$src/debian/control"
    install -D -m 0755 "$stage/$name/bin/mockapns" "$root/usr/bin/mockapns"
    install -d -m 0755 "$root/usr/share/man/man1"
    for page in "$stage/extras/man/man1"/*.1; do
        gzip -9n -c "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"
    done
    install -D -m 0644 "$stage/extras/bash/mockapns" "$root/usr/share/bash-completion/completions/mockapns"
    install -D -m 0644 "$stage/extras/zsh/_mockapns" "$root/usr/share/zsh/vendor-completions/_mockapns"
    install -D -m 0644 "$stage/extras/fish/mockapns.fish" "$root/usr/share/fish/vendor_completions.d/mockapns.fish"
    doc="$root/usr/share/doc/mockapns"
    install -d -m 0755 "$doc"
    gzip -9n -c README.md > "$doc/README.md.gz"
    first_year=$(git log --max-parents=0 --format=%cd --date=format:%Y 2>/dev/null | sort | head -1 || true)
    last_year=$(date -u -d "@$epoch" +%Y)
    years=${first_year:-$last_year}
    if [[ "$years" != "$last_year" ]]; then years+="-$last_year"; fi
    sed "s/@YEARS@/$years/" packaging/debian/copyright > "$doc/copyright"
    printf 'mockapns (%s) unstable; urgency=medium\n\n  * Release %s: its changes are in the MockAPNs repository'"'"'s history.\n\n -- %s  %s\n' \
        "$deb_version" "$version" "$maintainer" "$(LC_ALL=C date -u -R -d "@$epoch")" | gzip -9n > "$doc/changelog.gz"
    chmod 0644 "$root"/usr/share/man/man1/*.gz "$doc"/*.gz "$doc/copyright"

    # Depends: what the binary loads, as packages: the C and C++ runtime only
    # (and, where a C library stayed dynamic above, its package).
    allowed=(libc6 libgcc-s1 'libstdc\+\+6')
    for lib in ${dynamic[@]+"${dynamic[@]}"}; do
        case "$lib" in
            libssl|libcrypto) allowed+=(libssl3) ;; libnghttp2) allowed+=(libnghttp2-14) ;; libjemalloc) allowed+=(libjemalloc2) ;;
        esac
    done
    if command -v dpkg-shlibdeps >/dev/null; then
        depends=$(cd "$src" && dpkg-shlibdeps -O -edebian/mockapns/usr/bin/mockapns 2> "$stage/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') \
            || { echo "package: dpkg-shlibdeps failed: $(cat "$stage/shlibdeps.log")" >&2; exit 1; }
        if [[ -s "$stage/shlibdeps.log" ]]; then sed 's/^/package: /' "$stage/shlibdeps.log" >&2; fi
    else
        glibc=$(objdump -T "$root/usr/bin/mockapns" | grep -o 'GLIBC_[0-9.]*' | sed 's/^GLIBC_//' | sort -uV | tail -1)
        depends="libc6 (>= $glibc)"
        while read -r soname; do
            case "$soname" in
                libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libutil.so*|ld-linux*) ;;
                libstdc++.so.6) depends+=", libstdc++6" ;;
                libgcc_s.so.1) depends+=", libgcc-s1" ;;
                libssl.so.3|libcrypto.so.3) [[ "$depends" == *libssl3* ]] || depends+=", libssl3" ;;
                libnghttp2.so.14) depends+=", libnghttp2-14" ;;
                libjemalloc.so.2) depends+=", libjemalloc2" ;;
                *) echo "package: no Debian package known for $soname (install dpkg-dev for dpkg-shlibdeps)" >&2; exit 1 ;;
            esac
        done <<<"$needed"
    fi
    depended=$(tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/[ (].*//' | sort -u)
    if [[ -z "$depended" ]] || grep -Evq "^($(IFS='|'; echo "${allowed[*]}"))\$" <<<"$depended"; then
        echo "package: the .deb would depend on '$depends'; only the C and C++ runtime (libc6, libgcc-s1, libstdc++6) are expected" >&2
        exit 1
    fi

    installed_size=$(du -sk --apparent-size "$root/usr" | cut -f1)
    sed -e "s|@VERSION@|$deb_version|" -e "s|@ARCH@|$deb_arch|" -e "s|@MAINTAINER@|$maintainer|" \
        -e "s|@INSTALLED_SIZE@|$installed_size|" -e "s|@DEPENDS@|$depends|" packaging/debian/control.in > "$root/DEBIAN/control"
    (cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
    chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
    find "$root" -exec touch -h -d "@$epoch" {} +
    rm -f "$deb"
    SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group --build "$root" "$deb" >&2
    echo "package: $deb ($(size "$deb"), made in $(( $(date +%s) - started )) s); Depends: $depends" >&2
    if command -v lintian >/dev/null; then
        findings=$(lintian "$deb" 2>&1 | grep -v '^running with root privileges' || true)
        if [[ -z "$findings" ]]; then
            echo "package: lintian: no findings" >&2
        else
            echo "package: lintian (lintian --info $deb explains each):" >&2
            sed 's/^/  /' <<<"$findings" >&2
        fi
    fi
else
    echo "package: no dpkg-deb here: no .deb (on Debian and Ubuntu it is in the dpkg package)" >&2
fi
echo "$out/$name.tar.gz"
