"""Whether a ``bus post --handoff NODE`` names a node of the run, as the engine reads it.

The engine follows a handoff to the node whose id or key is NODE; from inside a subflow,
a key of the subflow's own file (``reviewer``) names the node of the same subflow first
(desktop/runtime/routing.py). A name that matches none would be dropped when the turn
ends, so the post is refused while the agent can still fix it, with the names it could
use. The run's nodes are its snapshot folded with the events after it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SHOWN = 30
"""Node names listed at most in the refusal (a large run has many)."""


def _key(node: Any, node_id: str) -> str:
    key = node.get("key") if isinstance(node, dict) else None
    return key if isinstance(key, str) and key else node_id


def _names(nodes: dict[str, Any], ref: str, scope: str) -> bool:
    """Whether ``ref`` names a node: by id, by key, or by key inside ``scope``."""
    if ref in nodes:
        return True
    keys = [_key(node, nid) for nid, node in nodes.items()]
    wanted = [f"{scope}/{ref}", ref] if scope else [ref]
    return any(keys.count(name) == 1 for name in wanted)


def handoff_problem(run_dir: Path, ref: str, poster: str | None) -> str | None:
    """Why ``--handoff ref`` names no node of the run in ``run_dir`` (posted by node id
    ``poster``, when known), or None when it names one or the log tells no nodes."""
    from desktop.views.runs import project_run

    try:
        state = project_run(run_dir).state
    except (OSError, ValueError):
        return None  # the log cannot say; posting it is what reports an unreadable log
    nodes = state.get("nodes") if isinstance(state, dict) else None
    if not isinstance(nodes, dict) or not nodes:
        return None  # a log with no node yet (no run.created, or a bare one) cannot say
    own = nodes.get(poster) if poster else None
    scope = _key(own, poster or "").rpartition("/")[0] if own is not None else ""
    if _names(nodes, ref, scope):
        return None
    keys = sorted(_key(node, nid) for nid, node in nodes.items())
    if scope:  # what the poster would write for the nodes of its own subflow
        keys = sorted(k.removeprefix(f"{scope}/") for k in keys)
    listed = ", ".join(keys[:SHOWN]) + (f" and {len(keys) - SHOWN} more"
                                        if len(keys) > SHOWN else "")
    return (f"--handoff {ref!r} names no node of this run (a handoff names its target by "
            f"key or id); the run's nodes: {listed or 'none'}. Nothing was posted")
