"""Unified diffs split into files, with added/removed counts and side-by-side rows."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FileDiff:
    """One file's part of a unified diff."""

    path: str
    old_path: str = ""
    added: int = 0
    removed: int = 0
    lines: list[str] = field(default_factory=list)  # the file's diff text, headers included

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _path_from(header: str) -> str:
    name = header[4:].split("\t")[0].strip()
    if name == "/dev/null":
        return ""
    return name[2:] if name[:2] in ("a/", "b/") else name


def parse_diff(text: str) -> list[FileDiff]:
    """Files of a unified (git) diff, in order."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    in_hunk = False
    for line in text.splitlines():
        if line.startswith("diff --git "):
            parts = line.split(" b/", 1)
            current = FileDiff(path=parts[1] if len(parts) == 2 else line[11:])
            files.append(current)
            in_hunk = False
            current.lines.append(line)
            continue
        if line.startswith("--- ") and not in_hunk:
            if current is None:
                current = FileDiff(path="")
                files.append(current)
            current.old_path = _path_from(line)
            current.lines.append(line)
            continue
        if line.startswith("+++ ") and not in_hunk and current is not None:
            current.path = _path_from(line) or current.path or current.old_path
            current.lines.append(line)
            continue
        if current is None:
            continue
        if line.startswith("@@"):
            in_hunk = True
        elif in_hunk and line.startswith("+"):
            current.added += 1
        elif in_hunk and line.startswith("-"):
            current.removed += 1
        current.lines.append(line)
    return files


def side_by_side(diff: FileDiff) -> list[tuple[str, str, str]]:
    """Rows (kind, left, right): kind is "ctx", "chg", "add", "del" or "hunk"."""
    rows: list[tuple[str, str, str]] = []
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        for i in range(max(len(removed), len(added))):
            left = removed[i] if i < len(removed) else ""
            right = added[i] if i < len(added) else ""
            kind = "chg" if i < len(removed) and i < len(added) else \
                ("del" if i < len(removed) else "add")
            rows.append((kind, left, right))
        removed.clear()
        added.clear()

    in_hunk = False
    for line in diff.lines:
        if line.startswith("@@"):
            flush()
            in_hunk = True
            rows.append(("hunk", line, line))
        elif not in_hunk:
            continue
        elif line.startswith("-"):
            removed.append(line[1:])
        elif line.startswith("+"):
            added.append(line[1:])
        elif line.startswith("\\"):
            continue
        else:
            flush()
            rows.append(("ctx", line[1:], line[1:]))
    flush()
    return rows
