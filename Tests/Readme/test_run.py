#!/usr/bin/env python3
"""Tests of Tests/Readme/run.py itself, without a build: pages of their own, a stand-in
`mockapns` (a shell script that serves nothing), and the real terminal model.

    python3 Tests/Readme/test_run.py          (about 15 s; the default ports must be free)
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUN = HERE / "run.py"
spec = importlib.util.spec_from_file_location("readme_run", RUN)
run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run)

FAKE_MOCKAPNS = """#!/bin/sh
# A stand-in: `serve` says what the real one says, listens nowhere, and shuts down on SIGTERM.
case "${1-}" in
serve)
    trap 'echo "mockapns received SIGTERM, shutting down"; exit 0' TERM
    echo "mockapns listening http2=127.0.0.1:2197 (a stand-in)"
    echo "try: echo tried from \\$(pwd)"
    while :; do sleep 0.1; done ;;
certs) echo "$HOME/.mockapns" ;;
*) echo "stand-in mockapns $*" ;;
esac
"""

INSTALL = """<!-- readme-test: run; installs: scripts/install.sh -->
```sh
scripts/install.sh
```
"""
ON_PATH = """<!-- readme-test: run -->
```sh
export PATH="$HOME/.local/bin:$PATH"
```
"""


def block(marker: str, text: str, language: str = "sh") -> str:
    return f"<!-- readme-test: {marker} -->\n```{language}\n{textwrap.dedent(text).strip()}\n```\n"


class Pages:
    """A README and optional mkdocs site in a temporary folder."""

    def __init__(self, readme: str, nav: list | None = None, pages: dict | None = None):
        self.folder = Path(tempfile.mkdtemp(prefix="readme-test-"))
        self.readme = self.folder / "README.md"
        self.readme.write_text("# Title\n\n" + readme)
        self.mkdocs = self.folder / "mkdocs.yml"
        if nav is not None:
            self.mkdocs.write_text("site_name: x\nnav:\n" + "".join(f"  {line}\n" for line in nav) + "theme: mkdocs\n")
        for name, text in (pages or {}).items():
            (self.folder / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
            (self.folder / "docs" / name).write_text(text)
        self.fake = self.folder / "fake-mockapns"
        self.fake.write_text(FAKE_MOCKAPNS)
        self.fake.chmod(0o755)

    def run(self, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(RUN), "--readme", str(self.readme), "--mkdocs", str(self.mkdocs),
             "--mockapns", str(self.fake), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)

    def __del__(self):
        subprocess.run(["rm", "-rf", str(self.folder)])


class Parsing(unittest.TestCase):
    def test_indented_tilde_and_attribute_fences(self):
        text = ("- a step:\n\n    <!-- readme-test: run; expect: x -->\n    ```sh\n    echo x\n      echo y\n    ```\n\n"
                '<!-- readme-test: skip; why: z -->\n~~~bash title="t"\nls\n~~~\n\n```{.shell}\nls\n```\n')
        found = run.blocks(text, "p.md")
        self.assertEqual([(b.line, b.language, b.kind) for b in found], [(4, "sh", "run"), (10, "bash", "skip"), (14, "shell", "")])
        self.assertEqual(found[0].text, "echo x\n  echo y\n")

    def test_nav(self):
        with tempfile.TemporaryDirectory() as folder:
            mkdocs = Path(folder) / "mkdocs.yml"
            mkdocs.write_text(textwrap.dedent("""\
                site_name: MockAPNs
                docs_dir: pages
                nav:
                - Home: index.md   # the front
                - 'Push: with curl': "push.md"
                - Guides:
                    - guides/scenarios.md
                    - Journal: guides/journal.md
                - Issues: https://example.com/issues
                markdown_extensions:
                  - admonition
                """))
            self.assertEqual(run.nav_pages(mkdocs),
                             ("pages", ["index.md", "push.md", "guides/scenarios.md", "guides/journal.md"]))

    def test_survey_problems(self):
        pages = Pages(block("run", "echo readme"), nav=["- Push: push.md", "- Gone: gone.md"],
                      pages={"push.md": "```sh\necho unmarked\n```\n",
                             "orphan.md": block("skip; why: w", "ls"),
                             "quiet.md": "no blocks\n",
                             "console.md": block("run", "$ ls", "console")})
        found, problems = run.survey(pages.readme, pages.mkdocs, None)
        text = "\n".join(problems)
        self.assertIn("gone.md, which does not exist", text)
        self.assertIn("push.md:1: a ```sh block without a <!-- readme-test", text)
        self.assertIn("orphan.md: has shell blocks but is not in", text)
        self.assertIn("console.md: has shell blocks", text)
        self.assertNotIn("quiet.md", text)
        self.assertEqual([len(b) for _, b in found], [1, 1])


class Terminal(unittest.TestCase):
    def test_state_carries_and_sh_is_strict(self):
        pages = Pages(INSTALL + ON_PATH + block("run; in: empty", """
            cd "$(mktemp -d)"; mkdir there; cd there
            export CARRIED=exported; plain=plain; greet() { echo "hello $1"; }
            """) + block("run; expect: ^/\\S+/there$; expect: exported plain; expect: hello you; expect: /home/\\.local/bin/mockapns$", """
            pwd; echo "$CARRIED $plain"; greet you; command -v mockapns
            """) + block("run; in: checkout; expect: ^CHECKOUT$", 'echo "$(pwd)" | sed "s|^$(git rev-parse --show-toplevel)$|CHECKOUT|"'))
        done = pages.run("--mkdocs", "none")
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertNotIn(str(Path.home() / ".local" / "bin"), done.stdout.split("PATH=")[1].split("\n")[0])
        bash_only = Pages(block("run", 'x=abc; echo "${x//a/b}"'))
        done = bash_only.run("--mkdocs", "none")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("Bad substitution", done.stdout)

    def test_exit_and_unset_variable_fail(self):
        done = Pages(block("run", "exit 0")).run("--mkdocs", "none")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("close the reader's terminal", done.stdout)
        done = Pages(block("run", 'echo "$NOT_SET"')).run("--mkdocs", "none")
        self.assertIn("parameter not set", done.stdout)

    def test_install_puts_mockapns_where_install_sh_does_not_on_path(self):
        done = Pages(INSTALL + block("serve", "mockapns serve")).run("--mkdocs", "none")
        self.assertNotEqual(done.returncode, 0)
        self.assertRegex(done.stdout, r"README\.md:\d+: the block failed")
        self.assertIn("mockapns: not found", done.stdout)

    def test_serve_keeps_state_and_runs_in_background_then_site_pages(self):
        readme = INSTALL + ON_PATH + block("serve; expect: listening; try-expect: tried from /\\S+/tmp/tmp\\.", 'cd "$(mktemp -d)" && mockapns serve')
        pages = Pages(readme, nav=["- index.md", "- Next: next.md"], pages={
            "index.md": block("run; expect: ^/\\S+/tmp/tmp\\.\\w+$", "pwd"),
            "next.md": "text\n\n" + block("run; expect: nope", "echo yes")})
        done = pages.run()
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("docs/next.md:4: the block failed: no match for 'nope'", done.stdout)
        self.assertIn("docs/index.md:2: run ok", done.stdout)
        self.assertLess(done.stdout.index("README.md"), done.stdout.index("docs/index.md"))
        only = pages.run("--page", str(pages.folder / "docs" / "index.md"))
        self.assertEqual(only.returncode, 0, only.stdout)
        self.assertIn("2 pages", only.stdout)

    def test_a_second_server_is_started_only_after_the_page_says_to_stop_the_first(self):
        first = INSTALL + ON_PATH + block("serve", 'cd "$(mktemp -d)" && mockapns serve')
        second = 'cd "$(mktemp -d)" && mockapns serve'
        unsaid = Pages(first, nav=["- next.md"], pages={"next.md": "Start another:\n\n" + block("serve", second)})
        done = unsaid.run()
        self.assertNotEqual(done.returncode, 0, done.stdout)
        self.assertIn("docs/next.md:4: this block starts a server while the one ", done.stdout)
        self.assertIn("README.md:12 started", done.stdout)
        self.assertIn("still holds the ports", done.stdout)
        marked = Pages(first, nav=["- next.md"], pages={"next.md": "Start another:\n\n" + block("serve; stops: previous", second)})
        done = marked.run()
        self.assertNotEqual(done.returncode, 0, done.stdout)
        self.assertIn("does not tell the reader to stop the server", done.stdout)
        told = Pages(first, nav=["- next.md"], pages={
            "next.md": "Stop the server from before (Ctrl-C in its terminal): this one takes the same ports.\n\n"
                       + block("serve; stops: previous", second)})
        done = told.run()
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertIn("docs/next.md:4: serve ok", done.stdout)

    def test_a_block_in_a_new_terminal_starts_from_the_starting_path(self):
        server = INSTALL + ON_PATH + block("serve", 'cd "$(mktemp -d)" && mockapns serve')
        bare = Pages(server + "In another terminal:\n\n" + block("run; in: new terminal", "mockapns certs dir"), nav=None)
        done = subprocess.run([sys.executable, str(RUN), "--readme", str(bare.readme), "--mkdocs", "none", "--mockapns", str(bare.fake)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        self.assertNotEqual(done.returncode, 0, done.stdout)
        self.assertIn("the block failed: exit status 127", done.stdout)
        self.assertIn("# in a new terminal", done.stdout)
        fixed = Pages(server + "In another terminal:\n\n" + block(
            "run; in: new terminal; expect: ^/\\S+/home/\\.mockapns$", 'export PATH="$HOME/.local/bin:$PATH"\nmockapns certs dir'), nav=None)
        done = subprocess.run([sys.executable, str(RUN), "--readme", str(fixed.readme), "--mkdocs", "none", "--mockapns", str(fixed.fake)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stdout)

    def test_page_runs_after_the_front_door(self):
        pages = Pages("front page\n", nav=["- install.md", "- start.md", "- other.md", "- mine.md"], pages={
            "install.md": INSTALL + ON_PATH,
            "start.md": block("serve", 'cd "$(mktemp -d)" && mockapns serve'),
            "other.md": block("run", "false"),
            "mine.md": block("run; expect: ^/\\S+/tmp/tmp\\.", "pwd")})
        done = pages.run("--page", str(pages.folder / "docs" / "mine.md"))
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertNotIn("other.md", done.stdout)
        self.assertIn("4 pages", done.stdout)

    def test_python_is_the_systems(self):
        """A global pip install fails as for a Debian user; a venv, activated in one block,
        is in effect in the next."""
        if not run.refuses_global_install(run.DEBIAN_PYTHON, {"PATH": run.SYSTEM_PATH, "HOME": "/nonexistent"}, Path("/")):
            self.skipTest("no Debian 12 (or later) python3 here")
        pages = Pages(block("run; expect: externally-managed-environment", "pip install --dry-run --no-index x || true")
                      + block("run", "python3 -m venv .venv && . .venv/bin/activate")
                      + block("run; expect: /\\.venv/", "command -v pip; echo $VIRTUAL_ENV"))
        done = pages.run("--mkdocs", "none")
        self.assertEqual(done.returncode, 0, done.stdout)

    def test_a_python_that_allows_global_installs_is_replaced_by_debians(self):
        if not run.refuses_global_install(run.DEBIAN_PYTHON, {"PATH": run.SYSTEM_PATH, "HOME": "/nonexistent"}, Path("/")):
            self.skipTest("no Debian 12 (or later) python3 here")
        with tempfile.TemporaryDirectory() as folder:
            lax = Path(folder) / "bin"
            lax.mkdir()
            (lax / "python3").write_text("#!/bin/sh\necho 'Would install x'\n")
            (lax / "python3").chmod(0o755)
            work = Path(folder) / "work"
            work.mkdir()
            folders, note = run.system_python([str(lax)] + run.SYSTEM_PATH.split(":"),
                                              {"PATH": run.SYSTEM_PATH, "HOME": folder}, work)
            self.assertEqual(folders[0], str(work / "system-python"))
            self.assertEqual(os.readlink(work / "system-python" / "python3"), run.DEBIAN_PYTHON)
            self.assertIn("lets pip install outside a venv", note)
            with self.assertRaises(run.Failure):
                run.system_python([str(lax)], {"PATH": str(lax), "HOME": folder}, work, debian=str(lax / "python3"))


if __name__ == "__main__":
    unittest.main()
