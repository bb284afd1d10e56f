"""Whether a run's log records an inbox item being queued (desktop/api/not_live.py), which
decides 404 or 409 run_not_live for an inbox edit on a run that is not live: only the
lines holding the id are parsed, so the id must be found however it is spelled."""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from desktop.api.not_live import was_queued
from desktop.store.jsonl import EVENTS_FILE

ids = st.text(min_size=1, max_size=40)


@given(queued=ids, other=ids)
def test_an_item_is_found_exactly_as_queued(queued: str, other: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / EVENTS_FILE
        events = [{"seq": 1, "type": "run.created"},
                  {"seq": 2, "type": "inbox.queued", "item": {"id": queued, "text": other}},
                  {"seq": 3, "type": "inbox.edited", "itemId": other}]
        log.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events) + b'{"seq": 4, "ty')
        assert was_queued(Path(folder), queued)
        assert was_queued(Path(folder), other) == (other == queued)


def test_a_run_without_a_log_queued_nothing(tmp_path: Path) -> None:
    assert not was_queued(tmp_path, "anything")
