"""Forking a run whose nodes work in their own git worktrees: each node of the fork is
checked out, on a branch of the fork, at exactly its commit of the fork point, and the
fork continues to the same end; the source's branches and the user's repository stay."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from engine_helpers import events_of, of_type, run_doc, workflow
from gitkit import fingerprint, git, no_git_config, node_git, tree_files, user_repo

from desktop.disk.paths import runs_dir
from desktop.runtime.engine import Engine
from desktop.runtime.fork import ForkError, ForkRequest, fork_run, prepare_fork
from desktop.runtime.recovery import create_run
from desktop.runtime.worktree_cleanup import remove_run_worktrees
from desktop.views.forks import scan_run

__all__ = ["no_git_config"]


def edit(path: str, content: str) -> dict:
    return {"edit": {"path": path, "content": content}}


def chain(repo: Path):
    """a: a.txt v1, to b; b: b.txt, reports back; a: a.txt v2, to c; c: c.txt. One turn at
    a time, all in ``repo``."""
    ws = {"workspace": str(repo)}
    return workflow({
        "a": {**ws, "script": {"turns": [[edit("a.txt", "v1\n"), {"handoff": {"to": "b"}}],
                                         [edit("a.txt", "v2\n"), {"handoff": {"to": "c"}}]]}},
        "b": {**ws, "script": [edit("b.txt", "b\n")]},
        "c": {**ws, "script": [edit("c.txt", "c\n"), {"done": True}]},
    }, [{"from": "a", "to": "b"}, {"from": "b", "to": "a", "type": "report"},
        {"from": "a", "to": "c"}])


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(folder).parts}


def branch_state(repo: Path) -> dict[str, str]:
    """Every canvas branch in ``repo`` and its commit."""
    listed = git(repo, "for-each-ref", "--format=%(refname:short) %(objectname)",
                 "refs/heads/canvas/")
    return dict(line.split() for line in listed.splitlines())


async def run_noting_worktrees(doc, data: Path) -> tuple[Engine, dict[int, dict]]:
    """Run ``doc`` to its end, noting the files of every node's worktree as each turn
    starts (keyed by the seq before it: where a fork point would be)."""
    engine = create_run(doc, data)
    seen: dict[int, dict[str, dict[str, bytes]]] = {}

    def note(events: list[dict]) -> None:
        for event in events:
            if event["type"] == "turn.status" and event["status"] == "started":
                folder = engine.run_dir / "worktrees"
                # the worktrees of the nodes that have started a turn (a folder each;
                # agent_ignore's excludes file beside them): the others' are prepared ahead
                # of their turns, and not on record yet
                started = {n.key for n in engine.state.nodes.values() if n.git is not None}
                seen[event["seq"] - 1] = {tree.name: files(tree) for tree in
                                          sorted(folder.iterdir())
                                          if tree.is_dir() and tree.name in started
                                          } if folder.is_dir() else {}

    engine.recorder.listen(note)
    try:
        await asyncio.wait_for(engine.run(), 60)
    finally:
        engine.close()
    return engine, seen


async def test_a_fork_at_every_point_checks_each_node_out_at_its_commit_and_ends_alike(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    data = tmp_path / "data"
    source, seen = await run_noting_worktrees(chain(repo), data)
    assert source.state.status == "completed"
    ends = {key: tree_files(repo, node_git(source, key).branch) for key in "abc"}
    branches = branch_state(repo)
    points = scan_run(source.run_dir).points
    assert [(p.label, p.turn) for p in points] == [("A", 1), ("B", 1), ("A", 2), ("C", 1)]
    for point in points:
        fork = fork_run(source.run_dir, data, ForkRequest(at=point.seq))
        engine = fork.engine
        try:
            made = {b["node"]: b for b in
                    of_type(events_of(engine.run_dir), "run.forked")[0].get("branches", [])}
            isolated = {n.key: n.git for n in engine.state.nodes.values() if n.git}
            assert set(made) == set(isolated) == set(seen[point.seq])
            for key, record in isolated.items():
                # exactly what the source's worktree held at that point, committed
                worktree = engine.run_dir / record.worktree
                assert files(worktree) == seen[point.seq][key], (point, key)
                assert git(worktree, "status", "--porcelain") == ""
                assert record.branch == f"canvas/{engine.run_id[:8]}/{key}" == \
                    git(worktree, "branch", "--show-current")
                assert git(repo, "rev-parse", record.branch) == made[key]["commit"] == \
                    record.head
                # the fork's base: the source's base's files, with that base as its parent
                source_base = node_git(source, key).base
                assert git(repo, "rev-parse", f"{record.base}^") == source_base
                assert git(repo, "diff", record.base, source_base) == ""
                # its card counts the commits it holds that the fork's base does not
                assert record.ahead == int(git(repo, "rev-list", "--count",
                                               f"{record.base}..{record.branch}"))
            assert not (engine.run_dir / "workspaces").exists()  # no copy of the repository
            status = await asyncio.wait_for(engine.run(), 60)
        finally:
            engine.close()
        assert status == "completed"
        for key in "abc":
            assert tree_files(repo, node_git(engine, key).branch) == ends[key], (point, key)
            record = node_git(engine, key)
            assert record.ahead == int(git(repo, "rev-list", "--count",
                                           f"{record.base}..{record.branch}")), (point, key)
        done = remove_run_worktrees(engine.run_dir, engine.run_id, engine.state.to_json_dict())
        assert len(done.removed) == 3 and not done.kept
        assert branch_state(repo) == branches  # the source's branches as they were
    assert fingerprint(repo) == before


async def test_a_fork_between_two_turns_of_a_node_has_its_first_version_and_forks_again(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    data = tmp_path / "data"
    source = await run_doc(chain(repo), data)
    [second] = [p for p in scan_run(source.run_dir).points if p.label == "A" and p.turn == 2]
    fork = fork_run(source.run_dir, data, ForkRequest(at=second.seq))
    fork.engine.close()
    a = node_git(fork.engine, "a")
    worktree = fork.engine.run_dir / a.worktree
    assert (worktree / "a.txt").read_text() == "v1\n"  # not the v2 of the source's end
    assert (worktree / "b.txt").read_text() == "b\n"  # b's report merged before the point
    assert not (repo / "a.txt").exists()  # the user's folder never had either
    # a fork of the fork, at its end (before its first turn), starts from the same commits
    end = scan_run(fork.engine.run_dir).points[-1]
    again = fork_run(fork.engine.run_dir, data, ForkRequest(at=end.seq))
    engine = again.engine
    try:
        a2 = node_git(engine, "a")
        assert git(repo, "rev-parse", a2.branch) == git(repo, "rev-parse", a.branch)
        assert git(repo, "rev-parse", f"{a2.base}^") == a.base
        assert git(repo, "rev-parse", f"{a.base}^") == node_git(source, "a").base
        assert await asyncio.wait_for(engine.run(), 60) == "completed"
    finally:
        engine.close()
    assert (engine.run_dir / a2.worktree / "a.txt").read_text() == "v2\n"
    assert tree_files(repo, node_git(engine, "c").branch) == \
        tree_files(repo, node_git(source, "c").branch)


async def test_a_fork_that_fails_half_way_removes_what_it_made_and_only_that(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = user_repo(tmp_path / "project")
    data = tmp_path / "data"
    source = await run_doc(chain(repo), data)
    fork_id = "5e5e5e5e-0000-4000-8000-000000000001"
    monkeypatch.setattr("desktop.runtime.fork.new_id", lambda: fork_id)
    # someone else's branch where the fork's branch of c would go
    theirs = git(repo, "rev-parse", "HEAD")
    git(repo, "branch", "canvas/5e5e5e5e/c", theirs)
    refs = branch_state(repo)
    worktrees = git(repo, "worktree", "list", "--porcelain")
    with pytest.raises(ForkError, match="canvas/5e5e5e5e/c") as err:
        prepare_fork(source.run_dir, data, ForkRequest(at=scan_run(source.run_dir).points[-1].seq))
    assert err.value.conflict
    assert sorted(p.name for p in runs_dir(data).iterdir()) == [source.run_id]
    assert branch_state(repo) == refs  # theirs kept, the fork's a and b gone
    assert git(repo, "for-each-ref", "refs/canvas/5e5e5e5e/") == ""
    assert git(repo, "worktree", "list", "--porcelain") == worktrees


async def test_a_fork_keeps_the_big_untracked_files_its_source_left_out_out_of_its_commits(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("desktop.runtime.git_base.BIG_UNTRACKED", 1000)
    repo = user_repo(tmp_path / "repo")
    (repo / "data.bin").write_bytes(b"x" * 5000)
    ws = {"workspace": str(repo)}
    doc = workflow({
        "a": {**ws, "script": [edit("a.txt", "a\n"), {"handoff": {"to": "b"}}]},
        # copied in by its setup: there for the agent, never one of its changes
        "b": {**ws, "worktreeSetup": {"copy": ["data.bin"]},
              "script": [{"shell": "cp data.bin seen.bin"}]},
    }, [{"from": "a", "to": "b"}])
    data = tmp_path / "data"
    source = await run_doc(doc, data)
    [b_turn] = [p for p in scan_run(source.run_dir).points if p.label == "B"]
    fork = fork_run(source.run_dir, data, ForkRequest(at=b_turn.seq))
    engine = fork.engine
    try:
        assert await asyncio.wait_for(engine.run(), 60) == "completed"
    finally:
        engine.close()
    b = node_git(engine, "b")
    assert git(repo, "show", f"{b.branch}:seen.bin") == "x" * 5000
    assert git(repo, "ls-tree", "--name-only", b.branch, "data.bin") == ""
    assert git(repo, "ls-tree", "--name-only", b.base, "data.bin") == ""  # nor the fork's base
    assert (repo / "data.bin").read_bytes() == b"x" * 5000
