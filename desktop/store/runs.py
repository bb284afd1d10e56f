"""Run folders: engine liveness and finding runs (their state: desktop.views.runs)."""

import contextlib
import os
import shlex
from collections.abc import Iterator
from pathlib import Path

from desktop.disk.paths import runs_dir
from desktop.store.jsonl import EVENTS_FILE, complete_end, file_size, last_event
from desktop.store.safe_open import RunFileError, check_run_folder, open_fd, open_file
from desktop.store.snapshot import STATE_FILE, read_snapshot

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

ENGINE_LOCK = "engine.lock"


class RunError(Exception):
    """A run reference or run folder that cannot be used; the message says why."""


class EngineBusy(RunError):
    """Another live engine holds the run."""


def try_lock(fd: int, exclusive: bool) -> bool:
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
    fd = open_fd(path, os.O_RDWR | os.O_CREAT)
    try:
        if not try_lock(fd, exclusive=True):
            raise EngineBusy(f"run {Path(run_dir).name} is already open in another engine")
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def engine_alive(run_dir: Path) -> bool:
    """True while some process holds the run's engine lock."""
    path = Path(run_dir) / ENGINE_LOCK
    try:
        fd = open_fd(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return not try_lock(fd, exclusive=False)
    finally:
        os.close(fd)


def log_problem(run_dir: Path, last_seq: int) -> str | None:
    """Why the run's event log can not back a state that has seen ``last_seq`` events
    (state.json may say "completed" over a log that is gone), or None when it can."""
    path = Path(run_dir) / EVENTS_FILE
    fix = "the log is the run's record: restore it from a copy"
    try:
        with open_file(path) as fh:
            size = file_size(fh)
            last, _ = last_event(fh, complete_end(fh, size))
    except FileNotFoundError:
        return f"{path} is missing; {fix}"
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc})"
    if size == 0 and not last_seq:
        # nothing was ever recorded (a Ctrl-C before the first event): no copy of the
        # log can hold more, so there is no run to restore, only a workflow to start
        return (f"{path} is empty: the run was stopped before it recorded anything, so "
                f"there is nothing to resume; start the workflow again (the folder "
                f"{Path(run_dir)} can be deleted)")
    if size == 0:
        return f"{path} is empty, but state.json has seen {last_seq} event(s); {fix}"
    if last is None:
        return f"{path}: no line of it is an event (binary or corrupt data); {fix}"
    if last["seq"] < last_seq:
        return (f"{path} ends at event {last['seq']}, but state.json has seen {last_seq}; "
                f"{fix}")
    return None


def run_log_problem(run_dir: Path) -> str | None:
    """:func:`log_problem` against what the run's state.json has seen (nothing when it is
    missing or unreadable): why the run's log can back no view of the run, or None."""
    snapshot = read_snapshot(run_dir)
    return log_problem(run_dir, snapshot.last_seq if snapshot else 0)


def find_run(data_dir: Path, ref: str) -> Path:
    """The run folder named by ``ref``: a full id, a unique id prefix, or a folder path.

    RunError too when one of its files is a symbolic link (see store/safe_open.py).
    """
    folder: Path | None = None
    try:
        folder = _find_run(data_dir, ref)
        check_run_folder(folder)
        # every command reads the log first: one it may not read is refused here, by name
        # and with the fix, not as a traceback from wherever it is opened
        if (folder / EVENTS_FILE).exists():
            with open_file(folder / EVENTS_FILE):
                pass
    except RunFileError as exc:
        raise RunError(exc.strerror) from None
    except OSError as exc:
        raise RunError(unreadable(exc, folder or runs_dir(Path(data_dir)))) from None
    return folder


def unreadable(exc: OSError, folder: Path) -> str:
    """Why a file or folder of the run in ``folder`` could not be read (``exc`` names it,
    else ``folder`` stands for it), and the fix."""
    path = Path(exc.filename) if exc.filename else Path(folder)
    why = exc.strerror or type(exc).__name__
    if isinstance(exc, PermissionError):
        return (f"{path}: cannot read it ({why}); give your user access: chmod -R u+rwX "
                f"{shlex.quote(str(folder))} (or run this as the user who owns it)")
    return f"{path}: cannot read it ({why})"


def _find_run(data_dir: Path, ref: str) -> Path:
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
    raise RunError(ambiguous_run(ref, [p.name for p in matches]))


def ambiguous_run(ref: str, ids: list[str]) -> str:
    """The refusal of a prefix several runs share, naming them (five at most) each by
    the shortest prefix that no other of them shares, at least the 8 characters `runs
    list` shows, so one can be copied from the message."""
    def short(run_id: str) -> str:
        size = 8
        while size < len(run_id) and any(o != run_id and o.startswith(run_id[:size])
                                          for o in ids):
            size += 1
        return run_id[:size]
    shown = ", ".join(short(i) for i in ids[:5])
    more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
    return f"{ref!r} matches {len(ids)} runs ({shown}{more}); give more of the id"
