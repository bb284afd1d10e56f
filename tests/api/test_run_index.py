"""The service's run list is kept, not re-read: a call with nothing changed looks at no run
folder, an added or removed folder is seen at the next call, a run the service stops
hosting is folded from its files, another process's change inside a finished run is seen
at the next check of every folder, and a live-looking run no engine holds is interrupted
(and running again while one does) at once."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import orjson

from desktop.api.run_index import RunIndex
from desktop.disk.paths import runs_dir
from desktop.runtime.recovery import create_run
from desktop.store.runs import hold_engine_lock
from tests.api.api_helpers import Api, workflow


async def finished_runs(data: Path, count: int) -> list[str]:
    from desktop.graph.document import WorkflowDocument

    ids = []
    for i in range(count):
        doc = WorkflowDocument.model_validate(workflow({"a": {"script": [{"say": f"{i}"}]}}))
        engine = create_run(doc, data)
        try:
            await asyncio.wait_for(engine.run(), 60)
        finally:
            engine.close()
        ids.append(engine.run_id)
    return ids


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def append_usage(data: Path, run_id: str, tokens: int) -> None:
    """Another process's write inside a finished run's folder: one more event in its log."""
    log = runs_dir(data) / run_id / "events.jsonl"
    last = orjson.loads(log.read_bytes().splitlines()[-1])
    extra = {"seq": last["seq"] + 1, "ts": last["ts"], "runId": last["runId"],
             "type": "telemetry.usage", "inputTokens": tokens}
    with log.open("ab") as fh:
        fh.write(orjson.dumps(extra) + b"\n")


async def test_a_listing_reads_no_folder_when_nothing_changed_and_callers_share_work(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    ids = await finished_runs(data, 3)
    index = RunIndex(runs_dir(data), clock=Clock())
    first = await index.rows({})
    assert sorted(r["id"] for r in first) == sorted(ids) and index.folds == 3
    assert {r["status"] for r in first} == {"completed"}
    body = await index.body({})
    together = await asyncio.gather(*(index.body({}) for _ in range(100)))
    assert all(b is body for b in together)  # one encoding, shared
    assert orjson.loads(body)["runs"] == first
    assert index.folds == 3 and index.scans == 0  # no folder was looked at again


async def test_a_folder_added_or_removed_is_seen_at_the_next_call_without_a_scan(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    ids = await finished_runs(data, 2)
    index = RunIndex(runs_dir(data), clock=Clock())
    assert len(await index.rows({})) == 2
    [new] = await finished_runs(data, 1)
    assert sorted(r["id"] for r in await index.rows({})) == sorted([*ids, new])
    assert index.folds == 3 and index.scans == 0  # only the new folder was folded
    shutil.rmtree(runs_dir(data) / ids[0])
    assert sorted(r["id"] for r in await index.rows({})) == sorted([ids[1], new])
    assert index.folds == 3 and index.scans == 0


async def test_another_process_changing_a_finished_run_is_seen_at_the_next_check(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    ids = await finished_runs(data, 3)
    clock = Clock()
    index = RunIndex(runs_dir(data), revalidate_after=2.0, clock=clock)
    first = await index.rows({})
    tokens = next(r for r in first if r["id"] == ids[0])["tokens"]
    append_usage(data, ids[0], 7)
    assert await index.rows({}) == first  # kept until the next check of every folder
    clock.now += 2.0
    await index.rows({})  # starts the check; this caller does not wait for it
    await index.revalidate()  # the same check, waited for
    again = await index.rows({})
    assert next(r for r in again if r["id"] == ids[0])["tokens"] != tokens
    assert index.folds == 4  # only the changed run was folded again
    assert index.scans >= 1


async def test_a_run_the_service_stops_hosting_is_folded_from_its_files(
        tmp_path: Path) -> None:
    from desktop.graph.document import WorkflowDocument

    data = tmp_path / "data"
    await finished_runs(data, 1)
    index = RunIndex(runs_dir(data), clock=Clock())
    doc = WorkflowDocument.model_validate(workflow({"a": {"script": [{"say": "hi"}]}}))
    engine = create_run(doc, data)
    try:
        rows = await index.rows({engine.run_id: engine.state})  # hosted: from its state
        assert next(r for r in rows if r["id"] == engine.run_id)["live"] is True
        await asyncio.wait_for(engine.run(), 60)
    finally:
        engine.close()
    rows = await index.rows({})
    row = next(r for r in rows if r["id"] == engine.run_id)
    assert row["live"] is False and row["status"] == "completed"


async def test_a_live_looking_run_is_interrupted_unless_an_engine_holds_it(
        tmp_path: Path) -> None:
    from desktop.graph.document import WorkflowDocument

    data = tmp_path / "data"
    doc = WorkflowDocument.model_validate(workflow({"a": {"script": [{"say": "hi"}]}}))
    engine = create_run(doc, data)  # created, never run: queued in its log
    engine.close()
    index = RunIndex(runs_dir(data), clock=Clock())
    [row] = await index.rows({})
    assert row["status"] == "interrupted"
    with hold_engine_lock(engine.run_dir):
        [row] = await index.rows({})
        assert row["status"] == "queued"
    [row] = await index.rows({})
    assert row["status"] == "interrupted" and index.folds == 1


async def test_the_list_has_an_etag_and_an_unchanged_list_is_a_304(api: Api) -> None:
    await finished_runs(api.data, 1)
    first = await api.client.get("/api/runs")
    assert first.status == 200 and len((await first.json())["runs"]) == 1
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "no-cache"
    for sent in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        again = await api.client.get("/api/runs", headers={"If-None-Match": sent})
        assert again.status == 304 and await again.read() == b""
        assert again.headers["ETag"] == etag
    await finished_runs(api.data, 1)
    changed = await api.client.get("/api/runs", headers={"If-None-Match": etag})
    assert changed.status == 200 and len((await changed.json())["runs"]) == 2
    assert changed.headers["ETag"] != etag
