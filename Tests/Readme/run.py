#!/usr/bin/env python3
"""The documentation as a newcomer follows it: every shell block, in order, as written, typed
into one terminal.

The pages, in order: README.md, then every page of the documentation site's `nav` in
mkdocs.yml (under its docs_dir, default docs/), in nav order; without mkdocs.yml, README.md
alone. A page the nav lists that does not exist, and a page under docs_dir with a shell block
that the nav does not list (no reader meets it in order), are errors found before anything
runs. A page listed twice runs once, at its first place; a nav page that is README.md itself is
not run again. A failure names the page and the line of the block's opening fence.

Each ```sh (or ```bash, ```shell) block carries a marker on the line before its fence, an
HTML comment that renders as nothing:

    <!-- readme-test: run; expect: HTTP/2 200 -->          run it; its output must match
    <!-- readme-test: serve; try-expect: HTTP/2 200 -->    its last command is `mockapns serve`
    <!-- readme-test: skip; why: needs macOS -->           not run here, and why

Items after the kind, separated by "; ":
    expect: REGEX        the block's output (stdout and stderr; for serve, the server's too) must
                         match; repeatable
    in: checkout         before the block, the runner types `cd CHECKOUT` (the checkout under
                         test), as a reader told to run it in their clone goes there first
    in: empty            before the block, the runner types `cd "$(mktemp -d)"`: a fresh empty
                         folder, "anywhere"
    in: new terminal     the block runs in a second terminal, opened as the first one was (the
                         starting environment below, in HOME): what the blocks before it exported
                         (a PATH with ~/.local/bin) is not there, and what it sets stays there;
                         a page that says "in another terminal" marks its block so
    stops: previous      (serve) the page tells the reader, in the lines before the block, to stop
                         the server a block before started (Ctrl-C): a serve block while one runs
                         fails without it, since the new server would find the ports taken
    replace: OLD => NEW  a placeholder of the text, and what stands in for it ({checkout} is the
                         checkout's path)
    installs: LINE       the line that builds and installs mockapns; `--mockapns BIN` replaces it
                         with a copy of BIN to ~/.local/bin/mockapns, where scripts/install.sh
                         puts it (not onto PATH: the page must put ~/.local/bin there itself)
    try-expect: REGEX    (serve) the `try: curl` line the server prints, pasted into the
                         terminal as it is, must print output matching this
    why: TEXT            (skip) the reason; the rest of the marker
    timeout: SECONDS     how long the block may take (default 60; a serve block: until listening)

A shell block without a marker fails the test: every block is run or skipped with a reason. So
does a block that is run and calls a binary in a build folder (`.build/...`, `swift build`): the
install step installs `mockapns`, and nothing else. Blocks that cannot run as written here
(```console, ```shell-session, ```zsh, ```fish and the like) need a marker too, and only `skip`
is allowed for them. Fences may be indented (in a list or an admonition) and may use ~~~.

The terminal. All blocks run in one terminal session: one long-lived `sh` (dash on Debian)
reads each ```sh block as `. BLOCK`, so whatever a block leaves behind is there for the next
ones, as in a real terminal: the folder (`cd`), exported and plain variables (`export PATH=...`,
`certs=...`), functions, and `. .venv/bin/activate`. Each block starts with `set -eu` (so an
unset variable or a failing command fails it, and these options stay set afterwards), runs with
stdin from /dev/null, and is `sh`, so bash-only syntax fails. A ```bash block runs in a `bash`
child of that shell (as typing `bash` first would): it sees the exported variables and the
folder, and what it changes does not come back. A block that ends the shell (`exit`) fails: it
would close the reader's terminal.

The terminal starts as a new user's interactive shell on Debian has it, not as this test's
caller has it: in a fresh, empty HOME (no ~/.local/bin, no credentials, no dotfiles), an
environment built from nothing but HOME, USER, LOGNAME, SHELL (from the password database),
LANG (the caller's, else C.UTF-8), TERM and the proxy variables when the caller has them, and
TMPDIR (a folder of this test's, so `mktemp -d` folders are removed with it; the one liberty
taken), and PATH =

    /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:SWIFT

where SWIFT is the folder holding the `swift` the caller's PATH finds (appended, so nothing of
the toolchain shadows a system command): the install step builds with it, and a reader with
Swift installed has it on PATH (swift.org's instructions put it there). Nothing else of the
caller's PATH, and notably not ~/.local/bin: a page that installs into ~/.local/bin must put it
on PATH, as a reader must (Debian's ~/.profile adds it only at a login after it exists). A
`mockapns` already on that PATH fails the test before anything runs, since it would hide a
missing PATH step.

Python is the system's, as a Debian user has it: `python3` on that PATH must refuse
`pip install` outside a virtual environment (PEP 668, externally-managed-environment, Debian 12
and later), checked before anything runs with `python3 -m pip install --dry-run --no-index`. If
the `python3` found first allows it (a /usr/local/bin/python3 of a Python image, a pyenv or venv
python), the terminal's PATH starts with a folder of this test's that holds python3, pip and
pip3 of /usr/bin when /usr/bin/python3 refuses; when neither refuses, the test fails. So a page
shows a venv (`python3 -m venv .venv` and `. .venv/bin/activate`) before `pip install`.

A serve block runs in the terminal like any other (its `cd` and `export` stay), except that its
`mockapns serve` runs in the background (the block's `mockapns` is a shell function that starts
`mockapns serve ...` in the background and runs any other subcommand as usual), so the blocks
after it are typed while the server keeps running, as in a second terminal that carried on from
the first. The server's output must have the listening line in time. A serve block while the server of
an earlier one runs must be marked `stops: previous`, and its page must say so before it (Ctrl-C):
then the runner stops that server first, as the reader does; at the end the last one is stopped too: each gets SIGTERM and must say it shuts down and be gone within
15 s. The `try:` line is pasted into the terminal after the serve block.

The blocks use the default ports (2195-2200, 2198 for the control API), so those must be free;
they are checked before anything runs.

    Tests/Readme/run.py                        from the checkout (scripts/test.sh runs it)
    Tests/Readme/run.py --mockapns .build/debug/mockapns    skip the install step's release build
    Tests/Readme/run.py --page docs/PAGE.md    the front door, then that page: the pages in order up
                                               to the one with the install step (`installs:`) and
                                               on to the first that starts a server, then PAGE
    Tests/Readme/run.py --list                 the blocks and their markers, without running them
    Tests/Readme/run.py --readme FILE --mkdocs FILE    other copies (to try the test itself;
                                               --mkdocs none: README alone)

Tests/Readme/test_run.py tests this runner itself with pages of its own and a stand-in mockapns.
"""
import argparse
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
SHELLS = {"sh": "sh", "bash": "bash", "shell": "sh"}
# Shell-like languages that cannot run as written here: a marker is still required, and only skip.
UNRUNNABLE = {"console", "shell-session", "sh-session", "bash-session", "terminal", "zsh", "fish",
              "ksh", "csh", "tcsh", "powershell", "pwsh", "ps1", "bat", "cmd"}
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
DEBIAN_PYTHON = "/usr/bin/python3"
PORTS = (2195, 2196, 2197, 2198, 2199, 2200)
MARKER = re.compile(r"^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
KEYS = ("expect", "in", "replace", "installs", "try-expect", "why", "timeout", "stops")
PLACES = ("checkout", "empty", "new terminal")


@dataclass
class Block:
    page: str              # the page's name as shown (README.md, docs/push.md)
    line: int              # the page's line of the opening fence
    language: str
    text: str
    kind: str = ""         # run, serve or skip; empty when unmarked
    options: dict = field(default_factory=dict)
    prose: str = ""        # the page's text just before the marker (its paragraph)

    def where(self) -> str:
        return f"{self.page}:{self.line}"

    def values(self, key: str) -> list:
        return self.options.get(key, [])

    def value(self, key: str, default=None):
        found = self.values(key)
        return found[-1] if found else default


class Failure(Exception):
    pass


def parse_marker(text: str, where: str) -> tuple:
    text, _, why = text.partition("; why: ")   # the reason is the rest, whatever it holds
    items = [item.strip() for item in text.split("; ") if item.strip()]
    if why:
        items.append("why: " + why)
    if not items or items[0] not in ("run", "serve", "skip"):
        raise ValueError(f"{where}: a readme-test marker starts with run, serve or skip, not {text!r}")
    options: dict = {}
    for item in items[1:]:
        key, colon, value = item.partition(":")
        if not colon:
            raise ValueError(f"{where}: marker item {item!r} is not 'key: value'")
        key = key.strip()
        if key not in KEYS:
            raise ValueError(f"{where}: unknown marker item {key!r}")
        if key == "in" and value.strip() not in PLACES:
            raise ValueError(f"{where}: 'in:' is one of {', '.join(PLACES)}, not {value.strip()!r}")
        if key == "stops" and value.strip() != "previous":
            raise ValueError(f"{where}: 'stops:' takes previous (the server a block before started), not {value.strip()!r}")
        options.setdefault(key, []).append(value.strip())
    if items[0] == "skip" and "why" not in options:
        raise ValueError(f"{where}: a skipped block says why (skip; why: ...)")
    return items[0], options


def language_of(info: str) -> str:
    """The fence's language: ```sh, ```sh title="x", ``` { .sh }, ```{.sh}."""
    words = info.replace("{", " ").replace("}", " ").split()
    return words[0].lstrip(".").lower() if words else ""


def blocks(text: str, page: str) -> list:
    """Every fenced block in a shell(-like) language, with the marker before it."""
    lines = text.split("\n")
    found = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence = opening.group("indent"), opening.group("fence")
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        language = language_of(opening.group("info"))
        if language in SHELLS or language in UNRUNNABLE:
            body = [line[len(indent):] if line.startswith(indent) else line.lstrip(" \t")
                    for line in lines[index + 1:end]]
            block = Block(page=page, line=index + 1, language=language, text="\n".join(body) + "\n")
            before = index - 1
            while before >= 0 and not lines[before].strip():
                before -= 1
            marker = MARKER.match(lines[before]) if before >= 0 else None
            if marker:
                block.kind, block.options = parse_marker(marker.group(1), f"{page}:{before + 1}")
                start = before - 1
                while start >= 0 and not lines[start].strip():
                    start -= 1
                paragraph = []
                while start >= 0 and lines[start].strip():
                    paragraph.insert(0, lines[start])
                    start -= 1
                block.prose = "\n".join(paragraph)
            found.append(block)
        index = end + 1
    return found


def shown(path: Path) -> str:
    """A page's name as failures show it: relative to the checkout when inside it."""
    try:
        return str(path.resolve().relative_to(CHECKOUT))
    except ValueError:
        return str(path)


def nav_pages(mkdocs: Path) -> tuple:
    """(docs_dir, the nav's pages in order as written) of a block-style mkdocs.yml, without a
    YAML library: `- page.md`, `- Title: page.md`, sections (`- Title:` and nested items), any
    indentation, quotes; URLs and other non-.md entries are left out."""
    docs_dir = "docs"
    pages = []
    in_nav = False
    for number, raw in enumerate(mkdocs.read_text().split("\n"), 1):
        line = re.sub(r"\s+#.*$", "", raw.rstrip())
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        top = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if top:
            key, value = top.group(1), top.group(2).strip().strip("'\"")
            in_nav = key == "nav"
            if key == "docs_dir" and value:
                docs_dir = value
            if in_nav and value:
                raise ValueError(f"{mkdocs.name}:{number}: nav must be a block list (one '- ' item a line) "
                                 "for this test to read it")
            continue
        if not in_nav:
            continue
        item = re.match(r"^\s*-\s+(.*)$", line)
        if not item:
            raise ValueError(f"{mkdocs.name}:{number}: cannot read this nav line: {raw.strip()!r}")
        entry = item.group(1).strip()
        titled = re.match(r"""^(?:'[^']*'|"[^"]*"|[^'"].*?)\s*:(?:\s+(.*))?$""", entry)
        value = (titled.group(1) or "") if titled else entry
        value = value.strip().strip("'\"")
        if value.endswith(".md") and "://" not in value:
            pages.append(value)
    return docs_dir, pages


def survey(readme: Path, mkdocs: Path | None, page: Path | None) -> tuple:
    """The pages to run, in order, as [(name, blocks)], and the problems found."""
    problems = []
    order = [readme]
    if mkdocs is not None and mkdocs.exists():
        try:
            docs_dir, listed = nav_pages(mkdocs)
        except ValueError as error:
            return [], [str(error)]
        root = mkdocs.parent / docs_dir
        seen = {readme.resolve()}
        in_nav = set()
        for name in listed:
            path = root / name
            if path.resolve() in in_nav:
                continue   # listed again: its blocks run once, at its first place
            in_nav.add(path.resolve())
            if not path.is_file():
                problems.append(f"{shown(mkdocs)}: nav lists {shown(path)}, which does not exist")
                continue
            if path.resolve() not in seen:
                seen.add(path.resolve())
                order.append(path)
        for path in sorted(root.rglob("*.md")) if root.is_dir() else []:
            if path.resolve() in in_nav or path.resolve() == readme.resolve():
                continue
            try:
                escaped = blocks(path.read_text(), shown(path))
            except ValueError:
                escaped = [True]
            if escaped:
                problems.append(f"{shown(path)}: has shell blocks but is not in {shown(mkdocs)}'s nav: no reader "
                                "meets it in order and this test would not run it; add it to nav")
    if page is not None and not page.is_file():
        return [], [f"--page {page}: no such file"]
    found = []
    for path in order:
        try:
            page_blocks = blocks(path.read_text(), shown(path))
        except (OSError, ValueError) as error:
            problems.append(str(error))
            continue
        found.append((path, page_blocks))
    if page is not None:
        # The front door, then the page: the pages in order up to the one with the install step
        # and, from there, up to the first that starts a server; then the page itself.
        installed = started = False
        front = []
        for path, page_blocks in found:
            if installed and started:
                break
            front.append((path, page_blocks))
            installed = installed or any(block.kind != "skip" and block.values("installs") for block in page_blocks)
            started = installed and (started or any(block.kind == "serve" for block in page_blocks))
        if page.resolve() not in {path.resolve() for path, _ in front}:
            try:
                front.append((page, blocks(page.read_text(), shown(page))))
            except ValueError as error:
                problems.append(str(error))
        found = front
    found = [(shown(path), page_blocks) for path, page_blocks in found]
    for _, page_blocks in found:
        for block in page_blocks:
            if not block.kind:
                problems.append(f"{block.where()}: a ```{block.language} block without a <!-- readme-test: ... --> "
                                "marker (run, serve, or skip; why: ...)")
            elif block.language in UNRUNNABLE and block.kind != "skip":
                problems.append(f"{block.where()}: a ```{block.language} block cannot run as written; "
                                "make it ```sh (no prompts) or skip it with a reason")
            elif block.kind != "skip" and re.search(r"\.build/|swift build", block.text):
                problems.append(f"{block.where()}: calls a binary of a build folder, which the install step never "
                                "made; use the installed mockapns")
    return found, problems


def refuses_global_install(python: str, environment: dict, cwd: Path) -> bool:
    """Whether `python -m pip install` outside a venv fails as a Debian user's does: refused
    (externally-managed-environment), or no pip at all. --no-index: no network either way."""
    try:
        done = subprocess.run([python, "-m", "pip", "install", "--dry-run", "--no-index", "mockapns-readme-probe"],
                              env=environment, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    output = done.stdout.decode(errors="replace")
    return done.returncode != 0 and ("externally-managed-environment" in output or "No module named pip" in output)


def system_python(folders: list, environment: dict, work: Path, debian: str = DEBIAN_PYTHON) -> tuple:
    """(PATH folders, a note): `python3` as a Debian user has it (see the docstring)."""
    found = shutil.which("python3", path=":".join(folders))
    if found is None:
        return folders, "no python3 on PATH (blocks that use it fail, as for a reader without it)"
    if refuses_global_install(found, environment, work):
        return folders, f"python3 is {found}, which refuses pip install outside a venv"
    if os.path.exists(debian) and refuses_global_install(debian, environment, work):
        shim = work / "system-python"
        shim.mkdir()
        real = Path(os.path.realpath(debian))
        for name in {"python3", real.name}:
            (shim / name).symlink_to(debian)
        if os.path.exists(str(Path(debian).parent / "python")):
            (shim / "python").symlink_to(Path(debian).parent / "python")
        for name in ("pip", "pip3"):
            (shim / name).write_text(f'#!/bin/sh\nexec {shlex.quote(debian)} -m pip "$@"\n')
            (shim / name).chmod(0o755)
        return [str(shim)] + folders, (f"python3 first on PATH is {found}, which lets pip install outside a venv; "
                                       f"{shim} (python3, pip, pip3 of {debian}) is put first on PATH")
    raise Failure(f"python3 on PATH ({found}) lets `pip install` work outside a virtual environment, and "
                  f"{debian} is no better, unlike a Debian 12 (or later) user's: run this test on such a system")


def starting_environment(work: Path, home: Path) -> tuple:
    """(environment, notes) of a new user's interactive shell on Debian (see the docstring)."""
    folders = SYSTEM_PATH.split(":")
    swift = shutil.which("swift", path=os.environ.get("PATH", ""))
    notes = []
    if swift:
        folder = os.path.dirname(swift)
        if folder not in folders:
            folders.append(folder)
        notes.append(f"swift is {swift}")
    else:
        notes.append("no swift on the caller's PATH: the install step's build cannot run (--mockapns can)")
    account = pwd.getpwuid(os.getuid())
    environment = {
        "HOME": str(home), "USER": account.pw_name, "LOGNAME": account.pw_name,
        "SHELL": account.pw_shell or "/bin/sh", "LANG": os.environ.get("LANG") or "C.UTF-8",
        "TMPDIR": str(work / "tmp"),
    }
    for key in ("TERM", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
                "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"):
        if os.environ.get(key):
            environment[key] = os.environ[key]
    for folder in folders:
        if os.access(os.path.join(folder, "mockapns"), os.X_OK):
            raise Failure(f"{folder}/mockapns is on the starting PATH: the test could not tell whether the pages "
                          "install mockapns and put it on PATH; remove it (or run where it is not)")
    environment["PATH"] = ":".join(folders)
    folders, note = system_python(folders, environment, work)
    notes.append(note)
    environment["PATH"] = ":".join(folders)
    return environment, notes


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


class Terminal:
    """One terminal session: a long-lived `sh` reading commands from a pipe, the blocks sourced
    into it, and at most one server running in the background."""

    def __init__(self, work: Path, environment: dict, mockapns: str | None):
        self.work = work
        self.files = work / "terminal"
        self.files.mkdir()
        self.mockapns = mockapns
        self.environment = environment
        self.count = 0
        self.server = None        # (block, pid, server log, script)
        self.log = open(self.files / "shell.log", "w+b")
        self.shell = subprocess.Popen(["sh"], cwd=environment["HOME"], env=environment, stdin=subprocess.PIPE,
                                      stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

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
                # Where scripts/install.sh puts it, and what it says; not onto PATH.
                text = text.replace(line, f'install -D -m 0755 {shlex.quote(self.mockapns)} "$HOME/.local/bin/mockapns"; '
                                          f'echo "installed $HOME/.local/bin/mockapns (--mockapns)"')
        where = {"checkout": f"cd {shlex.quote(str(CHECKOUT))}   # in: checkout\n",
                 "empty": 'cd "$(mktemp -d)"   # in: empty\n'}.get(block.value("in"), "")
        return "set -eu\n" + where + text

    def type(self, language: str, script: str, serve: bool = False) -> dict:
        """Sends one block to the shell; returns its files."""
        self.count += 1
        number = self.count
        files = {name: self.files / f"{number}.{name}" for name in ("sh", "out", "status", "cwd", "server", "pid")}
        files["sh"].write_text(script)
        q = {name: shlex.quote(str(path)) for name, path in files.items()}
        prelude = ""
        if serve:
            function = (f'mockapns() {{ if [ "${{1-}}" = serve ]; then command mockapns "$@" >{q["server"]} 2>&1 '
                        f'</dev/null & echo $! >{q["pid"]}; else command mockapns "$@"; fi; }}')
            prelude = self.files / f"{number}.prelude"
            prelude.write_text(function + "\n")
            prelude = f". {shlex.quote(str(prelude))}; "
        if SHELLS[language] == "sh":
            run = f"{prelude}. {q['sh']}"
            after = "; unset -f mockapns" if serve else ""
        else:
            run = f"bash -c {shlex.quote(prelude + '. ' + q['sh'])}"
            after = ""
        command = f"pwd >{q['cwd']}; {run} >{q['out']} 2>&1 </dev/null; echo $? >{q['status']}{after}\n"
        try:
            self.shell.stdin.write(command.encode())
            self.shell.stdin.flush()
        except BrokenPipeError:
            pass
        return files

    def wait(self, files: dict, deadline: float) -> tuple:
        """(status, remark) of a block: remark when it did not end normally."""
        while True:
            status = files["status"].read_text() if files["status"].exists() else ""
            if status.endswith("\n"):
                return int(status), ""
            ended = self.shell.poll()
            if ended is not None:
                if files["status"].exists() and files["status"].read_text().endswith("\n"):
                    continue
                if ended == 0:
                    return 1, "(the block ended the terminal's shell, as `exit` would close the reader's terminal)"
                return ended, ""
            if time.monotonic() > deadline:
                return 1, "still running"
            time.sleep(0.05)

    @staticmethod
    def read(path: Path) -> str:
        return path.read_bytes().decode(errors="replace") if path.exists() else ""

    def check(self, block: Block, script: str, files: dict | None, output: str, status: int | None,
              expectations: list, what: str = "block"):
        problems = []
        if status not in (0, None):
            problems.append(f"exit status {status}")
        problems += [f"no match for {pattern!r}" for pattern in expectations if not re.search(pattern, output, re.M)]
        if problems:
            folder = self.read(files["cwd"]).strip() if files else ""
            self.log.flush()
            shell = self.read(self.files / "shell.log").strip()
            raise Failure(
                f"{block.where()}: the {what} failed: {'; '.join(problems)}\n"
                f"--- as run{f' (in {folder})' if folder else ''} ---\n{script.rstrip()}\n"
                f"--- output ---\n{output.rstrip()}\n---" + (f"\n--- the terminal's shell ---\n{shell}\n---" if shell else ""))

    def run(self, block: Block):
        if block.value("in") == "new terminal":
            return self.run_in_new_terminal(block)
        script = self.script(block)
        timeout = float(block.value("timeout", 60))
        files = self.type(block.language, script)
        status, remark = self.wait(files, time.monotonic() + timeout)
        output = self.read(files["out"])
        if remark == "still running":
            self.check(block, script, files, output + f"\n(still running after {timeout:g} s)", 1, [])
        self.check(block, script, files, output + (f"\n{remark}" if remark else ""), status, block.values("expect"))

    def run_in_new_terminal(self, block: Block):
        """The block in a second terminal: a new `sh` as the first one started (environment,
        HOME), beside the first, whose server keeps running."""
        if block.kind != "run":
            raise Failure(f"{block.where()}: 'in: new terminal' is for run blocks")
        script = self.script(block)
        timeout = float(block.value("timeout", 60))
        self.count += 1
        path = self.files / f"{self.count}.sh"
        path.write_text(script)
        command = ["sh", "-c", f". {shlex.quote(str(path))}"] if SHELLS[block.language] == "sh" else ["bash", str(path)]
        try:
            done = subprocess.run(command, cwd=self.environment["HOME"], env=self.environment, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
            output, status = done.stdout.decode(errors="replace"), done.returncode
        except subprocess.TimeoutExpired as expired:
            output, status = (expired.stdout or b"").decode(errors="replace") + f"\n(still running after {timeout:g} s)", 1
        self.check(block, "# in a new terminal\n" + script, None, output, status, block.values("expect"))

    def serve(self, block: Block):
        if self.server and block.value("stops") != "previous":
            raise Failure(f"{block.where()}: this block starts a server while the one {self.server[0].where()} started "
                          "still holds the ports: say before the block to stop that one (Ctrl-C), and mark the block "
                          "'stops: previous'")
        if self.server and not re.search(r"Ctrl-C|Ctrl\+C|\^C", block.prose):
            raise Failure(f"{block.where()}: the marker says 'stops: previous', but the text before the block does not tell "
                          f"the reader to stop the server {self.server[0].where()} started (Ctrl-C)")
        self.stop()
        script = self.script(block)
        timeout = float(block.value("timeout", 60))
        deadline = time.monotonic() + timeout
        files = self.type(block.language, script, serve=True)
        status, remark = self.wait(files, deadline)
        output = lambda: self.read(files["out"]) + self.read(files["server"])
        if remark == "still running":
            self.check(block, script, files, output() + f"\n(still running after {timeout:g} s)", 1, [])
        self.check(block, script, files, output() + (f"\n{remark}" if remark else ""), status, [])
        if not self.read(files["pid"]).strip():
            self.check(block, script, files, output() + "\n(the block ended without starting `mockapns serve`: its "
                       "last command must be `mockapns serve ...`, neither through exec nor by a path)", 1, [])
        pid = int(self.read(files["pid"]))
        self.server = (block, pid, files["server"], script)
        while "mockapns listening" not in self.read(files["server"]):
            if not alive(pid):
                self.check(block, script, files, output() + "\n(the server ended)", 1, [])
            if time.monotonic() > deadline:
                self.check(block, script, files, output() + "\n(no listening line in time)", 1, [])
            time.sleep(0.1)
        # The lines after the listening line follow it at once; give them a moment to arrive.
        wanted = block.values("try-expect")
        printed = block.values("expect") + ([r"^try: "] if wanted else [])
        settle = time.monotonic() + 5
        while not all(re.search(pattern, output(), re.M) for pattern in printed) and time.monotonic() < settle:
            time.sleep(0.05)
        self.check(block, script, files, output(), None, block.values("expect"))
        if wanted:
            found = re.search(r"^try: (.*)$", output(), re.M)
            if not found:
                self.check(block, script, files, output(), 1, [r"^try: "], "serve block's printed try line")
            pasted = self.type("sh", found.group(1) + "\n")
            status, remark = self.wait(pasted, time.monotonic() + 30)
            self.check(block, found.group(1), pasted, self.read(pasted["out"]) + (f"\n{remark}" if remark else ""),
                       status, wanted, "printed try line")

    def stop(self):
        """SIGTERM to the running server, as the reader's Ctrl-C in its terminal; it must be gone
        within 15 s, having said it shuts down."""
        if not self.server:
            return
        block, pid, log, script = self.server
        self.server = None
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 15
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        lingering = alive(pid)
        if lingering:
            os.kill(pid, signal.SIGKILL)
        output = self.read(log)
        if lingering or "shutting down" not in output or re.search(r"^Error:", output, re.M):
            raise Failure(f"{block.where()}: the server did not shut down cleanly on SIGTERM"
                          f"{' (still running after 15 s)' if lingering else ''}\n--- output ---\n{output.rstrip()}\n---")

    def close(self):
        """Stops the server (raising Failure if it does not stop cleanly), then the shell and
        anything the blocks left running in its session."""
        try:
            self.stop()
        finally:
            try:
                self.shell.stdin.close()
            except OSError:
                pass
            try:
                self.shell.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.shell.pid, sig)
                except ProcessLookupError:
                    break
                time.sleep(0.2)
            self.shell.wait()
            self.log.close()


def busy_ports() -> list:
    busy = []
    for port in PORTS:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                busy.append(port)
    return busy


def main() -> int:
    parser = argparse.ArgumentParser(description="Runs the documentation's shell blocks as a newcomer would.")
    parser.add_argument("--mockapns", help="install this binary instead of running the install step's build")
    parser.add_argument("--list", action="store_true", help="list the blocks and their markers")
    parser.add_argument("--keep", action="store_true", help="keep the temporary home and folders")
    parser.add_argument("--page", help="the install step and the first server (the pages up to them), then this page")
    parser.add_argument("--readme", default=str(CHECKOUT / "README.md"), help="another copy of the README (to try the test)")
    parser.add_argument("--mkdocs", default=str(CHECKOUT / "mkdocs.yml"),
                        help="another mkdocs.yml (to try the test); 'none': README.md alone")
    arguments = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)

    mkdocs = None if arguments.mkdocs == "none" else Path(arguments.mkdocs)
    found, problems = survey(Path(arguments.readme), mkdocs, Path(arguments.page) if arguments.page else None)
    if arguments.list:
        for _, page_blocks in found:
            for block in page_blocks:
                print(f"{block.where()}: {block.language} {block.kind or 'UNMARKED'} {block.options}")
    if problems:
        for problem in problems:
            print(f"readme: {problem}", file=sys.stderr)
        return 1
    if arguments.list:
        return 0
    busy = busy_ports()
    if busy:
        print(f"readme: the pages use the default ports, and {', '.join(map(str, busy))} "
              f"{'is' if len(busy) == 1 else 'are'} in use", file=sys.stderr)
        return 1

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="mockapns-readme-"))
    home = work / "home"
    home.mkdir()
    (work / "tmp").mkdir()
    counts = {"run": 0, "serve": 0, "skip": 0}
    terminal = None
    try:
        environment, notes = starting_environment(work, home)
        print(f"readme: a new terminal: HOME={home} PATH={environment['PATH']}")
        for note in notes:
            print(f"readme: {note}")
        terminal = Terminal(work, environment, os.path.abspath(arguments.mockapns) if arguments.mockapns else None)
        for _, page_blocks in found:
            for block in page_blocks:
                begun = time.monotonic()
                if block.kind == "skip":
                    print(f"readme: {block.where()}: skipped: {block.value('why')}")
                elif block.kind == "run":
                    terminal.run(block)
                else:
                    terminal.serve(block)
                counts[block.kind] += 1
                if block.kind != "skip":
                    print(f"readme: {block.where()}: {block.kind} ok ({time.monotonic() - begun:.1f} s)", flush=True)
        closing, terminal = terminal, None
        closing.close()
    except Failure as failure:
        print(f"readme: FAILED: {failure}", file=sys.stderr)
        if terminal:
            try:
                terminal.close()
            except Failure:
                pass
        return 1
    finally:
        if arguments.keep:
            print(f"readme: kept {work}")
        else:
            subprocess.run(["rm", "-rf", str(work)])
    pages = len(found)
    print(f"readme: {pages} page{'s' if pages != 1 else ''}: {counts['run'] + counts['serve']} blocks run "
          f"({counts['serve']} started a server), {counts['skip']} skipped with a reason, "
          f"in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
