"""Run state, nodes and edges: version pinning, strictness and edge defaults."""

import uuid

import pytest
from event_samples import NODE_ID, OTHER_NODE_ID, RUN_ID, TS, utc_timestamps
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from desktop.contract.enums import EdgeType
from desktop.contract.state import EdgeState, NodeState, RunState, default_edge_label


def run_state(**changes) -> dict:
    return {"id": RUN_ID, "contractVersion": "1", "status": "running", "mode": "AUTO",
            "globalMode": "PLANNING", "createdAt": TS, "updatedAt": TS,
            "nodes": {NODE_ID: {"id": NODE_ID, "runId": RUN_ID, "label": "A"}}} | changes


def test_run_state_round_trip() -> None:
    state = RunState.model_validate(run_state())
    assert RunState.model_validate(state.to_json_dict()) == state
    assert state.to_json_dict()["contractVersion"] == "1"


@pytest.mark.parametrize(
    "changes",
    [
        {"contractVersion": "2"},
        {"contractVersion": 1},
        {"id": "run-1"},
        {"status": "sleeping"},
        {"mode": "auto"},
        {"globalMode": "REVIEW"},
        {"createdAt": "2026-01-01T01:00:00+01:00"},
        {"updatedAt": "2026-01-01"},
        {"nodes": {NODE_ID: {"id": NODE_ID, "runId": RUN_ID, "label": "A", "provider": "gpt"}}},
        {"nodes": {NODE_ID: {"id": NODE_ID, "runId": RUN_ID, "label": "A", "status": "busy"}}},
    ],
)
def test_run_state_strictness(changes: dict) -> None:
    with pytest.raises(ValidationError):
        RunState.model_validate(run_state(**changes))


def test_contract_version_defaults_to_1() -> None:
    data = run_state()
    del data["contractVersion"]
    assert RunState.model_validate(data).contract_version == "1"


@given(created=utc_timestamps, label=st.text(min_size=1, max_size=30))
def test_node_round_trip(created: str, label: str) -> None:
    node = NodeState.model_validate({"id": NODE_ID, "runId": RUN_ID, "label": label,
                                     "lastActivityAt": created, "futureField": [1, 2]})
    wire = node.to_json_dict()
    assert wire["futureField"] == [1, 2]  # unknown fields survive
    assert NodeState.model_validate(wire) == node


def test_default_edge_labels() -> None:
    assert default_edge_label(EdgeType.HANDOFF) == "task"
    assert default_edge_label("report") == "report"
    with pytest.raises(ValueError):
        default_edge_label("broadcast")


def test_edge_defaults_are_handoff_task() -> None:
    edge = EdgeState.model_validate({"id": str(uuid.uuid4()), "from": NODE_ID,
                                     "to": OTHER_NODE_ID})
    assert (edge.type, edge.label, edge.bidirectional) == ("handoff", "task", False)
    assert edge.to_json_dict()["from"] == NODE_ID


def test_report_edge_defaults_to_report_label() -> None:
    edge = EdgeState.model_validate({"id": str(uuid.uuid4()), "from": NODE_ID,
                                     "to": OTHER_NODE_ID, "type": "report"})
    assert edge.label == "report"


def test_edge_rejects_bad_type_and_id() -> None:
    with pytest.raises(ValidationError):
        EdgeState.model_validate({"id": str(uuid.uuid4()), "from": "a", "to": "b",
                                  "type": "broadcast"})
    with pytest.raises(ValidationError):
        EdgeState.model_validate({"id": "e1", "from": "a", "to": "b"})
