"""An agent's handoff directive names its target exactly, by node id or key: a label or an
id prefix is never guessed, and a name that fails says which directive, which name and
which names would do."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.state import RunState
from desktop.runtime.routing import choose_routes

RUN = "00000000-0000-4000-8000-00000000000f"
NOW = "2026-11-27T00:00:00.000Z"
KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=10)


def _node_id(index: int) -> str:
    return f"{index:08x}-0000-4000-8000-000000000000"


@st.composite
def fans(draw: st.DrawFn) -> RunState:
    """A lead node handing off to two to six workers, each with a unique key and a label
    that is none of the keys or ids."""
    keys = draw(st.lists(KEYS, min_size=3, max_size=7, unique=True))
    labels = draw(st.lists(st.text(min_size=1, max_size=10), min_size=len(keys),
                           max_size=len(keys)))
    nodes = {_node_id(i): {"id": _node_id(i), "runId": RUN, "key": key,
                           "label": f"The {label}"} for i, (key, label)
             in enumerate(zip(keys, labels, strict=True))}
    edges = {_node_id(100 + i): {"id": _node_id(100 + i), "from": _node_id(0),
                                 "to": _node_id(i), "type": "handoff"}
             for i in range(1, len(keys))}
    return RunState.model_validate({"id": RUN, "status": "running", "createdAt": NOW,
                                    "updatedAt": NOW, "nodes": nodes, "edges": edges})


def _targets(state: RunState, to: str) -> tuple[list[str], str | None]:
    routes, problem = choose_routes(state, _node_id(0), handoff={"to": to}, done=False,
                                    consumed_kinds={"user"})
    return [route.target for route, _directive in routes], problem


@given(fans(), st.data())
def test_a_worker_named_by_id_or_key_alone_gets_the_handoff(state: RunState,
                                                            data: st.DataObject) -> None:
    worker = data.draw(st.sampled_from(sorted(set(state.nodes) - {_node_id(0)})))
    assert _targets(state, worker) == ([worker], None)
    assert _targets(state, state.nodes[worker].key) == ([worker], None)


@given(fans(), st.data())
def test_a_label_or_an_id_prefix_is_refused_and_the_output_takes_every_edge(
        state: RunState, data: st.DataObject) -> None:
    worker = data.draw(st.sampled_from(sorted(set(state.nodes) - {_node_id(0)})))
    everyone = sorted(set(state.nodes) - {_node_id(0)})
    for ref in (state.nodes[worker].label, worker[:8]):
        targets, problem = _targets(state, ref)
        assert sorted(targets) == everyone
        assert problem is not None and repr(ref) in problem
        assert "names no node of the run" in problem
        assert all(state.nodes[w].key in problem for w in everyone)


def test_the_problem_says_which_directive_and_which_names_would_do() -> None:
    nodes = {_node_id(i): {"id": _node_id(i), "runId": RUN, "key": key, "label": label}
             for i, (key, label) in enumerate([("lead", "Lead"), ("impl-a", "Implementer A"),
                                               ("impl-b", "Implementer B"),
                                               ("aside", "Aside")])}
    edges = {_node_id(100 + i): {"id": _node_id(100 + i), "from": _node_id(0),
                                 "to": _node_id(i), "type": "handoff"} for i in (1, 2)}
    state = RunState.model_validate({"id": RUN, "status": "running", "createdAt": NOW,
                                     "updatedAt": NOW, "nodes": nodes, "edges": edges})
    _routes, problem = choose_routes(
        state, _node_id(0), handoff=[{"to": "impl-a"}, {"to": ["Implementer B"]}],
        done=False, consumed_kinds={"user"})
    assert problem == ("handoff directive 2 of 2: 'to' 'Implementer B' names no node of "
                       "the run (a handoff names its target by key or id); the nodes this "
                       "node can hand off to: impl-a, impl-b. The output went along the "
                       "node's edges instead")
    _routes, problem = choose_routes(state, _node_id(0), handoff={"to": "aside"},
                                     done=False, consumed_kinds={"user"})
    assert problem is not None and problem.startswith(
        "handoff directive 1 of 1: 'to' 'aside' is not connected to this node by an edge")
