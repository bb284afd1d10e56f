"""Where a node works: the one rule shared by the turn runner and the views."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path


def workspace_path(workspace: str | None, workflow_dir: Path | None, run_dir: Path) -> Path:
    """A node's working folder (not created): its configured ``workspace``, relative to the
    workflow file's folder (the run folder when the workflow has no file), or else the
    scratch folder ``run_dir/workspace`` that the run's other unconfigured nodes share."""
    if workspace:
        path = Path(workspace).expanduser()
        if not path.is_absolute():
            path = Path(workflow_dir or run_dir) / path
        return path
    return Path(run_dir) / "workspace"


def init_scratch(path: Path) -> None:
    """Make ``path`` a git repository (unless it is one) so each turn's change there shows
    as a diff like in a real project. With no workspace configured, a run's nodes share
    such a scratch folder."""
    if (path / ".git").exists():
        return
    path.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        subprocess.run(["git", "init", "-q", str(path)], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        exclude = path / ".git" / "info" / "exclude"
        if exclude.parent.is_dir():
            exclude.write_text("__pycache__/\n*.pyc\n.pytest_cache/\n")
