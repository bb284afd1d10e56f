"""Transcript rows without Qt: coalesced streams, tool-call status, filters, file stores."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.views.transcript import TranscriptRows

RUN = "00000000-0000-4000-8000-000000000001"
NODES = ["n1", "n2"]


def ev(seq: int, kind: str, node: str | None = "n1", **fields) -> dict:
    out = {"seq": seq, "id": f"e{seq}", "runId": RUN, "ts": "2026-01-01T00:00:00.000Z",
           "type": kind, **fields}
    if node:
        out["nodeId"] = node
    return out


def shown(rows: TranscriptRows) -> list[int]:
    return [rows.seq(r) for r in range(rows.count)]


class Recorder:
    """A sink that applies the notices to a list of positions, as a view would."""

    def __init__(self, rows: TranscriptRows) -> None:
        self.rows = rows
        self.view: list[int] = []
        self.pending: tuple | None = None

    def begin_insert(self, first, last):
        self.pending = ("insert", first, last)

    def end_insert(self):
        _, first, last = self.pending
        self.view[first:first] = [self.rows.position(r) for r in range(first, last + 1)]

    def begin_remove(self, first, last):
        del self.view[first:last + 1]

    def end_remove(self):
        pass

    def rows_changed(self, first, last):
        assert 0 <= first <= last < len(self.view)

    def begin_reset(self):
        pass

    def end_reset(self):
        self.view = [self.rows.position(r) for r in range(self.rows.count)]


def test_deltas_stream_into_one_row_replaced_by_the_final():
    rows = TranscriptRows()
    rows.ingest([ev(1, "message.user", text="hi")])
    rows.ingest([ev(2, "message.assistant.delta", text="Hel")])
    rows.ingest([ev(3, "message.assistant.delta", text="lo")])
    assert rows.count == 2 and rows.display(1) == "Hello"
    rows.ingest([ev(4, "message.assistant.final", text="Hello")])
    assert shown(rows) == [1, 4]


def test_the_attempts_of_one_node_stream_into_rows_of_their_own():
    """Best-of-N: two attempts of n1 speak at once; neither's words join the other's."""
    rows = TranscriptRows()
    rows.ingest([ev(1, "message.assistant.delta", text="one ", attemptIndex=1),
                 ev(2, "message.assistant.delta", text="two ", attemptIndex=2),
                 ev(3, "message.assistant.delta", text="first", attemptIndex=1),
                 ev(4, "message.assistant.delta", text="second", attemptIndex=2)])
    assert [rows.display(r) for r in range(rows.count)] == ["[attempt 1] one first",
                                                           "[attempt 2] two second"]
    rows.ingest([ev(5, "message.assistant.final", text="two second", attemptIndex=2)])
    assert shown(rows) == [1, 5]
    rows.ingest([ev(6, "message.assistant.final", text="one first", attemptIndex=1),
                 ev(7, "choice.made", attemptIndex=2, by="user")])
    assert shown(rows) == [5, 6, 7]
    assert rows.display(0) == "[attempt 2] two second"
    assert rows.display(2) == "attempt 2 chosen by a person: it goes on"


def test_a_new_message_without_a_final_starts_a_new_row():
    rows = TranscriptRows()
    rows.ingest([ev(1, "message.assistant.delta", text="a", messageId="m1"),
                 ev(2, "message.assistant.delta", text="b", messageId="m2"),
                 ev(3, "message.assistant.delta", text="c", messageId="m2")])
    assert [rows.display(r) for r in range(rows.count)] == ["a", "bc"]


def test_thinking_rows_open_in_place():
    rows = TranscriptRows()
    rows.ingest([ev(1, "message.user", text="x"),
                 ev(2, "message.assistant.thinking.final", text="one\ntwo")])
    assert not rows.set_expanded(0, True)  # a user message does not open
    assert rows.toggle_expanded(1) and rows.display(1) == "▾ thinking\none\ntwo"
    assert rows.toggle_expanded(1) and rows.display(1).startswith("▸ thinking · one")


def _tool(tid: str, name: str = "command") -> dict:
    return {"id": tid, "name": name, "args": {"cmd": "ls"}}


def test_tool_calls_carry_their_status_latency_and_approval():
    rows = TranscriptRows()
    rows.ingest([ev(1, "tool.proposed", tool=_tool("t1")),
                 ev(2, "tool.started", toolId="t1", ts="2026-01-01T00:00:01.000Z"),
                 ev(3, "tool.completed", toolId="t1", result={"ok": True},
                    ts="2026-01-01T00:00:03.500Z")])
    assert "completed · 2.50s" in rows.display(0)
    assert rows.display(1).startswith("✓ command in 2.50s")
    rows.ingest([ev(4, "tool.proposed", tool=_tool("t2")),
                 ev(5, "approval.requested", approvalId="a2", tool=_tool("t2"))])
    assert rows.tools["t2"]["status"] == "awaiting approval"
    rows.ingest([ev(6, "approval.resolved", approvalId="a2",
                    resolution={"status": "denied", "reason": "no"}),
                 ev(7, "tool.completed", toolId="t2", result={"ok": False},
                    error={"message": "no"})])
    assert rows.tools["t2"]["status"] == "denied"  # not "failed": the user said no
    rows.ingest([ev(8, "tool.proposed", tool=_tool("t3")),
                 ev(9, "approval.requested", approvalId="a3", tool=_tool("t3")),
                 ev(10, "approval.resolved", approvalId="a3",
                    resolution={"status": "approved"})])
    assert rows.tools["t3"]["status"] == "approved"


def test_reading_events_again_or_out_of_order_never_moves_a_call_back():
    rows = TranscriptRows()
    done = ev(3, "tool.completed", toolId="t1", result={"ok": True})
    rows.notes.learn(done)
    rows.notes.learn(ev(2, "tool.started", toolId="t1"))
    rows.notes.learn(ev(1, "tool.proposed", tool=_tool("t1")))
    rows.notes.learn(ev(2, "tool.started", toolId="t1"))
    assert rows.tools["t1"]["status"] == "completed"
    rows.notes.learn(ev(5, "approval.resolved", approvalId="a", resolution={"status": "denied"}))
    rows.notes.learn(ev(4, "approval.requested", approvalId="a", tool=_tool("t4")))
    assert rows.tools["t4"]["status"] == "denied"


def test_filter_by_node_type_and_text():
    rows = TranscriptRows()
    rows.ingest([ev(1, "message.user", "n1", text="alpha"),
                 ev(2, "message.user", "n2", text="beta"),
                 ev(3, "tool.proposed", "n2", tool=_tool("t")),
                 ev(4, "message.assistant.final", "n1", text="gamma beta")])
    rows.set_filter(node_id="n2")
    assert shown(rows) == [2, 3]
    rows.set_filter(types={"tool.proposed"})
    assert shown(rows) == [3]
    assert rows.set_filter(search="BETA") and not rows.searching
    assert shown(rows) == [2, 4] and rows.match_count == 2
    rows.set_filter()
    assert rows.count == 4


def _write(path, events):
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))


def test_file_rows_read_before_indexing_and_filter_after(tmp_path):
    events = [ev(i, "message.assistant.delta" if i % 3 else "message.user",
                 NODES[i % 2], text=f"t{i}") for i in range(1, 2001)]
    _write(tmp_path / "events.jsonl", events)
    rows = TranscriptRows.open_file(tmp_path / "events.jsonl")
    assert rows.indexing and rows.count == 2000  # every event, unfiltered
    assert rows.event_at(1999)["seq"] == 2000
    while not rows.index_slice(4096):
        pass
    assert shown(rows) == [e["seq"] for e in events if e["type"] == "message.user"]
    rows.close()


def test_seq_may_be_the_last_key(tmp_path):
    events = [{"type": "message.user", "nodeId": "n1", "text": f"m{i}", "seq": i}
              for i in range(1, 600)]
    _write(tmp_path / "events.jsonl", events)
    rows = TranscriptRows.open_file(tmp_path / "events.jsonl")
    assert rows.count == 599 and rows.event_at(450)["text"] == "m451"
    rows.index_slice(1 << 30)
    assert rows.count == 599
    rows.close()


KINDS = ["message.user", "message.assistant.delta", "message.assistant.final",
         "tool.proposed", "tool.started", "tool.completed", "node.progress",
         "message.assistant.thinking.delta", "message.assistant.thinking.final",
         "approval.requested", "approval.resolved"]


def _story(items) -> list[dict]:
    out = []
    for i, (kind, node, tool, msg) in enumerate(items, start=1):
        out.append(ev(i, kind, node, text=f"x{i}", tool=_tool(tool), toolId=tool,
                      approvalId=f"a{tool}", messageId=msg,
                      resolution={"status": "denied" if i % 2 else "approved"}))
    return out


story = st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from(NODES),
                           st.sampled_from(["t1", "t2"]), st.sampled_from(["m1", "m2"])),
                 max_size=60).map(_story)


def _batches(events: list, cuts: list[int]) -> list[list]:
    out, pos = [], 0
    for cut in cuts:
        out.append(events[pos:pos + cut])
        pos += cut
    return [*out, events[pos:]]


def _snapshot(rows: TranscriptRows) -> tuple:
    return ([rows.position(r) for r in range(rows.count)],
            [rows.display(r) for r in range(rows.count)], rows.tools)


@settings(max_examples=80, deadline=None)
@given(story, st.lists(st.integers(0, 10), max_size=10))
def test_any_batch_split_gives_the_rows_of_one_batch(events, cuts):
    """However events are batched, the rows, their text and the tool calls are the same,
    a view following the notices shows those rows, and a fresh filter agrees."""
    whole = TranscriptRows()
    whole.ingest(events)
    rows = TranscriptRows()
    sink = rows.sink = Recorder(rows)
    for batch in _batches(events, cuts):
        rows.ingest(batch)
    assert _snapshot(rows) == _snapshot(whole)
    assert sink.view == [rows.position(r) for r in range(rows.count)]
    live = _snapshot(rows)[0]
    rows.set_filter()  # streaming rows are the first delta of a message with no final yet
    assert [rows.position(r) for r in range(rows.count)] == live
    assert rows.store.count == len(events)


@settings(max_examples=40, deadline=None)
@given(story, st.sampled_from(NODES), st.sampled_from(["x1", "x2", "X", "zz"]))
def test_a_filter_set_before_the_events_equals_one_set_after(events, node, text):
    before = TranscriptRows()
    before.set_filter(node_id=node, search=text)
    before.ingest(events)
    after = TranscriptRows()
    after.ingest(events)
    after.set_filter(node_id=node, search=text)
    deltas = {e["seq"] - 1 for e in events if e["type"].endswith(".delta")}
    # live stream rows aside (a search shows one only if it saw its text), the same rows
    assert [p for p in map(before.position, range(before.count)) if p not in deltas] == \
        [p for p in map(after.position, range(after.count)) if p not in deltas]


def _denied_call() -> list[dict]:
    """A gated call a person denied, then the agent's report of it as an error."""
    return [ev(1, "message.user", text="go"),
            ev(2, "tool.proposed", tool=_tool("t9")),
            ev(3, "approval.requested", approvalId="a9", tool=_tool("t9")),
            ev(4, "approval.resolved", approvalId="a9",
               resolution={"status": "denied", "reason": "not on main", "by": "user"}),
            ev(5, "tool.completed", toolId="t9", result={"ok": False},
               error={"message": "not on main"}),
            ev(6, "message.assistant.final", text="ok, I will not")]


