"""The engine's cached state model equals a fresh validation of the fold, after any event."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st
from storekit import NODE_A, created, ev, item, logs

from desktop.store.reducer import apply_event, copy_json
from desktop.store.state_repair import validate_state
from desktop.views.state_model import StateModels


def _fresh(s: dict):
    return validate_state(copy_json(s))


@settings(max_examples=150, deadline=None)
@given(logs, st.data())
def test_cached_build_equals_fresh_validation(events, data):
    models = StateModels()
    s = None
    for event in events:
        s = apply_event(s, copy.deepcopy(event))
        if s is not None and data.draw(st.booleans()):
            before = copy.deepcopy(s)
            built = models.build(s)
            assert s == before  # the fold's dict is not touched
            fresh = _fresh(s)
            assert built == fresh
            assert built.to_json_dict() == fresh.to_json_dict()


def test_unchanged_entries_are_reused_and_changed_ones_rebuilt():
    models = StateModels()
    s = apply_event(None, created())
    first = models.build(s)
    s = apply_event(s, ev("node.patch", nodeId=NODE_A, patch={"summary": "busy"}))
    s = apply_event(s, ev("inbox.queued", nodeId=NODE_A, item=item("i1")))
    second = models.build(s)
    other = next(n for n in s["nodes"] if n != NODE_A)
    assert second.nodes[other] is first.nodes[other]
    assert second.nodes[NODE_A] is not first.nodes[NODE_A]
    assert second.nodes[NODE_A].summary == "busy"
    assert [i.id for i in second.inboxes[NODE_A]] == ["i1"]
    assert second == _fresh(s)


def test_a_state_the_repair_has_to_fix_is_built_like_a_fresh_one():
    models = StateModels()
    s = apply_event(None, created())
    models.build(s)
    s["nodes"][NODE_A]["lastActivityAt"] = "not a time"  # what state_repair drops
    assert models.build(s) == _fresh(s)
    assert NODE_A in s["nodes"]
