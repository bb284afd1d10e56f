"""Atomic file writes: temp file in the same folder, fsync, rename, fsync the folder."""

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson
import yaml


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a folder
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never half."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Atomically write UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Atomically write ``obj`` as indented JSON with sorted keys."""
    data = orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    atomic_write_bytes(path, data + b"\n")


def atomic_write_yaml(path: str | os.PathLike[str], obj: Any) -> None:
    """Atomically write ``obj`` as block-style YAML, keys in the given order."""
    text = yaml.safe_dump(obj, sort_keys=False, allow_unicode=True, default_flow_style=False)
    atomic_write_text(path, text)
