"""``GET /api/runs`` gives each run's wall seconds to the millisecond, as ``runs list
--json`` does: the reducer's float sums (0.1 + 0.2 = 0.30000000000000004) stay in the
run's files, not in what scripts read from the service."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.cli import main
from desktop.disk.paths import runs_dir
from desktop.store.eventlog import EventLog
from tests.api.api_helpers import served
from tests.storekit import NODE_A, RUN_ID, created, ev

START = datetime(2026, 1, 1, tzinfo=UTC)


def _ts(ms: int) -> str:
    return (START + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds") \
        .replace("+00:00", "Z")


def _write_run(data: Path, spans: list[int]) -> None:
    """A run that ran (and its node A took a turn) for each span of milliseconds."""
    events, now = [created()], 0
    for i, span in enumerate(spans):
        kind = "run.started" if i == 0 else "run.resumed"
        events += [ev(kind, ts=_ts(now)),
                   ev("turn.status", nodeId=NODE_A, status="started", turnId=f"t{i}",
                      agentRunId=f"ar{i}", ts=_ts(now)),
                   ev("turn.status", nodeId=NODE_A, status="completed", turnId=f"t{i}",
                      agentRunId=f"ar{i}", ts=_ts(now + span)),
                   ev("run.paused", reason="by hand", ts=_ts(now + span))]
        now += span + 1000
    with EventLog.open(runs_dir(data) / RUN_ID) as log:
        for event in events:
            log.append(event)
        log.flush()


def _decimals(number: float) -> int:
    return len(repr(number).partition(".")[2])


async def test_a_sum_that_floats_cannot_hold_comes_out_to_the_millisecond(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with served(tmp_path) as api:
        _write_run(api.data, [100, 200])  # 0.1 + 0.2 folds to 0.30000000000000004
        [row] = (await api.json("GET", "/api/runs", 200))["runs"]
        assert main(["runs", "list", "--json", "--data-dir", str(api.data)]) == 0
        [listed] = orjson.loads(capsys.readouterr().out)
    assert row["tokens"]["wallSec"] == listed["tokens"]["wallSec"] == 0.3


@settings(max_examples=15, deadline=None)
@given(spans=st.lists(st.integers(1, 5000), min_size=1, max_size=6))
async def test_the_service_lists_wall_seconds_to_the_millisecond(spans: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with served(Path(tmp)) as api:
            _write_run(api.data, spans)
            [row] = (await api.json("GET", "/api/runs", 200))["runs"]
    assert row["tokens"]["wallSec"] == sum(spans) / 1000
    assert _decimals(row["tokens"]["wallSec"]) <= 3
