"""One run list: for the same data folder, ``agent-canvas runs list --json`` (the plain
listing) and the service's ``GET /api/runs`` (its kept index) give the same rows: a
finished run, a run left running by an engine that died (interrupted), a folder whose log
holds nothing readable and a folder that holds no run (both unreadable, with why)."""

from __future__ import annotations

import orjson
import pytest

from desktop.cli import main
from desktop.disk.paths import runs_dir
from desktop.store.eventlog import EventLog
from tests.api.api_helpers import Api
from tests.api.test_run_index import finished_runs
from tests.storekit import RUN_ID, story


def without_paths(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "path"} for row in rows]


async def test_the_cli_and_the_service_list_the_same_runs(
        api: Api, capsys: pytest.CaptureFixture[str]) -> None:
    [done] = await finished_runs(api.data, 1)
    with EventLog.open(runs_dir(api.data) / RUN_ID) as log:
        for event in story()[:6]:  # started, a turn under way: then the engine is gone
            log.append(event)
        log.flush()
    garbled = runs_dir(api.data) / "garbled"
    garbled.mkdir()
    (garbled / "events.jsonl").write_bytes(b"not an event\n\xff\xfe\n")
    (runs_dir(api.data) / "empty").mkdir()

    served = (await api.json("GET", "/api/runs", 200))["runs"]
    assert main(["runs", "list", "--json", "--data-dir", str(api.data)]) == 0
    listed = orjson.loads(capsys.readouterr().out)

    assert without_paths(listed) == served
    by_id = {row["id"]: row for row in served}
    assert set(by_id) == {done, RUN_ID, "garbled", "empty"}
    assert by_id[done]["status"] == "completed" and by_id[RUN_ID]["status"] == "interrupted"
    for name in ("garbled", "empty"):
        assert by_id[name]["status"] == "unreadable" and name in by_id[name]["error"]
    assert {row["path"] for row in listed} == {str(runs_dir(api.data) / i) for i in by_id}
