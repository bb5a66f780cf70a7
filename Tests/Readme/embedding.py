#!/usr/bin/env python3
"""The README's embedding example, run from a package of its own outside the repository.

As a reader sets it up: a new Swift package in a temporary folder, this repository beside it
as ../mockapns (a symbolic link to the checkout: a path dependency's package name is its
folder's name, which is why the README says to clone it as mockapns), its manifest made of
the README's `Package.swift` lines, and its one test file the README's example
("Swift: a server inside your tests"), character for character. It runs with a fresh
XDG_DATA_HOME and no certs-dev anywhere near, so the embedded server must generate its own
development credentials; and it must print nothing of its own into the test's output.

Checked: `swift test` passes with exactly that one test run and passed; the credentials were
generated in $XDG_DATA_HOME/mockapns; no MockAPNs log line reached the output.

The package is made afresh in the same temporary folder on every run from a checkout, and its
build folder is kept in the checkout (.build/readme-embedding, git-ignored): the first run
builds every dependency (a full debug build of MockAPNs' dependencies), later runs only what
changed.

    Tests/Readme/embedding.py             (scripts/test.sh runs it)
    Tests/Readme/embedding.py README.md   another copy of the README
"""
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
SCRATCH = CHECKOUT / ".build" / "readme-embedding"


def swift_blocks(readme: str) -> list:
    """Every ```swift block as (README line, text)."""
    found = []
    for match in re.finditer(r"^```swift\n(.*?)^```$", readme, re.M | re.S):
        found.append((readme.count("\n", 0, match.start()) + 1, match.group(1)))
    return found


def the_blocks(readme: str) -> tuple:
    blocks = swift_blocks(readme)
    manifest = [block for block in blocks if block[1].startswith("// Package.swift of the package under test")]
    section = readme.index("## Swift: a server inside your tests")
    line_of_section = readme.count("\n", 0, section) + 1
    example = [block for block in blocks if block[0] > line_of_section]
    if len(manifest) != 1 or not example:
        raise SystemExit("embedding: README.md must have one ```swift block starting "
                         "'// Package.swift of the package under test' and a ```swift block in "
                         "'Swift: a server inside your tests'")
    return manifest[0], example[0]


def main() -> int:
    started = time.monotonic()
    # Another copy of the README may be given, to try the test itself.
    readme = Path(sys.argv[1] if len(sys.argv) > 1 else CHECKOUT / "README.md").read_text()
    (manifest_line, manifest), (example_line, example) = the_blocks(readme)
    if "../mockapns" not in manifest:
        print(f"embedding: README.md:{manifest_line}: the manifest lines no longer name ../mockapns, "
              "the folder this test puts the checkout in", file=sys.stderr)
        return 1

    # The same folder every run from this checkout (emptied first): with unchanged paths, the
    # build folder's work stays valid and only what changed is rebuilt.
    work = Path(tempfile.gettempdir()) / f"mockapns-embedding-{hashlib.sha256(str(CHECKOUT).encode()).hexdigest()[:12]}"
    subprocess.run(["rm", "-rf", str(work)], check=True)
    work.mkdir()
    package = work / "MyProvider"
    (package / "Tests" / "MyProviderTests").mkdir(parents=True)
    (work / "mockapns").symlink_to(CHECKOUT)
    (package / "Package.swift").write_text(
        "// swift-tools-version:6.0\n"
        "import PackageDescription\n\n"
        "let package = Package(\n"
        '    name: "MyProvider",\n'
        + "".join("    " + line + "\n" if line else "\n" for line in manifest.rstrip("\n").split("\n"))
        + ")\n")
    (package / "Tests" / "MyProviderTests" / "TokenGoneTests.swift").write_text(example)
    data = work / "data"
    environment = {key: value for key, value in os.environ.items() if not key.startswith("MOCKAPNS_")}
    environment["XDG_DATA_HOME"] = str(data)

    def swift(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["swift", *arguments, "--scratch-path", str(SCRATCH)], cwd=package, env=environment,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def fail(what: str, output: str) -> int:
        print(f"embedding: FAILED: {what} (manifest README.md:{manifest_line}, example README.md:{example_line}, "
              f"package {package})\n--- Package.swift ---\n{(package / 'Package.swift').read_text()}"
              f"--- output ---\n{output.rstrip()}\n---", file=sys.stderr)
        return 1

    print(f"== embedding: building {package} (build folder {SCRATCH.relative_to(CHECKOUT)})", flush=True)
    built = swift("build", "--build-tests")
    if built.returncode != 0:
        return fail("swift build --build-tests", built.stdout)
    built_in = time.monotonic() - started
    tested = swift("test", "--skip-build")
    output = tested.stdout
    if tested.returncode != 0:
        return fail(f"swift test exited {tested.returncode}", output)
    problems = []
    if not re.search(r"Test tellsTheAppWhenItsTokenIsGone\(\) passed", output):
        problems.append("the README's test did not run and pass")
    if not re.search(r"Test run with 1 test(?: in \d+ suites?)? passed", output):
        problems.append("not exactly one test ran")
    if not (data / "mockapns" / "ca.pem").is_file():
        problems.append(f"no development credentials were generated in {data / 'mockapns'}")
    if (package / "certs-dev").exists():
        problems.append("a certs-dev folder appeared in the package")
    leaked = [line for line in output.splitlines()
              if re.search(r"\b(info|notice|warning)\b.*\b(mockapns|listening|provider keys)\b", line)]
    if leaked:
        problems.append("the embedded server wrote into the test's output: " + " | ".join(leaked[:3]))
    if problems:
        return fail("; ".join(problems), output)
    subprocess.run(["rm", "-rf", str(work)])
    print(f"embedding: the README's example passed in a package outside the repository "
          f"(build {built_in:.0f} s, in all {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
