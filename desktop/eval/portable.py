"""Keeping artifacts portable: the evaluation folder's absolute path never lands in them.

Agents and checks print absolute paths (a traceback names
``/home/me/out/runs/<id>/workspace/test_x.py``). Before a case file or an asset is
written, every occurrence of the evaluation folder's path becomes ``<eval>``, so
the folder can be copied anywhere and no file names where it used to be.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

MARK = "<eval>"


class Scrubber:
    """Replaces the evaluation folder's path (as given and resolved) with ``<eval>``."""

    def __init__(self, root: Path):
        forms = {str(root), str(Path(root).resolve()), os.path.realpath(root)}
        self._texts = sorted((f for f in forms if len(f) > 1), key=len, reverse=True)
        self._bytes = [f.encode() for f in self._texts]
        self.changed = False

    def text(self, value: str) -> str:
        for form in self._texts:
            if form in value:
                value = value.replace(form, MARK)
                self.changed = True
        return value

    def data(self, value: bytes) -> bytes:
        for form in self._bytes:
            if form in value:
                value = value.replace(form, MARK.encode())
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
