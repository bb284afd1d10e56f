"""The service's run list is kept, not re-read: only a run whose files changed is folded
again, callers at once share one scan, a live-looking run no engine holds is interrupted
(and running again while one does), and a removed folder leaves the list."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import orjson

from desktop.api.run_index import RunIndex
from desktop.runtime.recovery import create_run
from desktop.store.paths import runs_dir
from desktop.store.runs import hold_engine_lock
from tests.api.api_helpers import workflow


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


async def test_only_changed_runs_are_folded_again_and_callers_share_a_scan(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    ids = await finished_runs(data, 3)
    index = RunIndex(runs_dir(data))
    first = await index.rows({})
    assert sorted(r["id"] for r in first) == sorted(ids) and index.folds == 3
    assert {r["status"] for r in first} == {"completed"}
    together = await asyncio.gather(*(index.rows({}) for _ in range(100)))
    assert all(rows == first for rows in together)
    assert index.scans == 2 and index.folds == 3  # one scan for the hundred, nothing folded

    # a run whose log grows is folded again, and only it
    log = runs_dir(data) / ids[0] / "events.jsonl"
    last = orjson.loads(log.read_bytes().splitlines()[-1])
    extra = {"seq": last["seq"] + 1, "ts": last["ts"], "runId": last["runId"],
             "type": "telemetry.usage", "inputTokens": 7}
    with log.open("ab") as fh:
        fh.write(orjson.dumps(extra) + b"\n")
    again = await index.rows({})
    assert index.folds == 4
    changed = next(r for r in again if r["id"] == ids[0])
    assert changed["tokens"] != next(r for r in first if r["id"] == ids[0])["tokens"]

    shutil.rmtree(runs_dir(data) / ids[1])
    assert sorted(r["id"] for r in await index.rows({})) == sorted([ids[0], ids[2]])


async def test_a_live_looking_run_is_interrupted_unless_an_engine_holds_it(
        tmp_path: Path) -> None:
    from desktop.graph.document import WorkflowDocument

    data = tmp_path / "data"
    doc = WorkflowDocument.model_validate(workflow({"a": {"script": [{"say": "hi"}]}}))
    engine = create_run(doc, data)  # created, never run: queued in its log
    engine.close()
    index = RunIndex(runs_dir(data))
    [row] = await index.rows({})
    assert row["status"] == "interrupted"
    with hold_engine_lock(engine.run_dir):
        [row] = await index.rows({})
        assert row["status"] == "queued"
    [row] = await index.rows({})
    assert row["status"] == "interrupted" and index.folds == 1
