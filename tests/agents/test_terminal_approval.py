"""``agent-canvas run FILE`` as a user runs it: a claude -> codex -> gemini workflow with the
real CLIs against the fake model server, the claude node's tool call approved from the
terminal (``approve <id>`` typed on stdin while the run waits).

The workflow is written here rather than shipped in resources/examples: every shipped
example runs on the scripted agent without keys (the example and engine tests run them all).
"""

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from desktop.providers.fakeserver import FakeModelServer, Script
from desktop.providers.offline import GEMINI_MODEL, OfflineSetup

pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parents[2]
AGENTS = ("claude", "codex", "gemini")
# What the offline environment sets beyond HOME/PATH; the run passes an agent only the
# variables its node's envAllowlist names (and its own API key).
ALLOWLIST = ["ANTHROPIC_BASE_URL", "CLAUDE_*", "DISABLE_*", "CODEX_HOME",
             "GOOGLE_GEMINI_BASE_URL", "GEMINI_TELEMETRY_ENABLED", "XDG_CONFIG_HOME",
             "NO_PROXY", "no_proxy"]
REPLIES = {
    "claude": [{"text": "Planning.", "shell": "echo planned > plan.txt"},
               {"text": "Plan: write proof.txt."}],
    "codex": [{"shell": "echo built > proof.txt"}, {"text": "Built proof.txt."}],
    "gemini": [{"text": "Reviewed: looks good."}],
}


def real_agents_flow(folder: Path) -> Path:
    """A three-node workflow on the real CLIs: claude (gated) -> codex -> gemini."""
    config = {"envAllowlist": ALLOWLIST, "limits": {"timeoutSec": 120}}
    doc = {
        "version": 1, "name": "Real agents",
        "description": "Claude plans (its tool calls wait for approval), Codex builds, Gemini "
                       "reviews. Needs the claude, codex and gemini CLIs; `agent-canvas "
                       "rehearse` dry-runs it on scripted replies.",
        "task": "Make proof.txt and report.",
        "nodes": [
            {"id": "claude", "label": "Planner", "provider": "claude", "entry": True,
             "permissions": {"cliPermissionsMode": "gated"}},
            {"id": "codex", "label": "Implementer", "provider": "codex"},
            {"id": "gemini", "label": "Reviewer", "provider": "gemini"},
        ],
        "nodeConfigs": {"claude": dict(config), "codex": dict(config),
                        "gemini": {**config, "model": GEMINI_MODEL}},
        "edges": [{"from": "claude", "to": "codex"}, {"from": "codex", "to": "gemini"}],
    }
    path = folder / "real-agents.flow.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def offline_env(server: FakeModelServer, home: Path, agents_bin: Path) -> dict[str, str]:
    """The CLI's environment: each agent family aimed at its own script key on the server."""
    offline = OfflineSetup(server.url, home).prepare()
    env = {k: v for k, v in os.environ.items() if k in ("LANG", "TMPDIR", "TERM")}
    for agent in AGENTS:
        env.update(offline.env_for(agent, agent))
    env["PATH"] = os.pathsep.join([str(agents_bin), str(Path(sys.executable).parent),
                                   os.environ.get("PATH", "")])
    env["PYTHONPATH"] = str(ROOT)
    return env


async def test_terminal_approval_runs_three_real_agents(agents_bin, tmp_path: Path):
    flow = real_agents_flow(tmp_path)
    async with FakeModelServer(Script.from_data({"agents": REPLIES})) as server:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "desktop", "run", str(flow), "--data-dir",
            str(tmp_path / "data"), "--json", cwd=str(ROOT),
            env=offline_env(server, tmp_path / "home", agents_bin),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        events: list[dict] = []
        approved = None
        try:
            while line := await asyncio.wait_for(proc.stdout.readline(), 200):
                if not line.startswith(b"{"):
                    continue
                event = json.loads(line)
                events.append(event)
                if event["type"] == "approval.requested" and approved is None:
                    approved = event["approvalId"]
                    proc.stdin.write(f"approve {approved[:8]}\n".encode())
                    await proc.stdin.drain()
            proc.stdin.close()
            code = await asyncio.wait_for(proc.wait(), 60)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        stderr = (await proc.stderr.read()).decode(errors="replace")

    assert code == 0, stderr[-3000:]
    assert approved, "no approval was requested"
    requested = [e for e in events if e["type"] == "approval.requested"]
    assert [e["tool"]["name"] for e in requested] == ["Bash"]
    resolved = [e for e in events if e["type"] == "approval.resolved"]
    assert [(e["approvalId"], e["resolution"]["status"], e["resolution"]["by"])
            for e in resolved] == [(approved, "approved", "terminal")]
    assert f"approved: {approved[:8]}" in stderr
    finals = [e["text"] for e in events if e["type"] == "message.assistant.final"]
    assert finals == ["Planning.", "Plan: write proof.txt.", "Built proof.txt.",
                      "Reviewed: looks good."]
    tools = [e for e in events if e["type"] in ("tool.started", "tool.completed")]
    assert tools[0]["toolId"] == requested[0]["tool"]["id"]  # the approved call ran
    assert tools[1]["result"]["ok"] is True
    workspace = next((tmp_path / "data").rglob("runs/*/workspace"))
    assert (workspace / "plan.txt").read_text().strip() == "planned"
    assert (workspace / "proof.txt").read_text().strip() == "built"
    assert events[-1]["type"] == "run.completed"
