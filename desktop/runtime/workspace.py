"""Where a node works: the one rule shared by the turn runner and the views."""

from __future__ import annotations

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
