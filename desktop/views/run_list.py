"""The one list of runs: each run folder's row (status, names, times, token use, event
count, result branch, what waits on a person), folded from its files.

:func:`list_runs` is the plain listing (the CLI, the app without a service);
:class:`RunFolders` is the same code with the rows kept, each with the fingerprint of the
files it was folded from, which the service's index (desktop/api/run_index.py) brings up
to date on a worker thread. Both give rows of one shape,
:class:`desktop.contract.api.RunSummary`, as ``GET /api/runs`` sends them; a folder that
holds no readable run is listed as ``unreadable`` with the reason in ``error``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from desktop.contract.api import RunSummary
from desktop.contract.enums import RUN_LIVE, Mode, shown_status
from desktop.contract.state import RunState
from desktop.disk.paths import runs_dir
from desktop.store.applied import APPLIED_FILE
from desktop.store.jsonl import EVENTS_FILE
from desktop.store.runs import RunError, engine_alive
from desktop.store.snapshot import STATE_FILE
from desktop.views.paused import left_paused
from desktop.views.result import result_summary
from desktop.views.runs import open_run
from desktop.views.stall_text import stall_detail
from desktop.views.usage import cost, exceeded_text, total_tokens
from desktop.views.wall_seconds import rounded_wall
from desktop.wording import plural

Fingerprint = tuple[int, int, int, int]
UNREADABLE = "unreadable"
"""The status of a folder that holds no readable run."""


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def fingerprint(folder: Path) -> Fingerprint:
    """What changes when the run in ``folder`` does."""
    size, mtime = _stat(folder / EVENTS_FILE)
    return (size, mtime, _stat(folder / STATE_FILE)[1], _stat(folder / APPLIED_FILE)[1])


def summary_row(state: RunState, live: bool, folder: Path | None = None) -> dict[str, Any]:
    """The run list's row of ``state`` (``live``: an engine of the service runs it); with
    its ``folder``, its result branch too (a run that is still live has none yet worth
    listing)."""
    status = str(state.status) if live else shown_status(state.status, state.interrupted)
    row: dict[str, Any] = {
        "id": state.id, "status": status, "workflowName": state.workflow_name,
        "createdAt": state.created_at, "updatedAt": state.updated_at, "live": live,
        "tokens": rounded_wall(dict(state.usage)), "totalTokens": total_tokens(state.usage),
        "costUsd": cost(state.usage), "events": state.last_seq}
    if state.forked_from is not None:
        row["forkedFrom"] = state.forked_from.to_json_dict()
    if status in RUN_LIVE and (waiting := waiting_on_you(state)):
        row["waiting"] = waiting
    result = result_summary(state, folder) if folder is not None else None
    if result is not None:
        row["result"] = {"nodeId": result.node_id, "node": result.node,
                         "branch": result.branch, "repo": result.repo,
                         "applied": list(result.applied)}
    return row


def unreadable_row(name: str, error: str) -> dict[str, Any]:
    """The row of folder ``name``, which holds no readable run (``error`` says why)."""
    return {"id": name, "status": UNREADABLE, "workflowName": "", "createdAt": "",
            "updatedAt": "", "live": False, "tokens": {}, "totalTokens": 0,
            "costUsd": "unknown", "events": 0, "error": error}


def waiting_on_you(state: RunState) -> list[dict[str, Any]]:
    """What in a live run waits on a person besides its approvals: the stall or the budget
    that paused it, each node whose last turn failed (each with its node and the reason),
    and a Step an INTERACTIVE run waits for."""
    out = []
    stall = state.stall or {}
    if str(state.status) == "paused" and stall:
        node = state.nodes.get(str(stall.get("nodeId") or ""))
        out.append({"kind": "stall", "nodeId": node.id if node else None,
                    "node": node.label if node else "", "reason": stall_detail(stall)})
    found = state.budget_exceeded or {}
    if str(state.status) == "paused" and found:
        node = state.nodes.get(str(found.get("nodeId") or ""))
        out.append({"kind": "budget", "nodeId": node.id if node else None,
                    "node": node.label if node else "",
                    "reason": exceeded_text(found, node.label if node else "the run")})
    for node in state.nodes.values():
        if str(node.status) == "failed":
            out.append({"kind": "failed", "nodeId": node.id, "node": node.label,
                        "reason": node.summary})
    step = step_awaited(state)
    if step is not None:
        out.append(step)
    return out


def step_awaited(state: RunState) -> dict[str, Any] | None:
    """An INTERACTIVE run with work queued and no turn under way waits for a person to
    press Step: named, so a run whose tab was closed is not lost from sight. A subflow
    node is running for as long as its inside is, turn by turn at Step, so only agent
    nodes (at any depth) say whether a turn is under way."""
    if state.mode != Mode.INTERACTIVE or str(state.status) != "running":
        return None
    if any(str(node.status) in ("running", "blocked") for node in state.nodes.values()
           if node.subflow is None):
        return None
    queued = [(node_id, len(items)) for node_id, items in state.inboxes.items() if items]
    if not queued:
        return None
    node = state.nodes.get(queued[0][0])
    items = sum(count for _, count in queued)
    return {"kind": "step", "nodeId": node.id if node else None,
            "node": node.label if node else "",
            "reason": f"{plural(items, 'item')} queued for {plural(len(queued), 'node')}; "
                      "Step runs the next turn"}


def newest_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` sorted as the list shows them: newest first."""
    return sorted(rows, key=lambda r: (r["createdAt"], r["id"]), reverse=True)


