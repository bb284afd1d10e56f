"""The ``## bench_x`` sections of bench/RESULTS.md: each module's table, the line saying how
long it took and when it was measured, and the note written by hand below that line.

``python -m bench --only x --update`` rewrites the tables and keeps the notes.
"""

from __future__ import annotations

import re

TIMING = re.compile(r"^\([\d.]+ s(?:;[^\n]*)?\)$", flags=re.M)
"""``(67.8 s)`` or ``(67.8 s; measured 2026-11-23 18:56 UTC, load average at start ...)``."""


def sections(text: str) -> dict[str, str]:
    """The ``## bench_x`` sections of an existing RESULTS.md, by module name, each saying
    when it was measured (the file's date when the section itself does not)."""
    date = re.search(r"^- date: (.*)$", text, flags=re.M)
    load = re.search(r"^- load average at start: (.*)$", text, flags=re.M)
    when = f"; measured {date[1]}, load average at start {load[1] if load else 'n/a'})" \
        if date else ")"
    found: dict[str, str] = {}
    parts = re.split(r"^## (bench_\w+)[ \t]*$", text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        # a note may follow the timing line, so the stamp goes on that line, not the last
        body = re.sub(r"^\(([\d.]+ s)\)$", lambda m: f"({m[1]}{when}", body.strip(),
                      count=1, flags=re.M)
        found[name] = f"## {name}\n\n{body}\n"
    return found


def figures(section: str) -> str:
    """A section up to and including its timing line: the heading and the table."""
    timing = TIMING.search(section)
    return section[:timing.end()] if timing else section


def note(section: str) -> str:
    """The prose written by hand after a section's timing line ('' when there is none)."""
    timing = TIMING.search(section)
    return section[timing.end():].strip() if timing else ""
