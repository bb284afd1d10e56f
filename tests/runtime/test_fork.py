"""Forking a run: the copied prefix, the restored workspace, the edits, and the ending.

"Equal up to the fork" is defined by :func:`forkkit.lineage_free`: the fork's events
1..S are the source's events 1..S, field for field (ids, times, seqs, node ids, text),
except that every ``runId`` naming the source names the fork, and the fork's
``run.created`` carries ``forkedFrom`` {runId: source, seq: S}.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from engine_helpers import unconsumed_items
from forkkit import EXAMPLES, ROOT, Recorded, events_of, files_of, lineage_free, record, run_to_end
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.disk.paths import runs_dir
from desktop.runtime.fork import ForkError, ForkRequest, ItemEdit, NodeEdit, fork_run
from desktop.views.forks import scan_run
from desktop.views.runs import open_run

IDS = [p.relative_to(ROOT / "resources" / "examples").as_posix() for p in EXAMPLES]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Recorded]:
    """Each example run once, with its workspace noted before every turn."""
    data = tmp_path_factory.mktemp("sources")
    return {name: record(flow, data) for name, flow in zip(IDS, EXAMPLES, strict=True)}


def check_fork(source: Recorded, data: Path, at: int) -> None:
    """Fork ``source`` at ``at`` and check the prefix, the workspace and the ending."""
    fork = fork_run(source.run_dir, data, ForkRequest(at=at))
    point = fork.plan.seq
    run_dir = fork.engine.run_dir
    # the workspace, before the fork's first turn changes it
    assert files_of(run_dir / "workspace") == source.workspace_at(point)
    status = asyncio.run(run_to_end(fork.engine))
    assert status == "completed"
    mine = events_of(run_dir)
    fork_id = mine[0]["runId"]
    assert fork_id != source.run_id and run_dir.name == fork_id
    assert [lineage_free(e, fork_id) for e in mine[:point]] == \
        [lineage_free(e, source.run_id) for e in source.events[:point]]
    lineage = {"runId": source.run_id, "seq": point}
    assert mine[0]["forkedFrom"] == lineage
    assert mine[point]["type"] == "run.forked" and mine[point]["forkedFrom"] == lineage
    assert all(e["runId"] == fork_id for e in mine)
    # unchanged, deterministic agents end where the source ended
    assert files_of(run_dir / "workspace") == source.final
    # every input was taken by a finished turn; how many turns concurrent nodes take
    # depends on timing (two reports may arrive for one turn or for two)
    assert unconsumed_items(mine) == set()
    state, original = open_run(run_dir), open_run(source.run_dir)
    assert set(state.turns) == set(original.turns)
    assert state.forked_from is not None and state.forked_from.seq == point


@pytest.mark.parametrize("name", IDS)
def test_a_fork_at_every_point_of_each_example_copies_restores_and_completes(
        recorded: dict[str, Recorded], name: str, tmp_path: Path) -> None:
    source = recorded[name]
    points = scan_run(source.run_dir).points
    assert points, name
    for point in points:
        check_fork(source, tmp_path, point.seq)


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_fork_at_any_seq_snaps_to_a_point_and_matches_the_source(
        recorded: dict[str, Recorded], tmp_path_factory: pytest.TempPathFactory,
        data: st.DataObject) -> None:
    source = recorded[data.draw(st.sampled_from(IDS), label="example")]
    last = source.events[-1]["seq"]
    at = data.draw(st.integers(1, last + 3), label="at")
    if at > last:  # past the run's end: refused, naming the last seq there is
        with pytest.raises(ForkError, match=rf"seq {at} is past the end of run .*up to {last}"):
            fork_run(source.run_dir, tmp_path_factory.mktemp("forks"), ForkRequest(at=at))
        return
    check_fork(source, tmp_path_factory.mktemp("forks"), at)


def test_the_workspace_of_concurrent_turns_is_rebuilt_from_their_overlapping_diffs(
        tmp_path: Path) -> None:
    # Both implementers work in one folder at once (isolation: shared), so each one's diff
    # may hold the other's files too; the point before the orchestrator's last turn needs
    # both.
    example = ROOT / "resources" / "examples" / "orchestrator-two-implementers.flow.yaml"
    flow = tmp_path / "shared.flow.yaml"
    flow.write_text(example.read_text().replace("isolation: worktree", "isolation: shared"))
    source = record(flow, tmp_path / "sources")
    last = scan_run(source.run_dir).points[-1].seq
    fork = fork_run(source.run_dir, tmp_path, ForkRequest(at=last))
    fork.engine.close()
    restored = files_of(fork.engine.run_dir / "workspace")
    assert set(restored) == {"text_utils.py", "test_text_utils.py", "num_utils.py",
                             "test_num_utils.py"}
    assert restored == source.workspace_at(last)
    assert fork.workspaces[0].diffs == 2


def _prompt_of_first_turn_after(run_dir: Path, after: int, node_id: str) -> str:
    started = next(e for e in events_of(run_dir) if e["seq"] > after
                   and e["type"] == "turn.status" and e["status"] == "started"
                   and e["nodeId"] == node_id)
    return (run_dir / "agents" / started["agentRunId"] / "prompt.full.txt").read_text()


def test_edits_change_instructions_model_provider_and_a_queued_handoff(
        recorded: dict[str, Recorded], tmp_path: Path) -> None:
    source = recorded["plan-implement-review.flow.yaml"]
    scan = scan_run(source.run_dir)
    reviewer = next(p for p in scan.points if p.label == "Reviewer")
    fork = fork_run(source.run_dir, tmp_path, ForkRequest(at=reviewer.seq, nodes=[
        NodeEdit("reviewer", instructions="Review only greet.py, strictly.", model="big-1"),
        NodeEdit("planner", provider="command")]))
    queued = fork.plan.state.inboxes[reviewer.node_id][0]
    fork.engine.close()
    fork = fork_run(source.run_dir, tmp_path, ForkRequest(
        at=reviewer.seq, nodes=[NodeEdit("reviewer", instructions="Review only greet.py.")],
        items=[ItemEdit(queued.id[:8], "greet() is in greet.py; check the empty name.")]))
    status = asyncio.run(run_to_end(fork.engine))
    assert status == "completed"
    prompt = _prompt_of_first_turn_after(fork.engine.run_dir, reviewer.seq, reviewer.node_id)
    assert "Review only greet.py." in prompt
    assert "check the empty name" in prompt and queued.text not in prompt
    edits = [e for e in events_of(fork.engine.run_dir) if e["seq"] > reviewer.seq][:4]
    assert [e["type"] for e in edits] == ["run.forked", "node.patch", "inbox.edited",
                                          "run.resumed"]


def test_a_changed_model_and_provider_are_in_the_forks_state(
        recorded: dict[str, Recorded], tmp_path: Path) -> None:
    source = recorded["plan-implement-review.flow.yaml"]
    at = scan_run(source.run_dir).points[-1].seq
    fork = fork_run(source.run_dir, tmp_path, ForkRequest(at=at, nodes=[
        NodeEdit("planner", model="big-1", provider="claude")]))
    fork.engine.close()
    state = open_run(fork.engine.run_dir)
    planner = next(n for n in state.nodes.values() if n.key == "planner")
    assert planner.provider == "claude"
    assert state.node_configs[planner.id].model == "big-1"
    assert open_run(source.run_dir).nodes[planner.id].provider == "scripted"


@pytest.mark.parametrize(("request_", "message"), [
    (ForkRequest(at=0), "positive event seq"),
    (ForkRequest(at=5, nodes=[NodeEdit("nobody", instructions="x")]), "nobody"),
    (ForkRequest(at=5, nodes=[NodeEdit("implementer", provider="gpt")]), "provider 'gpt'"),
    (ForkRequest(at=5, nodes=[NodeEdit("implementer")]), "give new instructions"),
    (ForkRequest(at=5, items=[ItemEdit("zzzz", "x")]), "not an id"),
])
def test_a_bad_request_is_refused_and_leaves_nothing_behind(
        recorded: dict[str, Recorded], tmp_path: Path, request_: ForkRequest,
        message: str) -> None:
    source = recorded["single-agent.flow.yaml"]
    with pytest.raises(ForkError, match=message):
        fork_run(source.run_dir, tmp_path, request_)
    assert not runs_dir(tmp_path).exists() or not any(runs_dir(tmp_path).iterdir())


def test_a_failed_restore_leaves_nothing_behind(recorded: dict[str, Recorded],
                                                tmp_path: Path) -> None:
    source = recorded["plan-implement-review.flow.yaml"]
    copy = tmp_path / "copy"
    shutil.copytree(source.run_dir, copy, ignore=shutil.ignore_patterns("engine.lock"))
    scan = scan_run(copy)
    last = scan.points[-1].seq
    changed = copy / [d for d in scan.diffs if d.seq < last][-1].path
    changed.write_bytes(b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
    with pytest.raises(ForkError, match="does not apply cleanly"):
        fork_run(copy, tmp_path / "data", ForkRequest(at=last))
    assert not any(runs_dir(tmp_path / "data").iterdir())


def test_a_fork_of_a_run_isolated_in_its_scratch_repository_works_in_its_own_copy(
        tmp_path: Path) -> None:
    """The orchestrator example asks for worktrees without a workspace: its nodes work in
    worktrees of the run's scratch repository. A fork takes a copy of that repository, so
    its branches and worktrees are its own and outlive the source."""
    source = record(ROOT / "resources" / "examples" / "orchestrator-two-implementers.flow.yaml",
                    tmp_path / "own")  # its own: the test deletes the source's repository
    both = {"text_utils.py", "test_text_utils.py", "num_utils.py", "test_num_utils.py"}
    assert set(files_of(source.run_dir / "worktrees" / "orchestrator")) == both
    assert set(files_of(source.run_dir / "worktrees" / "impl-num")) == \
        {"num_utils.py", "test_num_utils.py"}  # each implementer's own files only
    keys = {n["id"]: n["key"] for n in source.events[0]["nodes"].values()}
    diffs = {keys[e["nodeId"]]: (source.run_dir / e["artifact"]["path"]).read_text()
             for e in source.events if e["type"] == "artifact.created"
             and e["artifact"]["kind"] == "diff" and keys[e["nodeId"]].startswith("impl")}
    assert [line for line in diffs["impl-num"].splitlines() if line.startswith("+++")] == \
        ["+++ b/num_utils.py", "+++ b/test_num_utils.py"]  # each diff: its own files
    assert [line for line in diffs["impl-text"].splitlines() if line.startswith("+++")] == \
        ["+++ b/test_text_utils.py", "+++ b/text_utils.py"]
    last = scan_run(source.run_dir).points[-1].seq
    fork = fork_run(source.run_dir, tmp_path, ForkRequest(at=last))
    assert asyncio.run(run_to_end(fork.engine)) == "completed"
    run_dir = fork.engine.run_dir
    scratch = (run_dir / "workspace").resolve()
    records = [n.git for n in open_run(run_dir).nodes.values()]
    assert records and all(Path(g.repo).resolve() == scratch for g in records if g)
    assert set(files_of(run_dir / "worktrees" / "orchestrator")) == both
    shutil.rmtree(source.run_dir / "workspace")  # the source's repository gone ...
    again = fork_run(run_dir, tmp_path, ForkRequest(at=last))  # ... the fork forks on
    assert asyncio.run(run_to_end(again.engine)) == "completed"
