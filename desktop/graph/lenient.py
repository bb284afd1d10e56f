"""Opening a workflow whose fields are wrong, so it can be fixed in the editor.

A misspelled or mistyped field (``provder:``, ``stallThreshold: many``) makes the file
invalid, and :func:`desktop.graph.io.read_workflow` refuses it, as the CLI and the service
must. The editor instead opens the rest: each wrong field is left out of the document and
becomes a problem that names it, its line and the value it had, so the user can put it
right in the inspector. Nothing is written to the file until they save.

A node (or edge) whose id an earlier one already has is not left out, which would hide
it, but renamed (``a`` -> ``a-2``), with a problem that says so: both cards are drawn and
the user picks the id it should have. Edges and ``nodeConfigs`` naming the id stay with
the first node, as nothing in the file says which one they meant.

What cannot be opened stays refused: text that is not YAML, a file that is not a mapping,
a format version newer than this program's, and a field that is missing rather than wrong.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import orjson

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem, WorkflowLoadError
from desktop.graph.fields import locate
from desktop.graph.io import document_of, parse_fields, read_workflow
from desktop.graph.sourcemap import SourceMap
from desktop.graph.unique_ids import Kind, free_id, raw_ids, repeat_problem, repeats
from desktop.store.safe_yaml import read_yaml_text
from desktop.wording import plural

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_ROUNDS = 8  # leaving a field out can reveal another (a nested model now validated)
_SHOWN = 60  # characters of a left-out value quoted in its problem


def _steps(location: str) -> list[str | int]:
    return [int(index) if index else name for name, index in _STEP.findall(location)]


def _take(raw: Any, location: str) -> tuple[bool, Any]:
    """Remove the field at ``location`` (``nodes[1].provder``) from ``raw``; whether it was
    there, and its value."""
    steps = _steps(location)
    if not steps or steps[0] == "version":
        return False, None
    holder = raw
    for step in steps[:-1]:
        try:
            holder = holder[step]
        except (KeyError, IndexError, TypeError):
            return False, None
    last = steps[-1]
    if isinstance(holder, dict) and isinstance(last, str) and last in holder:
        return True, holder.pop(last)
    return False, None


def _left_out(problem: Problem, value: Any) -> Problem:
    try:  # as the file spells it (true, null, "text"), not as Python does (True, None)
        shown = orjson.dumps(value).decode()
    except TypeError:  # a value JSON has no word for (a date YAML read)
        shown = repr(value)
    shown = shown if len(shown) <= _SHOWN else shown[:_SHOWN - 1] + "…"
    note = f"left out when the file was opened (it was {shown}); saving writes it without it"
    hint = f"{problem.hint}; {note}" if problem.hint else note
    return Problem(problem.location, problem.message, hint, "error", problem.line,
                   problem.file)


def _renamed(raw: dict[str, Any], smap: SourceMap, source: str) -> list[Problem]:
    """Give each node and edge whose id an earlier one has a free id (in ``raw``); a
    problem for each, located at its line."""
    out: list[Problem] = []
    kinds: tuple[tuple[Kind, str], ...] = (("node", "nodes"), ("edge", "edges"))
    for kind, field in kinds:
        ids = raw_ids(raw, kind)
        taken = {i for i in ids if isinstance(i, str)}
        for index, first in repeats(ids):
            old = str(ids[index])
            new = free_id(old, taken)
            taken.add(new)
            raw[field][index]["id"] = new
            problem = repeat_problem(kind, index, first, old, new)
            stays = (f"; edges and nodeConfigs naming {old!r} stay with {field}[{first}]"
                     if kind == "node" else "")
            note = (f"renamed {new!r} when the file was opened{stays}; saving writes the "
                    "new id, so rename it now if another suits it better")
            out.append(Problem(problem.location, problem.message, note, "error"))
    return locate(out, smap, source)


def is_renamed(problem: Problem) -> bool:
    """Whether ``problem`` is an id renamed on opening (else a field left out)."""
    return problem.hint.startswith("renamed ")


def repairs_text(problems: list[Problem]) -> str:
    """What opening did to the file, in words: ``2 wrong fields left out and 1 repeated
    id renamed``."""
    renamed = sum(1 for p in problems if is_renamed(p))
    parts = [plural(len(problems) - renamed, "wrong field") + " left out"] \
        if len(problems) > renamed else []
    if renamed:
        parts.append(plural(renamed, "repeated id") + " renamed")
    return " and ".join(parts)


def open_workflow(path: str | os.PathLike[str]) -> tuple[WorkflowDocument, list[Problem]]:
    """The workflow at ``path`` and the wrong fields left out of it (none for a valid
    file); WorkflowLoadError when it cannot be opened even so."""
    try:
        return read_workflow(path)[0], []
    except WorkflowLoadError as refused:
        first = refused
    try:
        text = read_yaml_text(Path(path))
    except (OSError, ValueError):
        raise first from None
    return _repaired(text, str(path), first)


def _repaired(text: str, source: str, first: WorkflowLoadError
              ) -> tuple[WorkflowDocument, list[Problem]]:
    raw, smap = parse_fields(text, source)
    left = _renamed(raw, smap, source)
    for _ in range(_ROUNDS):
        try:
            return document_of(raw, smap, source), sorted(left, key=lambda p: p.line or 0)
        except WorkflowLoadError as exc:
            taken = [(p, *_take(raw, p.location)) for p in exc.problems]
            if not all(found for _p, found, _v in taken):
                raise first from None
            left += [_left_out(p, value) for p, _found, value in taken]
    raise first


__all__ = ["is_renamed", "open_workflow", "repairs_text"]
