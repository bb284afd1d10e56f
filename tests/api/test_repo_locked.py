"""Applying onto the working tree while a git command of the user's holds the index
(``.git/index.lock``, as a checkout or a stash at work has it) is a 409
repository_busy naming the lock, like a rebase: nothing is written, their lock is left
where it is, and a new branch can still be made."""

from __future__ import annotations

from pathlib import Path

from api_helpers import Api
from test_result_api import finished_run, git, project


async def test_the_working_tree_waits_while_the_index_is_locked(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    before = git(repo, "status", "--porcelain")
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    for body in ({}, {"check": True}, {"files": ["left.txt"]}):
        refused = await api.json("POST", f"/api/runs/{run_id}/apply", 409, body)
        assert refused["error"]["code"] == "repository_busy"
        assert str(lock) in refused["error"]["message"]
    assert not (repo / "left.txt").exists() and lock.exists()
    made = await api.json("POST", f"/api/runs/{run_id}/apply", 200, {"branch": "agent/now"})
    assert made["applied"]
    lock.unlink()
    assert git(repo, "status", "--porcelain") == before
    done = await api.json("POST", f"/api/runs/{run_id}/apply", 200, {})
    assert done["applied"] and (repo / "left.txt").read_text() == "left\n"
