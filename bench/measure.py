"""Small measuring helpers shared by the bench modules."""

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def rss_mb() -> float:
    """This process's resident memory in MB (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def serve(data: Path, concurrency: int) -> tuple[subprocess.Popen, Any]:
    """``agent-canvas serve`` on ``data`` with room for ``concurrency`` agents at once;
    (its process, its ServiceInfo). The caller ends it (SIGTERM)."""
    from desktop.api.discovery import find_service

    data.mkdir(parents=True, exist_ok=True)
    with open(data / "service.log", "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "desktop", "serve", "--port", "0", "--data-dir", str(data),
             "--concurrency", str(concurrency)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
    deadline = time.monotonic() + 60
    while (info := find_service(data)) is None or info.pid != proc.pid:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the service did not start; see {data / 'service.log'}")
        time.sleep(0.05)
    return proc, info
