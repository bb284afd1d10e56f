"""A request to change the graph reads as what it would do, in the approval inbox, the
console and the canvas's activity line: not as the JSON of its arguments."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.activity import tool_text
from desktop.views.approval_text import approval_text


def test_a_spawn_names_the_node_it_adds_and_where_it_is_wired() -> None:
    tool = {"name": "spawn_node", "args": {
        "key": "helper", "label": "Docs helper", "roleTemplate": "implementer",
        "provider": "claude", "connectFrom": "self", "script": [{"say": "x" * 500}]}}
    assert approval_text({"kind": "tool", "tool": tool}) == (
        'spawn_node: a node "Docs helper" (helper, implementer, claude), a handoff from itself')


def test_an_edge_names_its_kind_its_ends_and_its_label() -> None:
    assert tool_text({"name": "create_edge", "args": {"from": "self", "to": "tester"}}) == \
        "create_edge: a handoff from itself to tester"
    assert tool_text({"name": "create_edge", "args": {
        "from": "tester", "to": "lead", "type": "report", "label": "results",
        "bidirectional": True}}) == \
        'create_edge: a report "results" from tester to lead both ways'


json_values = st.recursive(st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
                           | st.text(),
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                           max_leaves=10)


@given(st.sampled_from(["spawn_node", "create_edge"]),
       st.dictionaries(st.sampled_from(["key", "id", "label", "roleTemplate", "provider",
                                        "connectFrom", "from", "to", "type", "bidirectional",
                                        "script"]), json_values) | json_values)
def test_any_arguments_an_agent_sends_make_one_bounded_line(name: str, args: Any) -> None:
    text = tool_text({"name": name, "args": args})
    assert "\n" not in text and len(text) <= 300
