#!/usr/bin/env bash
# The release archive on a bare Linux: a minimal Debian root made with
# `debootstrap --variant=minbase` (no Swift, no OpenSSL, no libnghttp2, no -dev packages),
# and in it, through chroot, the archive's `mockapns`:
#   --version prints MockAPNsVersion.current (and the commit), and it allocates with the
#   jemalloc linked into it; `serve --ephemeral-ports` in
#   an empty folder generates its credentials and listens; `health` says ready; the printed
#   curl line (run from outside the root, against the root's server on 127.0.0.1: a chroot
#   shares the network) is answered 200, and so is a push with a `mockapns token` provider
#   token; `journal` shows the two pushes; SIGTERM ends the server with exit status 0.
# Then, in the same root, the Debian package scripts/package.sh made beside the archive
# (mockapns_<version>_<arch>.deb): `apt-get install` of the file works offline (its
# dependencies are in minbase); /usr/bin/mockapns --version; the man pages are there (as
# gzipped mdoc files: minbase has no man-db); the root's bash sources the bash completion
# and completes `mockapns se` to serve and session; the zsh and fish completions and the copyright file
# are there; the installed command serves a push answered 200 and stops on SIGTERM; and
# `apt-get remove` leaves none of its files.
# Then the archive in an OCI image (Containerfile: FROM scratch over that root), built and run
# with podman, when podman can run containers here (Tests/Release/image.sh); and that image in
# the Kubernetes manifests of deploy/kubernetes, played with `podman kube play` as a fleet of
# replicas sharing a throwaway PostgreSQL (Tests/Release/kube.sh).
# Before the root, the platform wheel made from the archive (scripts/wheel.sh, checked with
# auditwheel) is installed into a fresh venv and runs a provider test with the server it
# carries (Tests/Release/wheel.sh).
#
#   Tests/Release/run.sh                  builds the archive (scripts/package.sh), then tests it
#   Tests/Release/run.sh ARCHIVE.tar.gz   tests an archive built before (and the .deb beside it)
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

# --- the platform wheel ------------------------------------------------------------------
phase "the platform wheel: scripts/wheel.sh, pip install into a fresh venv, a provider test"
Tests/Release/wheel.sh "$archive" "$work" && wheel=0 || wheel=$?
case $wheel in
    0) passed=$((passed + 1)) ;;
    3) skipped=$((skipped + 1)) ;;
    *) fail "the platform wheel (above)" ;;
