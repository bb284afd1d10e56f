"""Removing secret values (API keys, tokens, passwords) from everything a run keeps.

The values of every variable with a secret-looking name (desktop/contract/secrets.py)
in the engine's environment are replaced by ``[REDACTED]`` wherever they appear: in
events, in the agent's stdout and stderr copies, and in every file of its run folder.
Values shorter than ``MIN_SECRET_LEN`` characters are left alone (they would blank out
ordinary words), and so are values that are paths of existing files (a secret is not
a path; ``GOOGLE_APPLICATION_CREDENTIALS`` names a file whose content is the secret).
"""

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from desktop.contract.secrets import is_secret_name
from desktop.disk.atomic import atomic_write_bytes
from desktop.store.secret_names import user_patterns

MIN_SECRET_LEN = 8

__all__ = ["MIN_SECRET_LEN", "Redactor", "is_secret_name", "secret_names", "secret_values",
           "user_patterns"]


def _worth_redacting(value: str) -> bool:
    if len(value) < MIN_SECRET_LEN:
        return False
    return not (os.path.isabs(value) and os.path.exists(value))


def secret_values(*environs: Mapping[str, str], patterns: Iterable[str] = ()) -> list[str]:
    """Values of secret-named variables in the given environments, longest first."""
    return list(secret_names(*environs, patterns=patterns))


def secret_names(*environs: Mapping[str, str], patterns: Iterable[str] = ()) -> dict[str, str]:
    """Each value of a secret-named variable in the given environments, longest first,
    with the name it has (the first environment's, when several name it)."""
    extra = list(patterns)
    found: dict[str, str] = {}
    for env in environs:
        for name, value in env.items():
            if value and value not in found and is_secret_name(name, extra) \
                    and _worth_redacting(value):
                found[value] = name
    return {value: found[value] for value in sorted(found, key=len, reverse=True)}


class Redactor:
    """Replaces each secret value with ``[REDACTED]`` in text, bytes, events and files."""

    MARK = "[REDACTED]"

    def __init__(self, secrets: Iterable[str] = (), names: Mapping[str, str] | None = None):
        self.secrets = [s for s in dict.fromkeys(secrets) if s]
        # the variable each value came from: a finding names it, never the value
        self.names = {s: (names or {}).get(s, "a secret") for s in self.secrets}
        self._bytes = [(s.encode("utf-8"), self.MARK.encode()) for s in self.secrets]

    @classmethod
    def from_env(cls, *extra: Mapping[str, str], data_dir: Path | None = None) -> "Redactor":
        """A redactor for the secrets of this process's environment and ``extra``, with the
        user's patterns (from the environment and ``data_dir``)."""
        names = secret_names(os.environ, *extra, patterns=user_patterns(data_dir, os.environ))
        return cls(names, names)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, self.MARK)
        return value

    def data(self, value: bytes) -> bytes:
        for secret, mark in self._bytes:
            if secret in value:
                value = value.replace(secret, mark)
        return value

    def event(self, value: Any) -> Any:
        """``value`` with every string redacted: the same object when nothing changed,
        else a copy (what it shares with others is never changed)."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            out = None
            for key, item in value.items():
                new = self.event(item)
                if new is not item:
                    if out is None:
                        out = dict(value)
                    out[key] = new
            return value if out is None else out
        if isinstance(value, list):
            items = [self.event(v) for v in value]
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        return value

    def event_in_place(self, event: dict[str, Any]) -> None:
        """Redact a fresh event dict whose top level the caller owns (nested values that
        change are replaced by copies)."""
        if not self.secrets:
            return
        for key, item in event.items():
            new = self.event(item)
            if new is not item:
                event[key] = new

    def scrub_file(self, path: Path) -> bool:
        """Redact a regular file in place (atomically); True when it held a secret.

        A symlink is never followed: what it points at is not the run's to change.
        """
        if not self.secrets or path.is_symlink() or not path.is_file():
            return False
        try:
            data = path.read_bytes()
        except OSError:
            return False
        clean = self.data(data)
        if clean == data:
            return False
        atomic_write_bytes(path, clean)
        return True

    def scrub_folder(self, folder: Path) -> list[str]:
        """Redact every regular file directly in ``folder``; the names of those changed."""
        if not self.secrets or not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if self.scrub_file(p))
