"""Where runs live: the platform's user data folder unless overridden."""

import contextlib
import os
import tempfile
from pathlib import Path

from platformdirs import user_data_dir

ENV_DATA_DIR = "AGENT_CANVAS_DATA_DIR"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: ``override``, else $AGENT_CANVAS_DATA_DIR, else the platform's."""
    chosen = override or os.environ.get(ENV_DATA_DIR) or user_data_dir("agent-canvas")
    return Path(chosen).expanduser().resolve()


def data_dir_problem(override: str | os.PathLike[str] | None = None) -> str | None:
    """Why the data folder :func:`data_dir` picks cannot be one (it, or a folder it would
    be made in, is a file, its runs folder cannot be made there, or ``--data-dir ""`` gave
    none), naming where the choice came from and what to do; None when it is a folder or
    can be made."""
    if override is not None and not str(override).strip():
        # an unset shell variable (--data-dir "$DATA"), not a wish for the default folder
        return (f"--data-dir is empty; give a folder (a missing one is made), or leave "
                f"--data-dir out for {data_dir(None)}")
    folder = data_dir(override)
    # a missing folder is made on first use; the first part that exists decides
    first = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if first is None:
        return None
    if first.is_dir():
        # the runs folder is the first thing a run makes: where it cannot be, no run can
        why = cannot_make(runs_dir(folder))
        if why is None:
            return None
        problem, fix = f"cannot hold runs: {why}", "a folder you can write to"
    else:
        what = "is a file" if first == folder else f"is inside {first}, which is a file"
        problem, fix = f"{what}, not a folder", "a folder"
    if override:
        source, fix = "--data-dir", f"give --data-dir {fix} (a missing one is made)"
    elif os.environ.get(ENV_DATA_DIR):
        source, fix = f"${ENV_DATA_DIR}", f"set {ENV_DATA_DIR} to {fix} (a missing one is made)"
    else:
        source = "the platform's default"
        fix = "set --data-dir" if first.is_dir() else "move the file away, or set --data-dir"
    return f"the data folder {folder} (from {source}) {problem}; {fix}"


def cannot_make(folder: Path) -> str | None:
    """Why ``folder`` cannot be made (a file in its way, ``/proc`` makes nothing, a
    read-only disk, no permission), naming where; None when it is a folder or can be made.
    Only trying tells (root passes every permission check), so an empty folder is made and
    removed at once in the nearest folder that exists."""
    first = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if first is None or (first == folder and first.is_dir()):
        return None
    if not first.is_dir():
        return f"{first} is a file"
    try:
        probe = tempfile.mkdtemp(prefix=".agent-canvas-", dir=first)
    except OSError as exc:
        return f"nothing can be made in {first} ({exc.strerror or exc})"
    with contextlib.suppress(OSError):
        os.rmdir(probe)
    return None


def runs_dir(data: Path) -> Path:
    """The folder holding one sub-folder per run."""
    return data / "runs"
