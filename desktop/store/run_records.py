"""A run's runner records checked against the hashes its event log recorded for them.

``verify runner`` proves that a runner.json keeps the rules (RN1-RN12), and no more: an
edit that keeps them (``platform.os`` changed, the record canonicalised again) verifies,
with a new hash. The engine recorded each record's hash in the run's log when it wrote
it (``artifact.created`` with ``runnerHash``), so a record another tool may trust keeps
the rules *and* hashes to what the log recorded. A recorded record that is gone, and a
record the log never recorded, are named too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.store.runner_rules import Violation
from desktop.store.runner_verify import RunnerParseError, Verification, check, verify_all
from desktop.store.safe_open import read_bytes

RUNNER_FILE = "runner.json"
RECORDED = "RECORDED"
"""The rule id of a record that disagrees with the run's log (not one of RN1-RN12)."""


@dataclass
class RecordCheck:
    """One runner record of a run: where it is, what the log recorded, what it is now."""

    file: str
    """Its path in the run folder (``agents/<agentRunId>/runner.json``)."""
    agent_run_id: str | None
    recorded: str | None
    """The hash the run's log recorded for it; None when the log recorded none."""
    verification: Verification = field(default_factory=Verification)
    unreadable: str | None = None
    """Why it could not be read (it is gone, or not strict JSON); None when it was read."""

    @property
    def ok(self) -> bool:
        return self.unreadable is None and self.verification.ok

    def output(self) -> dict[str, Any]:
        """The ``verify runner`` result object, with the file and the recorded hash."""
        if self.unreadable is not None:
            result: dict[str, Any] = {"ok": False, "violations": [
                {"rule_id": RECORDED, "message": self.unreadable, "path": "$"}]}
        else:
            result = self.verification.output()
        return {"file": self.file, **result, "recorded_hash": self.recorded}


def recorded_runners(events: Iterable[dict[str, Any]]) -> dict[str, tuple[str, str | None]]:
    """Each runner record the log announced: its path -> (its runnerHash, agentRunId)."""
    found: dict[str, tuple[str, str | None]] = {}
    for event in events:
        artifact = event.get("artifact") if event.get("type") == "artifact.created" else None
        if not isinstance(artifact, dict) or artifact.get("name") != RUNNER_FILE:
            continue
        path, digest = artifact.get("path"), artifact.get("runnerHash")
        if isinstance(path, str) and isinstance(digest, str):
            agent = artifact.get("agentRunId")
            found[path] = (digest, agent if isinstance(agent, str) else None)
    return found


def _inside(folder: Path, rel: str) -> Path | None:
    """``folder/rel`` when it stays inside ``folder`` (a log may be tampered with too)."""
    target = (folder / rel).resolve()
    return target if target.is_relative_to(folder.resolve()) else None


def check_records(folder: Path, events: Iterable[dict[str, Any]]) -> list[RecordCheck]:
    """Every runner record of the run in ``folder``: those its log ``events`` recorded, in
    the log's order, then those on disk it never recorded."""
    recorded = recorded_runners(events)
    on_disk = sorted(p.relative_to(folder).as_posix()
                     for p in (folder / "agents").glob(f"*/{RUNNER_FILE}"))
    checks = [RecordCheck(rel, agent, digest) for rel, (digest, agent) in recorded.items()]
    checks += [RecordCheck(rel, rel.split("/")[1], None) for rel in on_disk
               if rel not in recorded]
    parsed: list[tuple[Any, Verification]] = []
    read: list[RecordCheck] = []
    for item in checks:
        path = _inside(folder, item.file)
        try:
            if path is None:
                raise FileNotFoundError
            value, result = check(read_bytes(path))
        except FileNotFoundError:
            item.unreadable = ("the run's log recorded this runner record, and it is gone"
                               if path is not None else
                               "the run's log names a runner record outside the run folder")
            continue
        except (OSError, RunnerParseError) as exc:
            item.unreadable = f"cannot be read as a runner record: {exc}"
            continue
        parsed.append((value, result))
        read.append(item)
    for item, result in zip(read, verify_all(parsed), strict=True):
        item.verification = result
        _against_log(item)
    return checks


def _against_log(item: RecordCheck) -> None:
    """Add the violation of a record whose hash is not the one the log recorded."""
    result = item.verification
    if item.recorded is None:
        result.violations.append(Violation(
            RECORDED, "the run's log recorded no runner record here (no artifact.created "
            "names it): no engine of this run wrote it", "$"))
    elif result.ok and result.runner_hash != item.recorded:
        result.violations.append(Violation(
            RECORDED, f"its hash {result.runner_hash} is not the {item.recorded} the run's "
            "log recorded when it was written: it was changed since", "$"))
