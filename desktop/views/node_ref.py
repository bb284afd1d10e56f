"""A node or an approval as a person types it at a console: a node's id, key or label, or
the start of its id; an approval's id or the start of it.

Only the consoles (``agent-canvas run``'s stdin, and the same over the service) take these
conveniences; every command that reaches an engine or the API names a node exactly, by
id or key (desktop/runtime/control.py). A name that could mean more than one node is
refused with the candidates listed, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from desktop.contract.state import NodeState, RunState


def _named(node: NodeState) -> str:
    return f"{node.label} ({node.key or node.id[:8]})"


def exact_node(state: RunState, ref: str) -> str | None:
    """The id of the node whose id or key is ``ref``, else None: what engines and the API
    take."""
    if ref in state.nodes:
        return ref
    hits = [nid for nid, node in state.nodes.items() if node.key == ref]
    return hits[0] if len(hits) == 1 else None


def console_node(state: RunState, ref: str) -> str:
    """The id of the one node ``ref`` names, trying in turn: its id, its key, its label,
    its label in any case, the start of its id. ValueError when it names none, or more
    than one at the first rule that matches (the message lists them)."""
    if ref in state.nodes:
        return ref
    rules: list[Callable[[str, NodeState], bool]] = [
        lambda nid, n: n.key == ref,
        lambda nid, n: n.label == ref,
        lambda nid, n: (n.label or "").lower() == ref.lower(),
        lambda nid, n: bool(ref) and nid.startswith(ref),
    ]
    for rule in rules:
        hits = [nid for nid, node in state.nodes.items() if rule(nid, node)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            names = ", ".join(_named(state.nodes[nid]) for nid in hits)
            raise ValueError(f"{ref!r} could be any of {len(hits)} nodes: {names}; "
                             "give its key or id")
    raise ValueError(f"no node matches {ref!r}; `status` lists the nodes")


def console_approval(pending: Iterable[str], ref: str) -> str | None:
    """The id of the one pending approval whose id is ``ref`` or starts with it; None when
    none does. ValueError, listing them, when it starts more than one."""
    ids = list(pending)
    if ref in ids:
        return ref
    hits = [approval for approval in ids if ref and approval.startswith(ref)]
    if len(hits) > 1:
        raise ValueError(f"{ref!r} matches {len(hits)} pending approvals: {', '.join(hits)}; "
                         "type more of the id")
    return hits[0] if hits else None


__all__ = ["console_approval", "console_node", "exact_node"]
