"""Every view of a run in worktrees shows its branches: each node's record counts the commits
it is ahead of the base, the conversation marks the merges, ``runs show`` and the run list
give each branch and the result branch with whether and where it was applied."""

from __future__ import annotations

import json
from pathlib import Path

from engine_helpers import events_of, run_doc
from gitkit import git, no_git_config, user_repo

from desktop.cli import main
from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.runtime.result_apply import apply_result
from desktop.runtime.run_result import find_result
from desktop.views.conversation import Conversation
from desktop.views.format import preview
from desktop.views.result import latest_result_node, result_node
from desktop.views.run_list import list_runs
from desktop.views.runs import open_run

__all__ = ["no_git_config"]
EXAMPLE = "orchestrator-two-implementers.flow.yaml"


def _on_repo(doc, repo: Path):
    for node in doc.nodes:
        doc.node_configs[node.id] = doc.config(node.id).model_copy(
            update={"workspace": str(repo)})
    return doc


async def _example_run(tmp_path: Path):
    repo = user_repo(tmp_path / "project")
    engine = await run_doc(_on_repo(load_workflow(examples_dir() / EXAMPLE), repo),
                           tmp_path / "data")
    assert engine.state.status == "completed"
    return repo, engine


def _count(repo: Path, base: str, rev: str) -> int:
    return int(git(repo, "rev-list", "--count", f"{base}..{rev}"))


async def test_each_node_records_how_many_commits_its_branch_is_ahead_of_the_base(
        tmp_path: Path, no_git_config) -> None:
    repo, engine = await _example_run(tmp_path)
    records = {n.key: n.git for n in engine.state.nodes.values()}
    assert all(record is not None for record in records.values())
    for key, record in records.items():
        assert record.ahead == _count(repo, record.base, record.branch), key
    assert records["impl-text"].ahead == records["impl-num"].ahead == 1  # one turn each
    # the orchestrator wrote nothing: its commits are the two it merged, and the merges
    assert records["orchestrator"].ahead >= 2

    # the count is recorded as it changes: after the implementer's turn's commit (before
    # the turn ends), and after each merge into the orchestrator's worktree
    events = events_of(engine.run_dir)
    ids = {n.key: n.id for n in engine.state.nodes.values()}
    for key in ("impl-text", "impl-num"):
        mine = [e for e in events if e.get("nodeId") == ids[key]]
        counted = [i for i, e in enumerate(mine) if e["type"] == "node.patch"
                   and (e["patch"].get("git") or {}).get("ahead") == 1]
        done = [i for i, e in enumerate(mine) if e["type"] == "turn.status"
                and e["status"] == "completed"]
        assert counted and done and counted[0] < done[0], key
    lead = [e for e in events if e.get("nodeId") == ids["orchestrator"]]
    merged_at = [i for i, e in enumerate(lead) if e["type"] == "node.progress"
                 and e["message"].startswith("merged ")]
    counts = [(i, e["patch"]["git"]["ahead"]) for i, e in enumerate(lead)
              if e["type"] == "node.patch" and "ahead" in (e["patch"].get("git") or {})]
    assert len(merged_at) == 2
    for at in merged_at:  # a count follows each merge, larger than the one before it
        before = [c for i, c in counts if i < at]
        after = [c for i, c in counts if i > at]
        assert after and after[0] > (before[-1] if before else 0)
    ahead_only = next(e for e in events if e["type"] == "node.patch"
                      and set(e["patch"].get("git") or {}) == {"ahead"})
    assert preview(ahead_only) == "its branch is 1 commit ahead of the run's base"

    # the conversation marks each merge into the orchestrator's worktree
    conv = Conversation()
    conv.extend(events)
    marks = [e for e in conv.entries if e.kind == "system" and "merged" in e.title]
    assert sorted(e.title for e in marks) == [
        "Orchestrator merged the work reported by Implementer (numbers)",
        "Orchestrator merged the work reported by Implementer (text)"]
    lead_branch = records["orchestrator"].branch
    assert all(e.node == ids["orchestrator"] and f"into {lead_branch}" in e.text
               for e in marks)


async def test_runs_show_and_the_run_list_give_the_branches_and_the_applied_result(
        tmp_path: Path, no_git_config, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    _repo, engine = await _example_run(tmp_path)
    data, run8 = str(tmp_path / "data"), engine.run_id[:8]
    state = open_run(engine.run_dir)
    found = latest_result_node(state, engine.run_dir)
    assert found is not None
    assert found == result_node(state, events_of(engine.run_dir))
    lead = found.git
    assert found.key == "orchestrator" and lead is not None

    assert main(["runs", "show", run8, "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert "branch" in out
    for node in engine.state.nodes.values():
        assert f"{node.git.branch} (+{node.git.ahead})" in out
    assert f"result: branch {lead.branch} (node orchestrator), not applied" in out
    [summary] = list_runs(tmp_path / "data")
    assert summary.result is not None and summary.result.branch == lead.branch
    assert summary.result.applied == []

    outcome = apply_result(find_result(engine.run_dir), branch="from-the-run")
    assert outcome.applied
    assert main(["runs", "show", run8, "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert f"result: branch {lead.branch} (node orchestrator), applied as branch " \
           f"from-the-run in {lead.repo} at " in out
    assert main(["runs", "show", run8, "--json", "--data-dir", data]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["result"]["branch"] == lead.branch
    assert [(a["target"], a["branch"]) for a in shown["result"]["applied"]] == \
        [("branch", "from-the-run")]
    [summary] = list_runs(tmp_path / "data")
    assert summary.result is not None
    assert summary.result.applied[-1]["target"] == "branch"
    assert summary.result.applied[-1]["branch"] == "from-the-run"
    assert main(["runs", "list", "--json", "--data-dir", data]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["result"]["branch"] == lead.branch


async def test_a_run_without_worktrees_shows_no_branch_column_and_no_result(
        tmp_path: Path, capsys) -> None:
    doc = load_workflow(examples_dir() / EXAMPLE).model_copy(update={"isolation": None})
    # unset, the nodes share the run's scratch folder
    engine = await run_doc(doc, tmp_path / "data")
    assert main(["runs", "show", engine.run_id[:8], "--data-dir", str(tmp_path / "data")]) == 0
    out = capsys.readouterr().out
    assert "branch" not in out and "result:" not in out
    [summary] = list_runs(tmp_path / "data")
    assert summary.result is None
