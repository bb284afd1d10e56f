"""Resuming a failed run takes the failed turn's input again: the turn's inbox items wait
in its node's inbox (as a cut-short turn's do), so once the user has fixed what failed
(here: the agent exits non-zero while a service it needs is down), resume runs the turn
with the same input, marked as a restart, and the run goes on. Before, the input was
dropped with the turn: resume marked the node idle and the run *completed* at once, with
the failed node's work never done."""

from __future__ import annotations

from pathlib import Path

from engine_helpers import events_of, of_type, resume_to_end, run_doc, workflow
from gitkit import git, no_git_config, node_git, user_repo

__all__ = ["no_git_config"]


def _node_id(engine, key: str) -> str:
    return next(i for i, n in engine.state.nodes.items() if n.key == key)


async def test_resuming_a_failed_run_runs_the_failed_turn_again_with_its_input(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "repo")
    registry = tmp_path / "registry-is-up"
    doc = workflow({
        "a": {"workspace": str(repo),
              "script": [{"edit": {"path": "a.txt", "content": "a's work\n"}}]},
        "b": {"workspace": str(repo), "provider": "command", "command": "sh",
              "args": ["-c", f"test -f '{registry}' && echo \"b's work\" > b.txt"],
              "limits": {"retries": 0}},
    }, [{"from": "a", "to": "b"}])
    failed = await run_doc(doc, tmp_path / "data")
    assert failed.state.status == "failed"
    b = _node_id(failed, "b")
    assert failed.state.nodes[b].status == "failed"
    [waiting] = failed.state.inboxes[b]  # a's handoff, kept for the resume
    assert waiting.kind == "handoff" and waiting.to_json_dict()["restart"] is True

    registry.write_text("")  # the user fixes what failed
    engine = await resume_to_end(failed.run_dir)
    assert engine.state.status == "completed"
    assert engine.state.turns[b] == 1 and not engine.state.inboxes.get(b)
    starts = of_type(events_of(engine.run_dir), "turn.status", status="started", nodeId=b)
    assert [s["inboxItemIds"] for s in starts] == [[waiting.id], [waiting.id]]
    assert starts[-1]["restart"] is True
    branch = node_git(engine, "b").branch
    assert git(repo, "show", f"{branch}:b.txt") == "b's work"
    assert git(repo, "show", f"{branch}:a.txt") == "a's work"  # a's handoff brought it
