"""git inside a sandboxed node's worktree: the agent reads it (status, diff, log), also
when the repository lies under /tmp, which the sandbox replaces with a private one; it
cannot write the user's repository (its objects, refs and hooks stay read-only), and the
turn's commit is the engine's as ever."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import events_of, of_type, run_doc, workflow
from gitkit import git, no_git_config, node_git, user_repo

from desktop.runtime import sandbox

__all__ = ["no_git_config"]


async def test_a_sandboxed_agent_reads_git_in_its_worktree_and_cannot_write_the_repository(
        tmp_path: Path, no_git_config) -> None:
    problem = sandbox.bwrap_problem()
    if problem is not None:
        pytest.skip(f"bubblewrap cannot run here: {problem}")
    repo = user_repo(tmp_path / "repo")
    assert str(repo).startswith("/tmp/")  # hidden by the sandbox's own /tmp, but for this
    main = git(repo, "rev-parse", "refs/heads/main")
    doc = workflow({"a": {"workspace": str(repo), "sandbox": {"backend": "process"},
                          "script": [
                              {"edit": {"path": "new.txt", "content": "the agent's\n"}},
                              {"shell": "git status --short new.txt"},
                              {"shell": "git update-ref refs/heads/main HEAD~1 2>&1; echo $?"},
                              {"say": "done"}]}})
    engine = await run_doc(doc, tmp_path / "data")
    assert engine.state.status == "completed"
    status, update = [e["result"]["output"] for e in
                      of_type(events_of(engine.run_dir), "tool.completed")][1:]
    assert status == "?? new.txt\n"
    assert "Read-only file system" in update
    assert git(repo, "rev-parse", "refs/heads/main") == main
    assert git(repo, "show", f"{node_git(engine, 'a').branch}:new.txt") == "the agent's"
