"""The words of the Result view: the default branch name, an earlier application in one
line, and what an application or a pull request did (as rich text for its banner)."""

from __future__ import annotations

from html import escape
from typing import Any

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


def applied_line(record: dict[str, Any]) -> str:
    """One earlier application: when, where to, which files."""
    files = [str(f) for f in record.get("files") or []]
    where = f"branch {record.get('branch')}" if record.get("target") == "branch" \
        else "the working tree"
    when = str(record.get("at") or "").replace("T", " ").rstrip("Z")
    return f"• {when} to {where}: {plural(len(files), 'file')}: {_files(files)}"


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