@dataclass
class Entry:
    """One folder's row and what it was folded from."""

    fingerprint: Fingerprint
    row: dict[str, Any]
    live_status: str | None = None
    """The log's status when it looks live (queued, running, paused): shown only while
    some engine holds the run, else the run is interrupted."""
    held: bool = False
    """Whether an engine held the run when it was last looked at (live-looking runs)."""
    left_paused: bool = False
    """Paused with nothing cut short (desktop/views/paused.py): without an engine it is
    paused still, not interrupted."""

    @property
    def watched(self) -> bool:
        """Looked at on every call of the service's index: another process may change it
        soon (a live-looking run, or a folder not readable yet)."""
        return self.row["status"] == UNREADABLE or self.live_status is not None

    def shown(self) -> dict[str, Any]:
        """The row as listed now."""
        if self.live_status is None:
            return self.row
        if self.held:
            return {**self.row, "status": self.live_status}
        if self.left_paused:
            return {**self.row, "status": self.live_status, "detached": True}
        return {**self.row, "status": "interrupted"}


@dataclass
class Work:
    """What one look at the folders does."""

    listing: bool = False
    """Read the folder names again (a folder came or went, or none was read yet)."""
    full: bool = False
    """Check every folder's fingerprint."""
    names: set[str] = field(default_factory=set)
    """Folders to check in any case."""

    def __bool__(self) -> bool:
        return self.listing or self.full or bool(self.names)


@dataclass
class Folders:
    """The rows of the folders under a runs folder, as one look left them."""

    entries: dict[str, Entry] = field(default_factory=dict)
    names: frozenset[str] = frozenset()
    """Folder names at the last reading of them, hosted runs' included."""
    root_mark: int | None = None
    """The runs folder's mtime when its names were read."""
    changed: bool = False
    """Whether a row changed in the last look."""

    def rows(self, skip: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
        """The rows, but those of ``skip``, unsorted."""
        return [entry.shown() for name, entry in self.entries.items() if name not in skip]


def root_mark(root: Path) -> int | None:
    """The mtime of the runs folder ``root`` (it moves when a folder comes or goes)."""
    try:
        return os.stat(root).st_mtime_ns
    except OSError:
        return None


class RunFolders:
    """Folds the run folders under ``root`` into rows, again only where files changed."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.folds = 0
        """How many times a run was folded from its files (for tests and benches)."""
        self.scans = 0
        """How many times every folder's fingerprint was checked."""

    def look(self, work: Work, before: Folders, hosted: frozenset[str] = frozenset()
             ) -> Folders:
        """``before`` brought up to date as ``work`` says (``before`` is left as it was);
        the folders of ``hosted`` runs are not folded (their engine has their state)."""
        entries = dict(before.entries)
        names = before.names
        changed = False
        check = set(work.names)
        mark = before.root_mark
        if work.listing or work.full:
            mark = root_mark(self.root)  # before the names: a later change is seen next time
            present = frozenset(self._folders())
            for gone in set(entries) - present:
                del entries[gone]
                changed = True
            check |= (present if work.full else present - names) | (present - set(entries))
            names = present
        if work.full:
            self.scans += 1
        for name in check - hosted:
            if name not in names:
                changed |= entries.pop(name, None) is not None
                continue
            changed |= self._update(entries, name)
        return Folders(entries, names, mark, changed)

    def _folders(self) -> list[str]:
        try:
            with os.scandir(self.root) as it:
                # DirEntry.is_dir uses the type the listing gives: no stat per folder
                return [e.name for e in it if not e.name.startswith(".") and e.is_dir()]
        except OSError:
            return []

    def _update(self, entries: dict[str, Entry], name: str) -> bool:
        """Fold ``name`` again if its files changed, and look at its engine if it looks
        live; whether its row changed."""
        folder = self.root / name
        mark = fingerprint(folder)
        entry = entries.get(name)
        changed = False
        if entry is None or entry.fingerprint != mark:
            entry = entries[name] = self._fold(folder, mark)
            changed = True
        if entry.live_status is not None:
            held = engine_alive(folder)
            if held != entry.held:  # a new entry: the loop may be reading the old one
                entries[name] = replace(entry, held=held)
                changed = True
        return changed

    def _fold(self, folder: Path, mark: Fingerprint) -> Entry:
        self.folds += 1
        try:
            state = open_run(folder, look_for_engine=False)
        except RunError as exc:
            return Entry(mark, unreadable_row(folder.name, str(exc)))
        status = str(state.status)
        return Entry(mark, summary_row(state, False, folder),
                     status if status in RUN_LIVE else None, left_paused=left_paused(state))


def list_rows(data_dir: Path) -> list[dict[str, Any]]:
    """Every run under ``data_dir`` as ``GET /api/runs`` lists it, newest first."""
    folders = RunFolders(runs_dir(Path(data_dir)))
    return newest_first(folders.look(Work(listing=True, full=True), Folders()).rows())


def list_runs(data_dir: Path) -> list[RunSummary]:
    """:func:`list_rows` as models."""
    return [RunSummary.model_validate(row) for row in list_rows(data_dir)]
