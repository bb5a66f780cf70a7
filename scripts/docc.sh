#!/usr/bin/env bash
# The Swift API's documentation (DocC): what `import MockAPNs` gives a test, from the doc
# comments and the catalog in Sources/MockAPNs/MockAPNs.docc. A warning (a broken symbol
# link, a parameter left undocumented or documented that does not exist) fails it.
#
#   scripts/docc.sh              builds .build/docc/MockAPNs.doccarchive
#   scripts/docc.sh --site DIR   also a static site in DIR (serve it, e.g.
#                                `python3 -m http.server -d DIR`, and open /documentation/mockapns/)
#
# Why not `swift package generate-documentation`: the front door's types are declared in the
# modules `MockAPNs` re-exports (MockAPNsCore, MockAPNsJournal, ...), and the plugin's symbol
# graph of `MockAPNs` leaves them out. Here the graph is extracted with those modules allowed
# (`-experimental-allowed-reexported-modules`), so the archive documents exactly what a test
# meets after `import MockAPNs`, in one module.
set -euo pipefail
cd "$(dirname "$0")/.."

site=""
while (( $# )); do
    case "$1" in
        --site) site="${2:?--site needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "docc: unknown argument $1 (usage: scripts/docc.sh [--site DIR])" >&2; exit 2 ;;
    esac
done
command -v docc >/dev/null || { echo "docc: no docc on PATH (it comes with the Swift toolchain)" >&2; exit 1; }

started=$(date +%s)
out=.build/docc
rm -rf "$out" && mkdir -p "$out/symbol-graphs"
echo "== swift build --target MockAPNs" >&2
swift build --target MockAPNs >&2
bin=$(swift build --show-bin-path)
triple=$(basename "$(dirname "$bin")")

# The modules whose declarations MockAPNs re-exports (Sources/MockAPNs/Server/Exports.swift,
# `@_exported import struct MockAPNsCore.Reason`): only those declarations are public in
# them (scripts/public-api.py), so their graphs hold exactly the front door. Logging's Logger
# is re-exported for the `logger:` parameter and documented by swift-log.
reexported=$(grep -rhoE '^@_exported import ([a-z]+ )?MockAPNs[A-Za-z]+' Sources/MockAPNs Sources/MockAPNsCore \
    | awk '{print $NF}' | sort -u | paste -sd, -)
# Where the C modules' maps are, for the importer: the package's own and its dependencies',
# and those SwiftPM wrote for C targets without one.
includes=()
while IFS= read -r folder; do includes+=(-I "$folder"); done < <(
    { find Sources .build/checkouts -name module.modulemap; find "$bin" -maxdepth 2 -name module.modulemap; } \
        | xargs -n1 dirname | sort -u)
swift-symbolgraph-extract -module-name MockAPNs -target "$triple" -minimum-access-level public \
    -experimental-allowed-reexported-modules="$reexported" \
    -I "$bin/Modules" "${includes[@]}" -output-dir "$out/symbol-graphs"
# A declaration re-exported on its own comes into MockAPNs' graph without the members its
# module declares in extensions (`Scenario.init(jsonText:)`), so each re-exported module's own
# graph is extracted too and its symbols and relationships merged into MockAPNs' (every public
# top-level symbol of those modules is re-exported: scripts/public-api.py checks it).
mkdir -p "$out/reexported-graphs"
for module in ${reexported//,/ }; do
    swift-symbolgraph-extract -module-name "$module" -target "$triple" -minimum-access-level public \
        -I "$bin/Modules" "${includes[@]}" -output-dir "$out/reexported-graphs"
done
python3 - "$out/symbol-graphs/MockAPNs.symbols.json" "$out/reexported-graphs" <<'MERGE'
import json, pathlib, sys
front = pathlib.Path(sys.argv[1])
graph = json.loads(front.read_text())
known = {symbol["identifier"]["precise"] for symbol in graph["symbols"]}
relations = {(r["source"], r["target"], r["kind"]) for r in graph["relationships"]}
for path in sorted(pathlib.Path(sys.argv[2]).glob("*.symbols.json")):
    if "@" in path.name:
        continue  # extensions of other modules' types (the standard library's)
    module = json.loads(path.read_text())
    for symbol in module["symbols"]:
        if symbol["identifier"]["precise"] not in known:
            known.add(symbol["identifier"]["precise"])
            graph["symbols"].append(symbol)
    for relation in module["relationships"]:
        key = (relation["source"], relation["target"], relation["kind"])
        if key not in relations:
            relations.add(key)
            graph["relationships"].append(relation)
front.write_text(json.dumps(graph))
MERGE

docc convert Sources/MockAPNs/MockAPNs.docc \
    --additional-symbol-graph-dir "$out/symbol-graphs" \
    --fallback-display-name MockAPNs --fallback-bundle-identifier mockapns.MockAPNs \
    --warnings-as-errors --output-path "$out/MockAPNs.doccarchive" >"$out/convert.log" 2>&1 || {
    cat "$out/convert.log" >&2
    echo "docc: FAILED: the documentation has errors or warnings (above)" >&2
    exit 1
}
pages=$(find "$out/MockAPNs.doccarchive/data/documentation" -name '*.json' | wc -l)
if [[ -n "$site" ]]; then
    docc process-archive transform-for-static-hosting "$out/MockAPNs.doccarchive" --output-path "$site" >/dev/null
    echo "docc: static site in $site"
fi
echo "docc: $out/MockAPNs.doccarchive: $pages pages (re-exported: $reexported), in $(( $(date +%s) - started )) s"
