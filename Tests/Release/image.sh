#!/usr/bin/env bash
# The release in an OCI image (the repository's Containerfile: FROM scratch over a minimal
# Debian root), built and run with podman; called by Tests/Release/run.sh.
#
#   Tests/Release/image.sh ROOT ARCHIVE VERSION WORK
#
# Exit 0: passed; 3: skipped (podman missing or unable to run a container here: the reason is
# printed); anything else: failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$1 archive=$2 version=$3 work=$4/image
name=$(basename "$archive" .tar.gz)
tag="localhost/mockapns-release-test:$version"
skip() { echo "release test: SKIPPED: OCI image: $*"; exit 3; }
fail() { echo "release test: FAILED: OCI image: $*" >&2; exit 1; }

command -v podman >/dev/null || skip "podman is not installed (scripts/install-deps.sh --test installs it on Debian)"
command -v nsenter >/dev/null || skip "nsenter (util-linux) is not installed"

rm -rf "$work" && mkdir -p "$work/context" "$work/data" "$work/out"
# The root without what the chroot test put in it and what only apt and people read.
tar -C "$root" --exclude=./.complete --exclude='./proc/*' --exclude='./opt/*' --exclude='./srv/*' --exclude='./root/.mockapns' \
    --exclude='./var/cache/apt/*' --exclude='./var/lib/apt/lists/*' --exclude='./usr/share/doc/*' --exclude='./usr/share/man/*' \
    --exclude='./usr/share/locale/*' -cf "$work/context/rootfs.tar" .
tar -C "$work/context" -xzf "$archive"
podman build --quiet --layers=false --format docker --build-arg "RELEASE=$name" -f Containerfile -t "$tag" "$work/context" > "$work/build.log" 2>&1 \
    || fail "podman build: $(tail -5 "$work/build.log")"
rm -f "$work/context/rootfs.tar"

# Podman's defaults raise the container's limits and use crun; where the host refuses either
# (a sandbox without CAP_SYS_RESOURCE, cgroups v1), keep the caller's limits and use runc.
run_flags=()
if ! podman run --rm "$tag" --version > "$work/probe.log" 2>&1; then
    run_flags=(--ulimit "nofile=$(ulimit -n):$(ulimit -Hn)" --ulimit nproc=4096:4096)
    command -v runc >/dev/null && run_flags+=(--runtime runc)
    if ! podman run --rm "${run_flags[@]}" "$tag" --version > "$work/probe.log" 2>&1; then
        skip "podman cannot run a container here: $(tail -2 "$work/probe.log" | tr '\n' ' ')"
    fi
fi
# Global options (--runtime) go before the verb.
global=() local_flags=()
for ((i = 0; i < ${#run_flags[@]}; i++)); do
    if [[ "${run_flags[i]}" == --runtime ]]; then global+=(--runtime "${run_flags[i + 1]}"); i=$((i + 1)); else local_flags+=("${run_flags[i]}"); fi
done
pod() { podman "${global[@]}" "$@"; }

printed=$(pod run --rm "${local_flags[@]}" "$tag" --version 2> "$work/version.err")
[[ "$printed" == "$version" ]] || fail "--version printed '$printed', expected $version: $(cat "$work/version.err")"

container=mockapns-release-test-$$
# KEEP=1 leaves the container and the image for a look after a failure.
[[ -n "${KEEP:-}" ]] || trap 'pod rm -f "$container" >/dev/null 2>&1 || true; podman rmi -f "$tag" >/dev/null 2>&1 || true' EXIT
# The image as a user runs it: its own command line (Apple's ports on all interfaces) and
# its HEALTHCHECK, the credentials in a volume. It gets a network namespace of its own with
# loopback only (--network none), and the host's clients reach it there through nsenter.
pod run -d --name "$container" --network none "${local_flags[@]}" \
    -v "$work/data:/var/lib/mockapns" "$tag" > "$work/run.log" 2>&1 || fail "podman run: $(tail -3 "$work/run.log")"
pid=$(pod inspect -f '{{.State.Pid}}' "$container")
in_container_network() { nsenter -t "$pid" -n "$@"; }
host_bin="$work/context/$name/bin/mockapns"
health=$(in_container_network "$host_bin" health --wait 20 2>&1) || fail "mockapns health (its default control URL): $health"
pod healthcheck run "$container" > "$work/healthcheck.log" 2>&1 || fail "the image's HEALTHCHECK: $(cat "$work/healthcheck.log")"
line=$(pod logs "$container" 2>/dev/null | sed -n 's/^try: //p')
[[ -n "$line" ]] || fail "no curl line printed: $(pod logs "$container" 2>&1 | tail -5)"
line=${line//\/var\/lib\/mockapns\/mockapns/$work/data/mockapns}
status=$(in_container_network bash -c "$line -sS -o /dev/null -w '%{http_code}'" 2>&1) || true
[[ "$status" == 200 ]] || fail "the printed curl line got '$status': $line; the server said: $(pod logs "$container" 2>&1 | tail -4)"
pod stop -t 10 "$container" > /dev/null 2>&1
code=$(pod inspect -f '{{.State.ExitCode}}' "$container")
[[ "$code" == 0 ]] || fail "after SIGTERM (podman stop) the server exited $code: $(pod logs "$container" 2>&1 | tail -5)"
pod logs "$container" 2>/dev/null | grep -q "received SIGTERM, shutting down" || fail "no shutdown line after SIGTERM"
echo "image: $(podman image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1000000}') ($tag): --version; serve with its own command line; mockapns health and the HEALTHCHECK; the printed curl line answered 200; SIGTERM, exit 0"
