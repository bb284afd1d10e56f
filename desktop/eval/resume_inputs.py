"""Resuming an evaluation only with the files it started with.

``eval run`` keeps copies of its inputs in OUT (``suite.yaml``, ``workflows/<side>.flow.yaml``
and, for a workflow with subflow nodes, every subflow file it runs, nested ones too, in
``workflows/<side>.subflows/``). ``--resume`` finishes the case runs a killed evaluation
left; given a suite, workflow or subflow file that changed since, one side would hold case
runs of two different workflows (or checks) while ``eval.json`` and the report name the
first, so :func:`changed_inputs` compares each file given with its kept copy, by content
hash, before anything runs. A subflow file is compared with the copy kept for the same
subflow node (its place in the workflow), so a workflow moved elsewhere with its
subflows still resumes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from desktop.graph.errors import WorkflowLoadError
from desktop.graph.subflow_diff import Side, read_from_disk, side_tree

SUITE_COPY = "suite.yaml"
WORKFLOWS = "workflows"
SUBFLOWS_SUFFIX = ".subflows"


def workflow_copy(out: Path, side: str) -> Path:
    """Where OUT keeps the copy of the ``side`` workflow."""
    return out / WORKFLOWS / f"{side}.flow.yaml"


def subflow_copies(out: Path, side: str, workflow: Path) -> list[tuple[Path, Path, str]]:
    """Each subflow file ``workflow`` runs (nested ones too), where OUT keeps its copy for
    the ``side`` workflow (``<side>.subflows/<node id>[/<node id>...].flow.yaml``), and the
    subflow node it is run by (``outer/inner``); WorkflowLoadError when one cannot be
    read."""
    tree = side_tree(read_from_disk(workflow), workflow, read_from_disk)
    found: list[tuple[Path, Path, str]] = []

    def walk(side_of: Side, scope: tuple[str, ...]) -> None:
        for node_id, inner in side_of.inner.items():
            chain = (*scope, node_id)
            kept = out / WORKFLOWS / f"{side}{SUBFLOWS_SUFFIX}" / Path(*chain[:-1]) \
                / f"{node_id}.flow.yaml"
            found.append((inner.file, kept, "/".join(chain)))
            walk(inner, chain)

    walk(tree, ())
    return found


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def changed_inputs(out: Path, suite_path: Path, workflows: dict[str, Path]) -> list[str]:
    """One problem per file given (the suite, each workflow and each subflow file it runs)
    that differs from the copy the evaluation in ``out`` started with; none when all are
    the same (or OUT kept no copy to compare with)."""
    fix = "resume with the same file (that copy), or start a new evaluation with another --out"
    started = "this evaluation started with"
    pairs = [(suite_path, out / SUITE_COPY, f"the suite {started}", fix)]
    for side, path in workflows.items():
        pairs.append((path, workflow_copy(out, side), f"the --{side} workflow {started}", fix))
    problems = []
    for side, path in workflows.items():
        try:
            subflows = subflow_copies(out, side, path)
        except WorkflowLoadError as exc:
            problems += [f"{p} (a subflow of the --{side} workflow)" for p in exc.problems]
            continue
        pairs += [(given, kept, f"the file that subflow node {node!r} of the --{side} workflow "
                   "ran when this evaluation started", f"put {given.name} back as it was "
                   "(that copy), or start a new evaluation with another --out")
                  for given, kept, node in subflows]
    for given, kept, what, how in pairs:
        before = _digest(kept)
        if before is not None and _digest(given) != before:
            problems.append(f"{given}: differs from {kept}, {what} — {how}")
    return problems


__all__ = ["SUITE_COPY", "changed_inputs", "subflow_copies", "workflow_copy"]
