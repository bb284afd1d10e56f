"""Events on the wire: round trips, unknown types, and what is rejected."""

import orjson
import pytest
from event_samples import KNOWN_TYPES, RUN_ID, event_dicts, sample_event
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from desktop.contract.events import EVENT_TYPES, KNOWN_EVENTS, GenericEvent, parse_event
from desktop.contract.schema import event_type_of


def test_samples_cover_every_known_event() -> None:
    assert set(KNOWN_TYPES) == {event_type_of(m) for m in KNOWN_EVENTS} == set(EVENT_TYPES)


@pytest.mark.parametrize("kind", KNOWN_TYPES)
def test_each_type_parses_to_its_model(kind: str) -> None:
    event = parse_event(sample_event(kind))
    assert event.type == kind
    assert not isinstance(event, GenericEvent)


@given(event_dicts())
def test_round_trip_through_wire_form(data: dict) -> None:
    event = parse_event(data)
    wire = event.to_json_dict()
    again = parse_event(wire)
    assert again == event
    assert again.to_json_dict() == wire
    assert parse_event(orjson.dumps(wire)) == event


@given(event_dicts())
def test_wire_form_keeps_the_input_fields(data: dict) -> None:
    wire = parse_event(data).to_json_dict()
    for key, value in data.items():
        if value is not None:
            assert key in wire
    assert wire["type"] == data["type"]


@given(
    kind=st.from_regex(r"\A[a-z]{1,8}(\.[a-z]{1,8}){1,3}\Z").filter(
        lambda t: t not in EVENT_TYPES
    ),
    extra=st.dictionaries(
        st.from_regex(r"\A[a-z][a-zA-Z]{0,10}\Z").filter(
            lambda k: k not in {"id", "runId", "ts", "type", "nodeId", "seq"}
        ),
        st.none() | st.booleans() | st.integers() | st.text(max_size=20)
        | st.lists(st.integers(), max_size=3),
        max_size=5,
    ),
)
def test_unknown_type_kept_whole(kind: str, extra: dict) -> None:
    data = {"id": "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "runId": RUN_ID,
            "ts": "2026-01-01T00:00:00Z", "type": kind, **extra}
    event = parse_event(data)
    assert isinstance(event, GenericEvent)
    assert event.type == kind
    wire = event.model_dump(mode="json", by_alias=True)
    for key, value in extra.items():
        assert wire[key] == value
    # The wire form leaves out nulls (to_json_dict excludes None), nothing else.
    wire = event.to_json_dict()
    assert wire == {k: v for k, v in data.items() if v is not None}
    assert parse_event(wire).to_json_dict() == wire


def _with(kind: str, **changes) -> dict:
    return sample_event(kind) | changes


@pytest.mark.parametrize(
    "data",
    [
        _with("message.user", runId="run-1"),
        _with("message.user", id="not-a-uuid"),
        _with("node.progress", runId=""),
        _with("message.user", ts="2026-01-01T00:00:00+02:00"),
        _with("message.user", ts="2026-01-01T00:00:00"),
        _with("message.user", ts="yesterday"),
        _with("turn.status", status="bogus"),
        _with("run.mode", mode="auto"),
        _with("run.stalled", reason="boredom"),
        _with("run.budget_exceeded", limit="maxMoney"),
        _with("bus.message", busType="SHOUT"),
        _with("approval.resolved", resolution={"status": "maybe"}),
        _with("telemetry.usage", inputTokens=-1),
        _with("message.user", seq=0),
        _with("log.recovered", problem="gremlins"),
    ],
    ids=lambda d: d["type"],
)
def test_strictness(data: dict) -> None:
    with pytest.raises(ValidationError):
        parse_event(data)


@pytest.mark.parametrize("kind", ["message.user", "approval.requested", "edge.created"])
def test_known_type_missing_required_field_rejected(kind: str) -> None:
    data = sample_event(kind)
    required = {"message.user": "text", "approval.requested": "tool", "edge.created": "edge"}
    del data[required[kind]]
    with pytest.raises(ValidationError):
        parse_event(data)


def test_utc_offset_zero_accepted() -> None:
    event = parse_event(_with("message.user", ts="2026-01-01T00:00:00+00:00"))
    assert event.ts == "2026-01-01T00:00:00+00:00"
