#!/usr/bin/env bash
# Installs the system packages MockAPNs builds against and the peers its tests drive.
#   scripts/install-deps.sh          libssl-dev, libnghttp2-dev (enough to run the server)
#   scripts/install-deps.sh --test   plus curl, openssl, nghttp2-client/-server (nghttp, h2load,
#                                    nghttpd), python3-venv (the interop suite's virtualenv),
#                                    chromium, chromium-driver (the dashboard's browser tests)
set -euo pipefail

packages=(libssl-dev libnghttp2-dev pkg-config)
if [[ "${1:-}" == "--test" ]]; then
    packages+=(curl openssl nghttp2-client nghttp2-server python3 python3-venv chromium chromium-driver)
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if (( ${#missing[@]} == 0 )); then
    exit 0
fi

if ! command -v apt-get >/dev/null; then
    echo "install-deps: missing ${missing[*]}; install them with your package manager (brew: openssl@3 nghttp2 curl)" >&2
    exit 1
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
