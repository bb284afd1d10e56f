"""Reading a result folder tolerantly: what is readable is used, the rest is a problem.

A result folder holds ``baseline/<runId>/`` and ``new/<runId>/`` version
directories (as ``eval run`` writes them, or any runner that follows the
contract). A missing ``run.json``, a case file that is not JSON or breaks a rule
of a case file (:mod:`desktop.eval.artifact_rules`, the rules ``check artifacts``
applies: its shape, its name is its ``case_id``, its ``version`` is its side's)
becomes a problem naming the file, the field and the fix; the file is left out, and
it never stops the evaluation of the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from desktop.eval.artifact_rules import case_rules
from desktop.eval.index import SIDES

NOT_CASES = frozenset({"run.json", "evaluation.json"})


class ResultsError(Exception):
    """A folder that holds no results at all."""


@dataclass
class VersionDir:
    side: str
    run_id: str
    path: Path
    run: dict[str, Any] | None = None
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    """Case id -> case file name, relative to the version directory."""
    problems: list[str] = field(default_factory=list)

    @property
    def rel(self) -> str:
        """The version directory relative to the result folder (``baseline/<runId>``)."""
        return f"{self.side}/{self.run_id}"

    def selected(self) -> list[str]:
        """The case ids this run meant to write (run.json), else the ones found."""
        ids = self.run.get("selected_case_ids") if isinstance(self.run, dict) else None
        if isinstance(ids, list) and all(isinstance(i, str) for i in ids):
            return list(dict.fromkeys([*ids, *self.cases]))
        return list(self.cases)


@dataclass
class ResultFolder:
    root: Path
    versions: list[VersionDir]
    problems: list[str] = field(default_factory=list)

    def side(self, side: str) -> list[VersionDir]:
        return [v for v in self.versions if v.side == side]


def load_json(path: Path, shown: str | None = None) -> tuple[Any, str | None]:
    """``(data, None)`` or ``(None, problem)`` for one JSON file (named ``shown``)."""
    shown = shown or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, f"{shown}: missing"
    except OSError as exc:
        return None, f"{shown}: cannot read: {exc.strerror or exc}"
    try:
        return orjson.loads(raw), None
    except orjson.JSONDecodeError as exc:
        return None, f"{shown}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"


def _not(expected: str, data: Any, name: str) -> str:
    """Why ``data[name]`` is not ``expected``: missing, or what it is instead."""
    if not isinstance(data, dict):
        return "the file is not a JSON object"
    if name not in data:
        return f"missing (must be {expected!r})"
    return f"not {expected!r}"


def read_version(side: str, folder: Path) -> VersionDir:
    """A version directory; problems name files relative to the result folder."""
    version = VersionDir(side, folder.name, folder)
    rel = version.rel
    run, problem = load_json(folder / "run.json", f"{rel}/run.json")
    if problem:
        version.problems.append(problem + (" — every version directory needs run.json; its "
                                           "cases are evaluated anyway"))
    elif not isinstance(run, dict) or run.get("schema_version") != "run.v1":
        version.problems.append(f"{rel}/run.json: schema_version: "
                                + _not("run.v1", run, "schema_version"))
    else:
        version.run = run
    for path in sorted(folder.glob("*.json")):
        if path.name in NOT_CASES:
            continue
        shown = f"{rel}/{path.name}"
        data, problem = load_json(path, shown)
        if problem:
            version.problems.append(problem + " — the case is left out")
            continue
        case, problems = case_rules(path.name, data, side, f"it is in {side}/")
        if case is None:
            version.problems += [f"{shown}: {p}; the file is left out" for p in problems]
            continue
        version.cases[case.case_id] = data
        version.files[case.case_id] = path.name
    return version


def read_results(root: str | Path) -> ResultFolder:
    """Every version directory under ``root``; ResultsError when there is none."""
    root = Path(root)
    if not root.is_dir():
        raise ResultsError(f"{root}: no such folder — give the --out folder of `eval run`")
    versions = []
    for side in SIDES:
        base = root / side
        for folder in sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []:
            versions.append(read_version(side, folder))
    if not versions:
        raise ResultsError(f"{root}: holds no baseline/<runId>/ or new/<runId>/ folder — "
                           "is it the --out folder of `eval run`?")
    result = ResultFolder(root, versions)
    for side in SIDES:
        if not result.side(side):
            result.problems.append(f"{side}/: no version directory — nothing to compare "
                                   "the other side with")
    return result
