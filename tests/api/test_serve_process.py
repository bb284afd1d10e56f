"""`agent-canvas serve` as a real process: server.json, one service per folder, clean exits."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.graph.resources import examples_dir

SERVE = [sys.executable, "-m", "desktop", "serve", "--port", "0"]


class Served:
    """A running `serve` subprocess and what its server.json says; its stderr goes to a file
    beside the data folder (a pipe nobody reads could fill and block it)."""

    def __init__(self, data: Path, *extra: str) -> None:
        self.data = data
        self.stderr_path = data.parent / f"{data.name}-serve-stderr.log"
        with open(self.stderr_path, "ab") as stderr:
            self.proc = subprocess.Popen([*SERVE, "--data-dir", str(data), *extra],
                                         stdout=subprocess.PIPE, stderr=stderr, text=True,
                                         start_new_session=True)
        try:
            assert self.proc.stdout is not None
            self.line = self.proc.stdout.readline().strip()
            assert self.line.startswith("serving http://127.0.0.1:"), self.stderr()
            self.info = json.loads((data / "server.json").read_text())
        except BaseException:
            self.close()
            raise
        self.url = self.info["url"]

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.info['token']}",
            "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, json.loads(exc.read())

    def until(self, run_id: str, predicate, timeout: float = 90.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            status, state = self.call("GET", f"/api/runs/{run_id}")
            assert status == 200, state
            if predicate(state):
                return state
            assert time.monotonic() < deadline, state
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the service, wait for it and release its pipe; its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        with self.proc:
            return self.proc.wait(timeout=30)

    def kill(self) -> None:
        """SIGKILL (no clean exit: server.json stays) and wait; the pipe stays readable."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        """Kill the service if it still runs, and release its pipe."""
        self.kill()
        with self.proc:
            pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    service = Served(tmp_path / "data")
    try:
        yield service
    finally:
        service.close()


def test_server_json_is_private_and_removed_on_sigterm(served: Served) -> None:
    path = served.data / "server.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert served.info["pid"] == served.proc.pid
    assert served.url == served.line.removeprefix("serving ")
    assert served.call("GET", "/api/health")[1]["pid"] == served.proc.pid
    assert served.stop() == 0
    assert not path.exists()


def test_second_serve_on_the_same_folder_exits_2_naming_the_live_one(served: Served) -> None:
    second = subprocess.run([*SERVE, "--data-dir", str(served.data)], capture_output=True,
                            text=True, timeout=30)
    assert second.returncode == 2
    assert served.url in second.stderr and str(served.proc.pid) in second.stderr
    assert json.loads((served.data / "server.json").read_text()) == served.info
    assert served.call("GET", "/api/health")[0] == 200


def test_stale_server_json_is_replaced(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with subprocess.Popen([sys.executable, "-c", "pass"]) as dead:
        dead.wait()
    (data / "server.json").write_text(json.dumps({"url": "http://127.0.0.1:9", "token": "old",
                                                  "pid": dead.pid, "version": "0.0.1"}))
    served = Served(data)
    try:
        assert served.info["pid"] == served.proc.pid and served.info["token"] != "old"
        assert served.call("GET", "/api/health")[0] == 200
    finally:
        assert served.stop(signal.SIGINT) == 0
    assert not (data / "server.json").exists()


def _agent_groups(run_dir: Path) -> set[int]:
    """Process groups of the agent runs recorded in the run's log."""
    groups = set()
    for line in (run_dir / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        pgid = event.get("pgid") or (event.get("pid") if event.get("busType") == "RUN_START"
                                     else None)
        if isinstance(pgid, int):
            groups.add(pgid)
    return groups


def _alive_in(group: int) -> list[int]:
    from desktop.providers.process import group_members

    return group_members(group)


def test_sigterm_detaches_live_runs_without_orphans_and_they_resume(served: Served) -> None:
    doc = {"name": "sleeper", "task": "t", "edges": [],
           "nodes": [{"id": "a", "label": "A", "provider": "scripted", "entry": True}],
           "nodeConfigs": {"a": {"script": [{"say": "hi"}, {"sleep": 4}, {"say": "done"}]}}}
    status, created = served.call("POST", "/api/runs", {"workflow": doc})
    assert status == 201, created
    run_id = created["id"]
    run_dir = served.data / "runs" / run_id
    served.until(run_id, lambda s: bool(s["runningTurns"]))
    deadline = time.monotonic() + 20
    while not any(_alive_in(g) for g in _agent_groups(run_dir)):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    groups = _agent_groups(run_dir)
    assert served.stop() == 0
    assert not (served.data / "server.json").exists()
    assert all(not _alive_in(g) for g in groups), "an agent process outlived the service"
    events = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    assert any(e["type"] == "turn.status" and e.get("status") in ("cancelled", "interrupted")
               for e in events)
    again = Served(served.data)
    try:
        status, state = again.call("PATCH", f"/api/runs/{run_id}", {"status": "running"})
        assert status == 200, state
        final = again.until(run_id, lambda s: s["status"] in ("completed", "failed", "stopped"))
        assert final["status"] == "completed"
    finally:
        again.stop()


def test_runs_go_on_without_clients(served: Served) -> None:
    status, created = served.call("POST", "/api/runs", {
        "workflowPath": str(examples_dir() / "single-agent.flow.yaml")})
    assert status == 201
    run_dir = served.data / "runs" / created["id"]
    deadline = time.monotonic() + 30
    while b'"run.completed"' not in (run_dir / "events.jsonl").read_bytes():
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_the_service_imports_no_qt(tmp_path: Path) -> None:
    """Start the service in a fresh interpreter, run an example through it, check modules."""
    example = str(examples_dir() / "single-agent.flow.yaml")
    script = f"""
import asyncio, sys, json, urllib.request
from pathlib import Path
from desktop.api.server import ServeConfig, serve, SERVER_FILE
data = Path({str(tmp_path / 'data')!r})

async def main():
    stop = asyncio.Event()
    def ready(url):
        asyncio.get_running_loop().call_soon(stop.set)
    task = asyncio.create_task(serve(ServeConfig(data_dir=data), ready))
    await stop.wait()
    info = json.loads((data / SERVER_FILE).read_text())
    def post():
        req = urllib.request.Request(info["url"] + "/api/runs", method="POST",
            data=json.dumps({{"workflowPath": {example!r}}}).encode(),
            headers={{"Authorization": "Bearer " + info["token"],
                      "Content-Type": "application/json"}})
        return json.loads(urllib.request.urlopen(req).read())["id"]
    run_id = await asyncio.to_thread(post)
    log = data / "runs" / run_id / "events.jsonl"
    while b'"run.completed"' not in log.read_bytes():
        await asyncio.sleep(0.05)
    task.cancel()
    bad = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "qasync", "shiboken6"))
    print(json.dumps(bad))

asyncio.run(main())
"""
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


async def test_kill_9_loses_no_acknowledged_event_and_the_run_resumes(tmp_path: Path) -> None:
    import aiohttp

    served = Served(tmp_path / "data")
    doc = {"name": "streamer", "task": "t", "edges": [],
           "nodes": [{"id": "a", "label": "A", "provider": "scripted", "entry": True}],
           "nodeConfigs": {"a": {"script": [{"deltas": 3000}, {"sleep": 3}, {"say": "done"}]}}}
    received: list[dict[str, Any]] = []
    try:
        status, created = served.call("POST", "/api/runs", {"workflow": doc})
        assert status == 201, created
        run_id = created["id"]
        headers = {"Authorization": f"Bearer {served.info['token']}"}
        async with aiohttp.ClientSession(headers=headers) as session, session.ws_connect(
                f"{served.url}/api/runs/{run_id}/stream") as ws:
            async for message in ws:
                received += json.loads(message.data)
                if any(e["type"] == "message.assistant.final" for e in received):
                    break  # mid-run: the agent now sleeps
            served.kill()  # SIGKILL: no clean exit, server.json stays
            with contextlib.suppress(Exception):
                async for message in ws:  # frames already on the wire count as received
                    if message.type == aiohttp.WSMsgType.TEXT:
                        received += json.loads(message.data)
    finally:
        served.close()
    run_dir = served.data / "runs" / run_id
    logged = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
    assert received == logged[:len(received)], "a received event is missing or changed"
    assert (served.data / "server.json").exists()  # stale now
    orphans = _agent_groups(run_dir)
    again = Served(served.data)
    try:
        status, state = again.call("PATCH", f"/api/runs/{run_id}", {"status": "running"})
        assert status == 200, state
        headers = {"Authorization": f"Bearer {again.info['token']}"}
        after = received[-1]["seq"]
        rest: list[dict[str, Any]] = []
        async with aiohttp.ClientSession(headers=headers) as session, session.ws_connect(
                f"{again.url}/api/runs/{run_id}/stream?after={after}") as ws:
            async for message in ws:
                rest += json.loads(message.data)
                if any(e["type"] == "run.completed" for e in rest):
                    break
        logged = [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]
        assert received + rest == logged[:len(received) + len(rest)]
        assert any(e["type"] == "turn.status" and e.get("status") == "interrupted"
                   for e in rest)
        assert all(not _alive_in(g) for g in orphans), "the killed service's agent lives on"
    finally:
        assert again.stop() == 0
