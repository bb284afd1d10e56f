"""Naming a node: exact ids and keys for engines and the API, conveniences at a console."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.state import RunState
from desktop.views.node_ref import console_approval, console_node, exact_node

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


def _run_of(nodes: list[tuple[str, str, str]]) -> RunState:
    """A run whose nodes are (id, key, label) triples."""
    return RunState.model_validate({
        "id": RUN, "status": "running", "createdAt": NOW, "updatedAt": NOW,
        "nodes": {nid: {"id": nid, "runId": RUN, "key": key, "label": label}
                  for nid, key, label in nodes}})


HEX = "0123456789abcdef"
KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=10)


@st.composite
def node_sets(draw: st.DrawFn) -> list[tuple[str, str, str]]:
    """Two to eight nodes with unique ids and keys; labels are free (and may repeat)."""
    count = draw(st.integers(2, 8))
    ids = draw(st.lists(st.text(HEX, min_size=8, max_size=8), min_size=count,
                        max_size=count, unique=True))
    keys = draw(st.lists(KEYS, min_size=count, max_size=count, unique=True))
    labels = draw(st.lists(st.text(max_size=10), min_size=count, max_size=count))
    return [(f"{i}-0000-4000-8000-000000000000", k, label)
            for i, k, label in zip(ids, keys, labels, strict=True)]


@given(node_sets(), st.data())
def test_an_exact_id_or_key_always_names_its_node(nodes: list[tuple[str, str, str]],
                                                  data: st.DataObject) -> None:
    state = _run_of(nodes)
    nid, key, _label = data.draw(st.sampled_from(nodes))
    assert exact_node(state, nid) == nid and console_node(state, nid) == nid
    assert exact_node(state, key) == nid and console_node(state, key) == nid


@given(node_sets(), st.data())
def test_an_engine_never_takes_a_label_or_a_prefix(nodes: list[tuple[str, str, str]],
                                                   data: st.DataObject) -> None:
    state = _run_of(nodes)
    nid, _key, label = data.draw(st.sampled_from(nodes))
    named = {n for n, _k, _l in nodes} | {k for _n, k, _l in nodes}
    for ref in (label, nid[:4]):
        if ref not in named:
            assert exact_node(state, ref) is None


@given(node_sets(), st.text(HEX, min_size=1, max_size=6))
def test_a_prefix_two_nodes_share_is_refused_naming_both(nodes: list[tuple[str, str, str]],
                                                         prefix: str) -> None:
    # the first two ids start the same; keys and labels are made unlike the prefix
    nodes = [(prefix + nid[len(prefix):], f"k-{key}", f"L {label}") if i < 2 else
             (nid, f"k-{key}", f"L {label}") for i, (nid, key, label) in enumerate(nodes)]
    if len({nid for nid, _k, _l in nodes}) < len(nodes):
        return  # two ids came out the same
    state = _run_of(nodes)
    with pytest.raises(ValueError) as caught:
        console_node(state, prefix)
    for _nid, key, label in nodes[:2]:
        assert f"{label} ({key})" in str(caught.value)


@given(st.lists(st.uuids().map(str), min_size=2, max_size=6, unique=True), st.data())
def test_a_console_names_an_approval_by_its_id_or_a_prefix_only_it_has(
        pending: list[str], data: st.DataObject) -> None:
    chosen = data.draw(st.sampled_from(pending))
    assert console_approval(pending, chosen) == chosen
    length = data.draw(st.integers(1, len(chosen)))
    prefix = chosen[:length]
    sharing = [a for a in pending if a.startswith(prefix)]
    if len(sharing) == 1:
        assert console_approval(pending, prefix) == chosen
    else:
        with pytest.raises(ValueError) as caught:
            console_approval(pending, prefix)
        assert all(a in str(caught.value) for a in sharing)


def test_an_approval_prefix_two_share_is_refused_with_both_listed() -> None:
    pending = ["abc12345-1", "abd99999-2", "ff000000-3"]
    with pytest.raises(ValueError, match="'ab' matches 2 pending approvals: abc12345-1, "
                                         "abd99999-2; type more of the id"):
        console_approval(pending, "ab")
    assert console_approval(pending, "abd") == "abd99999-2"
    assert console_approval(pending, "zz") is None
