"""Checks of best-of-N settings (``attempts``, ``judge``) that need the whole workflow.

The shape of ``attempts`` is the node config's own check (desktop/contract/state.py);
here: a judge that names no node, a node judging itself, a judge without attempts, and
attempts of a node whose workspace is shared (its attempts need worktrees of their own).
"""

from __future__ import annotations

from desktop.contract.attempts import USER_JUDGE
from desktop.contract.isolation import Isolation
from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem


def check_attempts(doc: WorkflowDocument) -> list[Problem]:
    """Errors and warnings about the nodes' ``attempts`` and ``judge``."""
    out: list[Problem] = []
    ids = [n.id for n in doc.nodes]
    for key, cfg in doc.node_configs.items():
        base = f"nodeConfigs.{key}"
        if cfg.judge != USER_JUDGE:
            if cfg.attempts is None:
                out.append(Problem(f"{base}.judge", "judge has no effect without attempts",
                                   "set attempts: 2 (or more), or remove judge", "warning"))
            elif cfg.judge == key:
                out.append(Problem(f"{base}.judge", "a node cannot judge its own attempts",
                                   f"set judge to {USER_JUDGE} or another node", "error"))
            elif cfg.judge not in ids:
                out.append(Problem(f"{base}.judge", f"judge {cfg.judge!r} is not a node",
                                   f"use {USER_JUDGE} (you choose in the inbox) or a node id "
                                   f"({', '.join(i for i in ids if i != key) or 'none'})",
                                   "error"))
        shared = doc.isolation_of(key) == Isolation.SHARED.value
        if cfg.attempts is not None and doc.workspace_of(key) and shared:
            out.append(Problem(f"{base}.isolation", "attempts need worktrees of their own, "
                               "and isolation: shared keeps the node in its workspace itself",
                               "remove isolation: shared (or attempts)", "error"))
    return out


__all__ = ["check_attempts"]