esac

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
server="" image_tag=""
cleanup() {
    if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; fi
    if mountpoint -q "$root/proc"; then umount "$root/proc"; fi
    # The image the image part left for the Kubernetes part (KEEP=1 leaves it, as image.sh does).
    if [[ -n "$image_tag" && -z "${KEEP:-}" ]]; then podman rmi -f "$image_tag" >/dev/null 2>&1 || true; fi
    image_tag=""
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

# start_serve BIN LOG: `BIN serve --ephemeral-ports` in an empty folder of the root, every
# listener on a free port, its output in $work/LOG.out and .err; sets server (chroot, env and
# sh each exec the next, so $! is the server's own process), http2 and control. Fails when no
# ports file appears before the server exits or within a deadline (generating the
# credentials takes longer on a busy machine than a fixed count of polls allows).
start_serve() {
    local bin=$1 log=$2
    rm -f "$root/srv/mockapns/ports.json"
    chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin \
        /bin/sh -c "cd /srv/mockapns/empty && exec $bin serve --ephemeral-ports --ports-file /srv/mockapns/ports.json" \
        > "$work/$log.out" 2> "$work/$log.err" &
    server=$!
    local deadline=$((SECONDS + 60))
    while [[ ! -s "$root/srv/mockapns/ports.json" ]] && kill -0 $server 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
    if [[ ! -s "$root/srv/mockapns/ports.json" ]]; then
        kill $server 2>/dev/null || true
        wait $server 2>/dev/null || true
        server=""
        return 1
    fi
    http2=$(port http2) control=$(port control)
}
port() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$root/srv/mockapns/ports.json"; }
# token_push BIN: a push with a `BIN token` provider token to the server on $http2; prints
# the HTTP status (or curl's error) and the token.
token_push() {
    local jwt
    jwt=$(in_root "$1" token 2>&1) || true
    curl --http2 -sS -o /dev/null -w '%{http_code}' --cacert "$root/root/.mockapns/ca.pem" \
        -H "authorization: bearer $jwt" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \
        -d '{"aps":{"alert":"hello"}}' "https://127.0.0.1:$http2/3/device/$(printf 'a1b2c3d4%.0s' 1 2 3 4 5 6 7 8)" 2>&1 || true
    echo " (token: $jwt)"
}
# stop_serve LOG: SIGTERM to the server; true when it exited 0 saying it shut down.
stop_serve() {
    kill -TERM $server
    stop_code=0; wait $server || stop_code=$?
    server=""
    [[ $stop_code -eq 0 ]] && grep -q "shutting down" "$work/$1.out"
}

# What --version prints: the version, and the commit when the build knew it.
source Tests/Release/version.sh
is_version() { is_version_line "$1" "$version"; }

phase "in the root: --version, serve, health, curl, token, journal, SIGTERM"
printed=$(in_root "$bin" --version 2>&1) || true
if is_version "$printed"; then pass "mockapns --version prints $printed"; else fail "mockapns --version printed '$printed', expected $version [(commit ...)]"; fi
# The server's allocator is jemalloc, linked in (Package.swift says why): asked through its
# environment variable, it prints its statistics as the process ends. A build that lost it
# would print nothing, and the root has no jemalloc of its own to fall back on.
allocator=$(in_root MALLOC_CONF=stats_print:true "$bin" --version 2>&1) || true
if grep -q "Begin jemalloc statistics" <<<"$allocator"; then
    pass "mockapns allocates with jemalloc, linked into the binary"
else
    fail "mockapns with MALLOC_CONF=stats_print:true printed no jemalloc statistics: $(head -c 300 <<<"$allocator")"
fi

if ! start_serve "$bin" serve; then
    fail "serve wrote no ports file; stdout: $(cat "$work/serve.out"); stderr: $(cat "$work/serve.err")"
    finish
fi

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

status=$(token_push "$bin")
if [[ "$status" == "200 "* ]]; then pass "a push with a mockapns token provider token is answered 200"; else fail "the token push got $status"; fi

journal=$(in_root "$bin" journal --control "http://127.0.0.1:$control" --type notification 2>&1) || true
if [[ $(grep -c ' 200 ' <<<"$journal") -eq 2 ]]; then
    pass "mockapns journal lists both pushes, answered 200"
else
    fail "mockapns journal --type notification printed: $journal"
fi

if stop_serve serve; then
    pass "SIGTERM: serve shut down with exit status 0"
else
    fail "after SIGTERM serve exited $stop_code; stdout: $(tail -3 "$work/serve.out"); stderr: $(tail -5 "$work/serve.err")"
fi

# --- the Debian package, installed in the root -------------------------------------------
# scripts/package.sh leaves it beside the archive; apt (apt-get, apt's stable command-line
# interface) installs it from the file, offline: the packages it depends on are in minbase.
phase "in the root: the .deb: apt-get install, --version, man pages, completions, serve, apt-get remove"
deb_name="mockapns_${version/-/\~}_$(dpkg --print-architecture 2>/dev/null || chroot "$root" dpkg --print-architecture).deb"
deb="$(dirname "$archive")/$deb_name"
in_root_admin() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
if [[ ! -f "$deb" ]]; then
    fail "no $deb_name beside the archive ($(dirname "$archive")): scripts/package.sh makes it where dpkg-deb is installed"
else
    # Left by a run stopped half-way: the test installs from scratch.
    if in_root_admin dpkg-query -W -f='${db:Status-Status}' mockapns 2>/dev/null | grep -qv '^not-installed$'; then
        echo "release test: removing the mockapns package an earlier run left in the root"
        in_root_admin apt-get remove -y mockapns > "$work/apt-remove.log" 2>&1 || true
    fi
    cp "$deb" "$root/srv/mockapns/"
    if in_root_admin apt-get install -y --no-install-recommends "/srv/mockapns/$deb_name" > "$work/apt-install.log" 2>&1 \
        && in_root_admin dpkg-query -W -f='${Status}' mockapns | grep -q '^install ok installed$'; then
        pass "apt-get install ./$deb_name in the root, offline: $(in_root_admin dpkg-query -W -f='${Depends}' mockapns)"
        installed=true
    else
        fail "apt-get install ./$deb_name: $(tail -5 "$work/apt-install.log")"
        installed=false
    fi
    if $installed; then
        files=$(in_root_admin dpkg -L mockapns) || true
        printed=$(in_root mockapns --version 2>&1) || true
        found=$(in_root /bin/sh -c 'command -v mockapns' 2>&1) || true
        if is_version "$printed" && [[ "$found" == /usr/bin/mockapns ]]; then
            pass "/usr/bin/mockapns (on PATH) --version prints $printed"
        else
            fail "installed mockapns: command -v says '$found', --version printed '$printed'"
        fi

        # man-db is not in minbase: the pages are checked as files (gzipped mdoc, one a command).
        pages=$(grep -c '^/usr/share/man/man1/mockapns.*\.1\.gz$' <<<"$files" || true)
        if (for page in mockapns mockapns.serve mockapns.token; do
                in_root /bin/sh -c "zcat /usr/share/man/man1/$page.1.gz" | grep -q "^\.Dt ${page^^} 1\$" || exit 1
            done); then
            pass "man pages: $pages in /usr/share/man/man1 (mockapns.1.gz, mockapns.serve.1.gz, ...)"
        else
            fail "man pages: missing or not mdoc; the package has: $(grep /man/ <<<"$files" | tr '\n' ' ')"
        fi

        # bash (the root's own) sources the completion file; `mockapns se<TAB>` offers serve and session.
        completion=$(in_root /bin/bash --norc --noprofile -c '
            source /usr/share/bash-completion/completions/mockapns || exit 1
            complete -p mockapns || exit 1
            COMP_LINE="mockapns se" COMP_POINT=11 COMP_WORDS=(mockapns se) COMP_CWORD=1 COMPREPLY=()
            _mockapns mockapns se mockapns
            echo "offers: ${COMPREPLY[*]}"' 2>&1) || true
        if grep -q '^complete .*-F _mockapns mockapns$' <<<"$completion" && grep -qx 'offers: serve session' <<<"$completion"; then
            pass "bash completion: sourced, registered (complete -F _mockapns mockapns), 'mockapns se' offers serve and session"
        else
            fail "bash completion: $completion"
        fi
        missing=""
        for file in /usr/share/zsh/vendor-completions/_mockapns /usr/share/fish/vendor_completions.d/mockapns.fish \
            /usr/share/doc/mockapns/copyright /usr/share/doc/mockapns/README.md.gz; do
            grep -qx "$file" <<<"$files" && [[ -s "$root$file" ]] || missing+=" $file"
        done
        if [[ -z "$missing" ]] && head -1 "$root/usr/share/zsh/vendor-completions/_mockapns" | grep -q '^#compdef mockapns'; then
            pass "zsh and fish completions, copyright and README in place"
        else
            fail "missing or empty:${missing:- (the zsh file does not start with #compdef mockapns)}"
        fi

        # The installed command serves: credentials from the first server's run, a push answered 200.
        if start_serve mockapns serve-deb; then
            health=$(in_root mockapns health --wait 10 --control "http://127.0.0.1:$control" 2>&1) || true
            status=$(token_push mockapns)
            if [[ "$status" == "200 "* ]]; then
                pass "the installed mockapns serves (--ephemeral-ports): $health; a push with its token is answered 200"
            else
                fail "the installed mockapns: health '$health'; the push got $status"
            fi
            stop_serve serve-deb || fail "the installed mockapns: after SIGTERM it exited $stop_code: $(tail -5 "$work/serve-deb.err")"
        else
            fail "the installed mockapns serve wrote no ports file; stdout: $(cat "$work/serve-deb.out"); stderr: $(cat "$work/serve-deb.err")"
        fi

        # Removed, nothing of it is left.
        if in_root_admin apt-get remove -y mockapns > "$work/apt-remove.log" 2>&1; then
            left=$(while read -r path; do
                       [[ -f "$root$path" || -L "$root$path" ]] && echo "$path"
                       [[ "$path" == */mockapns && -d "$root$path" ]] && echo "$path/"
                   done <<<"$files"; true)
            state=$(in_root_admin dpkg-query -W -f='${db:Status-Status}' mockapns 2>/dev/null || echo not-installed)
            if [[ -n "$files" && -z "$left" && "$state" == not-installed ]]; then
                pass "apt-get remove mockapns: no file of it left ($(wc -l <<<"$files") paths), dpkg says $state"
            else
                fail "apt-get remove mockapns left: ${left//$'\n'/ } (dpkg: $state)"
            fi
        else
            fail "apt-get remove mockapns: $(tail -5 "$work/apt-remove.log")"
        fi
    fi
fi

cleanup

# --- the OCI image -----------------------------------------------------------------------
phase "OCI image (Containerfile)"
# The image stays for the Kubernetes part; its tag comes back in image.tag once it is built.
rm -f "$work/image.tag"
Tests/Release/image.sh "$root" "$archive" "$version" "$work" "$work/image.tag" && image=0 || image=$?
if [[ -s "$work/image.tag" ]]; then image_tag=$(cat "$work/image.tag"); fi
case $image in
    0) pass "the OCI image (Containerfile)" ;;
    3) skipped=$((skipped + 1)) ;;
    *) fail "the OCI image test (above)" ;;
esac

# --- the Kubernetes manifests ------------------------------------------------------------
phase "Kubernetes manifests (deploy/kubernetes) with podman kube play"
if [[ -n "$image_tag" ]]; then
    Tests/Release/kube.sh "$image_tag" "$archive" "$version" "$work" && kube=0 || kube=$?
    case $kube in
        0) pass "the Kubernetes manifests (podman kube play)" ;;
        3) skipped=$((skipped + 1)) ;;
        *) fail "the Kubernetes manifests test (above)" ;;
    esac
else
    skip "Kubernetes manifests: the OCI image part built no image to play them with (above)"
fi
cleanup
finish
