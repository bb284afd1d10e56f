"""Searching a log's bytes in slices finds exactly the lines that hold the needle."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.views.events import FileEvents
from desktop.views.logfile import LogFile
from desktop.views.search import TextSearch

RUN = "00000000-0000-4000-8000-000000000001"


def _event(seq: int, text: str, kind: str = "message.assistant.final") -> dict:
    return {"seq": seq, "id": f"e{seq}", "runId": RUN, "ts": "2026-01-01T00:00:00.000Z",
            "type": kind, "nodeId": f"n{seq % 3}", "text": text}


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(st.text(alphabet="abcXY \n\"é", max_size=30), min_size=1, max_size=60),
       needle=st.text(alphabet="abcXY é", min_size=1, max_size=3),
       budget=st.integers(min_value=1, max_value=400))
def test_bytes_search_finds_exactly_the_lines_that_contain_the_needle(
        tmp_path_factory, texts, needle, budget):
    path = tmp_path_factory.mktemp("log") / "events.jsonl"
    lines = [orjson.dumps(_event(i + 1, t)) for i, t in enumerate(texts)]
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    low = needle.lower().encode()
    expected = [i + 1 for i, line in enumerate(lines) if low in line.lower()]
    log = LogFile(path)
    found, start, done = [], 0, False
    while not done:  # whatever the slice size, lines are searched whole and once
        seqs, start, done = log.search_step(low, start, budget)
        found += seqs
    log.close()
    assert found == expected



def test_a_search_of_a_file_store_gives_positions_in_order(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"".join(orjson.dumps(_event(i, "Needle" if i % 5 == 0 else "hay"))
                              + b"\n" for i in range(1, 101)))
    store = FileEvents(path)
    assert TextSearch(store, "needle").run() == [i - 1 for i in range(5, 101, 5)]
    store.close()
