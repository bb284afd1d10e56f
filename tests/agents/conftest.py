"""Integration tier: the real Claude Code, Codex and Gemini CLIs against the fake model server.

The CLIs and the ACP adapters of Claude Code and Codex are installed once from
npm into ``.agents-cache/`` (one install, kept between runs); these tests are
marked ``agents`` and run by ``make test-agents``.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from desktop.contract.base import new_id
from desktop.contract.state import NodeConfig, NodeState, Permissions
from desktop.providers.base import TurnRequest
from desktop.providers.fakeserver import FakeModelServer, Script
from desktop.providers.offline import OfflineSetup

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".agents-cache"
BIN = CACHE / "node_modules" / ".bin"
PACKAGES = ["@anthropic-ai/claude-code", "@openai/codex", "@google/gemini-cli",
            "@agentclientprotocol/claude-agent-acp", "@zed-industries/codex-acp"]
AGENTS = ("claude", "codex", "gemini")
ADAPTERS = ("claude-agent-acp", "codex-acp")
BINARIES = (*AGENTS, *ADAPTERS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.agents)


@pytest.fixture(scope="session")
def agents_bin() -> Path:
    """The folder holding the three CLIs and the two adapters, installed from npm on first use."""
    if all((BIN / name).exists() for name in BINARIES):
        return BIN
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: cannot install the agent CLIs into .agents-cache")
    CACHE.mkdir(exist_ok=True)
    done = subprocess.run([npm, "install", "--prefix", str(CACHE), "--no-audit", "--no-fund",
                           *PACKAGES], capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not all((BIN / name).exists() for name in BINARIES):
        pytest.fail(f"npm install of the agent CLIs failed:\n{done.stderr[-3000:]}")
    return BIN


@pytest.fixture
async def server():
    async with FakeModelServer(Script()) as srv:
        yield srv


@pytest.fixture
def offline(server: FakeModelServer, tmp_path: Path) -> OfflineSetup:
    return OfflineSetup(server.url, tmp_path / "home").prepare()


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
