#!/usr/bin/env bash
# The release archive on a bare Linux: a minimal Debian root made with
# `debootstrap --variant=minbase` (no Swift, no OpenSSL, no libnghttp2, no -dev packages),
# and in it, through chroot, the archive's `mockapns`:
#   --version prints MockAPNsVersion.current; `serve --ephemeral-ports` in an empty folder
#   generates its credentials and listens; `health` says ready; the printed curl line (run
#   from outside the root, against the root's server on 127.0.0.1: a chroot shares the
#   network) is answered 200, and so is a push with a `mockapns token` provider token;
#   `journal` shows the two pushes; SIGTERM ends the server with exit status 0.
# Then the same in an OCI image (Containerfile: FROM scratch over that root), built and run
# with podman, when podman can run containers here.
#
#   Tests/Release/run.sh                  builds the archive (scripts/package.sh), then tests it
#   Tests/Release/run.sh ARCHIVE.tar.gz   tests an archive built before
#
# Everything it makes stays in .build/release-test/ (the root is kept and reused by the next
# run in this checkout). Where debootstrap, chroot or podman cannot run (no root, no Debian
# mirror in apt's sources, no podman), the part says SKIPPED and why, and never counts as
# passed.
set -euo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac

work="$PWD/.build/release-test"
root="$work/rootfs"
passed=0 failed=0 skipped=0
t0=$(date +%s)
phase() { echo "== release test: $* ($(( $(date +%s) - t0 )) s)"; }
fail() { echo "release test: FAILED: $*" >&2; failed=$((failed + 1)); }
pass() { echo "release test: passed: $*"; passed=$((passed + 1)); }
skip() { echo "release test: SKIPPED: $*"; skipped=$((skipped + 1)); }
finish() {
    echo "release test: $passed passed, $failed failed, $skipped skipped in $(( $(date +%s) - t0 )) s"
    if (( failed > 0 )); then exit 1; fi
    exit 0
}

# What the test needs before it builds anything.
if [[ "$(uname -s)" != Linux ]]; then skip "the bare-Linux test needs Linux (this is $(uname -s))"; finish; fi
if [[ $(id -u) -ne 0 ]]; then skip "debootstrap and chroot need root (CAP_SYS_CHROOT); this runs as uid $(id -u)"; finish; fi
mkdir -p "$work"

version=$(sed -n 's/^ *package static let current = "\([^"]*\)".*/\1/p' Sources/MockAPNs/Server/MockAPNsVersion.swift)
name="mockapns-$version-linux-$(uname -m)"

