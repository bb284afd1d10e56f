"""How a hint the CLI prints names a run, so that the command it shows works as printed.

``agent-canvas run FLOW --data-dir DIR`` that ends paused must say ``agent-canvas resume
1a2b3c4d --data-dir DIR``: without the folder, the printed command looks in the default
data folder and answers "no run matches". A folder that came from
``$AGENT_CANVAS_DATA_DIR`` is not repeated, as the variable still holds for the next
command.
"""

from __future__ import annotations

import shlex


def run_ref(run_id: str, folder: str | None) -> str:
    """The run's short id, then ``--data-dir DIR`` (quoted for a shell) when ``folder``
    was given on the command line."""
    where = f" --data-dir {shlex.quote(folder)}" if folder else ""
    return run_id[:8] + where


def resume_hint(run_id: str, folder: str | None) -> str:
    """``agent-canvas resume RUN8 [--data-dir DIR]``, in backquotes, to copy and run."""
    return f"`agent-canvas resume {run_ref(run_id, folder)}`"


__all__ = ["resume_hint", "run_ref"]
