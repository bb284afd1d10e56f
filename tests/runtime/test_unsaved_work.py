"""A run whose worktrees hold work made after it ended (a file the user edited there, a
commit they made on a node's branch) is not deleted: deleting it would throw that work
away with the worktree and the branch. The refusal changes nothing and says how to keep
the work or drop it; kept (a branch, a stash) or dropped, the run goes. What the run's
own agents did before it ended never holds it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from engine_helpers import run_doc, workflow
from gitkit import git, no_git_config, node_git, user_repo

from desktop.runtime.git_run import IDENTITY
from desktop.runtime.run_delete import WorkNotSaved, delete_run_folder
from desktop.runtime.unsaved_work import ended_at

__all__ = ["no_git_config"]

WHO = {"GIT_AUTHOR_NAME": "U", "GIT_AUTHOR_EMAIL": "u@example.com",
       "GIT_COMMITTER_NAME": "U", "GIT_COMMITTER_EMAIL": "u@example.com"}
"""The user, as git names them."""
LATER = 5.0
"""Seconds after the run's end at which the user's work is dated."""


async def finished(tmp_path: Path, **b_extra):
    """A finished run whose nodes a and b each worked in a worktree of one repository."""
    repo = user_repo(tmp_path / "project")
    engine = await run_doc(workflow({
        "a": {"workspace": str(repo), "script": [{"edit": {"path": "a.txt", "content": "a\n"}},
                                                 {"handoff": {"to": "b", "message": "go"}}]},
        "b": {"workspace": str(repo), **b_extra},
    }, [{"from": "a", "to": "b"}]), tmp_path / "data")
    assert engine.state.status == "completed"
    return repo, engine


def traces(repo: Path, run_dir: Path) -> dict[str, object]:
    """Everything of the run a refused deletion must leave as it was."""
    return {"worktrees": git(repo, "worktree", "list", "--porcelain"),
            "refs": git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
            "files": {p.relative_to(run_dir).as_posix(): p.read_bytes()
                      for p in sorted(run_dir.rglob("*"))
                      if p.is_file() and ".git" not in p.parts}}


def later(engine) -> float:
    """A moment after the run ended, as the user's work would be dated."""
    end = ended_at(engine.run_dir, engine.state.to_json_dict())
    assert end is not None
    return end + LATER


def edit_later(path: Path, text: str, when: float) -> None:
    path.write_text(text)
    os.utime(path, (when, when))


def commit_later(worktree: Path, message: str, when: float) -> str:
    stamp = f"@{int(when)} +0000"
    env = {**os.environ, "GIT_COMMITTER_DATE": stamp, "GIT_AUTHOR_DATE": stamp, **WHO}
    subprocess.run(["git", "-C", str(worktree), "commit", "-qam", message], env=env, check=True)
    return git(worktree, "rev-parse", "HEAD")


def delete(engine):
    return delete_run_folder(engine.run_dir, engine.run_id, engine.state.to_json_dict())


def run_shell(command: str) -> None:
    """Run one of the refusal's commands, with NAME filled in."""
    subprocess.run(command.replace(" NAME ", " kept-by-user "), shell=True, check=True)


async def test_an_edit_and_a_commit_made_after_the_run_hold_it_and_nothing_changes(
        tmp_path: Path, no_git_config) -> None:
    repo, engine = await finished(
        tmp_path, script=[{"edit": {"path": "b.txt", "content": "b\n"}}])
    a_tree, b_tree = (engine.run_dir / "worktrees" / key for key in ("a", "b"))
    when = later(engine)
    edit_later(a_tree / "a.txt", "a, fixed by hand\n", when)
    edit_later(a_tree / "notes.md", "my notes\n", when)
    edit_later(b_tree / "b.txt", "b, fixed\n", when)
    mine = commit_later(b_tree, "my fix on b's branch", when)
    before = traces(repo, engine.run_dir)

    with pytest.raises(WorkNotSaved) as refused:
        delete(engine)
    assert traces(repo, engine.run_dir) == before
    text = str(refused.value)
    assert text.startswith(f"run {engine.run_id[:8]} not deleted, nothing was changed")
    b_branch = node_git(engine, "b").branch
    assert f"{b_branch}: 1 commit made since ({mine[:12]})" in text
    assert f"{a_tree}: 2 uncommitted changes (a.txt, notes.md)" in text
    assert {u.path: (len(u.commits), sorted(u.changes)) for u in refused.value.unsaved} == {
        a_tree: (0, ["a.txt", "notes.md"]), b_tree: (1, [])}

    # the refusal's own commands keep the work; then the run goes and the work stays
    keep = [line.strip().removeprefix("keep: ") for line in text.splitlines()
            if line.strip().startswith("keep: ")]
    assert len(keep) == 2
    for command in keep:
        run_shell(command)
    went = delete(engine)
    assert not engine.run_dir.exists() and len(went.cleanup.removed) == 2
    assert git(repo, "rev-parse", "kept-by-user") == mine
    assert git(repo, "show", "stash@{0}:a.txt") == "a, fixed by hand"
    assert git(repo, "show", "stash@{0}^3:notes.md") == "my notes"


