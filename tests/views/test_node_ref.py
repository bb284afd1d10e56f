"""Naming a node: exact ids and keys for engines and the API, conveniences at a console."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.state import RunState
from desktop.views.node_ref import console_node, exact_node

IDS = {"planner": "1a2b3c4d-0000-4000-8000-000000000001",
       "implementer": "1a2b9999-0000-4000-8000-000000000002",
       "reviewer": "7f000000-0000-4000-8000-000000000003"}
LABELS = {"planner": "Planner", "implementer": "Builder", "reviewer": "builder"}


RUN = "00000000-0000-4000-8000-00000000000f"
NOW = "2026-11-25T00:00:00.000Z"


def _state() -> RunState:
    return RunState.model_validate({
        "id": RUN, "status": "running", "createdAt": NOW, "updatedAt": NOW,
        "nodes": {nid: {"id": nid, "runId": RUN, "key": key, "label": LABELS[key]}
                  for key, nid in IDS.items()}})


def test_engines_take_ids_and_keys_only() -> None:
    state = _state()
    assert exact_node(state, IDS["planner"]) == IDS["planner"]
    assert exact_node(state, "reviewer") == IDS["reviewer"]
    assert exact_node(state, "Planner") is None and exact_node(state, "7f00") is None


def test_a_console_takes_labels_and_prefixes_and_lists_an_ambiguous_name() -> None:
    state = _state()
    assert console_node(state, "Planner") == IDS["planner"]
    assert console_node(state, "builder") == IDS["reviewer"]  # the exact label wins
    assert console_node(state, "7f") == IDS["reviewer"]
    with pytest.raises(ValueError) as caught:
        console_node(state, "1a2b")
    assert "Planner (planner)" in str(caught.value) and "Builder (implementer)" in str(
        caught.value) and "2 nodes" in str(caught.value)
    with pytest.raises(ValueError, match="no node matches 'nobody'"):
        console_node(state, "nobody")


@given(st.text(max_size=12))
def test_a_console_name_names_one_node_or_is_refused(ref: str) -> None:
    state = _state()
    try:
        found = console_node(state, ref)
    except ValueError as exc:
        assert repr(ref) in str(exc)
    else:
        assert found in state.nodes
        node = state.nodes[found]
        assert ref in (found, node.key, node.label) or node.label.lower() == ref.lower() \
            or found.startswith(ref)
