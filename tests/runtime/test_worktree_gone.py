"""A run's worktree folder whose ``.git`` file is gone is no worktree any more, and git
run in it must never reach the repository the folder lies inside: a data folder in a
home folder kept in git is the case. Deleting the run then neither lists the user's own
files as the worktree's, nor offers a ``reset --hard``/``clean`` for it, nor cleans it
for the pool; the user's repository is left as it was, and the refusal's own commands
(put the ``.git`` file back, or remove the folder) let the run go."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from engine_helpers import run_doc, workflow
from gitkit import git, no_git_config, user_repo

from desktop.runtime import git_run
from desktop.runtime.run_delete import WorkNotSaved, delete_run_folder
from desktop.runtime.unsaved_work import unsaved_work
from desktop.runtime.worktrees import adding_mark

__all__ = ["no_git_config"]

USER_FILES = ("app.py", "staged.txt", "untracked.txt")


def home_repo(path: Path) -> Path:
    """A home folder kept in git, with the user's work on top of its commit: a changed
    ``app.py``, a staged ``staged.txt`` and an untracked ``untracked.txt``."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "app.py").write_text("print('v1')\n")
    git(path, "add", "app.py")
    git(path, "commit", "-q", "-m", "the user's commit")
    (path / "app.py").write_text("print('v2, not committed')\n")
    (path / "staged.txt").write_text("staged, never committed\n")
    git(path, "add", "staged.txt")
    (path / "untracked.txt").write_text("untracked\n")
    return path


def home_state(home: Path) -> dict[str, object]:
    """What of the user's repository nothing of a run may change (the data folder in it
    aside: it is the run's)."""
    return {"head": git(home, "rev-parse", "HEAD"), "branch": git(home, "symbolic-ref", "HEAD"),
            "index": git(home, "ls-files", "-s"), "staged": git(home, "diff", "--cached"),
            "unstaged": git(home, "diff"),
            "files": {name: (home / name).read_bytes() for name in USER_FILES}}


async def finished_in(home: Path, tmp_path: Path):
    """A finished run of nodes a and b on a project repository, its data folder inside
    the home repository ``home``."""
    repo = user_repo(tmp_path / "project")
    engine = await run_doc(workflow({
        "a": {"workspace": str(repo), "script": [{"edit": {"path": "a.txt", "content": "a\n"}},
                                                 {"handoff": {"to": "b", "message": "go"}}]},
        "b": {"workspace": str(repo), "script": [{"edit": {"path": "b.txt", "content": "b\n"}}]},
    }, [{"from": "a", "to": "b"}]), home / "data")
    assert engine.state.status == "completed"
    return repo, engine


def delete(engine):
    return delete_run_folder(engine.run_dir, engine.run_id, engine.state.to_json_dict())


def command(text: str, label: str) -> str:
    """The one command of the refusal on a ``label:`` line, without its note."""
    [line] = [line.strip().removeprefix(f"{label}: ") for line in text.splitlines()
              if line.strip().startswith(f"{label}: ")]
    return line.split("   (")[0]


async def test_a_worktree_without_its_git_file_is_said_so_never_with_the_user_s_files(
        tmp_path: Path, no_git_config) -> None:
    home = home_repo(tmp_path / "home")
    _repo, engine = await finished_in(home, tmp_path)
    a_tree = engine.run_dir / "worktrees" / "a"
    (a_tree / ".git").unlink()
    before = home_state(home)

    with pytest.raises(WorkNotSaved) as refused:
        delete(engine)
    text = str(refused.value)
    assert home_state(home) == before
    assert engine.run_dir.is_dir() and (a_tree / "a.txt").is_file()
    for name in USER_FILES:
        assert name not in text
    assert "reset" not in text and "clean" not in text
    assert f"{a_tree}: its .git file is gone; it is no longer a worktree" in text
    [gone] = refused.value.unsaved
    assert (gone.path, gone.changes, gone.commits) == (a_tree, [], [])

    # the refusal's keep makes it a worktree again; the run then goes, the home intact
    subprocess.run(command(text, "keep"), shell=True, check=True)
    assert (a_tree / ".git").is_file()
    delete(engine)
    assert not engine.run_dir.exists()
    assert home_state(home) == before


async def test_the_refusal_s_drop_of_such_a_folder_lets_the_run_go(
        tmp_path: Path, no_git_config) -> None:
    home = home_repo(tmp_path / "home")
    repo, engine = await finished_in(home, tmp_path)
    a_tree = engine.run_dir / "worktrees" / "a"
    (a_tree / ".git").unlink()
    before = home_state(home)
    assert unsaved_work(engine.run_dir, engine.run_id, engine.state.to_json_dict())[0].gone
    with pytest.raises(WorkNotSaved) as refused:
        delete(engine)
    drop = command(str(refused.value), "drop")
    assert drop == f"rm -rf {a_tree}"
    subprocess.run(drop, shell=True, check=True)
    delete(engine)
    assert not engine.run_dir.exists()
    assert home_state(home) == before
    assert git(repo, "branch", "--list", "canvas/*") == ""


async def test_a_folder_the_engine_was_making_is_never_cleaned_with_git(
        tmp_path: Path, no_git_config) -> None:
    """A worktree whose add never finished is no one's work and goes with the run: the
    pool's ``reset --hard`` and ``clean`` are not run in it once its ``.git`` is gone."""
    home = home_repo(tmp_path / "home")
    _repo, engine = await finished_in(home, tmp_path)
    a_tree = engine.run_dir / "worktrees" / "a"
    (a_tree / ".git").unlink()
    adding_mark(a_tree).touch()
    before = home_state(home)
    went = delete(engine)
    assert not engine.run_dir.exists()
    assert home_state(home) == before
    assert a_tree not in went.cleanup.pooled


def test_git_kept_to_a_folder_never_takes_the_repository_it_lies_inside(
        tmp_path: Path, no_git_config) -> None:
    home = home_repo(tmp_path / "home")
    before = home_state(home)
    for folder in (home / "data" / "wt", home / "a:b" / "wt"):  # a ':' cuts the ceiling
        folder.mkdir(parents=True)
        assert git_run.git(folder, "rev-parse", "--show-toplevel").text == str(home)
        kept = git_run.git(folder, "status", "--porcelain", here_only=True)
        assert not kept.ok and "not a git repository" in kept.reason()
        with pytest.raises(git_run.GitError):
            git_run.must(folder, "reset", "--hard", here_only=True)
    assert home_state(home) == before
