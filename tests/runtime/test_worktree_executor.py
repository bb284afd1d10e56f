"""Nodes in their own worktrees on a remote executor (the worker in this process,
loopback_link.py): each node's worktree travels to the worker, its change comes back as
a commit on its branch, the diffs stay exact per node, and the result applies."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import run_doc
from executor_checks import example
from gitkit import (
    diffs_by_node,
    fingerprint,
    git,
    no_git_config,
    node_git,
    patch_files,
    tree_files,
    user_repo,
)
from loopback_link import install
from test_isolation import EXAMPLE, on_repo

from desktop.graph.resources import examples_dir
from desktop.runtime.result_apply import apply_result
from desktop.runtime.run_result import find_result

__all__ = ["no_git_config"]
RAY = {"kind": "ray", "address": "ray://cluster.example:10001"}


@pytest.fixture
def worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    return install(monkeypatch, tmp_path / "worker")


async def test_worktrees_travel_to_the_worker_and_come_back_as_commits_on_each_branch(
        tmp_path: Path, worker, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    doc = on_repo(example(examples_dir() / EXAMPLE, RAY), repo)
    engine = await run_doc(doc, tmp_path / "data", approve=True)
    assert engine.state.status == "completed"
    assert worker.hosts and fingerprint(repo) == before
    own = {"impl-text": {"text_utils.py", "test_text_utils.py"},
           "impl-num": {"num_utils.py", "test_num_utils.py"}}
    diffs = diffs_by_node(engine)
    assert set(diffs) == set(own)
    for key, [art] in diffs.items():
        assert patch_files((engine.run_dir / art["path"]).read_text()) == own[key]
        assert git(repo, "rev-parse", art["branch"]) == art["commit"]
        assert set(git(repo, "diff", "--name-only", f"{art['commit']}^", art["commit"])
                   .splitlines()) == own[key]
    lead = node_git(engine, "orchestrator")
    assert own["impl-text"] | own["impl-num"] <= set(tree_files(repo, lead.branch))
    result = find_result(engine.run_dir)
    assert result.branch == lead.branch
    outcome = apply_result(result, branch="from-the-cluster")
    assert outcome.applied and set(outcome.files) == own["impl-text"] | own["impl-num"]
