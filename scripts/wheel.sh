#!/usr/bin/env bash
# Builds the platform wheel of the Python package (python/) with the release archive's
# `mockapns` inside, so that `pip install mockapns-<version>-py3-none-manylinux_2_<N>_<arch>.whl`
# brings the server too: the fixture and MockAPNs() find it (mockapns/bin/mockapns) without
# a path.
#
#   scripts/wheel.sh ARCHIVE.tar.gz [--out DIR]   the wheel into DIR (default: dist/); prints its path last
#
# ARCHIVE is what scripts/package.sh makes (mockapns-<version>-linux-<arch>.tar.gz). The wheel
# is the package as `pip wheel python/` builds it (its metadata is pyproject.toml's), with the
# binary added and its tag made a platform's: py3 (the helper is pure Python), none, and
# manylinux_2_<N>_<arch>, where 2.<N> is the newest glibc symbol version the binary needs
# (readelf's version needs), so pip installs it on every Linux whose glibc is that or newer
# (PEP 600). Then `auditwheel show` (installed into .build/wheel-tools with pip) must agree:
# the wheel is consistent with that manylinux tag. The wheel is for the archive's machine
# (x86_64 or aarch64): a wheel for another machine needs a release archive built on one.
set -euo pipefail
cd "$(dirname "$0")/.."

archive="" out=dist
while (( $# )); do
    case "$1" in
        --out) out="${2:?--out needs a folder}"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        -*) echo "wheel: unknown option $1 (usage: scripts/wheel.sh ARCHIVE.tar.gz [--out DIR])" >&2; exit 2 ;;
        *) [[ -z "$archive" ]] || { echo "wheel: one archive only" >&2; exit 2; }; archive=$1; shift ;;
    esac
done
[[ -n "$archive" ]] || { echo "wheel: which release archive? (usage: scripts/wheel.sh ARCHIVE.tar.gz [--out DIR])" >&2; exit 2; }
[[ -f "$archive" ]] || { echo "wheel: no archive $archive (scripts/package.sh makes one)" >&2; exit 1; }

name=$(basename "$archive" .tar.gz)
if [[ ! "$name" =~ ^mockapns-(.+)-linux-(x86_64|aarch64)$ ]]; then
    echo "wheel: $name is not a release archive's name (mockapns-<version>-linux-<x86_64|aarch64>.tar.gz)" >&2; exit 1
fi
version=${BASH_REMATCH[1]} arch=${BASH_REMATCH[2]}
python_version=$(sed -n 's/^version = "\(.*\)"/\1/p' python/pyproject.toml)
# PEP 440 spells a pre-release without the hyphen (1.0.0-rc.1 is 1.0.0rc1).
pep440=$(sed -E 's/-(a|b|rc)\.?([0-9]+)$/\1\2/' <<<"$version")
if [[ "$python_version" != "$pep440" ]]; then
    echo "wheel: python/pyproject.toml says version $python_version; the archive is $version (MockAPNsVersion.current): make them one" >&2
    exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tar -C "$stage" -xzf "$archive"
binary="$stage/$name/bin/mockapns"
[[ -x "$binary" ]] || { echo "wheel: the archive has no bin/mockapns" >&2; exit 1; }
machine=$(readelf -h "$binary" | sed -n 's/^ *Machine: *//p')
case "$arch:$machine" in
    x86_64:*X86-64*|aarch64:*AArch64*) ;;
    *) echo "wheel: the archive says $arch but its binary is for $machine" >&2; exit 1 ;;
esac

# The glibc the binary needs: the newest GLIBC_2.<N> among its version needs.
glibc=$(readelf --version-info "$binary" | grep -o 'Name: GLIBC_2\.[0-9]*' | sed 's/.*GLIBC_2\.//' | sort -n | tail -1)
[[ -n "$glibc" ]] || { echo "wheel: readelf shows no GLIBC_2.* version need in the binary" >&2; exit 1; }
platform="manylinux_2_${glibc}_$arch"
echo "wheel: the binary needs glibc 2.$glibc: $platform" >&2

# The package as pip builds it (a pure wheel), from a copy so python/ gets no build folder.
cp -r python "$stage/python"
rm -rf "$stage/python/build" "$stage/python"/*.egg-info
python3 -m pip wheel --quiet --no-deps --wheel-dir "$stage/pure" "$stage/python" >&2
pure=$(ls "$stage/pure"/mockapns-*-py3-none-any.whl)

mkdir -p "$out"
wheel="$out/mockapns-$python_version-py3-none-$platform.whl"
python3 - "$pure" "$binary" "$wheel" "$platform" <<'PY'
# The pure wheel, with mockapns/bin/mockapns added (executable), its WHEEL file saying a
# platform wheel (Root-Is-Purelib: false, the platform tag) and its RECORD made anew.
import base64, hashlib, sys, zipfile

pure, binary, target, platform = sys.argv[1:]

def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

with zipfile.ZipFile(pure) as source:
    entries = [(info, source.read(info)) for info in source.infolist()]
dist_info = next(info.filename.split("/")[0] for info, _ in entries if info.filename.endswith(".dist-info/WHEEL"))
files = []
for info, data in entries:
    if info.filename == f"{dist_info}/RECORD":
        continue
    if info.filename == f"{dist_info}/WHEEL":
        lines = [line for line in data.decode().splitlines() if line and not line.startswith(("Root-Is-Purelib:", "Tag:"))]
        lines += ["Root-Is-Purelib: false", f"Tag: py3-none-{platform}"]
        data = ("\n".join(lines) + "\n").encode()
    files.append((info.filename, data, info.external_attr))
with open(binary, "rb") as handle:
    files.insert(0, ("mockapns/bin/mockapns", handle.read(), (0o100755 << 16)))
# RECORD last, as the wheel format asks.
record = "".join(f"{name},{digest(data)},{len(data)}\n" for name, data, _ in files) + f"{dist_info}/RECORD,,\n"
files.append((f"{dist_info}/RECORD", record.encode(), 0o100644 << 16))
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as wheel:
    for name, data, mode in files:
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = mode or (0o100644 << 16)
        info.compress_type = zipfile.ZIP_DEFLATED
        wheel.writestr(info, data)
PY

# auditwheel, in a venv of its own, must find the wheel consistent with its tag.
tools=.build/wheel-tools
if [[ ! -x "$tools/bin/auditwheel" ]]; then
    python3 -m venv "$tools" >&2
    "$tools/bin/pip" install --quiet auditwheel >&2 \
        || { echo "wheel: cannot install auditwheel from PyPI to check the wheel's tag" >&2; exit 1; }
fi
shown=$("$tools/bin/auditwheel" show "$wheel" 2>&1) || { echo "wheel: auditwheel show failed: $shown" >&2; exit 1; }
echo "$shown" | sed 's/^/wheel: auditwheel: /' >&2
collapsed=$(tr '\n' ' ' <<<"$shown" | tr -s ' ')
if [[ "$collapsed" != *"consistent with the following platform tag: \"$platform\""* ]]; then
    echo "wheel: auditwheel does not find $(basename "$wheel") consistent with $platform (above)" >&2
    exit 1
fi
echo "wheel: $wheel ($(stat -c %s "$wheel" | awk '{printf "%.1f MB", $1 / 1000000}'))" >&2
echo "$wheel"
