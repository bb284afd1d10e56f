"""Finding the local service of a data folder, and starting one when none is alive.

The service writes ``DIR/server.json`` (url, token, pid, version) once it
accepts connections and removes it on a clean exit. A client reads it, checks
that the pid is alive, and (``ensure_service``) asks ``/api/health`` before
trusting it. A started service runs detached in its own session, so it keeps
running when the client that started it exits; its output goes to
``DIR/service.log``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from desktop.api.api_error import ApiError
from desktop.cli.self_launch import self_command

if TYPE_CHECKING:
    from desktop.api.client import ApiClient

SERVER_FILE = "server.json"
LOG_FILE = "service.log"
# exit code of a second `serve` on a folder that already has a live service
EXIT_ALREADY_SERVING = 2

# services this process started: polled so an exited one is reaped, not left a zombie
_spawned: list[subprocess.Popen] = []


class ServiceStartError(RuntimeError):
    """The service did not come up; the message names its log file."""


@dataclass(frozen=True)
class ServerInfo:
    """What ``server.json`` says about a live service."""

    url: str
    token: str
    pid: int
    version: str = ""

    def client(self, **kwargs: float) -> ApiClient:
        """An :class:`ApiClient` for this service."""
        from desktop.api.client import ApiClient  # the HTTP library loads on first use

        return ApiClient(self.url, self.token, **kwargs)


def server_file(data_dir: Path) -> Path:
    """Where the live service of ``data_dir`` describes itself."""
    return Path(data_dir) / SERVER_FILE


def read_server_file(data_dir: Path) -> ServerInfo | None:
    """The service ``server.json`` names (alive or not); None when absent or unreadable."""
    try:
        payload = orjson.loads(server_file(data_dir).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(payload, dict):
        return None
    url, token, pid = payload.get("url"), payload.get("token"), payload.get("pid")
    if not (isinstance(url, str) and url.startswith("http") and isinstance(token, str)
            and isinstance(pid, int) and not isinstance(pid, bool) and pid > 0):
        return None
    version = payload.get("version")
    return ServerInfo(url.rstrip("/"), token, pid, version if isinstance(version, str) else "")


def _reap() -> None:
    for proc in list(_spawned):
        if proc.poll() is not None:
            _spawned.remove(proc)


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists and is not a zombie."""
    _reap()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    with contextlib.suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2] != "Z"
    return True


def find_service(data_dir: Path) -> ServerInfo | None:
    """The live service of ``data_dir`` (its pid alive), or None."""
    info = read_server_file(data_dir)
    if info is None or not pid_alive(info.pid):
        return None
    return info


async def _healthy(info: ServerInfo) -> bool:
    client = info.client(timeout=5)
    try:
        health = await client.health()
    except ApiError:
        return False
    finally:
        await client.close()
    return isinstance(health, dict) and health.get("ok") is True


def start_service(data_dir: Path) -> subprocess.Popen:
    """Start ``agent-canvas serve --port 0 --data-dir DIR`` detached; its process."""
    folder = Path(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOG_FILE, "ab") as log:
        proc = subprocess.Popen(
            self_command("serve", "--port", "0", "--data-dir", str(folder)),
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True, close_fds=True)
    _spawned.append(proc)
    return proc


async def ensure_service(data_dir: Path, timeout: float = 20.0) -> ServerInfo:
    """The live, healthy service of ``data_dir``, started first when none is alive.

    Raises :class:`ServiceStartError` (naming the log file) when it does not come up
    within ``timeout`` seconds.
    """
    folder = Path(data_dir)
    info = find_service(folder)
    if info is not None and await _healthy(info):
        return info
    proc = start_service(folder)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    log_path = folder / LOG_FILE
    while loop.time() < deadline:
        info = find_service(folder)
        if info is not None and await _healthy(info):
            return info
        code = proc.poll()
        if code is not None and code != EXIT_ALREADY_SERVING:
            # a second serve exits 2 when another one won the race: keep waiting for it
            raise ServiceStartError(
                f"the Agent Canvas service exited with code {code} before it was ready; "
                f"see {log_path}")
        await asyncio.sleep(0.1)
    raise ServiceStartError(f"the Agent Canvas service did not start within {timeout:g} s; "
                            f"see {log_path}")


def stop_spawned(timeout: float = 10.0) -> None:
    """End every service this process started (tests and tools; the GUI leaves them running)."""
    import signal

    for proc in list(_spawned):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        _spawned.remove(proc)
