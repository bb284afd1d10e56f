"""A changed value in words that show where it changed, for ``agent-canvas diff``.

Short values read whole (``config.model: "a" → "b"``). A long one cut to its first
characters would hide a change late in a prompt or a script (both sides print the same
start), so instead: a multi-line text, or a list or object (as YAML), reads as
a unified line diff under the field's path; a long single line reads as an excerpt of
each side around the first difference (``"…finally run the linter."`` → ``"…finally do
NOT run the linter."``). ``--json`` still gives the values whole.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

import yaml

from desktop.graph.flow_diff import Change

MAX_VALUE = 80
"""A value whose JSON is this long or shorter reads whole."""
CONTEXT = 30
"""Characters of an excerpt kept before the first difference (and after the last)."""
MAX_EXCERPT = 120
"""An excerpt's characters at most; a longer changed part is cut at its end."""
DIFF_CONTEXT = 2
"""Unchanged lines shown around each changed one in a line diff."""
INDENT = "    "


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def _whole(value: Any) -> str:
    return "unset" if value is None else _json(value)


def _text(value: Any) -> str:
    """A string as it is; anything else as YAML, as the workflow file writes it (block
    style: a line per item)."""
    if isinstance(value, str):
        return value
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True,
                          default_flow_style=False, width=100)


def excerpts(old: str, new: str) -> tuple[str, str]:
    """Each side's part around where they differ, quoted, ``…`` where text is left out:
    from CONTEXT characters before the first difference to CONTEXT after the last."""
    prefix = len(old) if old == new else next(
        (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)))
    suffix = 0
    while (suffix < min(len(old), len(new)) - prefix
           and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]):
        suffix += 1
    start = max(0, prefix - CONTEXT)

    def cut(text: str) -> str:
        end = min(len(text), len(text) - suffix + CONTEXT)
        part = text[start:end]
        tail = end < len(text)
        if len(part) > MAX_EXCERPT:
            part, tail = part[:MAX_EXCERPT], True
        quoted = _json(part)[1:-1]
        return f'"{"…" if start else ""}{quoted}{"…" if tail else ""}"'

    return cut(old), cut(new)


def line_diff(old: str, new: str) -> list[str]:
    """The unified diff of two texts' lines, headers left out, hunks parted by ``…``."""
    lines: list[str] = []
    for line in difflib.unified_diff(old.split("\n"), new.split("\n"), lineterm="",
                                     n=DIFF_CONTEXT):
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            if lines:
                lines.append("…")
            continue
        lines.append(line)
    return lines


def change_lines(change: Change) -> list[str]:
    """``path: OLD → NEW`` for short values or one set or unset; else the path and where
    the two differ (an excerpt on the same line, or a line diff on the lines below)."""
    old, new = change.old, change.new
    whole_old, whole_new = _whole(old), _whole(new)
    if old is None or new is None or (len(whole_old) <= MAX_VALUE
                                      and len(whole_new) <= MAX_VALUE):
        return [f"{change.path}: {_cut(whole_old)} → {_cut(whole_new)}"]
    a, b = _text(old), _text(new)
    if "\n" in a or "\n" in b:
        diff = line_diff(a, b)
        if diff:  # else they differ only in type or line ends: the values say it
            return [f"{change.path}:", *(INDENT + line for line in diff)]
        return [f"{change.path}: {_cut(whole_old)} → {_cut(whole_new)}"]
    before, after = excerpts(a, b)
    return [f"{change.path}: {before} → {after}"]


def _cut(text: str) -> str:
    """A value that is set or unset whole reads at most MAX_VALUE characters."""
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 1] + "…"


__all__ = ["change_lines", "excerpts", "line_diff"]
