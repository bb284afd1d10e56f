"""Integration tier: the real Claude Code, Codex and Gemini CLIs against the fake model server.

The CLIs and the ACP adapters of Claude Code and Codex are the versions locked in
``tests/agents/npm/``; ``make test-agents`` (``scripts/ensure-agent-clis``) installs them
into ``.agents-cache/``. ``AGENT_CLIS_BIN`` points the tests at another ``node_modules/.bin``
(``make test-agents-latest``: the newest releases). These tests are marked ``agents``; a run
that selects them and passes none fails, so a tier that only skipped is never green.
"""

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.contract.base import new_id
from desktop.contract.state import NodeConfig, NodeState, Permissions
from desktop.providers import registry
from desktop.providers.agents_builtin import register_agents
from desktop.providers.base import TurnRequest
from desktop.providers.fakeserver import FakeModelServer, Script
from desktop.providers.offline import OfflineSetup

ROOT = Path(__file__).resolve().parents[2]
LOCKED = Path(__file__).parent / "npm"
CACHE_BIN = ROOT / ".agents-cache" / "node_modules" / ".bin"
PACKAGES = list(json.loads((LOCKED / "package.json").read_text())["dependencies"])
AGENTS = ("claude", "codex", "gemini")
ADAPTERS = ("claude-agent-acp", "codex-acp")
BINARIES = (*AGENTS, *ADAPTERS)
INSTALL = "run `make test-agents` (or scripts/ensure-agent-clis) to install them"


def bin_dir() -> Path:
    """The folder of the CLIs under test: $AGENT_CLIS_BIN, else .agents-cache's."""
    return Path(os.environ.get("AGENT_CLIS_BIN") or CACHE_BIN)


def installed_versions(folder: Path) -> dict[str, str]:
    """Each locked package's version as installed beside ``folder`` (a node_modules/.bin)."""
    versions = {}
    for name in PACKAGES:
        manifest = folder.parent / name / "package.json"
        versions[name] = (json.loads(manifest.read_text())["version"] if manifest.is_file()
                          else "missing")
    return versions


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.agents)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Name the versions under test before the first agent test runs."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not any(item.get_closest_marker("agents") for item in session.items):
        return
    folder = bin_dir()
    node = shutil.which("node")
    node_version = subprocess.run([node, "--version"], capture_output=True, text=True,
                                  check=False).stdout.strip() if node else "no node on PATH"
    reporter.write_line(f"agent CLIs under test ({folder}; Node.js {node_version}):")
    for name, version in installed_versions(folder).items():
        reporter.write_line(f"  {name} {version}")


_tally = {"seen": 0, "passed": 0, "failed_run": 0}  # agent test reports of this run


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "agents" in report.keywords:
        _tally["seen"] += 1
        _tally["passed"] += report.when == "call" and report.passed


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Agent tests were selected but none passed (all skipped, say): the run fails."""
    if hasattr(session.config, "workerinput") or not _tally["seen"] or _tally["passed"]:
        return
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
    _tally["failed_run"] = 1


def pytest_terminal_summary(terminalreporter) -> None:
    if _tally["failed_run"]:
        terminalreporter.write_sep("=", "agent tests were selected and none passed: the "
                                   "agents tier ran no agent", red=True)


@pytest.fixture(scope="session")
def agents_bin() -> Path:
    """The folder holding the three CLIs and the two adapters (never installs; fails if absent)."""
    folder = bin_dir()
    missing = [name for name in BINARIES if not (folder / name).exists()]
    if missing:
        pytest.fail(f"agent CLIs missing from {folder}: {', '.join(missing)}; {INSTALL}",
                    pytrace=False)
    if "AGENT_CLIS_BIN" not in os.environ:
        lock = json.loads((LOCKED / "package-lock.json").read_text())["packages"]
        stale = [f"{name} {version} (locked: {lock[f'node_modules/{name}']['version']})"
                 for name, version in installed_versions(folder).items()
                 if version != lock[f"node_modules/{name}"]["version"]]
        if stale:
            pytest.fail(f"{folder} is not the lock: {', '.join(stale)}; {INSTALL}",
                        pytrace=False)
    return folder


@pytest.fixture
async def server():
    async with FakeModelServer(Script()) as srv:
        yield srv


@pytest.fixture
def offline(server: FakeModelServer, tmp_path: Path) -> OfflineSetup:
    return OfflineSetup(server.url, tmp_path / "home").prepare()


@pytest.fixture
def restore_registry() -> Iterator[None]:
    """The provider registry as it was before the test, whatever the test registers."""
    registry.available()
    saved = dict(registry._FACTORIES)
    yield
    registry._FACTORIES.clear()
    registry._FACTORIES.update(saved)


@pytest.fixture
def offline_registry(restore_registry: None, offline: OfflineSetup,
                     agents_bin: Path) -> OfflineSetup:
    """claude, codex and gemini pointed at the fake server for the test's duration."""
    register_agents(registry.register, offline=offline, bin_dir=agents_bin)
    return offline


def make_request(tmp_path: Path, agent: str, prompt: str = "Do the task.", *,
                 gated: bool = False, session_id: str | None = None,
                 inbox: list[dict] | None = None, gate=None, turn: int = 1) -> TurnRequest:
    """A TurnRequest for a node keyed ``agent`` (its fake-server script key)."""
    run_id = "11111111-2222-4333-8444-555555555555"
    node = NodeState(id=new_id(), runId=run_id, key=agent, label=f"{agent} node",
                     provider=agent,
                     permissions=Permissions(cliPermissionsMode="gated" if gated else "skip"))
    folder = tmp_path / f"agent-{agent}-{turn}"
    folder.mkdir(parents=True, exist_ok=True)
    work = tmp_path / "workspace"
    work.mkdir(exist_ok=True)

    async def approve_all(tool, context):
        from desktop.contract.events import Resolution
        return Resolution(status="approved")

    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR")}
    return TurnRequest(run_id=run_id, node=node, config=NodeConfig(), agent_run_id=new_id(),
                       agent_run_dir=folder, prompt=prompt, env=env, cwd=work,
                       turn_number=turn, gate=gate or approve_all, inbox=inbox or [],
                       session_id=session_id, stdout_path=folder / "agent-stdout.txt",
                       stderr_path=folder / "agent-stderr.txt")
