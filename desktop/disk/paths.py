"""Where runs live: the platform's user data folder unless overridden."""

import os
from pathlib import Path

from platformdirs import user_data_dir

ENV_DATA_DIR = "AGENT_CANVAS_DATA_DIR"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: ``override``, else $AGENT_CANVAS_DATA_DIR, else the platform's."""
    chosen = override or os.environ.get(ENV_DATA_DIR) or user_data_dir("agent-canvas")
    return Path(chosen).expanduser().resolve()


def data_dir_problem(override: str | os.PathLike[str] | None = None) -> str | None:
    """Why the data folder :func:`data_dir` picks cannot be one (it, or a folder it would
    be made in, is a file, or ``--data-dir ""`` gave none), naming where the choice came
    from and what to do; None when it is a folder or can be made."""
    if override is not None and not str(override).strip():
        # an unset shell variable (--data-dir "$DATA"), not a wish for the default folder
        return (f"--data-dir is empty; give a folder (a missing one is made), or leave "
                f"--data-dir out for {data_dir(None)}")
    folder = data_dir(override)
    # a missing folder is made on first use; the first part that exists decides
    first = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if first is None or first.is_dir():
        return None
    if override:
        source, fix = "--data-dir", "give --data-dir a folder (a missing one is made)"
    elif os.environ.get(ENV_DATA_DIR):
        source, fix = f"${ENV_DATA_DIR}", f"set {ENV_DATA_DIR} to a folder (a missing one is made)"
    else:
        source, fix = "the platform's default", "move the file away, or set --data-dir"
    what = "is a file" if first == folder else f"is inside {first}, which is a file"
    return f"the data folder {folder} (from {source}) {what}, not a folder; {fix}"


def runs_dir(data: Path) -> Path:
    """The folder holding one sub-folder per run."""
    return data / "runs"
