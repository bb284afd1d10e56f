"""Run folders: engine liveness, opening a run, listing and finding runs."""

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from desktop.contract.state import RunState
from desktop.store.jsonl import EVENTS_FILE
from desktop.store.paths import runs_dir
from desktop.store.reader import EventReader
from desktop.store.reducer import fold_events
from desktop.store.snapshot import STATE_FILE, read_snapshot

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

ENGINE_LOCK = "engine.lock"
LIVE_STATUSES = ("running", "paused", "queued")


class RunError(Exception):
    """A run reference or run folder that cannot be used; the message says why."""


class EngineBusy(RunError):
    """Another live engine holds the run."""


def _try_lock(fd: int, exclusive: bool) -> bool:
    """Take an advisory lock without waiting; the OS drops it when the process dies."""
    if fcntl is None:  # pragma: no cover - Windows: one byte, exclusive only
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        if not exclusive:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def hold_engine_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run's engine lock while the block runs; the OS drops it if the process dies."""
    path = Path(run_dir) / ENGINE_LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _try_lock(fd, exclusive=True):
            raise EngineBusy(f"run {Path(run_dir).name} is already open in another engine")
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def engine_alive(run_dir: Path) -> bool:
    """True while some process holds the run's engine lock."""
    path = Path(run_dir) / ENGINE_LOCK
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return not _try_lock(fd, exclusive=False)
    finally:
        os.close(fd)


def open_run(run_dir: Path) -> RunState:
    """The run's current state: snapshot plus the events after it.

    A run that looks live (queued, running, paused) while no engine holds it is returned
    with ``interrupted=True``. Raises RunError when the folder holds no run.
    """
    run_dir = Path(run_dir)
    if not (run_dir / EVENTS_FILE).exists() and not (run_dir / STATE_FILE).exists():
        raise RunError(f"{run_dir} is not a run folder (no {EVENTS_FILE} or {STATE_FILE})")
    snap = read_snapshot(run_dir)
    reader = EventReader(run_dir)
    try:
        state = fold_events(reader.iter_events(after=snap.last_seq if snap else 0), snap)
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
        out.append(RunSummary(st.id, folder, st.workflow_name, str(st.status), st.interrupted,
                              st.created_at, st.updated_at, st.last_seq))
    out.sort(key=lambda r: (r.created_at, r.id), reverse=True)
    return out


def find_run(data_dir: Path, ref: str) -> Path:
    """The run folder named by ``ref``: a full id, a unique id prefix, or a folder path."""
    if not ref:
        raise RunError("empty run reference; give a run id, an id prefix or a run folder")
    as_path = Path(ref).expanduser()
    if ("/" in ref or os.sep in ref or ref.startswith(".")) and as_path.is_dir():
        if (as_path / EVENTS_FILE).exists() or (as_path / STATE_FILE).exists():
            return as_path.resolve()
        raise RunError(f"{as_path} is not a run folder (no {EVENTS_FILE} or {STATE_FILE})")
    root = runs_dir(Path(data_dir))
    if root.is_dir() and (root / ref).is_dir():
        return root / ref
    matches = sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith(ref)) \
        if root.is_dir() else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RunError(f"no run matches {ref!r} in {root} (see `agent-canvas runs list`)")
    names = ", ".join(p.name[:12] for p in matches[:5])
    raise RunError(f"{ref!r} matches {len(matches)} runs ({names}...); give more of the id")
