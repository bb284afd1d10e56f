"""A node's new worktree made ready to build: ignored files copied in, a setup command run.

A worktree holds what the repository tracks, plus the user's uncommitted and untracked
changes through the run's base commit, but none of the files it ignores: no ``.env``,
no ``node_modules``, no virtualenv. ``nodeConfigs.<id>.worktreeSetup`` names what to copy
from the node's workspace and a command to run in the worktree (``npm ci``), once per
worktree, before the node's first turn in it.

Once per worktree and branch: a mark in the worktree's own git folder (never in its
files, so never committed) names the branch it was set up for. A worktree taken from the
pool for another run, a fork's, or one whose setup failed or was cut short by a killed
engine has no such mark, and is set up (again). A copy never replaces a file the
worktree already has (tracked, or in the base), and what the command makes that the
repository does not ignore is committed on its own before the turn, so the agent's
diff stays its own.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.contract.isolation import WorktreeSetup
from desktop.providers.redact import Redactor
from desktop.runtime.git_run import must
from desktop.runtime.verify import run_verification
from desktop.runtime.workspace_error import WorkspaceError

MARK = "agent-canvas-setup"
"""The mark's file name in the worktree's git folder."""
DEFAULT_TIMEOUT = 1800.0
"""How long a setup command may run when the node sets no timeout (installs are slow)."""

Emit = Callable[[dict[str, Any]], None]


class SetupFailed(WorkspaceError):
    """The setup command failed or timed out; the message says which, with its output's
    end."""


@dataclass(frozen=True)
class Copied:
    """What the copies did: copied, already there, missing from the workspace."""

    copied: list[str]
    present: list[str]
    missing: list[str]


def _mark(worktree: Path) -> Path:
    return Path(must(worktree, "rev-parse", "--path-format=absolute", "--git-dir")) / MARK


def _write_mark(worktree: Path, branch: str) -> None:
    _mark(worktree).write_text(branch + "\n", encoding="utf-8")


def is_set_up(worktree: Path, branch: str) -> bool:
    """Whether the worktree was set up for ``branch`` (this node of this run)."""
    mark = _mark(worktree)
    return mark.is_file() and mark.read_text(encoding="utf-8").strip() == branch


def copy_in(paths: list[str], source: Path, workdir: Path) -> Copied:
    """Copy each of ``paths`` (relative) from ``source`` into ``workdir``, files and
    folders alike (symbolic links as links), never over what ``workdir`` has."""
    copied: list[str] = []
    present: list[str] = []
    missing: list[str] = []
    for rel in paths:
        src, dst = source / rel, workdir / rel
        if dst.exists() or dst.is_symlink():
            present.append(rel)
        elif not (src.exists() or src.is_symlink()):
            missing.append(rel)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir() and not src.is_symlink():
                shutil.copytree(src, dst, symlinks=True)
            else:
                shutil.copy2(src, dst, follow_symlinks=False)
            copied.append(rel)
    return Copied(copied, present, missing)


def _copy_note(done: Copied, source: Path) -> str | None:
    parts = []
    if done.copied:
        parts.append("copied " + ", ".join(done.copied))
    if done.present:
        parts.append(", ".join(done.present) + " already in the worktree")
    if done.missing:
        parts.append(", ".join(done.missing) + f" not in {source}, not copied")
    return "worktree setup: " + "; ".join(parts) if parts else None


async def set_up(setup: WorktreeSetup, *, worktree: Path, workdir: Path, branch: str,
                 source: Path, env: Mapping[str, str], log_path: Path,
                 timeout: float | None, redactor: Redactor, emit: Emit) -> None:
    """Set the worktree up unless it already is for ``branch``: copy, run, mark. Raises
    SetupFailed when the command fails (the mark is not written: the next turn tries
    again)."""
    if await asyncio.to_thread(is_set_up, worktree, branch):
        return
    done = await asyncio.to_thread(copy_in, list(setup.copy_), source, workdir)
    note = _copy_note(done, source)
    if note:
        emit({"type": "node.progress", "message": note})
    if setup.run:
        emit({"type": "node.progress", "message": f"worktree setup: running {setup.run}"})
        started = time.monotonic()
        result = await run_verification(setup.run, cwd=workdir, env=env, log_path=log_path,
                                        timeout=timeout or DEFAULT_TIMEOUT, redactor=redactor,
                                        what="setup")
        if not result["ok"]:
            raise SetupFailed(
                f"the worktree setup command `{setup.run}` failed (exit "
                f"{result['exitCode']}) in {workdir}; fix it in nodeConfigs.<id>."
                f"worktreeSetup.run (its output: {log_path}):\n"
                f"{result['outputTail'][-1500:]}")
        emit({"type": "node.progress", "message": "worktree setup: the command succeeded "
                                                  f"in {time.monotonic() - started:.1f} s"})
    await asyncio.to_thread(_write_mark, worktree, branch)