if [[ $# -ge 1 ]]; then
    archive=$1
else
    phase "scripts/package.sh"
    archive=$(scripts/package.sh --out "$work/dist" | tail -1) || { fail "scripts/package.sh (its output is above)"; finish; }
fi
[[ "$(basename "$archive")" == "$name.tar.gz" ]] || { fail "the archive is $(basename "$archive"), expected $name.tar.gz"; finish; }

# --- the root ----------------------------------------------------------------------------
if ! command -v debootstrap >/dev/null; then
    skip "debootstrap is not installed (scripts/install-deps.sh --test installs it on Debian)"; finish
fi
# The mirror and suite apt already uses (deb822 .sources or one-line .list entries).
mirror="" suite=""
for file in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$file" ]] || continue
    mirror=$(awk '/^URIs:/ && $2 ~ /\/debian\/?$/ {print $2; exit}' "$file")
    suite=$(awk '/^Suites:/ {print $2; exit}' "$file")
    [[ -n "$mirror" && -n "$suite" ]] && break
done
if [[ -z "$mirror" || -z "$suite" ]]; then
    read -r mirror suite < <(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
        | awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\// && $i ~ /\/debian\/?$/) { print $i, $(i + 1); exit } }') || true
fi
if [[ -z "$mirror" || -z "$suite" ]]; then skip "no Debian mirror in apt's sources (/etc/apt/sources.list*) to debootstrap from"; finish; fi

if [[ ! -f "$root/.complete" ]]; then
    phase "debootstrap --variant=minbase $suite $mirror"
    rm -rf "$root"
    if ! debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$work/debootstrap.log" 2>&1; then
        skip "debootstrap --variant=minbase $suite from $mirror failed: $(tail -3 "$work/debootstrap.log" | tr '\n' ' ')"
        finish
    fi
    touch "$root/.complete"
fi
if ! chroot "$root" /bin/true 2> "$work/chroot.log"; then skip "chroot into $root is not possible here: $(cat "$work/chroot.log")"; finish; fi
# Every Linux system and container has /proc, and Swift's runtime reads the process's own
# details there (without it the command line arrives garbled or the process traps).
if ! mountpoint -q "$root/proc"; then
    if ! mount -t proc proc "$root/proc" 2> "$work/mount.log"; then skip "cannot mount /proc in the root: $(cat "$work/mount.log")"; finish; fi
fi
server=""
cleanup() {
    if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; fi
    if mountpoint -q "$root/proc"; then umount "$root/proc"; fi
}
trap cleanup EXIT

# What makes the test mean something: the root lacks everything the build used.
libdir=/usr/lib/$(uname -m)-linux-gnu
present=$(cd "$root" && ls -d ."$libdir"/libssl.so* ."$libdir"/libcrypto.so* ."$libdir"/libnghttp2.so* \
    ./usr/lib/swift ./usr/include/openssl 2>/dev/null || true)
if [[ -n "$present" ]]; then fail "the root is not bare (no OpenSSL, libnghttp2, Swift or headers): it has $present"; finish; fi

# A fresh copy of the release in the root, unpacked by the root's own tar.
rm -rf "$root/opt/$name" "$root/srv/mockapns" "$root/root/.mockapns"
mkdir -p "$root/srv/mockapns/empty"
cp "$archive" "$root/srv/mockapns/"
chroot "$root" tar -C /opt -xzf "/srv/mockapns/$name.tar.gz"
bin="/opt/$name/bin/mockapns"
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin "$@"; }

phase "in the root: --version, serve, health, curl, token, journal, SIGTERM"
printed=$(in_root "$bin" --version 2>&1) || true
if [[ "$printed" == "$version" ]]; then pass "mockapns --version prints $version"; else fail "mockapns --version printed '$printed', expected $version"; fi

# `serve` in an empty folder, every listener on a free port.
# chroot, env and sh each exec the next, so $! is the server's own process.
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin \
    /bin/sh -c "cd /srv/mockapns/empty && exec $bin serve --ephemeral-ports --ports-file /srv/mockapns/ports.json" \
    > "$work/serve.out" 2> "$work/serve.err" &
server=$!
# Until the ports file appears or the server exits, within a deadline (generating the
# credentials takes longer on a busy machine than a fixed count of polls allows).
ports_deadline=$((SECONDS + 60))
while [[ ! -s "$root/srv/mockapns/ports.json" ]] && kill -0 $server 2>/dev/null && ((SECONDS < ports_deadline)); do sleep 0.05; done
port() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$root/srv/mockapns/ports.json"; }
if [[ ! -s "$root/srv/mockapns/ports.json" ]]; then
    fail "serve wrote no ports file; stdout: $(cat "$work/serve.out"); stderr: $(cat "$work/serve.err")"
    kill $server 2>/dev/null || true
    finish
fi
http2=$(port http2) control=$(port control)

if health=$(in_root "$bin" health --wait 10 --control "http://127.0.0.1:$control" 2>&1); then
    pass "mockapns health: $health"
else
    fail "mockapns health failed: $health"
fi
if grep -q "generated development credentials in /root/.mockapns" "$work/serve.out"; then
    pass "serve in an empty folder generated its credentials in /root/.mockapns"
else
    fail "serve did not say it generated credentials: $(cat "$work/serve.out")"
fi

# The printed curl line, pasted outside the root: its paths are the root's.
line=$(sed -n 's/^try: //p' "$work/serve.out")
status=$(bash -c "${line//\/root\/.mockapns/$root/root/.mockapns} -sS -o /dev/null -w '%{http_code}'" 2>&1) || true
if [[ "$status" == 200 ]]; then pass "the printed curl line is answered 200"; else fail "the printed curl line got '$status': $line"; fi

jwt=$(in_root "$bin" token 2>&1) || true
status=$(curl --http2 -sS -o /dev/null -w '%{http_code}' --cacert "$root/root/.mockapns/ca.pem" \
    -H "authorization: bearer $jwt" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \
    -d '{"aps":{"alert":"hello"}}' "https://127.0.0.1:$http2/3/device/$(printf 'a1b2c3d4%.0s' 1 2 3 4 5 6 7 8)" 2>&1) || true
if [[ "$status" == 200 ]]; then pass "a push with a mockapns token provider token is answered 200"; else fail "the token push got '$status' (token: $jwt)"; fi

journal=$(in_root "$bin" journal --control "http://127.0.0.1:$control" --type notification 2>&1) || true
if [[ $(grep -c ' 200 ' <<<"$journal") -eq 2 ]]; then
    pass "mockapns journal lists both pushes, answered 200"
else
    fail "mockapns journal --type notification printed: $journal"
fi

kill -TERM $server
code=0; wait $server || code=$?
server=""
if [[ $code -eq 0 ]] && grep -q "shutting down" "$work/serve.out"; then
    pass "SIGTERM: serve shut down with exit status 0"
else
    fail "after SIGTERM serve exited $code; stdout: $(tail -3 "$work/serve.out"); stderr: $(tail -5 "$work/serve.err")"
fi

cleanup

# --- the OCI image -----------------------------------------------------------------------
phase "OCI image (Containerfile)"
Tests/Release/image.sh "$root" "$archive" "$version" "$work" && image=0 || image=$?
case $image in
    0) pass "the OCI image (Containerfile)" ;;
    3) skipped=$((skipped + 1)) ;;
    *) fail "the OCI image test (above)" ;;
esac
finish
