"""Finding the data folder's service through server.json, and starting one when none lives."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from desktop.api import discovery
from desktop.api.discovery import (
    ServiceStartError,
    ensure_service,
    find_service,
    read_server_file,
    stop_spawned,
)


@pytest.fixture(autouse=True)
def _stop_started():
    yield
    stop_spawned()


async def test_ensure_service_starts_one_detached_and_then_reuses_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    info = await ensure_service(data)
    assert info.url.startswith("http://127.0.0.1:")
    assert stat.S_IMODE((data / "server.json").stat().st_mode) == 0o600
    assert os.getsid(info.pid) == info.pid  # its own session: it outlives this process
    async with info.client() as client:
        assert (await client.health())["pid"] == info.pid
    again = await ensure_service(data)
    assert again == info  # found, not started twice
    assert find_service(data) == info
    stop_spawned()  # SIGTERM: a clean exit removes server.json
    assert not (data / "server.json").exists()
    assert find_service(data) is None


def test_a_stale_server_file_is_not_a_live_service(tmp_path: Path) -> None:
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    (tmp_path / "server.json").write_bytes(orjson.dumps(
        {"url": "http://127.0.0.1:9", "token": "t", "pid": dead, "version": "0"}))
    assert read_server_file(tmp_path) is not None
    assert find_service(tmp_path) is None


async def test_a_service_that_cannot_start_names_its_log(tmp_path: Path, monkeypatch) -> None:
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\necho 'cannot bind: address in use' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake))
    with pytest.raises(ServiceStartError) as caught:
        await ensure_service(tmp_path / "data", timeout=20)
    log = tmp_path / "data" / discovery.LOG_FILE
    assert str(log) in str(caught.value) and "exited with code 1" in str(caught.value)
    assert "cannot bind" in log.read_text()


async def test_a_service_that_never_gets_ready_times_out_naming_its_log(
        tmp_path: Path, monkeypatch) -> None:
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake))
    with pytest.raises(ServiceStartError) as caught:
        await ensure_service(tmp_path / "data", timeout=0.5)
    assert "did not start within 0.5 s" in str(caught.value)
    assert str(tmp_path / "data" / discovery.LOG_FILE) in str(caught.value)


_json = st.recursive(st.none() | st.booleans() | st.integers(-(2**40), 2**40)
                     | st.text(max_size=20) | st.just("http://127.0.0.1:1"),
                     lambda kids: st.lists(kids, max_size=4)
                     | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=12)


_ours = st.fixed_dictionaries(
    {"url": st.sampled_from(["http://127.0.0.1:1", "http://127.0.0.1:8123/"]),
     "token": st.text(max_size=20), "pid": st.integers(1, 2**31)},
    optional={"version": _json})


def _well_formed(payload) -> bool:
    """What a service writes: an http url, a string token and a positive int pid."""
    return (isinstance(payload, dict) and isinstance(payload.get("url"), str)
            and payload["url"].startswith("http") and isinstance(payload.get("token"), str)
            and type(payload.get("pid")) is int and payload["pid"] > 0)


@example(payload={"url": "http://127.0.0.1:1/", "token": "t", "pid": 42, "version": "1.0"})
@example(payload={"url": "http://127.0.0.1:1", "token": "t", "pid": True})
@example(payload={"url": "http://127.0.0.1:1", "token": "t", "pid": 0})
@given(payload=_json | _ours | st.fixed_dictionaries(
    {"url": _json, "token": _json, "pid": _json}, optional={"version": _json}))
def test_a_server_file_that_is_not_ours_is_ignored(tmp_path_factory, payload) -> None:
    folder = tmp_path_factory.mktemp("sj")
    (folder / "server.json").write_bytes(orjson.dumps(payload))
    info = read_server_file(folder)
    assert (info is not None) == _well_formed(payload), (payload, info)
    if info is not None:  # believed as written
        assert info.url == payload["url"].rstrip("/")
        assert (info.token, info.pid) == (payload["token"], payload["pid"])
        version = payload.get("version")
        assert info.version == (version if isinstance(version, str) else "")
