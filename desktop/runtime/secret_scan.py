"""Which known secret values a change adds to files, by file and secret name.

An agent is given API keys (by name, from the environment or the keychain) and may write
one into a file of its worktree: a ``.env``, a config, a test fixture. Its turn's commit
keeps it (the commit is the agent's exact work), but the result must not carry it
unnoticed into the user's branches and remote. The scan looks at the added lines of a
``git diff`` only, each file's added text as one string (so a value that spans lines is
found too), and at nothing when no value occurs anywhere in the patch: the common case
costs one substring search per secret. Binary files (``git diff --binary``) are not
looked into.

What it reports never holds a value: the file and the name of the variable the value
came from (desktop/providers/redact.py: ``Redactor.names``), as
desktop/views/secret_words.py says it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.disk.keychain import keyring_env
from desktop.providers.redact import Redactor
from desktop.runtime.git_run import GitError, git
from desktop.views.reader import EventReader
from desktop.views.secret_words import SecretFound, recorded

if TYPE_CHECKING:
    from desktop.runtime.run_result import RunResult

__all__ = ["SecretFound", "added_secrets", "change_secrets", "result_secrets"]

_HEADER = re.compile(rb"^diff --git ")
_QUOTED_ESCAPES = {b"n": b"\n", b"t": b"\t", b'"': b'"', b"\\": b"\\", b"a": b"\a",
                   b"b": b"\b", b"f": b"\f", b"r": b"\r", b"v": b"\v"}


def _unquote(raw: bytes) -> bytes:
    """A path as git quotes one with special characters (``"b/a\\tb"``), unquoted."""
    if not (raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2):
        return raw
    body, out, i = raw[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i:i + 1]
        if ch == b"\\" and i + 1 < len(body):
            nxt, octal = body[i + 1:i + 2], body[i + 1:i + 4]
            if len(octal) == 3 and all(48 <= c <= 55 for c in octal):  # \302: one byte
                out.append(int(octal, 8))
                i += 4
                continue
            out += _QUOTED_ESCAPES.get(nxt, nxt)
            i += 2
            continue
        out += ch
        i += 1
    return bytes(out)


def _new_path(line: bytes) -> str | None:
    """The file a ``+++ `` line names (None: ``/dev/null``, a deletion)."""
    raw = _unquote(line[4:].rstrip(b"\r"))
    if raw == b"/dev/null":
        return None
    if raw.startswith(b"b/"):
        raw = raw[2:]
    return raw.decode("utf-8", "surrogateescape")


def _added_by_file(patch: bytes) -> dict[str, bytes]:
    """Each file's added lines, joined by newlines."""
    added: dict[str, list[bytes]] = {}
    path: str | None = None
    in_hunk = False
    for line in patch.split(b"\n"):
        if _HEADER.match(line):
            path, in_hunk = None, False
        elif not in_hunk and line.startswith(b"+++ "):
            path = _new_path(line)
        elif line.startswith(b"@@"):
            in_hunk = True
        elif in_hunk and path is not None and line.startswith(b"+"):
            added.setdefault(path, []).append(line[1:])
    return {p: b"\n".join(lines) for p, lines in added.items()}


def added_secrets(patch: bytes, names: Mapping[str, str]) -> list[SecretFound]:
    """The secrets (``names``: each value with its name) that the added lines of git diff
    ``patch`` hold, by file, sorted; none when no value occurs in the patch at all."""
    present = [(value.encode("utf-8"), name) for value, name in names.items()
               if value and value.encode("utf-8") in patch]
    if not present:
        return []
    found = {SecretFound(path, name)
             for path, text in _added_by_file(patch).items()
             for value, name in present if value in text}
    return sorted(found)


def change_secrets(repo: Path, old: str, new: str, names: Mapping[str, str]) -> list[SecretFound]:
    """The secrets that the change from commit ``old`` to ``new`` adds, by file."""
    if not names:
        return []
    diff = git(repo, "diff", "--no-renames", "--no-color", "--no-ext-diff", "-U0",
               "--src-prefix=a/", "--dst-prefix=b/", old, new)
    if not diff.ok:
        raise GitError(f"git diff in {repo} failed: {diff.reason()}")
    return added_secrets(diff.out, names)


def known_secrets(data_dir: Path) -> dict[str, str]:
    """The secrets the engine of data folder ``data_dir`` redacts, each value with its
    name: the environment's, the keychain's and the user's patterns'."""
    return Redactor.from_env(keyring_env(), data_dir=data_dir).names


def recorded_secrets(run_dir: Path) -> list[SecretFound]:
    """The findings the run's turns recorded on their diff artifacts."""
    found: set[SecretFound] = set()
    for event in EventReader(run_dir).iter_events():
        if event.get("type") == "artifact.created":
            found.update(recorded(event.get("artifact") or {}))
    return sorted(found)


def result_secrets(result: RunResult, theirs: str, files: list[str]) -> list[SecretFound]:
    """The secrets the result as applied (commit ``theirs`` on its base, holding the
    accepted ``files``) writes into them. A secret a turn recorded whose value this
    process does not know (the engine's environment had it, this one has not) counts
    while its file is applied: whether it is still there cannot be told here."""
    names = known_secrets(result.run_dir.parent.parent)
    found = set(change_secrets(result.repo, result.base, theirs, names))
    known = set(names.values())
    chosen = set(files)
    found.update(f for f in recorded_secrets(result.run_dir)
                 if f.name not in known and f.path in chosen)
    return sorted(found)
