"""``agent-canvas serve``: the service process, its server.json, and a clean exit.

One service per data folder. It holds ``server.lock`` in the folder for its
whole life (the OS drops the lock if the process dies), so a second ``serve``
finds the live one at once and a ``server.json`` left by a dead one is stale
and replaced. ``server.json`` (mode 0600, written atomically once the port
accepts connections) tells clients the url, the token and the pid; a clean exit
(SIGTERM, SIGINT) detaches every live run and then removes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from aiohttp import web
from filelock import FileLock, Timeout

from desktop import __version__
from desktop.api import log_guard
from desktop.api.app import create_app
from desktop.api.connections import GuardedRunner
from desktop.api.engine_loop import EngineLoop
from desktop.api.paths import AllowedRoots
from desktop.api.runs import RunService
from desktop.contract.api import ServerInfo
from desktop.disk import keychain
from desktop.disk.atomic import atomic_write_json
from desktop.runtime import heap
from desktop.runtime.engine import EngineOptions
from desktop.runtime.scheduler import DEFAULT_CONCURRENCY

SERVER_FILE = "server.json"
LOCK_FILE = "server.lock"
EXIT_ALREADY_SERVING = 2
log = logging.getLogger(__name__)


class AlreadyServing(RuntimeError):
    """Another live service owns the data folder; the message names it."""


@dataclass
class ServeConfig:
    """What ``serve`` was asked for."""

    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 0
    workflow_roots: list[Path] = field(default_factory=list)
    base: Path = field(default_factory=Path.cwd)
    concurrency: int = DEFAULT_CONCURRENCY


def read_server_info(data_dir: Path) -> ServerInfo | None:
    """The data folder's server.json, if it is there and readable (live or not)."""
    try:
        return ServerInfo.model_validate(orjson.loads((data_dir / SERVER_FILE).read_bytes()))
    except (OSError, ValueError):
        return None


def pid_alive(pid: int) -> bool:
    """True when a process with ``pid`` exists."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def claim(data_dir: Path) -> FileLock:
    """Take the data folder's service lock; AlreadyServing when a live service has it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(data_dir / LOCK_FILE))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        info = read_server_info(data_dir)
        where = f"{info.url} (pid {info.pid})" if info and pid_alive(info.pid) \
            else "a service that is still starting"
        raise AlreadyServing(f"{data_dir} is already served by {where}; use it, or stop it "
                             "first") from None
    return lock


def url_for(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}"


async def serve(config: ServeConfig, ready: Callable[[str], None] | None = None) -> int:
    """Run the service until SIGTERM/SIGINT; the caller holds the folder's lock."""
    data_dir = config.data_dir
    token = secrets.token_urlsafe(32)
    roots = AllowedRoots([data_dir, *(config.workflow_roots or [config.base]),
                          _examples()], config.base)
    url_box: list[str] = []

    def options() -> EngineOptions:
        return EngineOptions(concurrency=config.concurrency,
                             conductor_url=url_box[0] if url_box else None)

    service = RunService(data_dir, roots, options)
    engines = EngineLoop()  # the engines' own loop: the clients' fan-out stays on this one
    app = create_app(service, token, config.host, engines=engines)
    # the runner bounds slow and surplus clients (desktop/api/connections.py)
    runner = GuardedRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    unguard = log_guard.install()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    info_path = data_dir / SERVER_FILE
    try:
        site = web.TCPSite(runner, config.host, config.port)
        await site.start()
        port = _bound_port(runner)
        url = url_for(config.host, port)
        url_box.append(url)
        info = ServerInfo(url=url, token=token, pid=os.getpid(), version=__version__)
        atomic_write_json(info_path, info.to_json_dict())  # mkstemp makes it 0600
        os.chmod(info_path, 0o600)
        heap.settle()  # the service as built lives until it stops; runs come and go after
        (ready or _print_ready)(url)
        keychain.detect_soon()  # every run reads it: found now, not by the first run
        await stop.wait()
    finally:
        await engines.run(service.shutdown())
        await runner.cleanup()
        engines.close()
        unguard()
        _remove_own(info_path)
    return 0


def _print_ready(url: str) -> None:
    print(f"serving {url}", flush=True)


def _bound_port(runner: web.AppRunner) -> int:
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    raise RuntimeError("the service is not listening on a TCP port")


def _remove_own(info_path: Path) -> None:
    info = read_server_info(info_path.parent)
    if info is not None and info.pid == os.getpid():
        with contextlib.suppress(OSError):
            info_path.unlink()


def _examples() -> Path:
    from desktop.graph.resources import examples_dir

    return examples_dir()


def main(config: ServeConfig) -> int:
    """Claim the folder, warn about a non-loopback host, serve; the exit code."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        lock = claim(config.data_dir)
    except AlreadyServing as exc:
        print(f"agent-canvas serve: {exc}", file=sys.stderr)
        return EXIT_ALREADY_SERVING
    if config.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"agent-canvas serve: warning: listening on {config.host}, not loopback only; "
              "anyone who can reach it and has the token can run commands on this machine",
              file=sys.stderr)
    try:
        return asyncio.run(serve(config))
    except OSError as exc:  # the port is taken, the host is not ours
        print(f"agent-canvas serve: cannot listen on {config.host}:{config.port}: {exc}",
              file=sys.stderr)
        return 1
    finally:
        lock.release()
