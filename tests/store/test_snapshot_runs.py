"""Snapshots, opening runs (liveness, interruption), listing and finding runs, artifacts."""

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from storekit import NODE_A, RUN_ID, created, ev, logs, story

from desktop.disk.paths import runs_dir
from desktop.store.artifacts import artifact_path, relative_artifact_path
from desktop.store.eventlog import EventLog
from desktop.store.reducer import fold_events
from desktop.store.runs import (
    EngineBusy,
    RunError,
    engine_alive,
    find_run,
    hold_engine_lock,
)
from desktop.store.snapshot import Snapshotter, read_snapshot, write_snapshot
from desktop.views.reader import EventReader
from desktop.views.run_list import list_runs
from desktop.views.runs import open_run

ROOT = Path(__file__).resolve().parents[2]


def make_run(data: Path, run_id: str = RUN_ID, events: list[dict] | None = None,
             every: int = 5) -> Path:
    folder = runs_dir(data) / run_id
    with EventLog.open(folder) as log:
        snap = Snapshotter(folder, every=every, log=log)
        for e in events if events is not None else story():
            log.append({**e, "runId": run_id})
            log.flush()
        snap.close()
    return folder


def test_snapshotter_writes_every_n_and_on_close(tmp_path):
    folder = tmp_path / "run"
    log = EventLog.open(folder)
    snap = Snapshotter(folder, every=3, log=log)
    for e in story()[:4]:
        log.append(e)
        log.flush()
    assert read_snapshot(folder).last_seq == 3
    log.append(story()[4])
    log.flush()
    snap.close()
    log.close()
    assert read_snapshot(folder).last_seq == 5
    assert snap.state == read_snapshot(folder)


def test_open_run_is_snapshot_plus_tail(tmp_path):
    folder = make_run(tmp_path, every=4)
    full = fold_events(EventReader(folder).iter_events())
    with EventLog.open(folder) as log:  # events after the last snapshot
        log.append(ev("node.progress", nodeId=NODE_A, message="later"))
    opened = open_run(folder)
    tail_full = fold_events(EventReader(folder).iter_events())
    assert opened.model_copy(update={"interrupted": False}) == tail_full
    assert opened.nodes[NODE_A].summary == "later" and full != tail_full
    (folder / "state.json").write_text("{not json")  # a broken snapshot: full fold instead
    assert read_snapshot(folder) is None
    assert open_run(folder).nodes[NODE_A].summary == "later"


def test_live_run_without_engine_is_interrupted(tmp_path):
    folder = make_run(tmp_path)
    assert open_run(folder).status == "running" and open_run(folder).interrupted
    with hold_engine_lock(folder):
        assert engine_alive(folder)
        assert not open_run(folder).interrupted
        with pytest.raises(EngineBusy), hold_engine_lock(folder):
            pass
    assert not engine_alive(folder)
    done = make_run(tmp_path, RUN_ID.replace("1", "9"), [created(), ev("run.completed")])
    assert not open_run(done).interrupted


def test_engine_lock_released_when_process_dies(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    code = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
            "from desktop.store.runs import hold_engine_lock\n"
            f"with hold_engine_lock({str(folder)!r}):\n"
            "    print('held', flush=True); time.sleep(60)\n")
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE) as proc:
        assert proc.stdout.readline().strip() == b"held"
        assert engine_alive(folder)
        proc.kill()
    deadline = time.monotonic() + 10
    while engine_alive(folder) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not engine_alive(folder)


def test_list_and_find_runs(tmp_path):
    a = make_run(tmp_path, "aaaa1111-2222-4333-8444-555555555555")
    make_run(tmp_path, "aaaa2222-2222-4333-8444-555555555555")
    (runs_dir(tmp_path) / "junk").mkdir()
    runs = list_runs(tmp_path)
    assert {r.id for r in runs if not r.error} == {a.name, a.name.replace("1111", "2222")}
    assert next(r for r in runs if r.error).status == "unreadable"
    good = next(r for r in runs if not r.error)
    assert good.status == "interrupted" and good.events == len(story())
    assert find_run(tmp_path, "aaaa1") == a
    assert find_run(tmp_path, a.name) == a
    assert find_run(tmp_path, str(a)) == a.resolve()
    with pytest.raises(RunError, match="matches 2 runs"):
        find_run(tmp_path, "aaaa")
    with pytest.raises(RunError, match="no run matches"):
        find_run(tmp_path, "zzz")
    with pytest.raises(RunError, match="not a run folder"):
        find_run(tmp_path, str(tmp_path))
    assert list_runs(tmp_path / "empty") == []


def test_run_folder_can_move(tmp_path):
    folder = make_run(tmp_path)
    target = folder / "agents" / "x" / "diff.patch"
    target.parent.mkdir(parents=True)
    target.write_text("diff")
    rel = relative_artifact_path(folder, target)
    assert rel == "agents/x/diff.patch"
    assert relative_artifact_path(folder, "/elsewhere/f.txt") == "/elsewhere/f.txt"
    with EventLog.open(folder) as log:
        log.append(ev("artifact.created", artifact={
            "id": "abababab-0000-4000-8000-000000000009", "runId": RUN_ID, "kind": "diff",
            "name": "diff.patch", "path": rel, "createdAt": "2026-01-01T00:00:00Z"}))
    moved = tmp_path / "moved"
    shutil.copytree(folder, moved)
    shutil.rmtree(folder)
    state = open_run(moved)
    (art,) = state.artifacts.values()
    assert artifact_path(moved, art).read_text() == "diff"
    assert artifact_path(moved, art.to_json_dict()) == moved / "agents/x/diff.patch"


def test_write_and_read_snapshot(tmp_path):
    state = fold_events(story())
    write_snapshot(tmp_path, state)
    assert read_snapshot(tmp_path) == state
    assert read_snapshot(tmp_path / "none") is None
    with pytest.raises(RunError):
        open_run(tmp_path / "none")


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(logs, st.integers(1, 7), st.integers(1, 5))
def test_opening_a_run_equals_the_full_fold(tmp_path_factory, events, every, batch):
    folder = tmp_path_factory.mktemp("run")
    with EventLog.open(folder) as log:
        snap = Snapshotter(folder, every=every, log=log)
        for i, e in enumerate(events):
            log.append({k: v for k, v in e.items() if k != "seq"})
            if i % batch == 0:
                log.flush()
        log.flush()
        snap.detach()  # no final snapshot: open_run must fold the tail
    full = fold_events(EventReader(folder).iter_events())
    assert open_run(folder).model_copy(update={"interrupted": full.interrupted}) == full
