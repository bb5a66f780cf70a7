"""The documentation's Python examples, run as a reader would paste them: each ```python block of
README.md and docs/guide/python.md that holds a `def test_` is a whole pytest file of its own, run in a
subprocess with the helper's pytest plugin (and its `mockapns` fixture) and the binary under
test. A name the example uses but never defines, or a client that cannot push over HTTP/2,
fails here."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import REPO, mockapns_bin

PAGES = [REPO / "README.md", REPO / "docs" / "guide" / "python.md"]


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line of the opening fence, code) of each ```python block."""
    blocks = []
    for match in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        blocks.append((text.count("\n", 0, match.start()) + 1, match.group(1)))
    return blocks


def test_the_pages_python_test_examples_pass_as_written(tmp_path):
    examples = [(page, line, code) for page in PAGES for line, code in python_blocks(page.read_text()) if "def test_" in code]
    for page in PAGES:
        assert any(found == page for found, _, _ in examples), f"{page} has no ```python block with a test"
    for page, line, code in examples:
        where = f"{page.relative_to(REPO)}:{line}"
        example = tmp_path / f"test_{page.stem.lower()}_line_{line}.py"
        example.write_text(code)
        environment = dict(os.environ, MOCKAPNS_BIN=mockapns_bin())
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", str(example)],
            cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300,
        )
        assert done.returncode == 0, f"{where}: the example fails as written:\n{done.stdout}\n{done.stderr}"
        assert re.search(r"\b[1-9]\d* passed\b", done.stdout), done.stdout
