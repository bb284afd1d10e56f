"""Claude Code and Codex as two parallel implementers in one git repository: each works in
its own worktree, so each diff holds only that agent's file, and the lead's branch gets
both through the reports; the user's repository is left as it was."""

import asyncio
from pathlib import Path

import pytest

from desktop.graph.document import WorkflowDocument
from desktop.providers.fakeserver import Script
from desktop.runtime.engine import EngineOptions
from desktop.runtime.recovery import create_run
from desktop.views.reader import EventReader
from tests.agents.git_helpers import committed_project, git

pytestmark = pytest.mark.timeout(300)


async def test_claude_and_codex_in_parallel_worktrees_each_diff_only_their_file(
        server, offline_registry, tmp_path: Path) -> None:
    repo = committed_project(tmp_path)
    (repo / "notes.txt").write_text("uncommitted work of the user\n")
    server.script = Script.from_data({"agents": {
        "claude": [{"shell": "echo by claude > claude.txt"}, {"text": "Wrote claude.txt."}],
        "codex": [{"shell": "echo by codex > codex.txt"}, {"text": "Wrote codex.txt."}],
    }})
    ws = {"workspace": str(repo)}
    doc = WorkflowDocument.model_validate({
        "name": "two implementers", "task": "Each of you writes your own file.",
        "nodes": [{"id": "lead", "label": "Lead", "provider": "scripted", "entry": True},
                  {"id": "claude", "label": "Claude", "provider": "claude"},
                  {"id": "codex", "label": "Codex", "provider": "codex"}],
        "nodeConfigs": {"lead": {**ws, "script": [{"say": "split"}], "stallThreshold": 10},
                        "claude": ws, "codex": ws},
        "edges": [{"from": "lead", "to": "claude"}, {"from": "lead", "to": "codex"},
                  {"from": "claude", "to": "lead", "type": "report"},
                  {"from": "codex", "to": "lead", "type": "report"}]})
    status_before = git(repo, "status", "--porcelain", "--ignored")
    engine = create_run(doc, tmp_path / "data", options=EngineOptions())
    try:
        status = await asyncio.wait_for(engine.run(), 240)
    finally:
        engine.close()
    events = list(EventReader(engine.run_dir).iter_events())
    assert str(status) == "completed", [e for e in events if e["type"] in
                                         ("turn.status", "agent.error", "node.log")][-6:]
    keys = {n.id: n.key for n in engine.state.nodes.values()}
    diffs = {keys[e["nodeId"]]: e["artifact"] for e in events if e["type"] ==
             "artifact.created" and e["artifact"]["kind"] == "diff"}
    assert set(diffs) == {"claude", "codex"}
    for key, art in diffs.items():
        patch = (engine.run_dir / art["path"]).read_text()
        touched = {line.split(" b/", 1)[1] for line in patch.splitlines()
                   if line.startswith("diff --git ")}
        assert touched == {f"{key}.txt"}, (key, patch)
        assert art["branch"] == f"canvas/{engine.run_id[:8]}/{key}"
    lead = next(n.git for n in engine.state.nodes.values() if n.key == "lead")
    assert git(repo, "show", f"{lead.branch}:claude.txt") == "by claude\n"
    assert git(repo, "show", f"{lead.branch}:codex.txt") == "by codex\n"
    assert git(repo, "show", f"{lead.branch}:notes.txt") == "uncommitted work of the user\n"
    assert git(repo, "status", "--porcelain", "--ignored") == status_before
    assert not (repo / "claude.txt").exists() and not (repo / "codex.txt").exists()
