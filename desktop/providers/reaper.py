"""Agents die with their engine: the engine's side of the watchdog (see watchdog.py).

Why a watchdog and not ``PR_SET_PDEATHSIG``: the parent-death signal reaches only the
direct child (an agent's shell steps and tools would live on), fires when the parent
*thread* exits rather than the process, and must be set between fork and exec, where
a multi-threaded engine may not safely run Python code. One watchdog per engine
process, in its own session, holding the read end of a pipe only the engine can
write, ends every registered process group however the engine ends, ``kill -9``
included. Resume also ends what is left of an interrupted turn
(runtime/recovery.py), for the one case this cannot cover: the engine killed
between spawning an agent and registering its group.
"""

import atexit
import contextlib
import os
import subprocess
import threading
from pathlib import Path

from desktop.cli.self_launch import script_command
from desktop.providers.pgroup import POSIX, process_start

WATCHDOG = Path(__file__).with_name("watchdog.py")


class GroupReaper:
    """The engine process's registry of live agent process groups, mirrored to its
    watchdog. Safe to call from any thread; a no-op where there are no process groups."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0  # the process that started the watchdog (a fork needs its own)
        self._proc: subprocess.Popen[bytes] | None = None
        self._fd: int | None = None
        self._groups: dict[int, int | None] = {}

    def watch(self, pgid: int, leader: int | None = None) -> None:
        """Register a process group (led by ``leader``, by default ``pgid``)."""
        if not POSIX or pgid <= 1:
            return
        start = process_start(leader or pgid)
        with self._lock:
            self._groups[pgid] = start
            self._send(f"+{pgid} {start if start is not None else '-'}\n")

    def forget(self, pgid: int | None) -> None:
        """The group has ended (or was ended by the engine)."""
        if not POSIX or pgid is None:
            return
        with self._lock:
            if self._groups.pop(pgid, "gone") != "gone":
                self._send(f"-{pgid}\n")

    def close(self) -> None:
        """Stop the watchdog without ending anything (a clean shutdown)."""
        self._stop(b"q\n")

    def at_exit(self) -> None:
        """The process is exiting: the watchdog ends the groups still registered, as it
        would once the process is gone, and is waited for, not left to the collector."""
        self._stop(b"" if self._groups else b"q\n")

    def _stop(self, farewell: bytes) -> None:
        with self._lock:
            if self._fd is not None and self._pid == os.getpid():
                if farewell:
                    self._write(farewell)
                os.close(self._fd)
                if self._proc is not None:
                    # past this, it ends by itself after its grace period
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        self._proc.wait(timeout=5)
            self._fd, self._proc = None, None

    # --- internals (under the lock) --------------------------------------------------

    def _send(self, line: str) -> None:
        if self._fd is None or self._pid != os.getpid() or not self._alive():
            self._start()
            return  # _start sends every registered group, this one included
        if not self._write(line.encode()):
            self._start()

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _write(self, data: bytes) -> bool:
        assert self._fd is not None
        try:
            while data:
                data = data[os.write(self._fd, data):]
        except OSError:  # the watchdog died (BrokenPipeError): start another one
            return False
        return True

    def _start(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)
        read, write = os.pipe()  # both ends non-inheritable: no agent ever holds them
        try:
            self._proc = subprocess.Popen(
                script_command("_watchdog", str(WATCHDOG)), stdin=read,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                start_new_session=True)
        except OSError:
            os.close(write)
            self._fd = None
            return
        finally:
            os.close(read)
        if self._pid != os.getpid():
            atexit.register(self.at_exit)
        self._fd, self._pid = write, os.getpid()
        lines = "".join(f"+{g} {s if s is not None else '-'}\n"
                        for g, s in self._groups.items())
        if lines:
            self._write(lines.encode())


REAPER = GroupReaper()
"""The one reaper of this process."""
