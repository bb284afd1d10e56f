"""A user's repository for tests that must leave it as it was: git run as the user, and a
repository with a branch of theirs and uncommitted work of every kind."""

from __future__ import annotations

import subprocess
from pathlib import Path

USER = ("-c", "user.name=U", "-c", "user.email=u@example.com")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def own_repo(path: Path) -> Path:
    """main with a commit, a branch of the user's own, a staged change, an unstaged change
    and an untracked file."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "lib.py").write_text("def helper():\n    return 1\n")
    (path / "staged.py").write_text("A = 1\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "init")
    git(path, "branch", "feature")
    (path / "staged.py").write_text("A = 2\n")
    git(path, "add", "staged.py")
    (path / "lib.py").write_text("def helper():\n    return 1\n\n\ndef wip(): ...\n")
    (path / "NOTES.txt").write_text("my notes\n")
    return path
