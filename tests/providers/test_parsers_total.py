"""The stream parsers are total: no line, however broken, makes them raise."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.contract.events import parse_event
from desktop.providers.parsers import PARSERS, classify_error, parser_for
from desktop.providers.parsers.common import ERROR_CATEGORIES

RUN_ID = "11111111-2222-4333-8444-555555555555"
KNOWN_TYPES = ["system", "assistant", "user", "result", "stream_event", "thread.started",
               "turn.started", "turn.completed", "turn.failed", "item.started",
               "item.updated", "item.completed", "error", "init", "message", "tool_use",
               "tool_result", "mystery"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "subtype", "message", "content", "item", "id", "text",
                         "delta", "error", "usage", "status", "tool_id", "role",
                         "is_error", "result", "event", "session_id", "thread_id"]),
        inner, max_size=5),
    max_leaves=20)

lines = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200),
    st.builds(lambda kind, body: json.dumps({**body, "type": kind}, default=str),
              st.sampled_from(KNOWN_TYPES),
              st.dictionaries(st.text(max_size=10), json_values, max_size=6)),
    json_values.map(lambda v: json.dumps(v, default=str)),
)


def check(events: list[dict]) -> None:
    assert isinstance(events, list)
    for event in events:
        assert isinstance(event.get("type"), str)
        parse_event({**event, "runId": RUN_ID})  # every event fits the contract


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(PARSERS)), st.lists(lines, max_size=12))
def test_random_lines_never_crash_and_give_contract_events(agent: str, batch: list):
    parser = parser_for(agent, run_id=RUN_ID)
    for line in batch:
        check(parser.feed(line))
    check(parser.finish())


def test_non_json_line_is_reported_not_dropped():
    parser = parser_for("claude")
    events = parser.feed(b"\xff\xfe not json at all")
    assert events[0]["type"] == "node.log" and events[0]["problem"] == "not-json"
    assert parser.unparsed == 1


def test_unknown_line_type_is_kept_raw():
    parser = parser_for("codex")
    events = parser.feed('{"type": "brand.new", "x": 1}')
    assert events == [{"type": "agent.raw", "provider": "codex",
                       "line": {"type": "brand.new", "x": 1}}]


def test_huge_tool_output_is_clipped():
    parser = parser_for("gemini")
    parser.feed('{"type":"tool_use","tool_id":"t","tool_name":"x","parameters":{}}')
    event = parser.feed(json.dumps({"type": "tool_result", "tool_id": "t",
                                    "status": "success", "output": "a" * 200_000}))[0]
    assert len(event["result"]["output"]) < 70_000


@given(st.text(max_size=300), st.one_of(st.none(), st.integers(100, 599)))
def test_classify_error_is_total(message: str, status):
    assert classify_error(message, status) in ERROR_CATEGORIES


def test_classify_error_examples():
    assert classify_error("whatever", 401) == "authentication"
    assert classify_error("Invalid API key · Fix external API key") == "authentication"
    assert classify_error("exceeded retry limit, last status: 429 Too Many Requests") == \
        "rate_limit"
    assert classify_error("model: nope not found", 404) == "unknown_model"
    assert classify_error("error sending request for url (http://127.0.0.1:9/v1)") == "network"
    assert classify_error("connect ECONNREFUSED 127.0.0.1:9") == "network"
    assert classify_error("the agent fell over") == "other"
