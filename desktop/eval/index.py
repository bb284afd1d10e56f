"""``OUT/eval.json``: which version directories make up one evaluation.

The evaluator does not need it (it finds every ``run.json`` under
``baseline/`` and ``new/``), but the runner uses it to resume a killed
evaluation into the same version directories, and the app to list evaluations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from desktop.contract.base import utc_now
from desktop.disk.atomic import atomic_write_json
from desktop.eval.artifact_rules import case_rules
from desktop.eval.assets import AssetStore
from desktop.eval.portable import Scrubber

INDEX_FILE = "eval.json"
INDEX_SCHEMA = "eval-index.v1"
SIDES = ("baseline", "new")


def read_json(path: Path) -> Any:
    """The JSON in ``path``, or None when it is missing or not JSON."""
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def read_case_status(path: Path, version: str | None = None) -> str | None:
    """The ``status`` of a finished case file, None when there is none, or it breaks a
    case-file rule (its shape, its name, its side's ``version``): resume writes it again,
    as ``eval evaluate`` leaves it out."""
    data = read_json(path)
    case, _problems = case_rules(path.name, data, version)
    status = data.get("status") if case is not None else None
    return status if status in ("ok", "runner_error") else None


@dataclass
class VersionRun:
    """One version directory being written: ``OUT/<side>/<runId>/``."""

    side: str
    repeat: int
    run_id: str
    dir: Path
    assets: AssetStore
    duration_ms: int = 0
    _statuses: dict[str, str] = field(default_factory=dict)

    def note(self, case_id: str, status: str) -> None:
        self._statuses[case_id] = status

    def statuses(self) -> dict[str, str]:
        return dict(self._statuses)


@dataclass
class EvalIndex:
    suite: str
    workflows: dict[str, str]
    repeat: int
    case_ids: list[str]
    runs: dict[str, list[str]]
    created_at: str = field(default_factory=utc_now)
    finished_at: str | None = None

    @classmethod
    def new(cls, suite: str, workflows: dict[str, str], repeat: int,
            case_ids: list[str]) -> EvalIndex:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        runs = {side: [f"{stamp}-r{k}" for k in range(1, repeat + 1)] for side in SIDES}
        return cls(suite, workflows, repeat, case_ids, runs)

    @classmethod
    def load(cls, out: Path) -> EvalIndex | None:
        data = read_json(out / INDEX_FILE)
        if not isinstance(data, dict) or data.get("schema_version") != INDEX_SCHEMA:
            return None
        try:
            return cls(suite=str(data["suite"]),
                       workflows={s: str(w["name"]) for s, w in data["workflows"].items()},
                       repeat=int(data["repeat"]), case_ids=list(data["selected_case_ids"]),
                       runs={s: [str(r) for r in data["runs"][s]] for s in SIDES},
                       created_at=str(data.get("created_at") or utc_now()),
                       finished_at=data.get("finished_at"))
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema_version": INDEX_SCHEMA, "created_at": self.created_at,
            "suite": self.suite, "suite_file": "suite.yaml",
            "workflows": {side: {"name": name, "file": f"workflows/{side}.flow.yaml"}
                          for side, name in self.workflows.items()},
            "repeat": self.repeat, "selected_case_ids": self.case_ids,
            "runs": {side: list(runs) for side, runs in self.runs.items()},
        }
        if self.finished_at:
            data["finished_at"] = self.finished_at
        return data

    def save(self, out: Path) -> None:
        atomic_write_json(out / INDEX_FILE, self.to_json())

    def version_runs(self, out: Path) -> list[VersionRun]:
        """The version directories of this evaluation (made if missing), with the statuses
        of the cases already written."""
        found = []
        for side in SIDES:
            for k, run_id in enumerate(self.runs[side], start=1):
                folder = out / side / run_id
                folder.mkdir(parents=True, exist_ok=True)
                vr = VersionRun(side, k, run_id, folder,
                                AssetStore(folder, side, Scrubber(out)))
                previous = read_json(folder / "run.json")
                stats = previous.get("stats") if isinstance(previous, dict) else None
                if isinstance(stats, dict) and isinstance(stats.get("duration_ms"), int | float):
                    vr.duration_ms = int(stats["duration_ms"])
                for case_id in self.case_ids:
                    status = read_case_status(folder / f"{case_id}.json", side)
                    if status:
                        vr.note(case_id, status)
                found.append(vr)
        return found
