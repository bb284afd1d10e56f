"""The WebSocket stream: catch-up then live with no gap and no duplicate; slow clients."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSCloseCode, WSMsgType
from api_helpers import TOKEN, Api, served, workflow

from desktop.api.connections import Limits
from desktop.views.reader import EventReader

END = ("run.completed", "run.failed", "run.stopped")


def logged(api: Api, run_id: str) -> list[dict[str, Any]]:
    return list(EventReader(api.data / "runs" / run_id).iter_events())


async def collect(ws, stop=lambda events: any(e["type"] in END for e in events),
                  timeout: float = 60.0) -> list[dict[str, Any]]:
    """Events from ``ws`` until ``stop(all so far)``; each frame must be a JSON array."""
    events: list[dict[str, Any]] = []

    async def read() -> None:
        async for message in ws:
            assert message.type == WSMsgType.TEXT, message
            batch = json.loads(message.data)
            assert isinstance(batch, list) and batch
            events.extend(batch)
            if stop(events):
                return

    await asyncio.wait_for(read(), timeout)
    return events


def assert_exact(received: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    seqs = [e["seq"] for e in received]
    assert seqs == sorted(set(seqs)), "a duplicate or an out-of-order event"
    assert received == expected


async def test_live_client_gets_every_event_once_in_order(api: Api) -> None:
    doc = workflow({"a": {"script": [{"deltas": 2000}, {"sleep": 0.2}, {"deltas": 2000}]}})
    run_id = (await api.start(doc))["id"]
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as ws:
        received = await collect(ws)
    await api.finished(run_id)
    assert_exact(received, [e for e in logged(api, run_id) if e["seq"] <= received[-1]["seq"]])
    assert received[0]["seq"] == 1


async def test_after_resumes_with_exactly_the_missing_events(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"deltas": 500}]}})))["id"]
    await api.finished(run_id)
    every = logged(api, run_id)
    for after in (0, 1, 250, len(every) - 1):
        async with api.client.ws_connect(f"/api/runs/{run_id}/stream?after={after}") as ws:
            received = await collect(ws, lambda ev: ev[-1]["seq"] == every[-1]["seq"])
        assert_exact(received, every[after:])


async def test_reconnect_mid_run_misses_nothing(api: Api) -> None:
    doc = workflow({"a": {"script": [{"deltas": 3000}, {"sleep": 0.3}, {"deltas": 3000}]}})
    run_id = (await api.start(doc))["id"]
    first: list[dict[str, Any]] = []
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as ws:
        first = await collect(ws, lambda ev: len(ev) >= 1000)
    last = first[-1]["seq"]
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream?after={last}") as ws:
        rest = await collect(ws)
    received = first + rest
    assert_exact(received, logged(api, run_id)[:len(received)])
    assert received[-1]["type"] == "run.completed"


async def test_token_may_be_a_query_parameter_for_the_stream(api: Api, tmp_path: Path) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}]}})))["id"]
    await api.finished(run_id)
    session = api.client.session
    url = api.client.make_url(f"/api/runs/{run_id}/stream?token={TOKEN}")
    async with session.ws_connect(url, headers={"Authorization": ""}) as ws:
        assert (await collect(ws))[-1]["type"] == "run.completed"
    response = await session.get(api.client.make_url(f"/api/runs/{run_id}?token={TOKEN}"),
                                 headers={"Authorization": ""})
    assert response.status == 401  # only the stream takes the token in the URL
    upgrade = {"Authorization": "", "Upgrade": "websocket", "Connection": "Upgrade",
               "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    for path in ("/api/runs", f"/api/runs/{run_id}", f"/api/runs/{run_id}/events"):
        # an upgrade header on another route does not make the URL's token count
        response = await session.get(api.client.make_url(f"{path}?token={TOKEN}"),
                                     headers=upgrade)
        assert response.status == 401, path
    half = {"Authorization": "", "Upgrade": "websocket"}  # not a well-formed upgrade
    response = await session.get(
        api.client.make_url(f"/api/runs/{run_id}/stream?token={TOKEN}"), headers=half)
    assert response.status == 401


async def test_unknown_run_closes_with_4004(api: Api) -> None:
    for run_id in ("00000000-0000-4000-8000-000000000000", "not-a-run"):
        async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as ws:
            message = await ws.receive()
            assert message.type == WSMsgType.CLOSE
            assert ws.close_code == 4004
    await api.healthy()


async def test_client_frames_are_ignored(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}]}})))["id"]
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as ws:
        await ws.send_str("not json at all {")
        await ws.send_bytes(b"\xff\x00")
        await ws.send_str('{"type": "ping"}')
        assert (await collect(ws))[-1]["type"] == "run.completed"
    await api.healthy()


@pytest.fixture
async def small_queue_api(tmp_path: Path):
    # the client dropped as too slow reads its close frame only once the run has ended:
    # the drain bound (tests/api/test_stream_drain.py) must not run out first. The close
    # bound is the service's own (5 s): one 4008 test runs on it
    async with served(tmp_path, queue_limit=5000, limits=Limits(drain_timeout=300)) as api:
        yield api


@pytest.mark.timeout(360)
async def test_client_that_never_reads_is_dropped_and_others_get_everything(
        small_queue_api: Api) -> None:
    api = small_queue_api
    doc = workflow({"a": {"script": [{"sleep": 0.5}] + [{"deltas": 20000}] * 6}})
    run_id = (await api.start(doc))["id"]
    url = f"/api/runs/{run_id}/stream"
    async with api.client.ws_connect(url) as sleeper, api.client.ws_connect(url) as reader:
        # the run ends while `sleeper` has read nothing (a long bound: 120,000 events
        # into this process on a loaded machine)
        received = await collect(reader, timeout=240)
        state = await api.finished(run_id)
        assert state["status"] == "completed"
        assert_exact(received, logged(api, run_id)[:len(received)])
        got: list[dict[str, Any]] = []
        while True:  # now it reads: what was buffered, then the close
            message = await asyncio.wait_for(sleeper.receive(), 30)
            if message.type != WSMsgType.TEXT:
                break
            got += json.loads(message.data)
        assert message.type == WSMsgType.CLOSE
        assert message.data == 4008  # (the server may have closed the socket since)
        assert f"reconnect with after={got[-1]['seq']}" in message.extra
        assert got and got[-1]["seq"] < received[-1]["seq"]
        assert_exact(got, logged(api, run_id)[:len(got)])
    await api.healthy()


async def test_a_stream_open_before_a_take_over_sees_it_without_a_gap(api: Api) -> None:
    from desktop.graph.document import WorkflowDocument
    from desktop.runtime.recovery import create_run

    doc = workflow({"a": {"script": [{"say": "hello"}, {"sleep": 1}, {"say": "bye"}]}})
    engine = create_run(WorkflowDocument.model_validate(doc), api.data)
    task = asyncio.create_task(engine.run())
    while not engine.state.running_turns:
        await asyncio.sleep(0.02)
    engine.halt()
    await task
    await engine.detach()  # as a terminal that gave up the run: interrupted, resumable
    run_id = engine.run_id
    assert (await api.run_state(run_id))["interrupted"] is True
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as ws:
        before = await collect(ws, lambda ev: ev[-1]["seq"] == logged(api, run_id)[-1]["seq"])
        await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "running"})
        after = await collect(ws)
    assert_exact(before + after, logged(api, run_id)[:len(before) + len(after)])
    assert any(e["type"] == "run.resumed" for e in after)


def spoke(events: list[dict[str, Any]]) -> bool:
    return any(e["type"].startswith("message.") for e in events)


@pytest.mark.parametrize("live", [False, True], ids=["finished", "live"])
async def test_deleting_a_run_closes_its_streams_with_4004(api: Api, live: bool) -> None:
    script = [{"say": "hi"}, {"sleep": 120}] if live else [{"say": "hi"}]
    run_id = (await api.start(workflow({"a": {"script": script}})))["id"]
    if not live:
        await api.finished(run_id)
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as ws:
        await collect(ws, spoke)
        await api.json("DELETE", f"/api/runs/{run_id}" + ("?force=true" if live else ""), 200)
        while (message := await asyncio.wait_for(ws.receive(), 10)).type == WSMsgType.TEXT:
            pass  # the stopped run's last events
        assert (message.type, message.data) == (WSMsgType.CLOSE, 4004)
        # the close handshake completed: the service waited for the client's answer
        # instead of dropping the connection (which the client reports as 1006)
        assert ws.close_code == 4004


async def test_the_client_says_a_deleted_run_is_gone_not_that_the_service_is(
        api: Api) -> None:
    from desktop.api.client import ApiClient, ApiError

    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}, {"sleep": 120}]}})))[
        "id"]
    heard = asyncio.Event()

    async def follow(client: ApiClient) -> None:
        async for batch in client.stream(run_id):
            if spoke(batch):
                heard.set()

    async with ApiClient(str(api.client.make_url("")).rstrip("/"), TOKEN) as client:
        following = asyncio.ensure_future(follow(client))
        try:
            await asyncio.wait_for(heard.wait(), 30)
            await api.json("DELETE", f"/api/runs/{run_id}?force=true", 200)
            with pytest.raises(ApiError) as gone:
                await asyncio.wait_for(following, 30)
        finally:
            following.cancel()
            await asyncio.gather(following, return_exceptions=True)
    assert (gone.value.status, gone.value.code) == (404, "run_not_found")


async def test_batches_published_from_another_thread_arrive_in_order() -> None:
    from desktop.api.feeds import Feeds
    from desktop.api.stream import Batch

    feeds = Feeds()
    feeds.bind(asyncio.get_running_loop())
    got: list[int] = []

    class Client:
        def offer(self, batch: Batch) -> None:
            got.extend(e["seq"] for e in batch.events)

    feeds.join("run", Client())  # type: ignore[arg-type]

    def writer() -> None:
        for seq in range(1, 501):
            feeds.publish("run", [{"seq": seq}])

    await asyncio.to_thread(writer)
    while len(got) < 500:
        await asyncio.sleep(0.01)
    assert got == list(range(1, 501))


def test_frames_keep_order_and_bounds() -> None:
    from desktop.api.stream import FRAME_BYTES, FRAME_EVENTS, frames_of

    events = [{"seq": i, "text": "x" * (i % 7) * 1000} for i in range(1, 1600)]
    events.insert(700, {"seq": 700.5, "text": "y" * (FRAME_BYTES + 10)})  # one huge event
    frames = frames_of(events)
    decoded = [json.loads(text) for text, _last in frames]
    assert [e for frame in decoded for e in frame] == events
    assert [last for _text, last in frames] == [frame[-1]["seq"] for frame in decoded]
    assert all(len(frame) <= FRAME_EVENTS for frame in decoded)
    assert all(len(text) <= FRAME_BYTES + 2 or len(json.loads(text)) == 1
               for text, _last in frames)


async def test_stopping_the_service_closes_every_stream_and_leaves_no_feed(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"deltas": 200}, {"sleep": 30}]}})))["id"]
    feeds = api.service.feeds
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as ws:
        await collect(ws, stop=lambda events: sum(
            e["type"] == "message.assistant.delta" for e in events) >= 200)
        assert feeds.count(run_id) == 1
        await api.client.server.close()  # the app's shutdown, while the run is live
        while (message := await asyncio.wait_for(ws.receive(), 30)).type == WSMsgType.TEXT:
            pass
        assert (message.type, message.data) == (WSMsgType.CLOSE, WSCloseCode.GOING_AWAY)
    assert feeds.count(run_id) == 0 and feeds.pending == 0 and feeds.kept_runs == 0


async def test_a_client_resuming_at_a_frame_it_was_sent_gets_kept_frames_not_the_log(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    # the deltas wait a second, so that `first` follows them live, not from the log
    doc = workflow({"a": {"script": [{"sleep": 1.0}, {"deltas": 3000}]}})
    run_id = (await api.start(doc))["id"]
    async with api.client.ws_connect(f"/api/runs/{run_id}/stream") as first:
        frames: list[list[dict[str, Any]]] = []
        while not any(e["type"] in END for frame in frames for e in frame):
            message = await asyncio.wait_for(first.receive(), 60)
            frames.append(json.loads(message.data))
        every = [e for frame in frames for e in frame]
        deltas = [i for i, frame in enumerate(frames)
                  if frame[-1]["type"] == "message.assistant.delta"]
        resume = frames[deltas[len(deltas) // 2]][-1]["seq"]  # where a dropped one resumes
        from_log: list[int] = []
        page = EventReader.page

        def counted(self: EventReader, *args: Any) -> Any:
            result = page(self, *args)
            from_log.extend(e["seq"] for e in result.events)
            return result

        monkeypatch.setattr(EventReader, "page", counted)
        async with api.client.ws_connect(f"/api/runs/{run_id}/stream?after={resume}") as again:
            received = await collect(again)
        assert_exact(received, [e for e in every if e["seq"] > resume])
        assert not [seq for seq in from_log if seq > resume]  # all of it was kept

        # mid-frame: the log up to where the next kept frame starts, then kept frames
        boundary = frames[deltas[len(deltas) // 2] + 1][-1]["seq"]
        async with api.client.ws_connect(
                f"/api/runs/{run_id}/stream?after={resume + 1}") as mid:
            received = await collect(mid)
        assert_exact(received, [e for e in every if e["seq"] > resume + 1])
        assert from_log and max(from_log) <= boundary


UPGRADE = {"Upgrade": "websocket", "Connection": "Upgrade",
           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}


@pytest.mark.parametrize("version", ["8", "7", "0", "14", "13, 8", "", None])
async def test_another_websocket_version_is_426_naming_13(api: Api, version: str | None
                                                          ) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}]}})))["id"]
    headers = dict(UPGRADE)
    if version is not None:
        headers["Sec-WebSocket-Version"] = version
    response = await api.client.get(f"/api/runs/{run_id}/stream", headers=headers)
    assert response.status == 426, await response.text()
    assert response.headers["Sec-WebSocket-Version"] == "13"
    assert response.headers["Upgrade"].lower() == "websocket"
    error = (await response.json())["error"]
    assert (error["code"], error["field"]) == ("upgrade_required", "Sec-WebSocket-Version")
    assert "Sec-WebSocket-Version: 13" in error["message"]
    response = await api.client.get(f"/api/runs/{run_id}/stream",
                                    headers={**UPGRADE, "Sec-WebSocket-Version": "13"})
    assert response.status == 101  # the same upgrade in version 13 is taken
    response.close()
    doc = await api.json("GET", "/api/openapi.json", 200)
    assert "426" in doc["paths"]["/api/runs/{runId}/stream"]["get"]["responses"]
    await api.healthy()


async def test_a_client_catching_up_goes_live_at_the_first_queued_batch(
        tmp_path: Path) -> None:
    """A busy run's log runs ahead of the batches handed out (they are gathered for a few
    milliseconds): a client catching up reads the log only up to the first live batch it
    was offered, and is then sent that batch's own frames, shared with every client. Read
    on to the log's end instead, it would chase a burst's tail page by page, decoding
    and encoding every event for itself."""
    from desktop.api.stream import Batch, StreamClient
    from desktop.store.eventlog import Durability, EventLog

    log = EventLog.open(tmp_path, durability=Durability.NONE)
    log.append_many([{"type": "bus.message", "id": f"e{i}", "ts": "2026-01-01T00:00:00Z",
                      "runId": "r"} for i in range(1, 31)])
    written = log.flush()
    log.close()

    class Socket:
        def __init__(self) -> None:
            self.frames: list[bytes] = []

        async def send_frame(self, data: bytes, _kind: WSMsgType) -> None:
            self.frames.append(data)

    socket = Socket()
    client = StreamClient(socket)  # type: ignore[arg-type]
    live = Batch(written[10:])  # durable, and offered before the catch-up read the log
    client.offer(live)
    pump = client.start(EventReader(tmp_path), 0)

    async def all_sent() -> None:
        while client.last_seq < 30:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(all_sent(), 30)
    pump.cancel()
    await asyncio.gather(pump, return_exceptions=True)
    sent = [e for frame in socket.frames for e in json.loads(frame)]
    assert [e["seq"] for e in sent] == list(range(1, 31))
    assert socket.frames[-1] is live.frames()[0][0]  # the shared bytes, not a copy
