"""A throwaway Ray cluster for the cluster tests: a head and one worker node on this machine.

Both run ``ray start --block`` in their own process group, with HOME, Ray's temp folder
and the worker's agent folder (AGENT_CANVAS_WORKER_DIR) under the test's folder, no
dashboard, and no token (RAY_AUTH_MODE=disabled: nothing but this machine reaches it).
The head takes no work (0 CPUs), so every agent runs on the worker node. :meth:`stop`
ends both groups, whatever state they are in.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
STARTED = "Ray runtime started"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalCluster:
    """``with LocalCluster(folder) as cluster: cluster.address`` (a ray:// address)."""

    def __init__(self, root: Path, worker_cpus: int = 2):
        self.root = root
        self.worker_dir = root / "worker-agents"
        self.worker_cpus = worker_cpus
        self.gcs, self.client = free_port(), free_port()
        self.address = f"ray://127.0.0.1:{self.client}"
        self.env = dict(os.environ, HOME=str(root / "home"), RAY_AUTH_MODE="disabled",
                        RAY_USAGE_STATS_ENABLED="0")
        self.procs: list[subprocess.Popen[bytes]] = []
        # Ray's unix sockets live under its temp folder, and a socket path has a short
        # length limit: a deep test folder would exceed it, so this one is short.
        self.temp = Path(tempfile.mkdtemp(prefix="acray-", dir="/tmp"))

    def _start(self, name: str, args: list[str], env: dict[str, str]) -> None:
        log = self.root / f"{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen([RAY, "start", "--block", "--disable-usage-stats", *args],
                                    stdout=out, stderr=subprocess.STDOUT, env=env,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(proc)
        deadline = time.monotonic() + 240
        while STARTED not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ray {name} did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)

    def start(self) -> LocalCluster:
        (self.root / "home").mkdir(parents=True, exist_ok=True)
        self.worker_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._start("head", ["--head", f"--port={self.gcs}", "--num-cpus=0",
                                 f"--ray-client-server-port={self.client}",
                                 "--include-dashboard=false",
                                 f"--temp-dir={self.temp}"], self.env)
            self._start("worker", [f"--address=127.0.0.1:{self.gcs}",
                                   f"--num-cpus={self.worker_cpus}"],
                        dict(self.env, AGENT_CANVAS_WORKER_DIR=str(self.worker_dir)))
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for proc in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(self.procs):
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=30)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        self.procs.clear()
        # Ray's own logs (the client server's among them) say why a connection failed;
        # they are kept beside the test's files, since the temp folder goes.
        if self.logs.is_dir():
            shutil.copytree(self.logs, self.root / "ray-logs", dirs_exist_ok=True,
                            ignore_dangling_symlinks=True)
        shutil.rmtree(self.temp, ignore_errors=True)

    @property
    def logs(self) -> Path:
        """Ray's log folder of the running session."""
        return self.temp / "session_latest" / "logs"

    def client_server_logs(self, tail: int = 1500) -> str:
        """The end of each ray:// server's log: why a connection was refused."""
        parts = [f"--- {log.name}\n{log.read_text(errors='replace')[-tail:]}"
                 for log in sorted(self.logs.glob("ray_client_server*.err"))]
        return "\n".join(parts) or "(no ray:// server logs)"

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
