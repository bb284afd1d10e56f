"""A run folder's state: its snapshot plus the events after it (the list of runs:
desktop/views/run_list.py)."""

from pathlib import Path

from desktop.contract.enums import RUN_LIVE
from desktop.contract.state import RunState
from desktop.store.jsonl import EVENTS_FILE
from desktop.store.runs import RunError, engine_alive, unreadable
from desktop.store.safe_open import RunFileError
from desktop.store.snapshot import STATE_FILE, read_snapshot
from desktop.views.paused import left_paused
from desktop.views.reader import EventReader
from desktop.views.state import RunProjection


def project_run(run_dir: Path) -> RunProjection:
    """The projection of a run folder: its ``state.json`` (when usable) plus the events after
    it, or the whole log folded from the start."""
    snap = read_snapshot(run_dir)
    projection = RunProjection(snap)
    projection.extend(EventReader(run_dir).iter_events(after=snap.last_seq if snap else 0))
    return projection


def fold_run(run_dir: Path) -> RunState:
    """The run's state as its files tell it (snapshot plus the events after it), without
    asking whether an engine holds it. Raises RunError when the folder holds no run."""
    run_dir = Path(run_dir)
    try:
        if not (run_dir / EVENTS_FILE).exists() and not (run_dir / STATE_FILE).exists():
            raise RunError(f"{run_dir} is not a run folder (no {EVENTS_FILE} or {STATE_FILE})")
        return project_run(run_dir).model(with_clock=True)
    except ValueError as exc:
        raise RunError(f"{run_dir}: {exc}") from None
    except OSError as exc:  # a log or folder this user may not read, a link in its place
        message = exc.strerror if isinstance(exc, RunFileError) else unreadable(exc, run_dir)
        raise RunError(message) from None


def marked_interrupted(state: RunState, run_dir: Path) -> RunState:
    """``state`` with ``interrupted=True`` when it looks live (queued, running, paused)
    while no engine holds the run in ``run_dir``; not a run left paused with nothing cut
    short (desktop/views/paused.py), which a resume simply continues."""
    if state.status in RUN_LIVE and not state.interrupted and not left_paused(state) \
            and not engine_alive(run_dir):
        return state.model_copy(update={"interrupted": True})
    return state


def open_run(run_dir: Path, *, look_for_engine: bool = True) -> RunState:
    """The run's current state: snapshot plus the events after it.

    A run that looks live (queued, running, paused) while no engine holds it is returned
    with ``interrupted=True`` (unless ``look_for_engine`` is False, or it was left paused
    with nothing cut short). Raises RunError when
    the folder holds no run.
    """
    state = fold_run(run_dir)
    return marked_interrupted(state, Path(run_dir)) if look_for_engine else state


__all__ = ["RunError", "engine_alive", "fold_run", "marked_interrupted", "open_run",
           "project_run"]
