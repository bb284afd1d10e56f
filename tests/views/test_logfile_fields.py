"""The log's random-access reader takes every field from the decoded line: whatever order
a writer puts the keys in, and whatever nested objects hold keys of the same name."""

from __future__ import annotations

import random

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.views.logfile import LogFile

RUN = "00000000-0000-4000-8000-000000000001"


def _event(seq: int, kind: str, node: str | None) -> dict:
    event = {"seq": seq, "id": f"e{seq}", "runId": RUN, "ts": "2026-01-01T00:00:00.000Z",
             # a nested object with the same key names, which a byte match could take
             "payload": {"type": "inner", "nodeId": "nested", "seq": 10 ** 6 + seq},
             "type": kind}
    if node is not None:
        event["nodeId"] = node
    return event


@settings(max_examples=30, deadline=None)
@given(kinds=st.lists(st.tuples(st.sampled_from(["a.b", "c.d", "run.started"]),
                                st.sampled_from([None, "n1", "n2"])),
                      min_size=1, max_size=40),
       order_seed=st.integers(0, 1 << 16), budget=st.integers(min_value=1, max_value=600))
def test_index_and_pages_read_fields_not_bytes(tmp_path_factory, kinds, order_seed,
                                                budget) -> None:
    shuffle = random.Random(order_seed)
    events = [_event(i + 1, kind, node) for i, (kind, node) in enumerate(kinds)]
    lines = []
    for event in events:
        keys = list(event)
        shuffle.shuffle(keys)  # any key order is the same event
        lines.append(orjson.dumps({k: event[k] for k in keys}))
    path = tmp_path_factory.mktemp("log") / "events.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    log = LogFile(path)
    try:
        assert log.last_seq() == len(events)
        while not log.index_step(budget):
            pass
        assert log.indexed == len(events)
        assert [log.type_codes.names[c] for c in log.types] == [k for k, _ in kinds]
        assert [log.node_codes.names[c] or None for c in log.nodes] == [n for _, n in kinds]
        for seq in (1, len(events), (len(events) + 1) // 2):
            assert log.get(seq) == events[seq - 1]
            assert orjson.loads(log.raw(seq)) == events[seq - 1]
    finally:
        log.close()
