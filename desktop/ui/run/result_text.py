"""The words of the Result view: the default branch name, an earlier application in one
line, what an application or a pull request did (as rich text for its banner), and
which result a replay before the run's end shows."""

from __future__ import annotations

from html import escape
from typing import Any

from desktop.views.result_words import BRANCH_WHY, collided_with, collides, either, remedies
from desktop.wording import plural

BRANCH_PREFIX = "agent-canvas/"


def default_branch(run_id: str, taken: list[str | None]) -> str:
    """``agent-canvas/RUN8``, or ``-2``, ``-3``… after it when the result was already
    applied as a branch of that name."""
    name = BRANCH_PREFIX + (run_id[:8] or "result")
    n = 1
    candidate = name
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    return candidate


def _files(files: list[str], most: int = 6) -> str:
    shown = ", ".join(files[:most])
    return shown + (f" and {len(files) - most} more" if len(files) > most else "")


def _when(stamp: Any) -> str:
    return str(stamp or "").replace("T", " ").rstrip("Z")


def applied_line(record: dict[str, Any]) -> str:
    """One earlier application: when, where to, which files (and when it was undone)."""
    files = [str(f) for f in record.get("files") or []]
    where = f"branch {record.get('branch')}" if record.get("target") == "branch" \
        else "the working tree"
    undone = f" (undone {_when(record['undone'])})" if record.get("undone") else ""
    return (f"• {_when(record.get('at'))} to {where}: {plural(len(files), 'file')}: "
            f"{_files(files)}{undone}")


def undo_tip(record: dict[str, Any]) -> str:
    """What Undo apply would do to the application ``record``."""
    return (f"Put the {plural(len(record.get('files') or []), 'file')} the apply of "
            f"{_when(record.get('at'))} changed back as they were before it; an edit of yours "
            "made since stays, and one that collides stops it (nothing changes)")


def undone_text(outcome: dict[str, Any]) -> str:
    """What undoing an application did, as rich text."""
    files = [str(f) for f in outcome.get("files") or []]
    if not outcome.get("applied"):
        message = str(outcome.get("message") or "")
        return escape(message[:1].upper() + message[1:])
    return (f"<b>Undone</b>: {plural(len(files), 'file')} put back as before the apply: "
            f"{escape(_files(files, 12)) or 'none needed it'}. Your edits since are kept.")


def _bullets(files: list[str]) -> str:
    listed = "".join(f"<li><b>{escape(p)}</b></li>" for p in files)
    return f"<ul style='margin: 2px 0'>{listed}</ul>"


def _collide(files: list[str]) -> str:
    return "collides" if len(files) == 1 else "collide"


def collision_text(files: list[str], branch: str | None = None) -> str:
    """Applying was refused: ``files`` collide with the user's work, nothing changed; in
    the words of where it was to land (the working tree, or new branch ``branch``)."""
    why = f"{BRANCH_WHY[:1].upper()}{BRANCH_WHY[1:]}. " if branch else ""
    fix = either(["Reject these files (untick them)", *remedies(branch)])
    said = escape(collides(len(files), branch), quote=False)
    return (f"<b>Nothing was changed</b>: {said}:{_bullets(files)}"
            f"{escape(why + fix, quote=False)}.")


def collision_tip(branch: str | None) -> str:
    """A colliding file's row tooltip, for where the result was to land."""
    return f"collides with {collided_with(branch)}"


def undo_collision_text(files: list[str]) -> str:
    """Undo was refused: ``files`` were edited since the apply, in the same lines."""
    return (f"<b>Nothing was changed</b>: your edits since the apply to "
            f"{plural(len(files), 'file')} {_collide(files)} with what undo puts back:"
            f"{_bullets(files)}Take the apply's change out of them by hand, or put them back "
            "as the apply left them, then undo again.")


def outcome_text(outcome: dict[str, Any]) -> str:
    """What an application did, as rich text."""
    message = str(outcome.get("message") or "")
    files = [str(f) for f in outcome.get("files") or []]
    if not outcome.get("applied"):
        return escape(message[:1].upper() + message[1:])
    listed = escape(_files(files, 12))
    if outcome.get("target") == "branch":
        commit = str(outcome.get("commit") or "")[:12]
        return (f"<b>Created branch {escape(str(outcome.get('branch')))}</b> at {commit} with "
                f"{plural(len(files), 'file')}: {listed}. Your checkout was not touched.")
    return (f"<b>Applied {plural(len(files), 'file')} to your working tree</b>: {listed}. Your "
            "uncommitted changes are kept; nothing was committed or staged.")


def pull_request_text(opened: dict[str, Any], branch: str) -> str:
    """A pull request was opened: its link, and where the branch was pushed."""
    url = escape(str(opened.get("url") or ""))
    return (f"<b>Opened a pull request</b>: <a href=\"{url}\">{url}</a> (branch "
            f"{escape(branch)} pushed to {escape(str(opened.get('remote') or 'the remote'))}).")


def replay_text(seq: int, total: int) -> str:
    """What the Result tab says while a replay shows the run before its end."""
    return (f"<b>The run's final result</b>, as the run ended: the replay shows event "
            f"{seq:,} of {total:,}, but a result is taken from the run's branches as they "
            "are now, not as they were at that moment. Apply and Create branch take this "
            "final result.")
