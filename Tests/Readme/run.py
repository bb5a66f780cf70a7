#!/usr/bin/env python3
"""The README as a newcomer follows it: every shell block, in order, as written.

Each ```sh (or ```bash) block of README.md carries a marker on the line before its fence,
an HTML comment that renders as nothing:

    <!-- readme-test: run; expect: HTTP/2 200 -->          run it; its output must match
    <!-- readme-test: serve; try-expect: HTTP/2 200 -->    its last command is `mockapns serve`
    <!-- readme-test: skip; why: needs macOS -->           not run here, and why

Items after the kind, separated by "; ":
    expect: REGEX        the block's output (stdout and stderr) must match; repeatable
    in: checkout         run in the checkout under test (default: a fresh empty folder, "anywhere")
    replace: OLD => NEW  a placeholder of the text, and what stands in for it ({checkout} is the
                         checkout's path)
    installs: LINE       the line that builds and installs mockapns; `--mockapns BIN` replaces it
                         with a copy of BIN, for a quick run against a build at hand
    try-expect: REGEX    (serve) the `try: curl` line the server prints, pasted as it is, must
                         print output matching this
    why: TEXT            (skip) the reason; the rest of the marker
    timeout: SECONDS     how long the block may take (default 60; a serve block: until listening)

A shell block without a marker fails the test: every block is run or skipped with a reason. So
does a block that is run and calls a binary in a build folder (`.build/...`, `swift build
--show-bin-path`): the install step puts `mockapns` on PATH, and nothing else.

The blocks run one after another like commands typed into fresh terminals of one machine: a
fresh HOME (so no development credentials yet, and ~/.local/bin on PATH as a login shell puts
it), XDG_DATA_HOME and MOCKAPNS_* unset, each block in its own shell (`sh` for ```sh, so
bash-only syntax fails; `set -eu`, so an unset variable or a failing command fails it). A serve
block stops the server the previous one started, as a reader presses Ctrl-C before starting
another, and keeps its own running for the blocks after it until the end, when it gets SIGTERM
and must say it shuts down and be gone within 15 s.

A failure names the README line of the block, the block as run and its output, and stops.
The blocks use the default ports (2195-2199, 2198 for the control API), so those must be free.

    Tests/Readme/run.py                     from the checkout (scripts/test.sh runs it)
    Tests/Readme/run.py --mockapns .build/debug/mockapns    skip the install step's release build
    Tests/Readme/run.py --list              the blocks and their markers, without running them
"""
import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
SHELLS = {"sh": "sh", "bash": "bash", "shell": "sh"}
MARKER = re.compile(r"^<!--\s*readme-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass
class Block:
    line: int              # the README line of the opening fence
    language: str
    text: str
    kind: str = ""         # run, serve or skip; empty when unmarked
    options: dict = field(default_factory=dict)

    def where(self) -> str:
        return f"README.md:{self.line}"

    def values(self, key: str) -> list:
        return self.options.get(key, [])

    def value(self, key: str, default=None):
        found = self.values(key)
        return found[-1] if found else default


def parse_marker(text: str, line: int) -> tuple:
    text, _, why = text.partition("; why: ")   # the reason is the rest, whatever it holds
    items = [item.strip() for item in text.split("; ") if item.strip()]
    if why:
        items.append("why: " + why)
    if not items or items[0] not in ("run", "serve", "skip"):
        raise ValueError(f"README.md:{line}: a readme-test marker starts with run, serve or skip, not {text!r}")
    options: dict = {}
    for item in items[1:]:
        key, colon, value = item.partition(":")
        if not colon:
            raise ValueError(f"README.md:{line}: marker item {item!r} is not 'key: value'")
        key = key.strip()
        if key not in ("expect", "in", "replace", "installs", "try-expect", "why", "timeout"):
            raise ValueError(f"README.md:{line}: unknown marker item {key!r}")
        options.setdefault(key, []).append(value.strip())
    if items[0] == "skip" and "why" not in options:
        raise ValueError(f"README.md:{line}: a skipped block says why (skip; why: ...)")
    return items[0], options


def blocks(readme: str) -> list:
    """Every fenced block in a shell language, with the marker before it."""
    lines = readme.split("\n")
    found = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        language = opening.group(1)
        if language in SHELLS:
            block = Block(line=index + 1, language=language, text="\n".join(lines[index + 1:end]) + "\n")
            before = index - 1
            while before >= 0 and not lines[before].strip():
                before -= 1
            marker = MARKER.match(lines[before]) if before >= 0 else None
            if marker:
                block.kind, block.options = parse_marker(marker.group(1), before + 1)
            found.append(block)
        index = end + 1
    return found


class Failure(Exception):
    pass


class Newcomer:
    """One machine, a fresh home, and at most one server running."""

    def __init__(self, work: Path, mockapns: str | None):
        self.work = work
        self.mockapns = mockapns
        self.home = work / "home"
        (self.home / ".local" / "bin").mkdir(parents=True)
        (work / "tmp").mkdir()
        self.environment = {
            key: value for key, value in os.environ.items()
            if key != "XDG_DATA_HOME" and not key.startswith("MOCKAPNS_")
        }
        self.environment.update(
            HOME=str(self.home), TMPDIR=str(work / "tmp"),
            PATH=f"{self.home / '.local' / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        )
        self.server = None        # (block, Popen, output file)
        self.folders = 0

    def script(self, block: Block) -> str:
        text = block.text
        for replacement in block.values("replace"):
            old, arrow, new = replacement.partition(" => ")
            if not arrow or old not in text:
                raise Failure(f"{block.where()}: the marker replaces {old!r}, which the block does not contain")
            text = text.replace(old, new.replace("{checkout}", shlex.quote(str(CHECKOUT))))
        for line in block.values("installs"):
            if line not in text:
                raise Failure(f"{block.where()}: the marker names {line!r} as the install step; the block has no such text")
            if self.mockapns:
                text = text.replace(line, f"install -D {shlex.quote(self.mockapns)} ~/.local/bin/mockapns")
        return "set -eu\n" + text

    def folder(self, block: Block) -> Path:
        if block.value("in") == "checkout":
            return CHECKOUT
        self.folders += 1
        path = self.work / f"anywhere-{self.folders}"
        path.mkdir()
        return path

    def check(self, block: Block, script: str, output: str, status: int | None, expectations: list, what: str = "block"):
        problems = []
        if status not in (0, None):
            problems.append(f"exit status {status}")
        problems += [f"no match for {pattern!r}" for pattern in expectations if not re.search(pattern, output, re.M)]
        if problems:
            raise Failure(
                f"{block.where()}: the {what} failed: {'; '.join(problems)}\n"
                f"--- as run ---\n{script.rstrip()}\n--- output ---\n{output.rstrip()}\n---")

    def run(self, block: Block):
        script = self.script(block)
        timeout = float(block.value("timeout", 60))
        try:
            done = subprocess.run(
                [SHELLS[block.language], "-c", script], cwd=self.folder(block), env=self.environment,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired as expired:
            output = (expired.output or b"").decode(errors="replace")
            self.check(block, script, output + f"\n(still running after {timeout:g} s)", 1, [])
            return
        self.check(block, script, done.stdout.decode(errors="replace"), done.returncode, block.values("expect"))

    def serve(self, block: Block):
        self.stop()
        script = self.script(block)
        folder = self.folder(block)
        log = open(self.work / f"serve-{block.line}.log", "w+b")
        process = subprocess.Popen(
            [SHELLS[block.language], "-c", script], cwd=folder, env=self.environment,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.server = (block, process, log, script)
        deadline = time.monotonic() + float(block.value("timeout", 60))
        while "mockapns listening" not in self.output():
            if process.poll() is not None:
                self.check(block, script, self.output(), process.returncode or 1, [])
            if time.monotonic() > deadline:
                self.check(block, script, self.output() + "\n(no listening line in time)", 1, [])
            time.sleep(0.1)
        # The lines after the listening line follow it at once; give them a moment to arrive.
        wanted = block.values("try-expect")
        printed = block.values("expect") + ([r"^try: "] if wanted else [])
        deadline = time.monotonic() + 5
        while not all(re.search(pattern, self.output(), re.M) for pattern in printed) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.check(block, script, self.output(), None, block.values("expect"))
        if wanted:
            found = re.search(r"^try: (.*)$", self.output(), re.M)
            if not found:
                self.check(block, script, self.output(), 1, [r"^try: "], "serve block's printed try line")
            pasted = subprocess.run(
                ["sh", "-c", found.group(1)], cwd=folder, env=self.environment, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
            self.check(block, found.group(1), pasted.stdout.decode(errors="replace"), pasted.returncode, wanted,
                       "printed try line")

    def output(self) -> str:
        _, _, log, _ = self.server
        log.flush()
        log.seek(0)
        return log.read().decode(errors="replace")

    def stop(self):
        """SIGTERM to the running server's session (the shell and mockapns, as Ctrl-C reaches
        both); every process of it must be gone within 15 s, mockapns having said it shut down."""
        if not self.server:
            return
        block, process, log, script = self.server
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        process.wait()
        deadline = time.monotonic() + 15
        while self.alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        lingering = self.alive(process.pid)
        if lingering:
            os.killpg(process.pid, signal.SIGKILL)
        output = self.output()
        self.server = None
        log.close()
        if lingering or "shutting down" not in output or re.search(r"^Error:", output, re.M):
            raise Failure(f"{block.where()}: the server did not shut down cleanly on SIGTERM"
                          f"{' (still running after 15 s)' if lingering else ''}\n--- output ---\n{output.rstrip()}\n---")

    @staticmethod
    def alive(group: int) -> bool:
        try:
            os.killpg(group, 0)
            return True
        except ProcessLookupError:
            return False


def main() -> int:
    parser = argparse.ArgumentParser(description="Runs the README's shell blocks as a newcomer would.")
    parser.add_argument("--mockapns", help="install this binary instead of running the install step's build")
    parser.add_argument("--list", action="store_true", help="list the blocks and their markers")
    parser.add_argument("--keep", action="store_true", help="keep the temporary home and folders")
    parser.add_argument("--readme", default=str(CHECKOUT / "README.md"), help="another copy of the README (to try the test)")
    arguments = parser.parse_args()

    try:
        found = blocks(Path(arguments.readme).read_text())
    except ValueError as error:
        print(f"readme: {error}", file=sys.stderr)
        return 1
    unmarked = [block for block in found if not block.kind]
    if arguments.list or unmarked:
        for block in found:
            print(f"{block.where()}: {block.language} {block.kind or 'UNMARKED'} {block.options}")
    if unmarked:
        for block in unmarked:
            print(f"readme: {block.where()}: a ```{block.language} block without a <!-- readme-test: ... --> marker "
                  "(run, serve, or skip; why: ...)", file=sys.stderr)
        return 1
    if arguments.list:
        return 0
    # A reader who followed the install step has `mockapns` on PATH and no build folder.
    for block in found:
        if block.kind != "skip" and re.search(r"\.build/|swift build", block.text):
            print(f"readme: {block.where()}: calls a binary of a build folder, which the install step never made; "
                  "use the installed mockapns", file=sys.stderr)
            return 1

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="mockapns-readme-"))
    newcomer = Newcomer(work, os.path.abspath(arguments.mockapns) if arguments.mockapns else None)
    counts = {"run": 0, "serve": 0, "skip": 0}
    try:
        for block in found:
            begun = time.monotonic()
            if block.kind == "skip":
                print(f"readme: {block.where()}: skipped: {block.value('why')}")
            elif block.kind == "run":
                newcomer.run(block)
            else:
                newcomer.serve(block)
            counts[block.kind] += 1
            if block.kind != "skip":
                print(f"readme: {block.where()}: {block.kind} ok ({time.monotonic() - begun:.1f} s)")
        newcomer.stop()
    except Failure as failure:
        print(f"readme: FAILED: {failure}", file=sys.stderr)
        try:
            newcomer.stop()
        except Failure:
            pass
        return 1
    finally:
        if arguments.keep:
            print(f"readme: kept {work}")
        else:
            subprocess.run(["rm", "-rf", str(work)])
    print(f"readme: {counts['run'] + counts['serve']} blocks run ({counts['serve']} started a server), "
          f"{counts['skip']} skipped with a reason, in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
