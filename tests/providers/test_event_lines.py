"""A line an agent prints is a contract event, an invalid one (named with its field), or
not meant as an event at all."""

import orjson
import pytest

from desktop.providers.lines import parse_event_line


def test_a_valid_event_line_keeps_its_fields_but_not_the_engines() -> None:
    line = orjson.dumps({"type": "tool.started", "toolId": "t1", "seq": 9, "runId": "x"})
    event, why = parse_event_line(line.decode())
    assert why is None
    assert event == {"type": "tool.started", "toolId": "t1"}


@pytest.mark.parametrize(("line", "why"), [
    ({"type": "tool.proposed"}, "invalid tool.proposed event from agent: tool: Field required"),
    ({"type": "tool.started", "toolId": 3},
     "invalid tool.started event from agent: toolId: Input should be a valid string"),
])
def test_an_invalid_event_names_its_type_and_field(line: dict, why: str) -> None:
    assert parse_event_line(orjson.dumps(line).decode()) == (None, why)


@pytest.mark.parametrize("line", ["hello", '{"type": "not.an.event"}', "{broken", '{"a": 1}'])
def test_other_lines_are_not_events(line: str) -> None:
    assert parse_event_line(line) == (None, None)
