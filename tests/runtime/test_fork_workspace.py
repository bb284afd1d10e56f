"""Restoring a fork's workspace from recorded diffs: overlapping diffs, configured folders."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from engine_helpers import workflow
from forkkit import files_of, record, run_to_end

from desktop.graph.io import dumps_workflow
from desktop.runtime.fork import ForkRequest, fork_run
from desktop.runtime.fork_workspace import Patch, WorkspaceRestoreError, replay, restore_scratch
from desktop.runtime.workspace import init_scratch
from desktop.runtime.workspace_diff import _diff, _snapshot
from desktop.views.forks import scan_run


def _patch(folder: Path, out: Path, change) -> Path:
    """Record ``change(folder)`` as the engine records an agent run's diff."""
    before = _snapshot(folder)
    change(folder)
    out.write_bytes(_diff(folder, before, _snapshot(folder)))
    return out


def test_overlapping_diffs_of_concurrent_turns_replay_once(tmp_path: Path) -> None:
    # Two agents in one folder: the second snapshot "before" was taken before the first
    # agent wrote, so its diff repeats the first agent's file.
    live = tmp_path / "live"
    init_scratch(live)
    before = _snapshot(live)
    (live / "a.py").write_text("a = 1\n")
    first = tmp_path / "first.patch"
    first.write_bytes(_diff(live, before, _snapshot(live)))
    (live / "b.py").write_text("b = 2\n")
    (live / "bin.dat").write_bytes(bytes(range(256)))
    second = tmp_path / "second.patch"
    second.write_bytes(_diff(live, before, _snapshot(live)))
    assert b"a.py" in second.read_bytes()

    restored = restore_scratch(tmp_path / "fork", live,
                               [Patch(first, "first"), Patch(second, "second")])
    assert files_of(tmp_path / "fork") == files_of(live)
    assert restored.diffs == 2


def test_a_file_a_concurrent_snapshot_caught_half_written_is_taken_from_the_snapshots(
        tmp_path: Path) -> None:
    live = tmp_path / "live"
    init_scratch(live)
    base = _patch(live, tmp_path / "0.patch", lambda f: (f / "f.py").write_text("f = 1\n"))
    before = _snapshot(live)  # two agents start here
    (live / "f.py").write_text("")  # the second has opened f.py, not written it yet
    (live / "mine.py").write_text("mine = 1\n")
    first = tmp_path / "first.patch"
    first.write_bytes(_diff(live, before, _snapshot(live)))
    (live / "f.py").write_text("f = 2\n")
    second = tmp_path / "second.patch"
    second.write_bytes(_diff(live, before, _snapshot(live)))
    patches = [Patch(base, "base"), Patch(first, "first"), Patch(second, "second")]

    with pytest.raises(WorkspaceRestoreError, match=r"f\.py"):
        replay(_fresh(tmp_path / "without"), patches)
    restored = restore_scratch(tmp_path / "fork", live, patches)
    assert files_of(tmp_path / "fork") == files_of(live)
    assert (restored.skipped, restored.taken) == (1, 1)


def _fresh(folder: Path) -> Path:
    init_scratch(folder)
    return folder


def test_later_diffs_are_undone_newest_first(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    init_scratch(folder)
    (folder / "f.txt").write_text("one\n")
    at_point = files_of(folder)
    p1 = _patch(folder, tmp_path / "1.patch", lambda f: (f / "f.txt").write_text("two\n"))
    p2 = _patch(folder, tmp_path / "2.patch", lambda f: (f / "g.txt").write_text("g\n"))
    p3 = _patch(folder, tmp_path / "3.patch", lambda f: (f / "f.txt").write_text("three\n"))
    replay(folder, [Patch(p3, "3"), Patch(p2, "2"), Patch(p1, "1")], reverse=True)
    assert files_of(folder) == at_point


def test_a_diff_that_no_longer_fits_names_the_file_and_the_fix(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    init_scratch(folder)
    (folder / "f.txt").write_text("one\n")
    patch = _patch(folder, tmp_path / "p.patch", lambda f: (f / "f.txt").write_text("two\n"))
    (folder / "f.txt").write_text("changed by hand\n")
    with pytest.raises(WorkspaceRestoreError, match=r"f\.txt.*changed outside the run"):
        replay(folder, [Patch(patch, "agent run X of Impl")], reverse=True)


def _two_step_flow(tmp_path: Path) -> Path:
    doc = workflow({
        "a": {"workspace": "proj", "script": [
            {"edit": {"path": "a.txt", "content": "from a\n"}},
            {"edit": {"path": "seed.txt", "content": "seed, changed by a\n"}},
            {"say": "a done"}]},
        "b": {"workspace": "proj", "script": [
            {"edit": {"path": "b.txt", "content": "from b\n"}}, {"say": "b done"}]},
    }, [{"from": "a", "to": "b"}], isolation="shared")  # forks restore from diffs, in place
    flow = tmp_path / "two.flow.yaml"
    flow.write_text(dumps_workflow(doc))
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "seed.txt").write_text("seed\n")
    subprocess.run(["git", "init", "-q", str(tmp_path / "proj")], check=True)
    return flow


def test_a_configured_workspace_is_copied_with_later_diffs_undone(tmp_path: Path) -> None:
    flow = _two_step_flow(tmp_path)
    source = record(flow, tmp_path / "data")
    project = tmp_path / "proj"
    after_run = files_of(project)
    before_b = next(p for p in scan_run(source.run_dir).points if p.label == "B")

    fork = fork_run(source.run_dir, tmp_path / "data", ForkRequest(at=before_b.seq))
    copy = fork.engine.run_dir / "workspaces" / "1"
    assert files_of(copy) == source.workspace_at(before_b.seq) == {
        "a.txt": b"from a\n", "seed.txt": b"seed, changed by a\n"}
    assert fork.workspaces[0].undone and fork.workspaces[0].diffs == 1
    assert asyncio.run(run_to_end(fork.engine)) == "completed"
    assert files_of(copy)["b.txt"] == b"from b\n"
    assert files_of(project) == after_run  # the source's folder is never written


def test_a_fork_from_the_first_point_restores_the_project_as_it_started(
        tmp_path: Path) -> None:
    flow = _two_step_flow(tmp_path)
    source = record(flow, tmp_path / "data")
    first = scan_run(source.run_dir).points[0]
    fork = fork_run(source.run_dir, tmp_path / "data", ForkRequest(at=first.seq))
    fork.engine.close()
    assert files_of(fork.engine.run_dir / "workspaces" / "1") == {"seed.txt": b"seed\n"}


def test_a_fork_of_a_workflow_s_own_folder_moves_it_to_the_copy_for_added_nodes(
        tmp_path: Path) -> None:
    from desktop.graph.io import load_workflow

    flow = _two_step_flow(tmp_path)
    doc = load_workflow(flow)
    doc.workspace = "proj"
    for config in doc.node_configs.values():
        config.workspace = None
    flow.write_text(dumps_workflow(doc))
    source = record(flow, tmp_path / "data")
    before_b = next(p for p in scan_run(source.run_dir).points if p.label == "B")
    fork = fork_run(source.run_dir, tmp_path / "data", ForkRequest(at=before_b.seq))
    try:
        copy = str(fork.engine.run_dir / "workspaces" / "1")
        assert fork.engine.state.workspace == copy
        assert {c.workspace for c in fork.engine.state.node_configs.values()} == {copy}
    finally:
        fork.engine.close()
