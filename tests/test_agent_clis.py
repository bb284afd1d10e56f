"""The agent CLIs of the `agents` tier: locked exactly, installed by a script that never skips
quietly, and a tier that passed no agent test is a failed one.

These run in the normal suite, without the CLIs: the lock is read as a file, the script is
run with no npm to be found, and pytest runs the tier's cheap test in a child process.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents.conftest import BINARIES

ROOT = Path(__file__).resolve().parents[1]
LOCKED = ROOT / "tests" / "agents" / "npm"
PACKAGE = json.loads((LOCKED / "package.json").read_text())
LOCK = json.loads((LOCKED / "package-lock.json").read_text())
EXACT = re.compile(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?")


def test_every_locked_package_has_its_version_and_an_integrity_hash():
    packages = {path: entry for path, entry in LOCK["packages"].items() if path}
    assert LOCK["lockfileVersion"] >= 2 and packages
    for path, entry in packages.items():
        assert EXACT.fullmatch(entry.get("version", "")), path
        assert entry.get("integrity", "").startswith("sha512-"), path


def test_package_json_pins_exactly_the_versions_the_lock_holds():
    wanted = PACKAGE["dependencies"]
    assert set(wanted) == {"@anthropic-ai/claude-code", "@openai/codex", "@google/gemini-cli",
                           "@agentclientprotocol/claude-agent-acp", "@zed-industries/codex-acp"}
    assert LOCK["packages"][""]["dependencies"] == wanted
    for name, version in wanted.items():
        assert EXACT.fullmatch(version), f"{name} {version} is a range, not a version"
        assert LOCK["packages"][f"node_modules/{name}"]["version"] == version
    bins = {bin_name for name in wanted
            for bin_name in LOCK["packages"][f"node_modules/{name}"].get("bin", {})}
    assert set(BINARIES) <= bins


def test_the_readme_names_the_locked_versions():
    readme = (ROOT / "README.md").read_text()
    for name, version in PACKAGE["dependencies"].items():
        assert f"| `{name}` | {version} |" in readme, f"README.md: {name} is locked at {version}"


def test_without_npm_the_install_stops_and_says_what_to_install(tmp_path: Path):
    """A PATH with everything but Node.js, npm, apt-get and sudo: no install is possible."""
    path = tmp_path / "bin"
    path.mkdir()
    hidden = {"node", "nodejs", "npm", "npx", "corepack", "apt-get", "sudo"}
    for folder in [*os.environ["PATH"].split(os.pathsep), "/usr/bin", "/bin"]:
        for program in Path(folder).glob("*") if Path(folder).is_dir() else ():
            link = path / program.name
            if program.name not in hidden and not link.exists():
                link.symlink_to(program)
    done = subprocess.run([str(ROOT / "scripts" / "ensure-agent-clis")], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PATH": str(path)})
    assert done.returncode == 1
    assert "npm is missing" in done.stderr
    assert "apt-get install nodejs npm" in done.stderr


SKIPPER = """
import os
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if os.environ["SKIP_TESTS_NAMED"] in item.name:
        pytest.skip("skipped on purpose")
"""


def run_tier(tmp_path: Path, skip: str) -> subprocess.CompletedProcess[str]:
    """The rehearse tests of the agents tier, skipping those whose name holds ``skip``;
    AGENT_CLIS_BIN is an empty folder, so a test that reaches the CLIs fails."""
    (tmp_path / "skipper.py").write_text(SKIPPER)
    (tmp_path / "no-clis").mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.update(PYTHONPATH=str(tmp_path), SKIP_TESTS_NAMED=skip,
               AGENT_CLIS_BIN=str(tmp_path / "no-clis"))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "skipper",
         "-m", "agents", "tests/agents/test_rehearse.py"],
        # a pytest of its own (start-up, collection, an agent's turn): on a loaded
        # two-core machine it took over 120 s once; the test's own limit is 300 s
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=270)


@pytest.mark.timeout(300)
def test_a_tier_whose_agent_tests_all_skipped_fails(tmp_path: Path):
    done = run_tier(tmp_path, skip="rehearse")
    assert "2 skipped" in done.stdout
    assert done.returncode == 1, done.stdout
    assert "none passed" in done.stdout


@pytest.mark.timeout(300)
def test_a_skip_beside_a_passed_agent_test_is_fine(tmp_path: Path):
    done = run_tier(tmp_path, skip="scripted_replies")
    assert done.returncode == 0, done.stdout
    assert "1 passed, 1 skipped" in done.stdout


@pytest.mark.timeout(300)
def test_missing_clis_fail_the_test_and_name_the_install(tmp_path: Path):
    done = run_tier(tmp_path, skip="nothing is skipped")
    assert done.returncode == 1, done.stdout
    assert "1 passed, 1 error" in done.stdout
    assert "run `make test-agents`" in done.stdout
