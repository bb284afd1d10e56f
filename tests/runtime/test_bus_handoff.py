"""The handoff an agent run posted on the bus is found among many other events."""

from pathlib import Path

import orjson

from desktop.runtime.agent_folder import bus_handoff

RUN, OTHER = "20260101-0000000000-1", "20260101-0000000000-2"


def _write(path: Path, events: list[dict]) -> None:
    with path.open("ab") as fh:
        for seq, event in enumerate(events, 1):
            fh.write(orjson.dumps({"seq": seq, **event}) + b"\n")


def _post(run: str, to: str, message: str = "") -> dict:
    return {"type": "bus.message", "busType": "FACT", "agentRunId": run, "handoffTo": to,
            "message": message}


def test_last_handoff_of_this_run_after_the_offset_wins(tmp_path: Path):
    bus = tmp_path / "events.jsonl"
    _write(bus, [_post(RUN, "early")])
    offset = bus.stat().st_size
    noise = [{"type": "message.assistant.delta", "text": f"handoffTo {RUN} {i}"}
             for i in range(500)]
    _write(bus, [*noise, _post(RUN, "first", "a"), _post(RUN, "second", "b"),
                 _post(OTHER, "elsewhere"), *noise])
    found = bus_handoff(bus, offset, RUN)
    assert found is not None and found["to"] == "second" and found["message"] == "b"


def test_no_handoff_empty_or_missing_log(tmp_path: Path):
    bus = tmp_path / "events.jsonl"
    assert bus_handoff(bus, 0, RUN) is None
    bus.touch()
    assert bus_handoff(bus, 0, RUN) is None
    _write(bus, [_post(RUN, "before")])
    assert bus_handoff(bus, bus.stat().st_size, RUN) is None
    _write(bus, [{"type": "message.assistant.delta", "text": "x"}])
    assert bus_handoff(bus, 0, OTHER) is None