@given(st.permutations(range(6)))
def test_a_denied_call_reads_denied_with_its_reason_whatever_the_reading_order(order):
    events = _denied_call()
    rows = TranscriptRows()
    for i in order:
        rows.notes.learn(events[i])
    info = rows.tools["t9"]
    assert info["status"] == "denied" and info["reason"] == "not on main"


def test_a_denied_call_read_lazily_with_approvals_hidden_is_denied_in_event_order(tmp_path):
    _write(tmp_path / "events.jsonl", _denied_call())
    rows = TranscriptRows.open_file(tmp_path / "events.jsonl")
    rows.index_slice(1 << 30)
    tools_only = {"tool.proposed", "tool.completed", "message.user",
                  "message.assistant.final"}
    rows.set_filter(types=tools_only)
    assert shown(rows) == [1, 2, 5, 6]  # the order it happened in
    lines = [rows.display(r) for r in range(rows.count)]  # top first, as a view paints
    assert lines[1].endswith("· denied: not on main")
    assert lines[2] == "⊘ command denied: not on main"
    assert "failed" not in " ".join(lines)
    rows.close()


def test_a_row_read_before_its_calls_outcome_is_marked_changed():
    rows = TranscriptRows()
    recorder = Recorder(rows)
    rows.sink = recorder
    changed: list[tuple[int, int]] = []
    recorder.rows_changed = lambda a, b: changed.append((a, b))
    events = _denied_call()
    rows.ingest(events[:3])
    assert "awaiting approval" in rows.display(1)
    rows.ingest(events[3:])
    assert (1, 1) in changed or any(a <= 1 <= b for a, b in changed)
    assert rows.display(1).endswith("denied: not on main")
