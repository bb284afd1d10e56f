"""An INTERACTIVE run waits for Step wherever its next turn is: at the top or inside
subflows nested to any depth. A subflow node is running for as long as its inside is, so
only an agent node's turn under way means the run does not wait for Step."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.enums import Mode
from desktop.contract.state import InboxItem, NodeState, RunState
from desktop.views.run_list import summary_row, waiting_on_you

RUN = "11111111-2222-3333-4444-555555555555"
NOW = "2026-01-01T00:00:00.000Z"


def node_id(key: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, key))


def nested_run(depth: int, busy: str | None = None) -> RunState:
    """A run whose subflow nodes ``s1`` .. ``s<depth>`` each hold the next (all running, as
    a subflow node is while its inside runs), with agent ``a<level>`` beside each and
    ``inner`` at the bottom holding the queued item; ``busy``: an agent with its turn
    under way (``running`` or ``blocked`` after a colon)."""
    nodes: dict[str, NodeState] = {}
    parent = None
    for level in range(depth + 1):
        for key, sub in ((f"a{level}", None), (f"s{level + 1}", "inner.flow.yaml")):
            if sub is not None and level == depth:
                key, sub = "inner", None
            nodes[node_id(key)] = NodeState(
                id=node_id(key), runId=RUN, key=key, label=key.title(), subflow=sub,
                status="running" if sub else "idle", parent=parent)
        parent = node_id(f"s{level + 1}")
    if busy:
        key, status = busy.split(":")
        nodes[node_id(key)] = nodes[node_id(key)].model_copy(update={"status": status})
    inboxes = {node_id("inner"): [InboxItem(id="i1", kind="task", text="review it")]}
    return RunState(id=RUN, createdAt=NOW, updatedAt=NOW, status="running",
                    mode=Mode.INTERACTIVE, nodes=nodes, inboxes=inboxes)


@given(st.integers(min_value=0, max_value=5))
def test_a_run_whose_next_turn_is_inside_subflows_waits_for_step(depth: int) -> None:
    state = nested_run(depth)
    [step] = waiting_on_you(state)
    assert (step["kind"], step["nodeId"], step["node"]) == ("step", node_id("inner"), "Inner")
    assert summary_row(state, live=True)["waiting"] == [step]


@given(st.integers(min_value=0, max_value=5).flatmap(
    lambda depth: st.tuples(st.just(depth), st.integers(min_value=0, max_value=depth),
                            st.sampled_from(["running", "blocked"]))))
def test_an_agent_turn_under_way_at_any_depth_means_no_step_is_awaited(
        case: tuple[int, int, str]) -> None:
    depth, level, status = case
    assert waiting_on_you(nested_run(depth, busy=f"a{level}:{status}")) == []
