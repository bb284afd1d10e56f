"""The engine's watchdog: ends the agents' process groups when the engine dies.

Run as ``python -I -S watchdog.py`` (standard library only, so it starts in a few
milliseconds and needs no package path; ``agent-canvas _watchdog`` in the bundle) in a
session of its own, with its stdin the read end of a pipe whose only write end the
engine holds. The engine writes one line
per change::

    +PGID START   an agent's process group started (START: its leader's start time)
    -PGID         that group has ended; forget it
    q             the engine is closing cleanly; exit without ending anything

End of file without ``q`` means the engine is gone (``kill -9`` included: the kernel
closes its descriptors), so every group still registered gets SIGTERM, then SIGKILL
after ``GRACE`` seconds. A group whose leader's pid now belongs to a process with
another start time is left alone: the pid was reused.
"""

import contextlib
import os
import signal
import sys
import time

GRACE = 0.5


def start_time(pid: int) -> int | None:
    """Field 22 of /proc/PID/stat (clock ticks after boot), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    return int(fields[19]) if len(fields) > 19 else None


def group_alive(pgid: int) -> bool:
    """Whether a live (non-zombie) process of group ``pgid`` is left."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:  # zombies count for killpg but are already dead
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] != b"Z":
            return True
    return False


def still_ours(pgid: int, start: int | None) -> bool:
    """False when the leader's pid now names another process (a reused pid)."""
    now = start_time(pgid)
    # A leader that is gone: its pid stays reserved while its group has members.
    return now is None or start is None or now == start


def end_groups(groups: dict[int, int | None]) -> None:
    targets = [g for g, s in groups.items() if group_alive(g) and still_ours(g, s)]
    for sig, wait in ((signal.SIGTERM, GRACE), (signal.SIGKILL, 2.0)):
        for pgid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(group_alive(g) for g in targets):
            time.sleep(0.02)
        targets = [g for g in targets if group_alive(g)]
        if not targets:
            return


def main(argv: list[str] | None = None) -> int:
    """Watch until the engine says ``q`` or is gone; ``argv`` is unused."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    groups: dict[int, int | None] = {}
    buffer = b""
    while True:
        data = os.read(0, 4096)
        if not data:
            break
        buffer += data
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            if line == b"q":
                return 0
            parts = line[1:].split()
            if not parts or not parts[0].isdigit():
                continue
            pgid = int(parts[0])
            if line.startswith(b"+"):
                groups[pgid] = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
            elif line.startswith(b"-"):
                groups.pop(pgid, None)
    end_groups(groups)
    return 0


if __name__ == "__main__":
    sys.exit(main())
