"""Subflows: a node of kind ``subflow`` runs another ``*.flow.yaml`` as one step.

A workflow references its subflow files (``flow:``, relative to its own file); it
never copies them, so editing a subflow file changes every workflow that uses it
from its next run on. :func:`resolve_subflows` reads the files a document uses,
recursively, and refuses a missing file and a cycle (A uses B uses A). A run
records what it read (see :mod:`desktop.runtime.run_setup`), so resuming, forking
or replaying it never reads the files again.

Inside a run, a node ``implementer`` of subflow node ``review`` has the key
``review/implementer`` (nested: ``outer/review/implementer``): :func:`scoped_key`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from desktop.graph.document import WorkflowDocument, WorkflowNode
from desktop.graph.errors import Problem, WorkflowLoadError

SCOPE_SEPARATOR = "/"


@dataclass(frozen=True)
class Subflow:
    """The workflow one subflow node runs, as read from its file."""

    node_id: str
    path: Path
    doc: WorkflowDocument
    inner: dict[str, Subflow] = field(default_factory=dict)


def scoped_key(scope: str, key: str) -> str:
    """``key`` inside the subflow node whose scoped key is ``scope`` ("" at the top)."""
    return f"{scope}{SCOPE_SEPARATOR}{key}" if scope else key


def scope_of(key: str) -> str:
    """The scope a scoped key lives in: ``a/b/c`` -> ``a/b``; ``c`` -> ``""``."""
    return key.rpartition(SCOPE_SEPARATOR)[0]


def has_subflows(doc: WorkflowDocument) -> bool:
    """Whether any node of ``doc`` is a subflow node."""
    return any(node.kind == "subflow" for node in doc.nodes)


def subflow_path(parent_file: str | os.PathLike[str], flow: str) -> Path:
    """The file ``flow:`` names, relative to the folder of the workflow that names it."""
    return (Path(parent_file).resolve().parent / flow).resolve()


def rebase_subflows(doc: WorkflowDocument, old_file: str | os.PathLike[str] | None,
                    new_file: str | os.PathLike[str]) -> list[str]:
    """Point each subflow node's ``flow:`` of ``doc`` (saved so far as ``old_file``, None
    when it had no file) at the same file from ``new_file``'s folder, in place, so Save As
    elsewhere keeps the references working; the ids of the nodes changed."""
    changed = []
    for node in doc.nodes:
        if node.kind != "subflow" or not node.flow:
            continue
        if old_file is None and not Path(node.flow).is_absolute():
            continue  # relative to no file yet: nothing says where it pointed
        target = subflow_path(old_file, node.flow) if old_file is not None \
            else Path(node.flow)
        again = flow_reference(target, new_file)
        if again != node.flow:
            node.flow = again
            changed.append(node.id)
    return changed


def flow_reference(target: str | os.PathLike[str],
                   parent_file: str | os.PathLike[str] | None) -> str:
    """What ``flow:`` says for subflow file ``target``: its path relative to the folder of
    the workflow file that names it, or absolute while that workflow has no file yet
    (:func:`subflow_path` reads both back to ``target``)."""
    chosen = Path(target).resolve()
    if parent_file is None:
        return chosen.as_posix()
    folder = Path(parent_file).resolve().parent
    try:
        return Path(os.path.relpath(chosen, folder)).as_posix()
    except ValueError:  # another drive (Windows): no relative path leads there
        return chosen.as_posix()


def subflow_files(doc: WorkflowDocument, here: Path, chain: tuple[Path, ...], shown: str
                  ) -> Iterator[tuple[str, WorkflowNode, Path]]:
    """Each subflow node of ``doc`` (read from ``here``) with its ``flow`` field's name and
    the file it names; WorkflowLoadError (in the file ``shown``) when that file is one of
    ``chain``, the workflows that led here: subflows that use each other in a cycle."""
    for index, node in enumerate(doc.nodes):
        if node.kind != "subflow" or not node.flow:
            continue
        where = f"nodes[{index}].flow"
        target = subflow_path(here, node.flow)
        if target in chain:
            names = " uses ".join(p.name for p in (*chain[chain.index(target):], target))
            raise WorkflowLoadError([Problem(
                where, f"subflows form a cycle: {names}",
                "a workflow cannot run itself; point `flow:` at another file", file=shown)])
        yield where, node, target


def resolve_subflows(doc: WorkflowDocument, path: str | os.PathLike[str],
                     _chain: tuple[Path, ...] = ()) -> dict[str, Subflow]:
    """The subflows ``doc`` (read from ``path``) uses, by node id, each with its own.

    Raises WorkflowLoadError naming the file and the field when a subflow file is
    missing or unreadable, or when subflows use each other in a cycle.
    """
    from desktop.graph.io import read_workflow

    here = Path(path).resolve()
    chain = (*_chain, here)
    found: dict[str, Subflow] = {}
    for where, node, target in subflow_files(doc, here, chain, str(here)):
        if not target.is_file():
            raise WorkflowLoadError([Problem(
                where, f"subflow file {node.flow!r} not found (looked for {target})",
                "the path is relative to this workflow's folder; check its spelling",
                file=str(here))])
        inner_doc, _lines = read_workflow(target)
        found[node.id] = Subflow(node.id, target, inner_doc,
                                 resolve_subflows(inner_doc, target, chain))
    return found


def check_subflows(doc: WorkflowDocument, path: str | os.PathLike[str]) -> list[Problem]:
    """Every problem of the subflow files ``doc`` uses, each named by its own file (and
    line), or the missing file or cycle that stops them being read; [] when all is well."""
    from desktop.graph.validate import check_file

    try:
        tree = resolve_subflows(doc, path)
    except WorkflowLoadError as exc:
        return exc.problems
    problems: list[Problem] = []
    for sub in tree.values():  # check_file checks the subflows of each in turn
        problems += check_file(str(sub.path))[1]
    here = str(Path(path).resolve())
    for index, node in enumerate(doc.nodes):
        sub = tree.get(node.id) if node.kind == "subflow" else None
        if sub is not None and sub.doc.budget is not None:
            problems.append(_budget_ignored(index, node.id, sub, here))
    return problems


def _budget_ignored(index: int, key: str, sub: Subflow, file: str) -> Problem:
    """The warning that a subflow file's own ``budget:`` caps it only when it runs alone."""
    budget = sub.doc.budget
    assert budget is not None
    limits = ", ".join(f"{name}: {value:g}" for name, value in budget.to_json_dict().items())
    return Problem(
        f"nodes[{index}].flow",
        f"the budget of {sub.path.name} ({limits}) is not applied when it runs as subflow "
        f"{key!r}: a workflow's own budget caps it only when it runs alone",
        f"cap the subflow's agents with a budget on its nodes (nodeConfigs.<node>.budget in "
        f"{sub.path.name}; in the console `budget {key}/<node> tokens=N`), or "
        "give this workflow a budget: of its own", "warning", file=file)