async def test_the_refusal_s_drop_commands_let_the_run_go(tmp_path: Path,
                                                        no_git_config) -> None:
    repo, engine = await finished(
        tmp_path, script=[{"edit": {"path": "b.txt", "content": "b\n"}}])
    b_tree = engine.run_dir / "worktrees" / "b"
    when = later(engine)
    edit_later(b_tree / "b.txt", "first\n", when)
    commit_later(b_tree, "one", when)
    edit_later(b_tree / "b.txt", "second\n", when)
    commit_later(b_tree, "two", when)
    edit_later(b_tree / "scratch.txt", "scratch\n", when)
    with pytest.raises(WorkNotSaved) as refused:
        delete(engine)
    assert "2 commits made since (the newest" in str(refused.value)
    for line in str(refused.value).splitlines():
        if line.strip().startswith("drop: "):
            run_shell(line.strip().removeprefix("drop: "))
    delete(engine)
    assert not engine.run_dir.exists()
    assert git(repo, "branch", "--list", "canvas/*") == ""


async def test_what_the_run_s_own_agents_did_never_holds_it(tmp_path: Path,
                                                             no_git_config) -> None:
    """An agent's own `git commit`, a file written before the run ended (an agent's cut
    short), and a file the commits leave out (a cache) are not the user's work."""
    commit = ("echo own > own.txt && git add own.txt && git -c user.name=Agent "
              "-c user.email=agent@example.com commit -qm 'the agent commits itself'")
    _repo, engine = await finished(tmp_path, script=[{"shell": commit},
                                                     {"shell": "mkdir -p __pycache__ && "
                                                               "echo x > __pycache__/m.pyc"}])
    b_tree = engine.run_dir / "worktrees" / "b"
    assert "the agent commits itself" in git(b_tree, "log", "--format=%s")
    # a cache the user's own tool writes later is not work either (the commits skip it)
    edit_later(b_tree / "__pycache__" / "m.pyc", "y", later(engine))
    # what an agent cut short leaves uncommitted is dated before the run's last event
    edit_later(b_tree / "half.txt", "half written\n", later(engine) - 2 * LATER)
    went = delete(engine)
    assert not engine.run_dir.exists() and len(went.cleanup.removed) == 2


async def test_a_commit_on_a_branch_of_the_run_that_no_worktree_has_holds_it(
        tmp_path: Path, no_git_config) -> None:
    """A branch the user made under the run's prefix is deleted with the run: their
    commit on it would be lost. The drop command moves that branch, not their checkout."""
    repo, engine = await finished(
        tmp_path, script=[{"edit": {"path": "b.txt", "content": "b\n"}}])
    a = node_git(engine, "a").branch
    mine = f"canvas/{engine.run_id[:8]}/mine"
    stamp = f"@{int(later(engine))} +0000"
    env = {**os.environ, "GIT_COMMITTER_DATE": stamp, "GIT_AUTHOR_DATE": stamp, **WHO}
    tree = git(repo, "rev-parse", f"{a}^{{tree}}")
    made = subprocess.run(["git", "-C", str(repo), "commit-tree", tree, "-p", a, "-m",
                           "my commit"], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()
    git(repo, "branch", mine, made)
    user_head = git(repo, "rev-parse", "HEAD")

    with pytest.raises(WorkNotSaved) as refused:
        delete(engine)
    text = str(refused.value)
    assert f"{mine}: 1 commit made since ({made[:12]})" in text
    [drop] = [line.strip().removeprefix("drop: ") for line in text.splitlines()
              if line.strip().startswith("drop: ")]
    assert drop == f"git -C {repo} branch -f {mine} {made[:12]}^"
    run_shell(drop)
    delete(engine)
    assert not engine.run_dir.exists()
    assert git(repo, "branch", "--list", "canvas/*") == ""
    assert git(repo, "rev-parse", "HEAD") == user_head  # their checkout never moved


async def test_a_commit_the_engine_made_is_never_the_user_s(tmp_path: Path,
                                                             no_git_config) -> None:
    """A live run's engine merges a report into a waiting node's branch, committed as
    Agent Canvas, before the event that says so: a look taken between the two must not
    call that merge the user's."""
    _repo, engine = await finished(
        tmp_path, script=[{"edit": {"path": "b.txt", "content": "b\n"}}])
    b_tree = engine.run_dir / "worktrees" / "b"
    edit_later(b_tree / "b.txt", "merged\n", later(engine))
    stamp = f"@{int(later(engine))} +0000"
    subprocess.run(["git", "-C", str(b_tree), "commit", "-qam", "merge"], check=True,
                   env={**os.environ, **IDENTITY, "GIT_COMMITTER_DATE": stamp})
    went = delete(engine)
    assert not engine.run_dir.exists() and len(went.cleanup.removed) == 2
