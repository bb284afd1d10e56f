"""The real claude, codex and gemini CLIs run inside the process sandbox (network on, the
filesystem read-only but for the workspace) and every agent run's runner.json verifies."""

import asyncio
import json
from pathlib import Path

import pytest

from desktop.providers.fakeserver import Script
from desktop.runtime import sandbox
from desktop.runtime.engine import EngineOptions
from desktop.runtime.recovery import create_run
from desktop.store.runner import runner_hash
from desktop.store.runner_verify import check
from tests.agents.test_engine_agents import events_of, three_agents

pytestmark = pytest.mark.timeout(300)


async def test_three_cli_agents_run_sandboxed(server, offline_registry, tmp_path: Path):
    if (problem := sandbox.bwrap_problem()) is not None:
        pytest.skip(f"bubblewrap cannot run here: {problem}")
    server.script = Script.from_data({"agents": {
        "claude": [{"text": "Planning.", "shell": "echo planned > plan.txt"},
                   {"text": "Plan: write proof.txt."}],
        "codex": [{"shell": "echo built > proof.txt; echo stray > /etc/agent-canvas-stray"},
                  {"text": "Built proof.txt."}],
        "gemini": [{"text": "Reviewed: looks good."}],
    }})
    doc = three_agents()
    for node in doc.nodes:
        doc.node_configs[node.id] = doc.config(node.id).model_copy(update={
            "sandbox": sandbox.Sandbox.model_validate(
                {"backend": "process", "limits": {"maxMemoryMb": 1024}})})
    engine = create_run(doc, tmp_path / "data", options=EngineOptions())
    loop = asyncio.get_running_loop()
    engine.broker.subscribe(lambda pending: loop.call_soon(
        engine.broker.resolve, pending.approval_id, "approved"))
    try:
        status = await asyncio.wait_for(engine.run(), 240)
    finally:
        engine.close()
    events = events_of(engine.run_dir)
    assert str(status) == "completed", [e for e in events if e["type"] in
                                         ("turn.status", "agent.error", "node.log")][-6:]
    assert not Path("/etc/agent-canvas-stray").exists()
    records = sorted((engine.run_dir / "agents").glob("*/runner.json"))
    assert len(records) == 3
    for path in records:
        record, result = check(path.read_bytes())
        assert result.ok, result.output()
        assert record["sandbox"]["backend"] == "process"
        assert engine.state.runner_hashes[path.parent.name] == runner_hash(record)
        assert not any(name.endswith("_API_KEY") for name in record["context"]["env_allowlist"])
    workspace = engine.run_dir / "workspace"
    assert (workspace / "proof.txt").read_text().strip() == "built"
    assert json.loads(records[0].read_bytes())["platform"]["node_version"] != "v0.0.0"
