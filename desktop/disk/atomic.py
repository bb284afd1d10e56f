"""Atomic file writes: temp file in the same folder, fsync, rename, fsync the folder.

The new file is made 0600 (by mkstemp), which the app's own files rely on (the service's
token file); a user's document keeps the permission bits of the file it replaces when
the caller says ``keep_mode``, as it would if written in place. The rename asks only the
folder's permission, so a file marked read-only is replaced like any other: a caller
writing the user's own files asks :func:`read_only` first.
"""

import contextlib
import os
import stat
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


def read_only(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a file this user may not write, or one marked read-only (no
    write bit for anyone: root may write it, but whoever marked it meant it to stay)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # not there (a new file) or not to be looked at: the write will say
        return False
    return stat.S_ISREG(mode) and (not stat.S_IMODE(mode) & 0o222
                                   or not os.access(path, os.W_OK))


def _mode_of(target: Path) -> int | None:
    try:
        info = os.stat(target)
    except OSError:
        return None
    # the permission bits only: a write in place clears set-user-id and set-group-id too
    return info.st_mode & 0o777 if stat.S_ISREG(info.st_mode) else None


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *,
                       keep_mode: bool = False, make_folder: bool = True) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never half;
    with ``keep_mode`` the file keeps the permission bits of the one it replaces. Without
    ``make_folder``, a folder that is gone stays gone (FileNotFoundError): a cache of a
    run's must not bring back a run folder being deleted."""
    target = Path(path)
    if make_folder:
        target.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_of(target) if keep_mode else None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        if mode is not None:  # mkstemp makes it 0600; the file it replaces says who may read
            with contextlib.suppress(OSError):  # a file system without modes keeps its own
                os.fchmod(fd, mode)
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


def atomic_write_text(path: str | os.PathLike[str], text: str, *,
                      keep_mode: bool = False) -> None:
    """Atomically write UTF-8 text (``keep_mode``: as :func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"), keep_mode=keep_mode)


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Atomically write ``obj`` as indented JSON with sorted keys."""
    data = orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    atomic_write_bytes(path, data + b"\n")


def atomic_write_yaml(path: str | os.PathLike[str], obj: Any) -> None:
    """Atomically write ``obj`` as block-style YAML, keys in the given order."""
    text = yaml.safe_dump(obj, sort_keys=False, allow_unicode=True, default_flow_style=False)
    atomic_write_text(path, text)
