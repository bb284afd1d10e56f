"""The user's git repository for the agent tests that run in worktrees (best-of-N and
parallel implementers): git run as the user, and a project with one commit."""

import subprocess
from pathlib import Path

USER = ("-c", "user.name=The User", "-c", "user.email=user@example.com")


def git(repo: Path, *args: str) -> str:
    """git in ``repo`` as the user (their identity given on the command line); its output."""
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def committed_project(tmp_path: Path) -> Path:
    """``tmp_path/project``: a repository whose one commit holds a README.md."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README.md").write_text("the user's project\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "start")
    return repo
