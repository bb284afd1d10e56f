"""Where a node works: the one rule shared by the turn runner and the views (path
arithmetic over the run's state; nothing is read or made on disk)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


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


def node_folder(state: Mapping[str, Any] | None, run_dir: Path, node_id: str | None) -> Path:
    """The folder node ``node_id`` of a run (folded ``state`` in wire form) works in: its
    working folder in its own worktree once it has one (``nodes.<id>.git.workdir``), else
    :func:`workspace_path` of its config."""
    state = state or {}
    node = (state.get("nodes") or {}).get(node_id or "") or {}
    workdir = (node.get("git") or {}).get("workdir") if isinstance(node, dict) else None
    if isinstance(workdir, str) and workdir:
        return Path(run_dir) / workdir
    config = (state.get("nodeConfigs") or {}).get(node_id or "") or {}
    workflow = state.get("workflowPath")
    return workspace_path(config.get("workspace"), Path(workflow).parent if workflow else None,
                          Path(run_dir))


def folders_worked_in(state: Mapping[str, Any], run_dir: Path) -> list[Path]:
    """The folders the run's nodes that took a turn worked in (folded ``state`` in wire
    form), each once, in the order of the nodes."""
    turns = state.get("turns") or {}
    folders: list[Path] = []
    for node_id in state.get("nodes") or {}:
        if turns.get(node_id):
            folder = node_folder(state, run_dir, node_id)
            if folder not in folders:
                folders.append(folder)
    return folders
