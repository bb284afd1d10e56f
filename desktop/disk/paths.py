"""Where runs live: the platform's user data folder unless overridden."""

import os
from pathlib import Path

from platformdirs import user_data_dir

ENV_DATA_DIR = "AGENT_CANVAS_DATA_DIR"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: ``override``, else $AGENT_CANVAS_DATA_DIR, else the platform's."""
    chosen = override or os.environ.get(ENV_DATA_DIR) or user_data_dir("agent-canvas")
    return Path(chosen).expanduser().resolve()


def runs_dir(data: Path) -> Path:
    """The folder holding one sub-folder per run."""
    return data / "runs"
