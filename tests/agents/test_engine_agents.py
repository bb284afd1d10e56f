"""A workflow of a claude, a codex and a gemini node runs end to end through the engine,
with the real CLIs against the fake model server and a gated tool call approved."""

import asyncio
from pathlib import Path

import pytest

from desktop.graph.document import WorkflowDocument
from desktop.providers.fakeserver import Script
from desktop.providers.process import group_members
from desktop.runtime.engine import Engine, EngineOptions
from desktop.runtime.recovery import create_run
from desktop.views.reader import EventReader

pytestmark = pytest.mark.timeout(300)


def three_agents() -> WorkflowDocument:
    return WorkflowDocument.model_validate({
        "name": "three agents", "task": "Make proof.txt and report.",
        "nodes": [
            {"id": "claude", "label": "Planner", "provider": "claude", "entry": True,
             "permissions": {"cliPermissionsMode": "gated"}},
            {"id": "codex", "label": "Implementer", "provider": "codex"},
            {"id": "gemini", "label": "Reviewer", "provider": "gemini"},
        ],
        "nodeConfigs": {"claude": {}, "codex": {}, "gemini": {}},
        "edges": [{"from": "claude", "to": "codex"}, {"from": "codex", "to": "gemini"}],
    })


def events_of(run_dir: Path) -> list[dict]:
    return list(EventReader(run_dir).iter_events())


async def test_three_agent_workflow_with_gated_approval(server, offline_registry,
                                                        tmp_path: Path):
    server.script = Script.from_data({"agents": {
        "claude": [{"text": "Planning.", "shell": "echo planned > plan.txt"},
                   {"text": "Plan: write proof.txt."}],
        "codex": [{"shell": "echo built > proof.txt"}, {"text": "Built proof.txt."}],
        "gemini": [{"text": "Reviewed: looks good."}],
    }})
    engine = create_run(three_agents(), tmp_path / "data", options=EngineOptions())
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
    requested = [e for e in events if e["type"] == "approval.requested"]
    assert [e["tool"]["name"] for e in requested] == ["Bash"]
    finals = {e["nodeId"]: e["text"] for e in events if e["type"] == "message.assistant.final"}
    by_key = {n.key: n.id for n in engine.state.nodes.values()}
    assert finals[by_key["claude"]] == "Plan: write proof.txt."
    assert finals[by_key["codex"]] == "Built proof.txt."
    assert finals[by_key["gemini"]] == "Reviewed: looks good."
    for key in ("claude", "codex", "gemini"):
        assert engine.state.nodes[by_key[key]].session.session_id
    assert engine.state.usage.get("inputTokens", 0) > 0
    outputs = sorted((engine.run_dir / "agents").glob("*/output.md"))
    assert {p.read_text().strip() for p in outputs} >= {"Built proof.txt."}


async def test_stop_mid_stream_ends_the_whole_group(server, offline_registry, tmp_path: Path):
    server.script = Script.from_data({"agents": {"gemini": [
        {"text": "slow " * 200, "delay": 0.2, "chunk": 5}]}})
    doc = WorkflowDocument.model_validate({
        "name": "slow", "task": "Talk slowly.",
        "nodes": [{"id": "gemini", "label": "Slow", "provider": "gemini", "entry": True}],
        "nodeConfigs": {"gemini": {}}, "edges": []})
    engine: Engine = create_run(doc, tmp_path / "data", options=EngineOptions())
    task = asyncio.create_task(engine.run())
    pgid = None
    for _ in range(600):
        await asyncio.sleep(0.1)
        deltas = [e for e in events_of(engine.run_dir)
                  if e["type"] == "message.assistant.delta"]
        runner = next(iter(engine.runners.values()), None)
        if deltas and runner is not None:
            break
    assert deltas, "the stream never started"
    info = sorted((engine.run_dir / "agents").glob("*/run-info.yaml"))
    assert info
    import yaml
    pgid = yaml.safe_load(info[-1].read_text()).get("pgid") or \
        yaml.safe_load(info[-1].read_text()).get("pid")
    await engine.stop()
    status = await asyncio.wait_for(task, 60)
    engine.close()
    assert str(status) == "stopped"
    assert pgid and group_members(int(pgid)) == []
