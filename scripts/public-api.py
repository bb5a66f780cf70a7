#!/usr/bin/env python3
"""The front door a Swift user meets: the public types `import MockAPNs` brings (the MockAPNs
module and every module it re-exports), counted from the compiler's symbol graphs, and a
doc comment on every public symbol of them.

The front door is re-exported declaration by declaration (`@_exported import struct
MockAPNsCore.Reason` in Sources/MockAPNs/Server/Exports.swift), so it counts MockAPNs' own
public types and the re-exported declarations with the types nested in them.

Fails when there are more public types than the ceiling (scripts/public-api.py [ceiling],
41 by default; the configuration's settings are flat properties, not types of their own, so
the typed scenario rule and a failed wait's near misses fit within it, and the one type sessions
add, `MockAPNsSession`, is what a test hands its provider; a session that cannot be made is a
`MockAPNsServer.UsageError`), when a public symbol
has no doc comment, or when
a module declares a public top-level symbol the front door does not re-export (a library's own machinery is `package`).

    scripts/public-api.py          (scripts/test.sh runs it after the build)
"""
import json
import re
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
CEILING = int(sys.argv[1]) if len(sys.argv) > 1 else 41
TYPE_KINDS = {"swift.struct", "swift.enum", "swift.class", "swift.protocol", "swift.typealias", "swift.actor"}
# What a conformance brings without a declaration of ours (documented by the protocol).
SYNTHESIZED = {"hashValue", "hash(into:)", "==(_:_:)", "!=(_:_:)", "rawValue", "init(rawValue:)",
               "allCases", "description", "encode(to:)", "init(from:)"}


def main() -> int:
    exports = (CHECKOUT / "Sources/MockAPNs/Server/Exports.swift").read_text()
    whole_modules = re.findall(r"^@_exported import (\w+)$", exports, re.M)
    if whole_modules:
        print(f"public-api: re-export declarations, not whole modules: {', '.join(whole_modules)}")
        return 1
    # module -> the top-level names it re-exports
    exported: dict[str, set[str]] = {}
    for module, name in re.findall(r"^@_exported import (?:struct|class|enum|protocol|typealias|func) (\w+)\.(\w+)$", exports, re.M):
        exported.setdefault(module, set()).add(name)
    result = subprocess.run(["swift", "package", "dump-symbol-graph", "--minimum-access-level", "public"],
                            cwd=CHECKOUT, capture_output=True, text=True)
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:])
        print("public-api: the symbol graphs could not be made")
        return 1
    folder = Path(re.findall(r"Files written to (\S+)", result.stdout + result.stderr)[-1])
    library_modules = [p.name.removesuffix(".symbols.json") for p in folder.glob("MockAPNs*.symbols.json")
                       if "@" not in p.name and "Test" not in p.name]
    types, undocumented, stray = [], [], []
    for module in sorted(library_modules):
        graph = json.loads((folder / f"{module}.symbols.json").read_text())
        public = [s for s in graph["symbols"] if s.get("accessLevel") == "public"]
        if module != "MockAPNs":
            # Only what the front door re-exports (and what is nested in it) may be public.
            names = exported.get(module, set())
            stray += [f"{module}: {'.'.join(s['pathComponents'])}" for s in public if s["pathComponents"][0] not in names]
            public = [s for s in public if s["pathComponents"][0] in names]
        for symbol in public:
            path = ".".join(symbol["pathComponents"])
            if symbol["kind"]["identifier"] in TYPE_KINDS:
                types.append(path)
            if not symbol.get("docComment") and symbol["pathComponents"][-1] not in SYNTHESIZED:
                undocumented.append(f"{module}: {path}")
    print(f"public-api: {len(types)} public types through `import MockAPNs` (ceiling {CEILING}): {', '.join(sorted(types))}")
    failed = False
    if len(types) > CEILING:
        print(f"public-api: {len(types)} public types, more than {CEILING}: make what a test need not see `package`")
        failed = True
    if undocumented:
        print(f"public-api: {len(undocumented)} public symbols without a doc comment:\n  " + "\n  ".join(undocumented))
        failed = True
    if stray:
        print(f"public-api: public symbols the front door does not re-export (make them `package`, or re-export them):\n  " + "\n  ".join(stray[:40]))
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
