"""A fork's workspaces, restored to the state at the fork point from the recorded diffs.

Each agent run records ``diff.patch``: the change of its workspace, from a snapshot taken
before the agent started to one taken after it ended (see workspace_diff.py).

- The run's scratch workspace started empty, so the fork's is a fresh one with the diffs
  recorded before the fork point replayed in log order.
- A configured workspace (a project folder) started as whatever it held then, which no
  diff records; the fork gets a copy of it as it is now with the diffs recorded after the
  fork point undone, newest first. The source's folder is never written.

Turns that ran at the same time in one folder each snapshot the other's work too, so
their diffs overlap. A diff is applied whole when it can be; otherwise section by
section (one file each), where a section already in place is skipped.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from desktop.runtime import helper_process
from desktop.runtime.workspace import init_scratch

_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}


class WorkspaceRestoreError(ValueError):
    """A recorded diff does not apply; the message names it, the file and the fix."""


@dataclass
class Restored:
    """One restored folder: what it restores and how many diffs that took."""

    path: Path
    source: Path
    diffs: int = 0
    skipped: int = 0
    undone: bool = False
    """True for a copy of a configured folder with later diffs undone."""
    taken: int = 0
    """Files taken whole from the source's snapshots (overlapping concurrent diffs)."""


@dataclass(frozen=True)
class Patch:
    """A recorded diff: its file and who made it (for messages)."""

    path: Path
    label: str


def _apply(folder: Path, patch: bytes, *, reverse: bool, check: bool = False
           ) -> tuple[bool, str]:
    args = ["git", "apply", "--whitespace=nowarn"]
    if reverse:
        args.append("--reverse")
    if check:
        args.append("--check")
    proc = helper_process.run([*args, "-"], cwd=str(folder), input=patch,
                              env=dict(os.environ, **_GIT_ENV), capture_output=True)
    return proc.returncode == 0, proc.stderr.decode("utf-8", "replace").strip()


def _sections(patch: bytes) -> list[bytes]:
    """The patch cut before each ``diff --git`` line: one section per file."""
    parts: list[bytes] = []
    start = 0
    for marker in _starts(patch):
        if marker > start:
            parts.append(patch[start:marker])
        start = marker
    parts.append(patch[start:])
    return [p for p in parts if p.startswith(b"diff --git ")]


def _starts(patch: bytes) -> Iterable[int]:
    pos = patch.find(b"\ndiff --git ")
    while pos >= 0:
        yield pos + 1
        pos = patch.find(b"\ndiff --git ", pos + 1)


def _section_name(section: bytes) -> str:
    return section.split(b"\n", 1)[0][len(b"diff --git "):].decode("utf-8", "replace")


@dataclass
class Replayed:
    """What :func:`replay` did: patches used, file changes already in place, and files
    taken whole from the source's snapshots."""

    used: int = 0
    skipped: int = 0
    taken: int = 0


def replay(folder: Path, patches: list[Patch], *, reverse: bool = False,
           snapshots: Path | None = None) -> Replayed:
    """Apply (or with ``reverse`` undo, in the order given) each patch in ``folder``.

    ``snapshots``: a folder in the source's git repository, whose object store holds the
    files each recorded snapshot saw; a file change that neither is in place nor applies
    (a concurrent turn's snapshot caught a file half written) takes the file as the
    change's snapshot had it from there.
    """
    done = Replayed()
    datas = [(patch, _read(patch)) for patch in patches]
    datas = [(patch, data) for patch, data in datas if data.strip()]
    # One git process for the lot when they apply in a row (git apply is all or nothing,
    # and applies successive patches of one file in turn); else one by one.
    whole = b"".join(data if data.endswith(b"\n") else data + b"\n" for _p, data in datas)
    if datas and _apply(folder, whole, reverse=reverse)[0]:
        done.used = len(datas)
        return done
    for patch, data in datas:
        done.used += 1
        if _apply(folder, data, reverse=reverse)[0]:
            continue
        for section in _sections(data):
            if _apply(folder, section, reverse=not reverse, check=True)[0]:
                done.skipped += 1  # already there (an overlapping concurrent diff)
                continue
            ok, error = _apply(folder, section, reverse=reverse)
            if ok:
                continue
            if snapshots is not None and _take_image(folder, section, snapshots, reverse):
                done.taken += 1
                continue
            verb = "undo" if reverse else "apply"
            raise WorkspaceRestoreError(
                f"{patch.path}: the diff of {patch.label} does not {verb} cleanly to "
                f"{_section_name(section)} in {folder} ({error}); the workspace was "
                "changed outside the run, so the state at the fork point cannot be "
                "rebuilt — fork from a later point, or restore the folder first")
    return done


def _read(patch: Patch) -> bytes:
    try:
        return patch.path.read_bytes()
    except OSError as exc:
        raise WorkspaceRestoreError(
            f"{patch.path}: cannot read the diff of {patch.label} ({exc.strerror}); "
            "the source run folder is incomplete") from None


_INDEX = re.compile(rb"^index ([0-9a-f]{7,64})\.\.([0-9a-f]{7,64})", re.M)


def _take_image(folder: Path, section: bytes, snapshots: Path, reverse: bool) -> bool:
    """Write the file as the section's own snapshot had it (before it when undoing);
    False when the section names no blob, is a rename, or the blob is not there."""
    found = _INDEX.search(section)
    listed = helper_process.run(["git", "apply", "--numstat", "-z", "-"], cwd=str(folder),
                                input=section, env=dict(os.environ, **_GIT_ENV),
                                capture_output=True)
    fields = listed.stdout.split(b"\0")
    if found is None or listed.returncode != 0 or len(fields) != 2:  # none, or a rename
        return False
    rel = Path(os.fsdecode(fields[0].split(b"\t", 2)[-1]))
    if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts[0] == ".git":
        return False
    target = folder / rel
    blob = found.group(1 if reverse else 2)
    if not blob.strip(b"0"):  # no file on that side
        target.unlink(missing_ok=True)
        return True
    read = helper_process.run(["git", "cat-file", "blob", blob.decode()], cwd=str(snapshots),
                              env=dict(os.environ, **_GIT_ENV), capture_output=True)
    if read.returncode != 0:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(read.stdout)
    return True


def restore_scratch(dest: Path, source: Path, patches: list[Patch]) -> Restored:
    """A fresh scratch workspace at ``dest`` with ``patches`` replayed in order (the
    source scratch workspace ``source`` lends its snapshots when diffs overlap)."""
    init_scratch(dest)
    done = replay(dest, patches, snapshots=source if (source / ".git").exists() else None)
    return Restored(dest, source, done.used, done.skipped, taken=done.taken)


def restore_copy(dest: Path, source: Path, later: list[Patch]) -> Restored:
    """``dest``: a copy of the folder ``source`` as it is now (without its ``.git``) with
    the diffs made after the fork point (``later``, oldest first) undone newest first."""
    if not source.is_dir():
        raise WorkspaceRestoreError(
            f"{source}: the workspace of the source run is gone, so the fork cannot start "
            "from its state; restore the folder, or fork from before its first turn")
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    init_scratch(dest)  # a repository of its own, so the fork's turns record diffs too
    done = replay(dest, list(reversed(later)), reverse=True, snapshots=source)
    return Restored(dest, source, done.used, done.skipped, undone=True, taken=done.taken)
