"""Where a node of a run works, as its menu on the canvas offers it: the folder (its own
worktree, else its configured workspace or the run's scratch folder), the branch, and
why the folder cannot be opened from here. Path arithmetic over the run's state
(desktop/views/node_folder.py) and one look at the disk."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.views.node_folder import node_folder


@dataclass(frozen=True)
class NodePlace:
    """A node's folder and branch in one run."""

    node_id: str
    label: str
    folder: Path
    worktree: bool
    """Its own worktree (else a folder it may share with other nodes)."""
    branch: str | None
    unreachable: str | None = None
    """Why the folder cannot be opened on this machine (None: it can)."""

    @property
    def what(self) -> str:
        """``worktree`` or ``working folder``: the word the menu uses."""
        return "worktree" if self.worktree else "working folder"


def node_place(state: Mapping[str, Any] | None, run_dir: Path, key: str, *,
               remote: bool = False) -> NodePlace | None:
    """The place of the node whose key (the workflow's node id) or run id is ``key``;
    None when the run has no such node. ``remote``: the run is held by another machine's
    service, so its folders are not on this one."""
    nodes = (state or {}).get("nodes") or {}
    node_id = key if key in nodes else next(
        (nid for nid, node in nodes.items() if isinstance(node, Mapping)
         and node.get("key") == key), None)
    if node_id is None:
        return None
    node = nodes[node_id] if isinstance(nodes[node_id], Mapping) else {}
    git = node.get("git") if isinstance(node.get("git"), Mapping) else {}
    folder = node_folder(state, Path(run_dir), node_id)
    branch = git.get("branch") if isinstance(git.get("branch"), str) else None
    if remote:
        why: str | None = "the run is held by a service on another machine"
    elif not folder.is_dir():
        why = f"{folder} is gone (the run's worktrees go when it is deleted)"
    else:
        why = None
    return NodePlace(node_id, str(node.get("label") or key), folder,
                     isinstance(git.get("workdir"), str), branch, why)


__all__ = ["NodePlace", "node_place"]
