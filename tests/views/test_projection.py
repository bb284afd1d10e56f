"""The run projection folds batches exactly as the reducer folds the whole log."""

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from storekit import NODES, created, ev, logs

from desktop.store.reducer import copy_json, fold_events
from desktop.views.state import RunProjection

stream = st.builds(lambda kind, n, t: ev(kind, nodeId=n, text=t),
                   st.sampled_from(["message.assistant.delta", "node.heartbeat", "node.log",
                                    "message.assistant.thinking.delta"]),
                   st.sampled_from([*NODES, None]), st.text(max_size=3))


@st.composite
def mixed_logs(draw):
    """Random logs with streaming events between the state-changing ones."""
    base = draw(logs)[1:]
    events = []
    for e in base:
        events += draw(st.lists(stream, max_size=3))
        events.append(e)
    return [{**e, "seq": i} for i, e in enumerate([created(), *events], start=1)]


def _split(events: list, cuts: list[int]) -> list[list]:
    out, pos = [], 0
    for cut in cuts:
        out.append(events[pos:pos + cut])
        pos += cut
    out.append(events[pos:])
    return out


@settings(max_examples=150, deadline=None)
@given(mixed_logs(), st.lists(st.integers(0, 8), max_size=12))
def test_any_batch_split_gives_the_fold_of_the_whole_log(events, cuts):
    projection = RunProjection()
    for batch in _split(copy_json(events), cuts):
        projection.apply(batch)
    expected = fold_events(events)
    assert projection.model(with_clock=True) == expected
    assert projection.last_seq == expected.last_seq
    assert RunProjection.of(copy_json(events)).state == expected.to_json_dict()


@settings(max_examples=60, deadline=None)
@given(mixed_logs(), st.integers(0, 60))
def test_a_projection_from_a_snapshot_continues_like_the_whole_fold(events, cut):
    head = fold_events(events[:cut]) if cut else None
    projection = RunProjection(head)
    projection.extend(copy_json(events[cut:]))
    assert projection.model(with_clock=True) == fold_events(events)


def test_streaming_events_keep_the_cached_model_until_asked_for_the_clock():
    projection = RunProjection.of([{**created(), "seq": 1}])
    first = projection.model()
    assert not projection.apply([{**ev("node.heartbeat"), "seq": 2}])
    assert projection.model() is first  # no rebuild for a heartbeat
    assert projection.model(with_clock=True).last_seq == 2


def test_importing_the_views_never_imports_qt():
    code = ("import sys, pkgutil, importlib, desktop.views as v\n"
            "for m in pkgutil.iter_modules(v.__path__):\n"
            "    importlib.import_module('desktop.views.' + m.name)\n"
            "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
            "('PySide6', 'shiboken6', 'qasync'))\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)
