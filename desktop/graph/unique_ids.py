"""Node and edge ids used more than once.

Everything names a node by its id: edges (``from``/``to``), ``nodeConfigs``, the run's
node UUIDs (:func:`desktop.graph.document.node_uuid`) and the editor's cards. A second
node with an id already taken cannot be told apart from the first, so a file with one
is refused when it is read (:func:`desktop.graph.io.document_of`), by the CLI and the
service alike, and the editor opens it with the later one renamed
(:mod:`desktop.graph.lenient`). Edge ids name a run's edges in the same way.
:func:`desktop.graph.validate.validate` reports the same problem, in the same words,
for a document built in code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from desktop.graph.errors import Problem

Kind = Literal["node", "edge"]
_LIST: dict[Kind, str] = {"node": "nodes", "edge": "edges"}


def repeats(ids: Sequence[object]) -> list[tuple[int, int]]:
    """``(index, index of the first with that id)`` for every id that an earlier one has;
    ``None`` (an edge without an id yet) and non-strings repeat nothing."""
    first: dict[str, int] = {}
    out: list[tuple[int, int]] = []
    for i, item_id in enumerate(ids):
        if not isinstance(item_id, str):
            continue
        if item_id in first:
            out.append((i, first[item_id]))
        else:
            first[item_id] = i
    return out


def free_id(base: str, taken: Iterable[str]) -> str:
    """``base-2``, ``base-3``, ...: the first that none of ``taken`` is (``base`` cut so
    the result stays within a node id's 64 characters)."""
    used = set(taken)
    stem = base[:58]
    n = 2
    while f"{stem}-{n}" in used:
        n += 1
    return f"{stem}-{n}"


def repeat_problem(kind: Kind, index: int, first: int, item_id: str,
                   suggestion: str) -> Problem:
    """The problem of ``nodes[index]`` (or ``edges[index]``) having the id of ``first``."""
    where = _LIST[kind]
    if kind == "node":
        fix = (f"give this node an id of its own (e.g. {suggestion!r}) and point the "
               "edges meant for it at the new id")
    else:
        fix = f"give this edge an id of its own (e.g. {suggestion!r}), or delete its `id:`"
    return Problem(f"{where}[{index}].id",
                   f"duplicate {kind} id {item_id!r} (also {where}[{first}])", fix)


def repeat_problems(kind: Kind, ids: Sequence[object]) -> list[Problem]:
    """One problem for each id in ``ids`` that an earlier one has."""
    taken = [i for i in ids if isinstance(i, str)]
    return [repeat_problem(kind, i, first, str(ids[i]), free_id(str(ids[i]), taken))
            for i, first in repeats(ids)]


def raw_ids(raw: dict[str, Any], kind: Kind) -> list[object]:
    """The ``id`` of each entry of a file's ``nodes`` (or ``edges``) list, as written
    (None where an entry has none or is not a mapping)."""
    items = raw.get(_LIST[kind])
    if not isinstance(items, list):
        return []
    return [item.get("id") if isinstance(item, dict) else None for item in items]


def raw_repeat_problems(raw: dict[str, Any]) -> list[Problem]:
    """Every node and edge id a file's fields use twice."""
    return [*repeat_problems("node", raw_ids(raw, "node")),
            *repeat_problems("edge", raw_ids(raw, "edge"))]
