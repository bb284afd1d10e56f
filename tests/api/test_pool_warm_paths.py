"""``POST /api/worktree-pool/warm`` takes the workflow paths ``POST /api/runs`` takes: one
outside the allowed folders (or reaching out of them through a symlink) is a 403 naming
``workflowPath``, and no repository gets a worktree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from api_helpers import Api
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pool_warm import looks, opened, spare_in
from test_result_api import git, project

from desktop.runtime import worktree_pool, worktree_spare

WARM = "/api/worktree-pool/warm"
OUTSIDE = ("elsewhere/w.flow.yaml", "w.flow.yaml", "flows/../elsewhere/w.flow.yaml",
           "link/w.flow.yaml")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(OUTSIDE))
async def test_a_workflow_path_outside_the_allowed_folders_is_refused_and_nothing_is_made(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    monkeypatch.setenv(worktree_spare.SWITCH, "1")
    repo = tmp_path / "project"
    if not repo.exists():
        project(tmp_path)
        os.symlink(tmp_path, api.flows / "link")  # inside flows, pointing out of it
    worktrees = git(repo, "worktree", "list")
    before = looks(repo)
    path = api.flows / where if where.startswith("link") else tmp_path / where
    # the node works in the repository next to the file, as a workflow beside it would
    doc = {"name": "w", "task": "t", "workspace": os.path.relpath(repo, path.parent),
           "nodes": [{"id": "a", "entry": True}],
           "nodeConfigs": {"a": {"script": [{"say": "on it"}]}}, "edges": []}
    refused = await api.json("POST", WARM, 403, {"workflow": doc, "workflowPath": str(path)})
    assert refused["error"]["field"] == "workflowPath", refused
    assert refused["error"]["code"] == "path_not_allowed"
    # the same path, named alone, is what a run refuses
    await api.json("POST", "/api/runs", 403, {"workflowPath": str(path)})
    assert git(repo, "worktree", "list") == worktrees and looks(repo) == before


async def test_a_workflow_path_inside_the_allowed_folders_still_warms(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(worktree_spare.SWITCH, "1")
    repo = project(tmp_path)
    doc, path = opened(tmp_path)
    answer = await api.json("POST", WARM, 202, {"workflow": doc, "workflowPath": path})
    assert answer == {"repositories": [str(repo.resolve())]}
    await spare_in(worktree_pool.slot(api.data / worktree_pool.POOL, repo / ".git"))
