"""A workflow opened in the app has the spare worktree of its repository made by the
data folder's service a moment later, before anything is run, so its first Run takes the
first node's worktree from the pool; an edit that leaves where the nodes work as it was
asks nothing more, and one that moves them asks again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from service_process import ServeProcess

from desktop.runtime import worktree_pool, worktree_spare


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=U", "-c", "user.email=u@x", *args],
                          cwd=repo, capture_output=True, text=True, check=True).stdout


def repository(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "lib.txt").write_text("committed\n")
    git(path, "add", "lib.txt")
    git(path, "commit", "-q", "-m", "init")
    (path / "lib.txt").write_text("committed\nwork in progress\n")
    return path


def test_an_opened_workflow_has_its_spare_made_and_asks_again_when_its_folder_moves(
        qloop, until, editor_window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(worktree_spare.SWITCH, "1")  # the service inherits it
    service = ServeProcess(tmp_path / "data")
    try:
        monkeypatch.setenv("AGENT_CANVAS_DATA_DIR", str(service.data_dir))
        first, second = repository(tmp_path / "one"), repository(tmp_path / "two")
        flow = tmp_path / "flows" / "w.flow.yaml"
        flow.parent.mkdir()
        flow.write_text(yaml.safe_dump({
            "name": "w", "task": "t", "workspace": "../one",
            "nodes": [{"id": "a", "entry": True}], "edges": []}))
        window = editor_window  # asked at once: the data folder is read when it asks
        assert window.files.open_path(flow)
        pool = service.data_dir / worktree_pool.POOL
        made = [worktree_pool.slot(pool, repo / ".git") for repo in (first, second)]
        qloop.run_until_complete(until(lambda: bool(worktree_pool.waiting(made[0])), 60))
        asked = window.pool_warmer.task
        assert asked is not None and asked.done() and not worktree_pool.waiting(made[1])

        window.editor.set_meta(name="renamed")  # where the nodes work is as it was
        qloop.run_until_complete(until(lambda: not window.pool_warmer._timer.isActive(),
                                            10))
        assert window.pool_warmer.task is asked
        window.editor.set_meta(workspace="../two")
        qloop.run_until_complete(until(lambda: bool(worktree_pool.waiting(made[1])), 60))
        assert git(first, "status", "--porcelain") == " M lib.txt\n"
    finally:
        service.stop()
