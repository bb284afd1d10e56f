"""Which processes of a process group are still alive (POSIX)."""

import os
from pathlib import Path

POSIX = os.name == "posix"
_PROC = Path("/proc")
_POSIX = POSIX


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of process group ``pgid``.

    Uses /proc where it exists (zombies waiting for a reaper do not count);
    elsewhere a signal-0 probe says whether anything of the group is left.
    """
    if not _POSIX or pgid <= 0:
        return []
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:  # nothing at all left, not even a zombie: skip the scan
        return []
    except PermissionError:
        pass
    if _PROC.is_dir():
        members = []
        for entry in _PROC.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != b"Z":
                members.append(int(entry.name))
        return members
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return []
    return [pgid]


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` names a running (non-zombie) process."""
    stat = _PROC / str(pid) / "stat"
    if _PROC.is_dir():
        try:
            data = stat.read_bytes()
        except OSError:
            return False
        return data[data.rfind(b")") + 2 :][:1] != b"Z"
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def process_start(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot, from /proc), to tell a reused pid
    from the process it used to name; None where /proc is missing or it has gone."""
    try:
        data = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    return int(fields[19]) if len(fields) > 19 else None
