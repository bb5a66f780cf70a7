"""The package as a provider team installs it: `pip install` from its folder into a fresh
virtualenv registers the pytest plugin, whose `mockapns` fixture runs one server for the
session, resets it before each test, takes `mockapns_options` from a conftest.py and finds the
binary through --mockapns-bin. (Needs PyPI for setuptools and pytest, as run.sh does.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mockapns import find_binary

PACKAGE = Path(__file__).resolve().parents[1]

CONFTEST = '''
import pytest

@pytest.fixture(scope="session")
def mockapns_options():
    return {"topics": ["com.acme.app"], "serve_args": ["--quiet"]}
'''

PROVIDER_TESTS = '''
import json, os, subprocess

TOKEN = "ab" * 32
SEEN = {}

def push(apns):
    result = subprocess.run([
        "curl", "-sS", "--http2", "--cacert", str(apns.ca_file), "-o", "-", "-w", "\\n%{http_code}",
        "-H", "apns-topic: com.acme.app", "-H", "authorization: bearer " + apns.provider_token(),
        "--data-binary", '{"aps":{"alert":"hi"}}', apns.device_url(TOKEN)], capture_output=True, text=True)
    body, _, status = result.stdout.rpartition("\\n")
    return int(status), body

def test_a_scenario_refuses_the_token(mockapns):
    SEEN["pid"] = mockapns.process.pid
    mockapns.load_scenario({"name": "refuse", "rules": [
        {"match": {"tokens": [TOKEN]}, "action": {"type": "reject", "reason": "BadDeviceToken"}}]})
    assert push(mockapns) == (400, '{"reason":"BadDeviceToken"}')
    [record] = mockapns.wait_for(token=TOKEN, reason="BadDeviceToken", timeout=5)
    assert record["topic"] == "com.acme.app"

def test_the_next_test_gets_the_same_server_reset(mockapns, mockapns_server):
    assert mockapns is mockapns_server and mockapns.process.pid == SEEN["pid"]
    assert mockapns.notifications() == []
    assert mockapns.scenario()["name"] == "none"
    assert push(mockapns)[0] == 200

def test_the_options_come_from_the_conftest(mockapns):
    assert "com.acme.app" in mockapns.credentials.key()["topics"]
    assert "mockapns listening" in mockapns.log_text()
    assert "push http2" not in mockapns.log_text(), "--quiet: no access log"
'''


def test_pip_install_from_the_folder_registers_the_fixture(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # Built from a copy: a build writes build/ and *.egg-info beside the sources.
    package = tmp_path / "package"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(package), f"pytest=={pytest.__version__}"],
        capture_output=True, text=True, timeout=600,
    )
    assert install.returncode == 0, install.stdout + install.stderr

    project = tmp_path / "provider"
    project.mkdir()
    (project / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    (project / "test_provider.py").write_text(textwrap.dedent(PROVIDER_TESTS))
    environment = {name: value for name, value in os.environ.items() if name not in ("MOCKAPNS_BIN", "PYTHONPATH")}
    result = subprocess.run(
        [python, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--mockapns-bin", find_binary()],
        cwd=project, env=environment, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout, result.stdout

    helped = subprocess.run([python, "-m", "pytest", "--help"], cwd=project, env=environment, capture_output=True, text=True)
    assert "--mockapns-bin=PATH" in helped.stdout
    installed = subprocess.run([python, "-c", "import mockapns; print(mockapns.__file__)"], cwd=project,
                               env=environment, capture_output=True, text=True)
    assert installed.stdout.startswith(str(venv)), "the installed copy, not the sources"
    assert (Path(installed.stdout.strip()).parent / "py.typed").exists(), "type hints are part of the package"
