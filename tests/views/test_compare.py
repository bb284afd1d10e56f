"""Run digests for comparison, turns aligned by node and turn, and the tree of forks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from forkkit import ROOT, record, run_to_end
from hypothesis import given
from hypothesis import strategies as st

from desktop.runtime.fork import ForkRequest, NodeEdit, fork_run
from desktop.views.compare import align, changed_nodes, digest_run, setup_changes
from desktop.views.forks import scan_run, tree_order

FLOW = ROOT / "resources" / "examples" / "plan-implement-review.flow.yaml"


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int]:
    import asyncio

    data = tmp_path_factory.mktemp("compare")
    source = record(FLOW, data)
    reviewer = next(p for p in scan_run(source.run_dir).points if p.label == "Reviewer")
    fork = fork_run(source.run_dir, data, ForkRequest(at=reviewer.seq, nodes=[
        NodeEdit("reviewer", instructions="Strict.", model="big-1")]))
    assert asyncio.run(run_to_end(fork.engine)) == "completed"
    return source.run_dir, fork.engine.run_dir, reviewer.seq


def test_a_digest_has_every_turn_with_its_diff_and_the_copied_ones_marked(pair) -> None:
    source_dir, fork_dir, seq = pair
    source, fork = digest_run(source_dir), digest_run(fork_dir)
    assert [(t.key, t.turn) for t in source.turns] == [
        ("planner", 1), ("implementer", 1), ("reviewer", 1), ("implementer", 2),
        ("reviewer", 2), ("planner", 2)]
    assert [t.copied for t in fork.turns] == [True, True, False, False, False, False]
    assert all(not t.copied for t in source.turns)
    assert fork.forked_from == (source.run_id, seq)
    implementer = source.turns[1]
    assert implementer.files == ["greet.py"] and implementer.lines_changed == (2, 0)
    assert implementer.status == "completed" and implementer.seconds is not None
    assert "greet.py is in place" in implementer.text and implementer.tools == 2
    assert all(t.agent_run_id for t in source.turns)


def test_turns_align_by_node_and_turn_and_setup_changes_are_named(pair) -> None:
    source, fork = digest_run(pair[0]), digest_run(pair[1])
    rows = align(source, fork)
    assert [(r.key, r.turn) for r in rows] == [(t.key, t.turn) for t in source.turns]
    assert [r.copied for r in rows] == [True, True, False, False, False, False]
    assert all(r.same for r in rows)  # the scripted agents do not read instructions
    assert changed_nodes(source, fork) == {"reviewer"}
    assert setup_changes(source, fork) == ["Reviewer: model, instructions"]
    assert setup_changes(source, source) == []


@dataclass(frozen=True)
class Item:
    key: str
    parent: str | None


@st.composite
def forests(draw: st.DrawFn) -> list[Item]:
    count = draw(st.integers(0, 25))
    items = []
    for i in range(count):
        parent = draw(st.none() | st.integers(0, count + 2))  # may name a missing run
        items.append(Item(str(i), None if parent is None else str(parent)))
    return draw(st.permutations(items))


@given(forests())
def test_tree_order_lists_each_run_once_with_forks_after_their_source(items) -> None:
    ordered = tree_order(items, lambda i: i.key, lambda i: i.parent)
    assert sorted(i.key for i, _d in ordered) == sorted(i.key for i in items)
    position = {item.key: n for n, (item, _d) in enumerate(ordered)}
    depth = dict((item.key, d) for item, d in ordered)
    keys = {i.key for i in items}
    for item, d in ordered:
        if item.parent in keys and d > 0:
            assert position[item.parent] < position[item.key]
            assert depth[item.parent] == d - 1
        elif item.parent not in keys:
            assert d == 0
