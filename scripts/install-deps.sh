#!/usr/bin/env bash
# Installs the system packages MockAPNs builds against and the peers its tests drive.
#   scripts/install-deps.sh          OpenSSL 3 and libnghttp2 headers, pkg-config, and on Linux
#                                    jemalloc (a release build's allocator): enough to build and run
#   scripts/install-deps.sh --test   plus curl, openssl, nghttp2's nghttp/h2load/nghttpd, python3 with venv,
#                                    tshark (reads the journal's capture), chromium and chromedriver
#                                    (the dashboard's browser tests), PostgreSQL and HAProxy (the fleet
#                                    tests' shared state and the TCP front of their replicas); on
#                                    Debian also debootstrap, podman, runc and catatonit (the release
#                                    test; podman makes a pod's infra container from catatonit)
# Debian and Ubuntu: apt-get. macOS: Homebrew, when `brew` is there. Anything else: it says
# in one line what to install and exits 1.
set -euo pipefail

test_tools=false
if [[ "${1:-}" == "--test" ]]; then test_tools=true; fi

# What is missing, checked the same way everywhere: pkg-config for the libraries, PATH for tools.
# PostgreSQL is the exception: Debian keeps its programs off PATH, in /usr/lib/postgresql/VERSION/bin
# (what `pg_config --bindir` names), Homebrew's postgresql@N in a keg; any of these folders will do.
postgres_found() {
    local folders=() folder tool
    if command -v postgres >/dev/null; then folders+=("$(dirname "$(command -v postgres)")"); fi
    if command -v pg_config >/dev/null; then folders+=("$(pg_config --bindir 2>/dev/null || true)"); fi
    for folder in /usr/lib/postgresql/*/bin /opt/homebrew/opt/postgresql@*/bin /usr/local/opt/postgresql@*/bin; do
        folders+=("$folder")
    done
    for folder in "${folders[@]}"; do
        for tool in initdb postgres psql pg_isready; do
            [[ -n "$folder" && -x "$folder/$tool" ]] || continue 2
        done
        return 0
    done
    return 1
}
missing_build=false
build_libraries=(openssl libnghttp2)
# On Linux a release build of the server links jemalloc (Package.swift says why).
if [[ "$OSTYPE" == linux* ]]; then build_libraries+=(jemalloc); fi
if ! command -v pkg-config >/dev/null || ! pkg-config --exists "${build_libraries[@]}"; then
    missing_build=true
fi
missing_test=false
if $test_tools; then
    for tool in curl openssl nghttp h2load nghttpd python3 tshark chromedriver; do
        command -v "$tool" >/dev/null || missing_test=true
    done
    postgres_found || missing_test=true
    PATH="$PATH:/usr/sbin:/sbin" command -v haproxy >/dev/null || missing_test=true
    if command -v apt-get >/dev/null; then
        for tool in debootstrap podman runc catatonit; do
            PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null || missing_test=true
        done
    fi
    if command -v python3 >/dev/null && ! python3 -c 'import ensurepip, venv' 2>/dev/null; then missing_test=true; fi
fi
if ! $missing_build && ! $missing_test; then
    exit 0
fi

if command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
    packages=(libssl-dev libnghttp2-dev libjemalloc-dev pkg-config)
    if $test_tools; then packages+=(curl openssl nghttp2-client nghttp2-server python3 python3-venv tshark chromium chromium-driver postgresql haproxy debootstrap podman runc catatonit); fi
    missing=()
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if (( ${#missing[@]} == 0 )); then exit 0; fi
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
    echo "install-deps: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    # tshark's wireshark-common asks whether non-root users may capture: no (the tests only read files).
    echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif command -v brew >/dev/null; then
    formulae=(openssl@3 nghttp2 pkg-config)
    if $test_tools; then formulae+=(curl python@3 wireshark chromedriver postgresql@17 haproxy); fi
    echo "install-deps: brew install ${formulae[*]}" >&2
    brew install --quiet "${formulae[@]}"
    if ! pkg-config --exists openssl 2>/dev/null; then
        echo "install-deps: for the build, export PKG_CONFIG_PATH=\"$(brew --prefix openssl@3)/lib/pkgconfig:\$PKG_CONFIG_PATH\"" >&2
    fi
else
    wanted="OpenSSL 3, libnghttp2 and (on Linux) jemalloc development files (headers and pkg-config .pc files), pkg-config"
    if $test_tools; then wanted+=", curl, openssl, nghttp2's nghttp/h2load/nghttpd, python3 with venv, tshark, chromium, chromedriver, PostgreSQL (server and psql) and haproxy"; fi
    echo "install-deps: no apt-get or brew here; install with your package manager: $wanted" >&2
    exit 1
fi
