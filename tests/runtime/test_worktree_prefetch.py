"""Worktrees prepared ahead of their nodes' turns: ready when the turn comes, the run's
own, removed with it, and stopped at once (no git left running) with the run."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from pathlib import Path

import pytest
from engine_helpers import until, workflow
from gitkit import git, no_git_config, user_repo

from desktop.runtime import worktree_pool
from desktop.runtime.git_base import base_ref
from desktop.runtime.git_run import Stopped, Stopper
from desktop.runtime.recovery import create_run
from desktop.runtime.worktree_cleanup import remove_run_worktrees
from desktop.runtime.worktree_prefetch import Job, Prefetch
from desktop.runtime.worktrees import adding_mark, open_tree, path_lock

__all__ = ["no_git_config"]
RUN_A = "aaaa1111-0000-4000-8000-000000000000"
RUN_B = "bbbb2222-0000-4000-8000-000000000000"


def _listed(repo: Path) -> dict[Path, str | None]:
    """Every worktree of the repository but its own: path -> checked-out branch."""
    found: dict[Path, str | None] = {}
    for record in git(repo, "worktree", "list", "--porcelain").split("\n\n"):
        lines = dict(line.split(" ", 1) if " " in line else (line, "")
                     for line in record.splitlines())
        if Path(lines["worktree"]) != repo:
            found[Path(lines["worktree"])] = lines.get("branch")
    return found


def _canvas_refs(repo: Path) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/canvas/",
               "refs/canvas/").splitlines()


async def _prepare(repo: Path, run_dir: Path, run_id: str, keys: list[str]) -> Prefetch:
    """The first node's worktree (the base), then the others' prepared in the background."""
    await asyncio.to_thread(open_tree, repo, run_dir, run_id, "first", "first")
    prefetch = Prefetch(run_dir, run_id)
    prefetch.start([Job(key, key, repo) for key in keys])
    await prefetch.wait()
    return prefetch


async def test_prepared_worktrees_hold_the_base_and_their_turn_takes_them_as_they_are(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    run_dir = tmp_path / "runs" / RUN_A
    prefetch = await _prepare(repo, run_dir, RUN_A, ["left", "right"])
    assert prefetch.prepared == ["left", "right"]
    base = git(repo, "rev-parse", base_ref(RUN_A))
    for key in ("left", "right"):
        path = run_dir / "worktrees" / key
        assert not adding_mark(path).exists()
        assert git(path, "rev-parse", "HEAD") == base
        assert git(path, "status", "--porcelain") == ""  # every file written, as committed
        assert (path / "untracked.txt").read_text() == "untracked\n"
        (path / "kept.txt").write_text("a file the turn must find\n")
    tree = await asyncio.to_thread(open_tree, repo, run_dir, RUN_A, "left", "left")
    assert tree is not None and (tree.path / "kept.txt").exists()  # taken, not made again


async def test_a_worktree_its_turn_is_making_is_left_to_the_turn(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    run_dir = tmp_path / "runs" / RUN_A
    path = (run_dir / "worktrees" / "left").absolute()
    with path_lock(path):  # the node's turn is making it
        prefetch = await _prepare(repo, run_dir, RUN_A, ["left", "right"])
    assert prefetch.prepared == ["right"]
    assert not path.exists() and not adding_mark(path).exists()


async def test_another_run_does_not_take_them_and_deleting_the_run_removes_them(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    runs = tmp_path / "runs"
    await _prepare(repo, runs / RUN_A, RUN_A, ["left"])
    prepared = (runs / RUN_A / "worktrees" / "left").absolute()
    other = await asyncio.to_thread(open_tree, repo, runs / RUN_B, RUN_B, "left", "left")
    assert other is not None and other.path != prepared
    assert _listed(repo)[prepared] == "refs/heads/canvas/aaaa1111/left"

    remove_run_worktrees(runs / RUN_A, RUN_A, None)
    assert not any(p.is_relative_to(runs / RUN_A) for p in _listed(repo))
    assert all(ref.split("/")[-2] != "aaaa1111" for ref in _canvas_refs(repo))
    pool = worktree_pool.pool_dir(runs / RUN_A)
    assert all(p == other.path or p.is_relative_to(pool) for p in _listed(repo))


def test_a_stopper_kills_the_command_at_work_and_refuses_the_next(tmp_path: Path) -> None:
    stopper = Stopper()
    started = threading.Event()
    outcome: list[BaseException] = []

    def work() -> None:
        try:  # a command that would outlive the test, the way a big checkout might
            stopper.run(["sh", "-c", f"touch {tmp_path / 'up'}; exec sleep 600"], tmp_path,
                        dict(os.environ))
        except Stopped as exc:
            outcome.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    while not (tmp_path / "up").exists() and thread.is_alive():
        started.wait(0.01)
    stopper.stop()
    thread.join()
    assert len(outcome) == 1
    with pytest.raises(Stopped):
        stopper.run(["true"], tmp_path, dict(os.environ))


STAND_IN = """#!/bin/sh
# The second checkout of a new worktree (the first node's is the first) hangs, as a big
# one would, with its pid written down.
case " $* " in *" reset --quiet --hard "*) ;; *) exec "$REAL_GIT" "$@" ;; esac
n=$(( $(cat "$COUNT" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$COUNT"
if [ "$n" -eq 2 ]; then echo $$ > "$COUNT.pid"; exec sleep 600; fi
exec "$REAL_GIT" "$@"
"""


@pytest.mark.parametrize("how", ["stop", "detach"])
async def test_stopping_the_run_kills_the_preparation_and_leaves_nothing_running(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    repo = user_repo(tmp_path / "project")
    stand_in = tmp_path / "bin" / "git"
    stand_in.parent.mkdir()
    stand_in.write_text(STAND_IN)
    stand_in.chmod(0o755)
    monkeypatch.setenv("REAL_GIT", shutil.which("git") or "git")
    monkeypatch.setenv("COUNT", str(tmp_path / "count"))
    monkeypatch.setenv("PATH", f"{stand_in.parent}:{os.environ['PATH']}")
    ws = {"workspace": str(repo)}
    doc = workflow({"lead": {**ws, "script": [{"say": "lead"}]},
                    "left": {**ws, "script": [{"say": "left"}]},
                    "right": {**ws, "script": [{"say": "right"}]}},
                   [{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"}])
    engine = create_run(doc, tmp_path / "data")
    running = asyncio.create_task(engine.run())
    pid_file = tmp_path / "count.pid"
    await until(lambda: pid_file.exists() and pid_file.read_text().strip() != "", 60)
    pid = int(pid_file.read_text())
    if how == "stop":
        await engine.stop()
        await asyncio.wait_for(running, 60)
        engine.close()
    else:
        await engine.detach()
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    with pytest.raises(ProcessLookupError):  # killed and reaped: no zombie either
        os.kill(pid, 0)
    remove_run_worktrees(engine.run_dir, engine.run_id, engine.state.to_json_dict())
    pool = worktree_pool.pool_dir(engine.run_dir)
    assert all(p.is_relative_to(pool) for p in _listed(repo))
    assert all(ref.split("/")[-2] != engine.run_id[:8] for ref in _canvas_refs(repo))


async def test_a_worktree_path_lock_lives_only_while_it_is_held_or_awaited(
        tmp_path: Path, no_git_config) -> None:
    """A long-running service makes worktrees for many runs: it keeps no lock for a path
    (or a repository) once nobody holds or waits for it, and while somebody does, every
    caller gets that same lock."""
    from desktop.runtime import worktrees

    repo = user_repo(tmp_path / "project")
    run_dir = tmp_path / "runs" / RUN_A
    await _prepare(repo, run_dir, RUN_A, ["left", "right"])
    made = [str((run_dir / "worktrees" / key).absolute()) for key in ("first", "left", "right")]
    assert not set(made) & set(worktrees._path_locks.keys())
    assert str(worktrees.repo_of(repo).common_dir) not in set(worktrees._locks.keys())
    held = path_lock(Path(made[0]))
    with held:
        assert path_lock(Path(made[0])) is held
    assert path_lock(Path(made[1])) is not path_lock(Path(made[2]))
