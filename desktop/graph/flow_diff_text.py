"""A workflow diff in words: one line per change, for the terminal and the inspector."""

from __future__ import annotations

import json
from typing import Any

from desktop.graph.flow_diff import Change, EdgeDiff, FlowDiff, NodeDiff
from desktop.graph.value_diff import change_lines

MAX_VALUE = 80
"""Values longer than this are cut where only the value is named (an edge's label); a
changed one reads where it changed (desktop/graph/value_diff.py; ``--json`` gives them
whole)."""


def value_text(value: Any, limit: int = MAX_VALUE) -> str:
    """A value as JSON on one line (``unset`` for none), cut to ``limit`` characters."""
    if value is None:
        return "unset"
    text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _node_name(node: NodeDiff) -> str:
    return f"node {node.id}" + (f" ({node.label})" if node.label else "")


def _edge_name(edge: EdgeDiff) -> str:
    words = edge.type + (f", {value_text(edge.label)}" if edge.label else "")
    return f"edge {edge.source} → {edge.target} ({words})"


def _changed(head: str, change: Change) -> list[str]:
    """``head`` and the change where they differ (desktop/graph/value_diff.py): a long
    value's line diff goes on the lines below, indented."""
    first, *rest = change_lines(change)
    return [f"{head}{first}", *(f"  {line}" for line in rest)]


def diff_lines(diff: FlowDiff) -> list[str]:
    """Every change: ``+`` added, ``-`` removed, ``~`` changed, one line each, and under
    a long value that changed, the lines where it changed."""
    lines = [x for c in diff.settings for x in _changed("~ workflow: ", c)]
    lines += [f"+ {_node_name(n)}" for n in diff.added_nodes]
    lines += [f"- {_node_name(n)}" for n in diff.removed_nodes]
    lines += [x for n in diff.changed_nodes for c in n.changes
              for x in _changed(f"~ node {n.id}: ", c)]
    lines += [f"+ {_edge_name(e)}" for e in diff.added_edges]
    lines += [f"- {_edge_name(e)}" for e in diff.removed_edges]
    lines += [x for e in diff.changed_edges for c in e.changes
              for x in _changed(f"~ edge {e.id}: ", c)]
    for sub in diff.subflows:  # what the subflow node runs, indented under its name
        lines.append(f"~ subflow {sub.id} ({sub.flow}):")
        lines += [f"    {line}" for line in diff_lines(sub.diff)]
    return lines


def summary(diff: FlowDiff) -> str:
    """``2 nodes added, 1 removed, 1 changed; 1 edge added`` (``no differences``)."""
    parts = []
    for what, groups in (("node", (diff.added_nodes, diff.removed_nodes, diff.changed_nodes)),
                         ("edge", (diff.added_edges, diff.removed_edges, diff.changed_edges))):
        words = [f"{len(g)} {verb}" for g, verb in zip(groups, ("added", "removed", "changed"),
                                                        strict=True) if g]
        if words:
            total = sum(len(g) for g in groups)
            noun = what if total == 1 else what + "s"
            parts.append(f"{noun}: {', '.join(words)}")
    if diff.settings:
        parts.append(f"workflow settings: {len(diff.settings)} changed")
    if diff.subflows:
        parts.append(f"subflows: {len(diff.subflows)} changed")
    return "; ".join(parts) or "no differences"


def item_notes(diff: FlowDiff, kind: str, item_id: str | None, other: str) -> list[str]:
    """What the compare shows for one selected item (``kind`` node, edge or doc):
    how it differs from the workflow named ``other``, one line each."""
    if kind == "node":
        added, changes = [n.id for n in diff.added_nodes], diff.node_changes(item_id or "")
    elif kind == "edge":
        added, changes = [e.id for e in diff.added_edges], diff.edge_changes(item_id or "")
    else:
        return [summary(diff), *(x for c in diff.settings for x in _changed("", c))]
    if item_id in added:
        return [f"Added: {other} has no {kind} {item_id}"]
    # where a long prompt or script changed, as `agent-canvas diff` shows it
    return [x for c in changes for x in _changed("", c)] or [f"The same as in {other}"]
