"""The Python client against a real service: errors as ApiError, the stream, reconnects."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from service_process import ServeProcess

from desktop.api.client import ApiClient, ApiError, ServiceUnavailable, _batch
from desktop.api.follow import RunFollower
from desktop.graph.resources import examples_dir

EXAMPLE = examples_dir() / "plan-implement-review.flow.yaml"
TERMINAL = ("run.completed", "run.failed", "run.stopped")


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> ServeProcess:
    svc = ServeProcess(tmp_path_factory.mktemp("client-service"))
    yield svc
    svc.stop()


def log_of(service: ServeProcess, run_id: str) -> list[dict]:
    lines = (service.data_dir / "runs" / run_id / "events.jsonl").read_bytes().splitlines()
    return [orjson.loads(line) for line in lines]


async def run_example(client: ApiClient) -> str:
    state = await client.create_run(workflow_path=str(EXAMPLE))
    return str(state["id"])


async def follow_to_end(follower: RunFollower, seen: list[dict]) -> None:
    task = asyncio.ensure_future(follower.run())
    try:
        while not any(e["type"] in TERMINAL for e in seen):
            if task.done():
                task.result()
            await asyncio.sleep(0.02)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_refusals_arrive_as_api_errors_with_code_and_field(service) -> None:
    async with ApiClient(service.url, "wrong-token") as client:
        with pytest.raises(ApiError) as denied:
            await client.list_runs()
    assert denied.value.status == 401
    async with service.info.client() as client:
        with pytest.raises(ApiError) as missing:
            await client.get_run("00000000-0000-4000-8000-000000000000")
        assert missing.value.status == 404 and missing.value.code
        with pytest.raises(ApiError) as unknown:
            await client.request("POST", "/api/runs", json={"workflowPath": str(EXAMPLE),
                                                            "colour": "blue"})
        assert unknown.value.status == 422 and unknown.value.field == "colour"
        assert "colour" in str(unknown.value)


async def test_a_document_with_the_path_it_was_saved_to_starts_a_run(service) -> None:
    from desktop.graph.io import document_data, load_workflow

    async with service.info.client() as client:
        state = await client.create_run(workflow=document_data(load_workflow(EXAMPLE)),
                                        workflow_path=str(EXAMPLE), mode="interactive")
    assert state["workflowName"] == "Plan, implement, review"
    assert state["mode"] == "INTERACTIVE"


async def test_an_absent_service_is_service_unavailable() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with ApiClient(f"http://127.0.0.1:{port}", "t") as client:
        with pytest.raises(ServiceUnavailable) as caught:
            await client.health()
        assert caught.value.status == 0 and f"127.0.0.1:{port}" in str(caught.value)
        with pytest.raises(ServiceUnavailable):
            await anext(client.stream("x", 0))


async def test_the_stream_delivers_the_log_once_in_order_after_a_cursor(service) -> None:
    async with service.info.client() as client:
        run_id = await run_example(client)
        seen: list[dict] = []
        await follow_to_end(RunFollower(client, run_id, 0, seen.extend), seen)
        assert seen == log_of(service, run_id)[:len(seen)]
        middle = len(seen) // 2
        later: list[dict] = []
        async for batch in client.stream(run_id, middle):
            later.extend(batch)
            if later[-1]["seq"] >= seen[-1]["seq"]:
                break
        assert [e["seq"] for e in later] == list(range(middle + 1, seen[-1]["seq"] + 1))


async def test_a_follower_resumes_after_a_broken_connection(service) -> None:
    async with service.info.client() as client:
        run_id = await run_example(client)
        seen: list[dict] = []
        cut = asyncio.Event()
        closing: list[asyncio.Future] = []

        def deliver(events: list[dict]) -> None:
            seen.extend(events)
            if not cut.is_set():
                cut.set()
                closing.append(asyncio.ensure_future(client.close()))  # drop the socket

        follower = RunFollower(client, run_id, 0, deliver)
        await follow_to_end(follower, seen)
        assert follower.connections >= 2
        log = log_of(service, run_id)
        assert [e["seq"] for e in seen] == list(range(1, len(seen) + 1))
        assert seen == log[:len(seen)]


async def test_an_unknown_run_ends_the_stream_with_404(service) -> None:
    async with service.info.client() as client:
        with pytest.raises(ApiError) as caught:
            await anext(client.stream("00000000-0000-4000-8000-000000000000", 0))
    assert caught.value.status == 404


@given(st.one_of(st.integers(-9, 9), st.text(max_size=5),
                 st.lists(st.integers(-9, 9), min_size=1, max_size=3),
                 st.lists(st.fixed_dictionaries({"seq": st.text(max_size=3)}), min_size=1,
                          max_size=3)))
def test_a_frame_that_is_not_a_list_of_events_is_an_error(value) -> None:
    with pytest.raises(ApiError, match="event stream"):
        _batch(orjson.dumps(value))


def test_a_frame_of_events_is_decoded() -> None:
    assert _batch(b'[{"seq": 1, "type": "x"}, {"seq": 2}]') == [{"seq": 1, "type": "x"},
                                                              {"seq": 2}]
    assert _batch(b"[]") == []
    with pytest.raises(ApiError):
        _batch(b"[{")


def test_module_is_qt_free() -> None:
    import subprocess
    import sys

    code = ("import sys, desktop.api.client, desktop.api.discovery, desktop.api.follow; "
            "print(any(m.startswith(('PySide6', 'qasync')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parents[2])
    assert out.stdout.strip() == "False"


async def test_a_body_over_a_mebibyte_is_sent_without_a_resource_warning(
        tmp_path: Path) -> None:
    """aiohttp warns (ResourceWarning) for raw bytes over 1 MiB; a big workflow is sent
    as a stream instead, and reaches the service whole."""
    from api_helpers import TOKEN, served, workflow

    doc = workflow({"a": {"script": [{"say": "hi"}]}})
    doc["task"] = "x" * (2 << 20)
    async with served(tmp_path) as api, ApiClient(str(api.client.make_url("")), TOKEN) as client:
        state = await client.create_run(workflow=doc)
        logged = log_of_dir(api.data / "runs" / state["id"])
        assert logged[0]["type"] == "run.created" and logged[0]["task"] == doc["task"]


def log_of_dir(run_dir: Path) -> list[dict]:
    return [orjson.loads(line) for line in (run_dir / "events.jsonl").read_bytes().splitlines()]
