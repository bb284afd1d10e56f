"""A real ``agent-canvas serve`` for tests: started on a free port, stopped with SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from desktop.api.discovery import ServerInfo, pid_alive, read_server_file

START_TIMEOUT = 60.0


class ServeProcess:
    """``python -m desktop serve --port 0 --data-dir DIR``; output in ``DIR/serve-test.log``."""

    def __init__(self, data_dir: Path, *args: str) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.data_dir / "serve-test.log"
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "desktop", "serve", "--port", "0",
                 "--data-dir", str(self.data_dir), *args],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.info = self._wait_ready()

    def _wait_ready(self) -> ServerInfo:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited with {self.proc.returncode}:\n{self.log()}")
            info = read_server_file(self.data_dir)
            if info is not None and info.pid == self.proc.pid and "serving http" in self.log():
                return info
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"serve did not start in {START_TIMEOUT} s:\n{self.log()}")

    @property
    def url(self) -> str:
        return self.info.url

    @property
    def token(self) -> str:
        return self.info.token

    def log(self) -> str:
        """Everything the service printed so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.proc.poll() is None and pid_alive(self.proc.pid)

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then wait (SIGKILL if it hangs); the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode

    def kill(self) -> None:
        """SIGKILL the service (its agents are left for the next service to settle)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
