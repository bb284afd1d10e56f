"""``POST /api/worktree-pool/warm``: a workflow opened in the app gets the spare worktree
of each repository its nodes would work in before it is run, and its first run takes the
first node's worktree from the pool; the user's repository is left as it was. Bad bodies
are 422s naming the field; with spares switched off nothing is made."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from api_helpers import Api
from test_result_api import git, project

from desktop.runtime import worktree_pool, worktree_spare

WARM = "/api/worktree-pool/warm"


def looks(repo: Path) -> tuple[str, str, str]:
    """The user's uncommitted work, HEAD and branches."""
    return (git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD"),
            git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/"))


def opened(tmp_path: Path) -> tuple[dict, str]:
    """A workflow in ``flows/`` working on ``../project`` (one node shared, one on a
    folder outside git), and where its file is."""
    doc = {"name": "w", "task": "t", "workspace": "../project",
           "nodes": [{"id": "a", "entry": True}, {"id": "b"}, {"id": "c"}],
           "nodeConfigs": {"a": {"script": [{"say": "on it"}]},
                           "b": {"isolation": "shared"},
                           "c": {"workspace": str(tmp_path / "plain")}},
           "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}]}
    (tmp_path / "plain").mkdir()
    return doc, str(tmp_path / "flows" / "w.flow.yaml")


async def spare_in(slot: Path) -> Path:
    async def made() -> Path:
        while not worktree_pool.waiting(slot):
            await asyncio.sleep(0.05)
        return worktree_pool.waiting(slot)[0]
    return await asyncio.wait_for(made(), 60)


async def test_an_opened_workflow_gets_its_spare_and_its_first_run_takes_it(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(worktree_spare.SWITCH, "1")
    repo = project(tmp_path)
    before = looks(repo)
    doc, path = opened(tmp_path)
    answer = await api.json("POST", WARM, 202, {"workflow": doc, "workflowPath": path})
    assert answer == {"repositories": [str(repo.resolve())]}
    slot = worktree_pool.slot(api.data / worktree_pool.POOL, repo / ".git")
    spare = await spare_in(slot)
    assert str(spare) in git(repo, "worktree", "list")
    admin = (spare / ".git").read_text()
    assert looks(repo) == before

    state = await api.start(doc, workflowPath=path)
    done = await api.finished(state["id"])
    assert done["status"] == "completed"
    tree = api.data / "runs" / state["id"] / "worktrees" / "a"
    assert (tree / ".git").read_text() == admin, "the spare, moved into the run"
    work, head, branches = looks(repo)
    assert (work, head) == before[:2]
    assert branches.split() == sorted([*before[2].split(), f"canvas/{state['id'][:8]}/a"])


async def test_bad_bodies_are_422s_naming_the_field(api: Api, tmp_path: Path) -> None:
    doc, _path = opened(tmp_path)
    for body, field in (({"workflow": {"nodes": 5}}, "workflow.nodes"),
                        ({"workflow": doc, "workflowPath": "flows/w.flow.yaml"}, "workflowPath"),
                        ({"workflowPath": "/x.flow.yaml"}, "workflow")):
        error = (await api.json("POST", WARM, 422, body))["error"]
        assert error["field"] == field, error
    await api.healthy()


async def test_nothing_is_made_where_no_node_gets_a_worktree_or_spares_are_off(
        api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = project(tmp_path)
    doc, path = opened(tmp_path)
    monkeypatch.setenv(worktree_spare.SWITCH, "0")
    assert await api.json("POST", WARM, 202, {"workflow": doc, "workflowPath": path}) == {
        "repositories": []}
    monkeypatch.setenv(worktree_spare.SWITCH, "1")
    # without the file's folder, the relative workspace names no folder
    assert await api.json("POST", WARM, 202, {"workflow": doc}) == {"repositories": []}
    shared = {**doc, "isolation": "shared", "nodeConfigs": {"a": {}}}
    assert await api.json("POST", WARM, 202, {"workflow": shared, "workflowPath": path}) == {
        "repositories": []}
    assert not (api.data / worktree_pool.POOL).exists()
    assert git(repo, "worktree", "list").count("\n") == 0  # the repository's own only
