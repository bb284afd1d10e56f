"""JSON from outside is refused past a sane depth, never with RecursionError."""

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.disk.safe_json import MAX_JSON_DEPTH, JSONDecodeError, loads, too_deep
from desktop.providers.lines import parse_event_line
from desktop.providers.parsers import parser_for
from desktop.runtime.agent_folder import read_handoff
from desktop.store.jsonl import decode_line
from desktop.store.snapshot import read_snapshot

HOSTILE = Path(__file__).parents[1] / "data" / "hostile"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("text", [
    "[" * 5000, nested(5000), '{"a":' * 3000 + "1" + "}" * 3000, nested(1000),
    nested(MAX_JSON_DEPTH + 1),
])
def test_deep_json_is_a_decode_error(text: str, lenient: bool) -> None:
    for data in (text, text.encode()):
        with pytest.raises(JSONDecodeError) as info:
            loads(data, lenient=lenient)
        assert isinstance(info.value, (ValueError, json.JSONDecodeError))


def test_json_up_to_the_limit_loads() -> None:
    assert loads(nested(MAX_JSON_DEPTH)) is not None
    # brackets inside strings do not count
    assert loads(orjson.dumps({"text": "[" * 10_000})) == {"text": "[" * 10_000}


def test_lenient_accepts_what_python_json_does() -> None:
    assert loads('{"n": 123456789012345678901234567890, "x": NaN}', lenient=True)["n"] \
        == 123456789012345678901234567890
    with pytest.raises(JSONDecodeError):
        loads('{"x": NaN}')


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=40,
)


@given(json_values)
def test_ordinary_json_loads_as_orjson_does(value: object) -> None:
    data = orjson.dumps(value)
    assert loads(data) == orjson.loads(data)
    assert not too_deep(value)


def test_agent_stream_lines_too_deep_are_unparsed_not_crashes() -> None:
    deep = nested(1000)  # orjson parses this; nothing downstream could write it back
    line = ('{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t",'
            f'"name":"Bash","input":{{"x":{deep}}}}}]}}}}')
    for provider in ("claude", "codex", "gemini"):
        parser = parser_for(provider)
        events = parser.feed(line) + parser.feed((HOSTILE / "deep-maps.jsonl").read_bytes())
        assert parser.unparsed == 2, provider
        for event in events:
            orjson.dumps(event)  # every event can be written to the log
    event, _ = parse_event_line(f'{{"type":"tool.call","args":{deep}}}')
    assert event is None


def test_a_deep_line_in_the_event_log_is_not_an_event() -> None:
    line = b'{"seq":2,"x":' + nested(1000).encode() + b"}"
    assert "deeper" in decode_line(line)


def test_deep_state_json_and_handoff_json_are_refused(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text('{"runId":' + nested(1000) + "}")
    assert read_snapshot(tmp_path) is None
    (tmp_path / "handoff.json").write_text('{"to":"b","x":' + nested(1000) + "}")
    directive, problem = read_handoff(tmp_path)
    assert directive is None and "handoff.json" in problem and "deeper" in problem
