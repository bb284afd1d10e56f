"""Keeping artifacts portable: no absolute path of this machine lands in them.

Agents and checks print absolute paths (a traceback names
``/home/me/out/runs/<id>/workspace/test_x.py``), and the engine writes them into the
run folders an evaluation keeps (prompts name the run folder and the bus command,
run-info.yaml and the event log name the workspace). Before a case file or an asset is
written, and once each kept engine run has ended (:func:`scrub_tree`), every
occurrence of the evaluation folder's path becomes ``<eval>``, this program's folder
``<agent-canvas>``, the Python it runs on ``<python>`` (its environment
``<python-env>``), and the home folder ``~``; so the folder can be copied or moved
anywhere and no file names where it used to be or whose machine made it. The same
pass removes secret values, as the engine's Redactor does in its run folders: the
case's diff and check output come from the workspace, which the engine does not redact.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from desktop.disk.atomic import atomic_write_bytes
from desktop.providers.redact import Redactor

MARK = "<eval>"
CACHE_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
"""Caches a check leaves in a kept workspace: compiled files name their source's
absolute path, and they are rebuilt on demand, so they are dropped."""
MAX_SCRUB_BYTES = 64 * 1024 * 1024


def _forms(path: str | os.PathLike[str]) -> set[str]:
    """``path`` as given, resolved and real (each a way it may be printed)."""
    return {str(path), str(Path(path).resolve()), os.path.realpath(path)}


def local_paths() -> dict[str, str]:
    """This machine's absolute paths other than the evaluation folder -> their marks."""
    from desktop.runtime.agent_env import PACKAGE_ROOT

    marks: dict[str, str] = {}
    for paths, mark in ((_forms(Path.home()), "~"), (_forms(sys.base_prefix), "<python-home>"),
                        (_forms(sys.prefix), "<python-env>"), (_forms(PACKAGE_ROOT),
                                                               "<agent-canvas>"),
                        ({sys.executable} if sys.executable else set(), "<python>")):
        for form in paths:
            if len(form) > 1:
                marks[form] = mark
    return marks


def engine_redactor(root: Path) -> Redactor:
    """The Redactor the engine uses for the runs of data folder ``root`` (the secrets of
    this environment and the keyring, the user's secret-name patterns): what it removes
    from the run folders is removed from the evaluation's own files too."""
    from desktop.disk.keychain import keyring_env

    return Redactor.from_env(keyring_env(), data_dir=root)


class Scrubber:
    """Replaces every secret value (:func:`engine_redactor`) with ``[REDACTED]``, the
    evaluation folder's path (as given and resolved) with ``<eval>``, and this machine's
    other paths (:func:`local_paths`) with their marks; longest first, so a folder inside
    another gets its own mark."""

    def __init__(self, root: Path, redactor: Redactor | None = None):
        self.redactor = engine_redactor(root) if redactor is None else redactor
        marks = local_paths()
        marks.update({form: MARK for form in _forms(root) if len(form) > 1})
        self._texts = sorted(marks.items(), key=lambda pair: len(pair[0]), reverse=True)
        self._bytes = [(form.encode(), mark.encode()) for form, mark in self._texts]
        self.changed = False

    def text(self, value: str) -> str:
        value = self.redactor.text(value)
        for form, mark in self._texts:
            if form in value:
                value = value.replace(form, mark)
                self.changed = True
        return value

    def data(self, value: bytes) -> bytes:
        value = self.redactor.data(value)
        for form, mark in self._bytes:
            if form in value:
                value = value.replace(form, mark)
                self.changed = True
        return value

    def obj(self, value: Any) -> Any:
        """``value`` (JSON-like) with every string scrubbed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.obj(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.obj(v) for v in value]
        return value


def scrub_tree(folder: Path, scrubber: Scrubber) -> int:
    """Scrub every text file under ``folder`` in place (atomically); the number changed.

    Git's own files are left alone (they hold no absolute path, and git must still read
    them); caches are dropped (:data:`CACHE_DIRS`); binary files and symbolic links are
    not touched.
    """
    changed = 0
    for current, dirs, files in os.walk(folder):
        for name in [d for d in dirs if d in CACHE_DIRS]:
            shutil.rmtree(Path(current) / name, ignore_errors=True)
        dirs[:] = [d for d in dirs if d not in CACHE_DIRS and d != ".git"]
        for name in files:
            path = Path(current) / name
            try:
                if path.is_symlink() or path.stat().st_size > MAX_SCRUB_BYTES:
                    continue
                raw = path.read_bytes()
            except OSError:
                continue
            if b"\0" in raw:
                continue  # binary
            clean = scrubber.data(raw)
            if clean != raw:
                atomic_write_bytes(path, clean)
                changed += 1
    return changed
