"""A throwaway X server (Xvfb) for the benches that time a window's first appearance, and
that timing: from spawn until a window with a given title is mapped, polled with
``xwininfo``."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

WINDOW_TIMEOUT = 120.0
"""Seconds a program has to show its window before the measurement fails."""


def available() -> bool:
    """Xvfb and xwininfo are both on PATH (the window rows need both)."""
    return bool(shutil.which("Xvfb") and shutil.which("xwininfo"))


@contextmanager
def xvfb() -> Iterator[str]:
    """A fresh Xvfb on a display number of its own choosing; yields the display (``:5``)
    and ends the server on leaving."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0",
                               "1600x1000x24", "-nolisten", "tcp"], pass_fds=(write_end,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    try:
        with os.fdopen(read_end) as pipe:
            display = ":" + pipe.readline().strip()
        yield display
    finally:
        server.terminate()
        server.wait(10)


def first_window(argv: Sequence[str], env: dict[str, str], display: str, title: str) -> float:
    """Seconds from spawning ``argv`` on ``display`` until a window whose title holds
    ``title`` is mapped; the program (and its process group) is ended afterwards."""
    return window_titles(argv, env, display, [title])[0]


def window_titles(argv: Sequence[str], env: dict[str, str], display: str,
                  titles: Sequence[str]) -> list[float]:
    """Seconds from spawning ``argv`` on ``display`` until a window's title holds each of
    ``titles`` in turn (a title that changes as the program starts up); the program (and
    its process group) is ended once the last one is seen."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env={**env, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    seen: list[float] = []
    try:
        while time.perf_counter() - start < WINDOW_TIMEOUT:
            tree = subprocess.run(["xwininfo", "-root", "-tree"],
                                  env={"DISPLAY": display, "LANG": "C.UTF-8"},
                                  capture_output=True, text=True, timeout=20).stdout
            while len(seen) < len(titles) and titles[len(seen)] in tree:
                seen.append(time.perf_counter() - start)
            if len(seen) == len(titles):
                return seen
            time.sleep(0.01)
        raise RuntimeError(f"no window titled {titles[len(seen)]!r} within "
                           f"{WINDOW_TIMEOUT:.0f} s: {' '.join(argv)}")
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(30)
