"""Resuming an evaluation only with the files it started with.

``eval run`` keeps copies of its inputs in OUT (``suite.yaml``, ``workflows/<side>.flow.yaml``).
``--resume`` finishes the case runs a killed evaluation left; given a suite or workflow
file that changed since, one side would hold case runs of two different workflows (or
checks) while ``eval.json`` and the report name the first, so :func:`changed_inputs`
compares each file given with its kept copy, by content hash, before anything runs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

SUITE_COPY = "suite.yaml"
WORKFLOWS = "workflows"


def workflow_copy(out: Path, side: str) -> Path:
    """Where OUT keeps the copy of the ``side`` workflow."""
    return out / WORKFLOWS / f"{side}.flow.yaml"


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def changed_inputs(out: Path, suite_path: Path, workflows: dict[str, Path]) -> list[str]:
    """One problem per file given that differs from the copy the evaluation in ``out``
    started with; none when all are the same (or OUT kept no copy to compare with)."""
    pairs = [(suite_path, out / SUITE_COPY, "the suite")]
    pairs += [(path, workflow_copy(out, side), f"the --{side} workflow")
              for side, path in workflows.items()]
    problems = []
    for given, kept, what in pairs:
        before = _digest(kept)
        if before is not None and _digest(given) != before:
            problems.append(
                f"{given}: differs from {kept}, {what} this evaluation started with — "
                "resume with the same file (that copy), or start a new evaluation with "
                "another --out")
    return problems


__all__ = ["SUITE_COPY", "changed_inputs", "workflow_copy"]
