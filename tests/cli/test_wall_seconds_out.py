"""`runs list --json` and `runs show --json` give wall seconds to the millisecond: the
reducer's float sums (0.1 + 0.2 = 0.30000000000000004) stay in the files, not in what
scripts read."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from storekit import NODE_A, created, ev

from desktop.cli import main
from desktop.disk.paths import runs_dir
from desktop.store.eventlog import EventLog

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
    with EventLog.open(runs_dir(data) / events[0]["runId"]) as log:
        for event in events:
            log.append(event)
        log.flush()


def _walls(value: object) -> list[float]:
    if isinstance(value, dict):
        return [v for k, v in value.items() if k == "wallSec"] + \
            [w for v in value.values() for w in _walls(v)]
    if isinstance(value, list):
        return [w for v in value for w in _walls(v)]
    return []


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spans=st.lists(st.integers(1, 5000), min_size=1, max_size=6))
def test_wall_seconds_are_given_to_the_millisecond(
        spans: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        _write_run(data, spans)
        want = sum(spans) / 1000
        assert main(["runs", "list", "--json", "--data-dir", str(data)]) == 0
        [row] = json.loads(capsys.readouterr().out)
        assert main(["runs", "show", "1111", "--json", "--data-dir", str(data)]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert row["tokens"]["wallSec"] == want
        assert shown["usage"]["wallSec"] == want
        assert shown["nodeUsage"][NODE_A]["wallSec"] == want
        for wall in _walls(row) + _walls(shown):  # printed as milliseconds at most
            assert len(repr(wall).partition(".")[2]) <= 3

