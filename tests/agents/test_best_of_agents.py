"""Best-of-N and budgets with the real CLIs: a node tries once with Claude Code and once
with Codex in the user's git repository and a judge node keeps one attempt; a token
budget stops a Claude Code run that the model keeps in a loop of tool calls."""

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


def user_repo(tmp_path: Path) -> Path:
    """A repository with one commit and an uncommitted change of the user's."""
    repo = committed_project(tmp_path)
    (repo / "README.md").write_text("the user's project\nwith an uncommitted line\n")
    return repo


def trail(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] in ("turn.status", "agent.error", "node.log",
                                               "attempt.completed")][-6:]


async def test_claude_and_codex_attempts_the_judge_picks_codex_and_only_its_work_goes_on(
        server, offline_registry, tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    server.script = Script.from_data({"agents": {
        "impl:anthropic": [{"shell": "echo by claude > claude.txt"},
                           {"text": "Wrote claude.txt."}],
        "impl:responses": [{"shell": "echo by codex > codex.txt"},
                           {"text": "Wrote codex.txt."}],
    }})
    doc = WorkflowDocument.model_validate({
        "name": "best of two agents", "task": "Write your file.",
        "nodes": [{"id": "impl", "label": "Implementer", "provider": "claude", "entry": True},
                  {"id": "referee", "label": "Referee", "provider": "scripted"}],
        "nodeConfigs": {
            "impl": {"workspace": str(repo), "judge": "referee",
                     "attempts": [{"provider": "claude"}, {"provider": "codex"}]},
            "referee": {"script": [{"say": "2: codex.txt is the one to keep."}]}},
        "edges": []})
    status_before = git(repo, "status", "--porcelain", "--ignored")
    engine = create_run(doc, tmp_path / "data", options=EngineOptions())
    try:
        status = await asyncio.wait_for(engine.run(), 240)
    finally:
        engine.close()
    events = list(EventReader(engine.run_dir).iter_events())
    assert str(status) == "completed", trail(events)
    completed = {e["attemptIndex"]: e["summary"] for e in events
                 if e["type"] == "attempt.completed"}
    assert completed[1]["ok"] and completed[2]["ok"], completed
    [made] = [e for e in events if e["type"] == "choice.made"]
    assert made["attemptIndex"] == 2 and made["by"] == "referee"
    branch = engine.state.nodes[engine.find_node("impl")].git.branch
    assert git(repo, "show", f"{branch}:codex.txt") == "by codex\n"
    assert git(repo, "ls-tree", "--name-only", branch, "claude.txt") == ""
    # the losing attempt stays: its events, its commit and its branch
    loser = completed[1]
    assert any(e.get("attemptIndex") == 1 and e["type"] == "tool.completed" for e in events)
    assert git(repo, "show", f"{loser['commit']}:claude.txt") == "by claude\n"
    assert git(repo, "rev-parse", loser["branch"]).strip() == loser["commit"]
    # the user's uncommitted change is in the attempts' base and still in their checkout
    assert "with an uncommitted line" in git(repo, "show", f"{branch}:README.md")
    assert (repo / "README.md").read_text().endswith("with an uncommitted line\n")
    assert git(repo, "status", "--porcelain", "--ignored") == status_before


async def test_a_token_budget_stops_claude_code_looping_on_tool_calls(
        server, offline_registry, tmp_path: Path) -> None:
    # Usage arrives per model reply (250 tokens here), so the run stops one reply past the
    # limit: 10 250 of 10 100, with room for one more reply already in the pipe. Each reply
    # streams over about 0.15 s, as a model's would, not in one burst.
    per_reply, limit = 250, 10_100
    server.script = Script.from_data({"agents": {"looper": [
        {"shell": "echo again", "usage": {"input": 200, "output": 50}, "delay": 0.03,
         "times": 200}]}})
    doc = WorkflowDocument.model_validate({
        "name": "a loop", "task": "Keep going.",
        "nodes": [{"id": "looper", "label": "Looper", "provider": "claude", "entry": True}],
        "nodeConfigs": {"looper": {"budget": {"maxTokens": limit}}}, "edges": []})
    engine = create_run(doc, tmp_path / "data", options=EngineOptions())
    try:
        status = await asyncio.wait_for(engine.run(exit_on_pause=True), 240)
    finally:
        engine.close()
    events = list(EventReader(engine.run_dir).iter_events())
    assert str(status) == "paused", trail(events)
    [over] = [e for e in events if e["type"] == "run.budget_exceeded"]
    assert over["limit"] == "maxTokens" and over["nodeId"] == engine.find_node("looper")
    used = engine.state.usage["inputTokens"] + engine.state.usage["outputTokens"]
    assert limit <= used <= limit * 1.05, (used, len(server.model_requests("looper")))
    assert len(server.model_requests("looper")) * per_reply < limit * 1.1
    stopped = [e for e in events if e["type"] == "turn.status" and e["status"] == "cancelled"]
    assert stopped and "budget" in stopped[0]["reason"]
