"""A run folder's state (its snapshot plus the events after it) and the list of runs, each
with its result branch and whether it was applied (desktop/views/result.py)."""

from dataclasses import dataclass
from pathlib import Path

from desktop.contract.state import RunState
from desktop.disk.paths import runs_dir
from desktop.store.jsonl import EVENTS_FILE
from desktop.store.runs import LIVE_STATUSES, RunError, engine_alive
from desktop.store.snapshot import STATE_FILE, read_snapshot
from desktop.views.reader import EventReader
from desktop.views.result import ResultSummary, result_summary
from desktop.views.state import RunProjection


def project_run(run_dir: Path) -> RunProjection:
    """The projection of a run folder: its ``state.json`` (when usable) plus the events after
    it, or the whole log folded from the start."""
    snap = read_snapshot(run_dir)
    projection = RunProjection(snap)
    projection.extend(EventReader(run_dir).iter_events(after=snap.last_seq if snap else 0))
    return projection


def open_run(run_dir: Path) -> RunState:
    """The run's current state: snapshot plus the events after it.

    A run that looks live (queued, running, paused) while no engine holds it is returned
    with ``interrupted=True``. Raises RunError when the folder holds no run.
    """
    run_dir = Path(run_dir)
    if not (run_dir / EVENTS_FILE).exists() and not (run_dir / STATE_FILE).exists():
        raise RunError(f"{run_dir} is not a run folder (no {EVENTS_FILE} or {STATE_FILE})")
    try:
        state = project_run(run_dir).model(with_clock=True)
    except ValueError as exc:
        raise RunError(f"{run_dir}: {exc}") from None
    if state.status in LIVE_STATUSES and not state.interrupted and not engine_alive(run_dir):
        state = state.model_copy(update={"interrupted": True})
    return state


@dataclass
class RunSummary:
    """One line of the run list."""

    id: str
    path: Path
    workflow: str
    status: str
    interrupted: bool
    created_at: str
    updated_at: str
    events: int
    error: str | None = None
    forked_from: tuple[str, int] | None = None
    """A fork's source run id and the seq it was forked at."""
    result: ResultSummary | None = None
    """Its result branch and where it was applied; None: no node worked in a worktree."""
    usage: dict[str, float] | None = None
    """Its usage (tokens, costUsd when reported, wallSec): desktop/views/usage.py."""

    @property
    def display_status(self) -> str:
        """The status, or "interrupted" for a live-looking run without an engine."""
        return "interrupted" if self.interrupted and self.status in LIVE_STATUSES else self.status


def list_runs(data_dir: Path) -> list[RunSummary]:
    """Every run under ``data_dir``, newest first; unreadable ones carry ``error``."""
    root = runs_dir(Path(data_dir))
    out: list[RunSummary] = []
    if not root.is_dir():
        return out
    for folder in root.iterdir():
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        try:
            st = open_run(folder)
        except RunError as exc:
            out.append(RunSummary(folder.name, folder, "", "unreadable", False, "", "", 0,
                                  str(exc)))
            continue
        lineage = (st.forked_from.run_id, st.forked_from.seq) if st.forked_from else None
        out.append(RunSummary(st.id, folder, st.workflow_name, str(st.status), st.interrupted,
                              st.created_at, st.updated_at, st.last_seq,
                              forked_from=lineage, result=result_summary(st, folder),
                              usage=dict(st.usage)))
    out.sort(key=lambda r: (r.created_at, r.id), reverse=True)
    return out


__all__ = ["RunError", "engine_alive", "list_runs", "open_run", "runs_dir"]
