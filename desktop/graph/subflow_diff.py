"""Comparing the workflows two documents' subflow nodes run, not only the documents.

A subflow node names its workflow file (``flow:``, relative to the file of the workflow
that names it); editing that file changes what the workflow does, so two workflows whose
documents are equal but whose subflow files differ are not the same. :func:`side_tree`
reads every subflow file a side uses, nested ones too, as ``validate`` does (a missing
or unreadable file, or a cycle, is a WorkflowLoadError naming the file and the fix);
:func:`diff_sides` compares the two sides, subflow node by subflow node.

Where a side's files come from is the caller's: ``Reader`` reads one workflow file by its
absolute path (from disk, or from git at a revision).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem, WorkflowLoadError
from desktop.graph.flow_diff import FlowDiff, SubflowDiff, diff_flows
from desktop.graph.subflows import subflow_files

Reader = Callable[[Path], WorkflowDocument]
"""Reads the workflow file at an absolute path; WorkflowLoadError when it cannot."""


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a document, the file it was read from (what its
    ``flow:`` paths are relative to), the name it is shown by, and its subflows'."""

    doc: WorkflowDocument
    file: Path
    name: str
    inner: dict[str, Side] = field(default_factory=dict)


def read_from_disk(path: Path) -> WorkflowDocument:
    """A subflow file from disk (``validate``'s words when it is not there)."""
    from desktop.graph.io import read_workflow

    return read_workflow(path)[0]


def side_tree(doc: WorkflowDocument, file: str | os.PathLike[str], read: Reader,
              name: str | None = None, _chain: tuple[Path, ...] = ()) -> Side:
    """``doc`` (read from ``file``) with every subflow it runs, read by ``read``.

    Raises WorkflowLoadError naming the workflow, the node's ``flow`` field and the fix
    when a subflow file is missing or unreadable, or subflows use each other in a cycle.
    """
    here = Path(file).resolve()
    shown = name or str(file)
    chain = (*_chain, here)
    inner: dict[str, Side] = {}
    for where, node, target in subflow_files(doc, here, chain, shown):
        try:
            sub = read(target)
        except WorkflowLoadError as exc:
            raise WorkflowLoadError([Problem(
                where, f"subflow file {node.flow!r} of node {node.id!r} cannot be read "
                f"(looked for {target})",
                "the path is relative to this workflow's folder; check its spelling and "
                "that the file is a workflow", file=shown), *exc.problems]) from None
        inner[node.id] = side_tree(sub, target, read, str(target), chain)
    return Side(doc, here, shown, inner)


def diff_sides(old: Side, new: Side) -> FlowDiff:
    """What ``new`` adds, removes and changes relative to ``old``, inside the workflows
    of subflow nodes both sides have too (a node that runs a subflow on one side only is
    a changed node already)."""
    diff = diff_flows(old.doc, new.doc)
    inner = []
    for node in new.doc.nodes:
        before, after = old.inner.get(node.id), new.inner.get(node.id)
        if before is None or after is None:
            continue
        found = diff_sides(before, after)
        if not found.same:
            inner.append(SubflowDiff(node.id, node.label, node.flow or "", before.name,
                                     after.name, found))
    return replace(diff, subflows=tuple(inner)) if inner else diff
