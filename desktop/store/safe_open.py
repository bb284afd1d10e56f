"""Opening the files of a run folder without following symbolic links.

A run folder is written by agents as well as by the engine, and may come from
elsewhere (an import, a copy, a shared disk). A file in it replaced by a symbolic
link would make the engine append to, truncate or serve a file outside the run
(``events.jsonl`` -> ``~/.bashrc``). So run files are opened with ``O_NOFOLLOW``
(the last path component may not be a link) and must be regular files (not a
FIFO that blocks the reader, not a device); anything else is a :class:`RunFileError`
naming the file and the fix.
"""

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from desktop.store.jsonl import EVENTS_FILE, LOCK_SUFFIX

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)

_MODES = {
    "rb": os.O_RDONLY,
    "ab": os.O_WRONLY | os.O_APPEND | os.O_CREAT,
    "a+b": os.O_RDWR | os.O_APPEND | os.O_CREAT,
    "r+b": os.O_RDWR,
}


class RunFileError(OSError):
    """A run file that is a symbolic link or not a regular file."""

    def __init__(self, path: str | os.PathLike[str], what: str):
        self.path = str(path)
        super().__init__(errno.ELOOP, f"{self.path}: {what}; the files of a run folder must "
                         "be regular files inside it — remove it, or restore the run from a "
                         "copy")


def _refusal(path: str | os.PathLike[str], info: os.stat_result) -> RunFileError:
    if stat.S_ISLNK(info.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return RunFileError(path, f"is a symbolic link (to {target})")
    return RunFileError(path, "is not a regular file")


def check_regular(path: str | os.PathLike[str]) -> None:
    """RunFileError when ``path`` exists and is a link or not a regular file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise _refusal(path, info)


def open_fd(path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int:
    """``os.open`` that refuses links and anything but regular files."""
    check_regular(path)  # also keeps a FIFO from blocking the open
    try:
        fd = os.open(path, flags | NOFOLLOW | _CLOEXEC | _NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RunFileError(path, "is a symbolic link") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise RunFileError(path, "is not a regular file")
    if _NONBLOCK:
        os.set_blocking(fd, True)
    return fd


def open_file(path: str | os.PathLike[str], mode: str = "rb", buffering: int = -1) -> BinaryIO:
    """A binary file object for a run file (``rb``, ``ab``, ``a+b`` or ``r+b``)."""
    fd = open_fd(path, _MODES[mode])
    return os.fdopen(fd, mode, buffering=buffering)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The content of a run file (``Path.read_bytes`` without following links)."""
    with open_file(path) as handle:
        return handle.read()


def check_run_folder(run_dir: str | os.PathLike[str], names: tuple[str, ...] = ()) -> None:
    """RunFileError when one of the run's own files (the event log and its lock and
    index, the snapshot, the engine lock, the agents folder) is a link or not regular."""
    folder = Path(run_dir)
    # Names spelled out: the modules that define them import this one.
    for name in (EVENTS_FILE, EVENTS_FILE + LOCK_SUFFIX, "events.idx", "state.json",
                 "engine.lock", *names):
        check_regular(folder / name)
    agents = folder / "agents"
    if agents.is_symlink():
        raise RunFileError(agents, "is a symbolic link")
