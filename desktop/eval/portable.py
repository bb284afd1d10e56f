"""Keeping an evaluation's own files portable: no absolute path of this machine in them.

Agents and checks print absolute paths (a traceback names
``/home/me/out/runs/<id>/workspace/test_x.py``). Before the evaluation writes a case
file or an asset (a diff, a check's output, a failure body), and so in what the
evaluator and the report make of them, every occurrence of the evaluation folder's path
becomes ``<eval>``, this program's folder ``<agent-canvas>``, the Python it runs on
``<python>`` (its environment ``<python-env>``, its installation ``<python-home>``
unless that is a shared system folder such as ``/usr``), and the home folder ``~``; so
the results can be copied or moved anywhere and do not name where they were made. A
path is replaced only as whole path components: ``/root`` in ``/root/x`` or
``"/root"``, never in ``/rootfs`` or ``/srv/root``. The same pass removes secret
values, as the engine's Redactor does in its run folders: the case's diff and check
output come from the workspace, which the engine does not redact.

The engine runs an evaluation keeps (``runs/<id>/``) are the runs' own records and
stay as written (the event log is append-only, ``run-info.yaml`` names absolute paths
as its spec requires, the workspace is what the agents left and the checks ran on),
except the prompts the engine wrote for the agents (:func:`scrub_prompts`), which
name the run folder and the bus command.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from desktop.disk.atomic import atomic_write_bytes
from desktop.providers.redact import Redactor

MARK = "<eval>"
PROMPTS = ("prompt.md", "prompt.full.txt", "prompt.blocks.json")
"""The files of a kept agent run that are scrubbed (desktop/runtime/agent_folder.py)."""
SHARED_PREFIXES = frozenset({"/usr", "/usr/local", "/opt/homebrew", "/opt/local"})
"""Python installations every machine of a kind shares: they say nothing of whose
machine made a file, and marking them would rewrite every ``/usr/bin/env``."""
NAME_CHARS = r"\w.~+@%\-"
"""Characters that continue a file name: a path matched next to one is another path."""
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
            if len(form) > 1 and not (mark.startswith("<python-") and
                                      form.rstrip("/") in SHARED_PREFIXES):
                marks[form] = mark
    return marks


def _pattern(forms: list[str], name_chars: str = NAME_CHARS) -> str:
    """A regular expression matching any of ``forms`` (longest first) as whole path
    components: not inside a longer name on either side."""
    either = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
    return f"(?<![{name_chars}])(?:{either})(?![{name_chars}])"


def engine_redactor(root: Path) -> Redactor:
    """The Redactor the engine uses for the runs of data folder ``root`` (the secrets of
    this environment and the keyring, the user's secret-name patterns): what it removes
    from the run folders is removed from the evaluation's own files too."""
    from desktop.disk.keychain import keyring_env

    return Redactor.from_env(keyring_env(), data_dir=root)


class Scrubber:
    """Replaces every secret value (:func:`engine_redactor`) with ``[REDACTED]``, the
    evaluation folder's path (as given and resolved) with ``<eval>``, and this machine's
    other paths (:func:`local_paths`) with their marks, each only as whole path
    components; the longest first, so a folder inside another gets its own mark."""

    def __init__(self, root: Path, redactor: Redactor | None = None):
        self.redactor = engine_redactor(root) if redactor is None else redactor
        marks = local_paths()
        marks.update({form: MARK for form in _forms(root) if len(form) > 1})
        self._marks = marks
        self._bytes_marks = {form.encode(): mark.encode() for form, mark in marks.items()}
        self._text_re = re.compile(_pattern(list(marks)))
        # in bytes, a non-ASCII byte is part of a name too (a UTF-8 letter)
        self._bytes_re = re.compile(_pattern(list(marks), NAME_CHARS + r"\x80-\xff").encode())
        self.changed = False

    def text(self, value: str) -> str:
        value = self.redactor.text(value)
        value, count = self._text_re.subn(lambda m: self._marks[m.group(0)], value)
        self.changed |= bool(count)
        return value

    def data(self, value: bytes) -> bytes:
        value = self.redactor.data(value)
        value, count = self._bytes_re.subn(lambda m: self._bytes_marks[m.group(0)], value)
        self.changed |= bool(count)
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


def scrub_prompts(run_dir: Path, scrubber: Scrubber) -> int:
    """Scrub the prompt files (:data:`PROMPTS`) of every agent run of a kept engine run in
    place (atomically); the number changed. Nothing else of the run is touched: its
    records and its workspace stay as the run wrote them."""
    changed = 0
    for path in sorted(run_dir.glob("agents/*/*")):
        if path.name not in PROMPTS:
            continue
        try:
            if path.is_symlink() or not path.is_file() \
                    or path.stat().st_size > MAX_SCRUB_BYTES:
                continue
            raw = path.read_bytes()
        except OSError:
            continue
        clean = scrubber.data(raw)
        if clean != raw:
            atomic_write_bytes(path, clean)
            changed += 1
    return changed
