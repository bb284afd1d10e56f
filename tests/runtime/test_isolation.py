"""Runs whose nodes work in their own git worktrees: exact diffs, merges along the edges,
a conflict that pauses the run, two runs on one repository, and the user's repository
left exactly as it was."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from engine_helpers import events_of, of_type, resume_to_end, run_doc, until, workflow
from gitkit import (
    diffs_by_node,
    fingerprint,
    git,
    library_commit,
    no_git_config,
    node_git,
    patch_files,
    stopped_at_a_conflict,
    tree_files,
    user_repo,
    with_submodule,
)

from desktop.contract.events import parse_event
from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.runtime.recovery import create_run

__all__ = ["no_git_config"]
EXAMPLE = "orchestrator-two-implementers.flow.yaml"


def on_repo(doc, repo: Path):
    """``doc`` with every node working in ``repo``."""
    for node in doc.nodes:
        doc.node_configs[node.id] = doc.config(node.id).model_copy(
            update={"workspace": str(repo)})
    return doc


async def test_the_orchestrator_example_in_a_git_repository_gives_each_implementer_its_own_diff(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    engine = await run_doc(on_repo(load_workflow(examples_dir() / EXAMPLE), repo),
                           tmp_path / "data")
    assert engine.state.status == "completed"
    assert fingerprint(repo) == before  # nothing of the user's moved, not even the index

    diffs = diffs_by_node(engine)
    assert set(diffs) == {"impl-text", "impl-num"}  # the orchestrator writes nothing
    own = {"impl-text": {"text_utils.py", "test_text_utils.py"},
           "impl-num": {"num_utils.py", "test_num_utils.py"}}
    run8 = engine.run_id[:8]
    for key, [art] in diffs.items():
        patch = (engine.run_dir / art["path"]).read_text()
        assert patch_files(patch) == own[key], (key, patch)
        assert art["branch"] == f"canvas/{run8}/{key}"
        assert git(repo, "rev-parse", art["branch"]) == art["commit"]
        shown = git(repo, "show", "--format=%an|%s|%b", "--name-only", art["commit"])
        assert shown.startswith(f"Agent Canvas|{key}: turn 1 of run {run8}|")
        assert f"Run: {engine.run_id}" in shown and "Turn: 1" in shown
        assert set(shown.splitlines()[-2:]) == own[key]
        assert git(repo, "diff", "--name-only", f"{art['commit']}^", art["commit"]
                   ).splitlines() == sorted(own[key])

    # code travelled with the reports: the orchestrator's branch holds both halves
    orchestrator = node_git(engine, "orchestrator")
    final = tree_files(repo, orchestrator.branch)
    assert own["impl-text"] | own["impl-num"] <= set(final)
    assert final["untracked.txt"] == b"untracked\n"  # the base: the user's work in progress
    worktree = engine.run_dir / orchestrator.worktree
    assert (worktree / "num_utils.py").is_file() and (worktree / "text_utils.py").is_file()
    merges = [e["message"] for e in of_type(events_of(engine.run_dir), "node.progress")
              if e["message"].startswith("merged ")]
    assert len(merges) == 2 and all(orchestrator.branch in m for m in merges)
    for event in events_of(engine.run_dir):  # every event the run wrote is a contract event
        parse_event(event)


async def test_shared_isolation_and_folders_outside_git_work_in_place(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    plain = tmp_path / "plain"
    plain.mkdir()
    engine = await run_doc(workflow({
        "a": {"workspace": str(repo), "isolation": "shared",
              "script": [{"edit": {"path": "by_a.txt", "content": "a\n"}}]},
        "b": {"workspace": str(plain), "script": [{"edit": {"path": "by_b.txt",
                                                            "content": "b\n"}}]},
        "c": {"script": [{"edit": {"path": "by_c.txt", "content": "c\n"}}]},
    }, [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]), tmp_path / "data")
    assert engine.state.status == "completed"
    assert (repo / "by_a.txt").read_text() == "a\n"
    assert (plain / "by_b.txt").read_text() == "b\n"
    assert (engine.run_dir / "workspace" / "by_c.txt").read_text() == "c\n"
    assert not (engine.run_dir / "worktrees").exists()
    assert all(n.git is None for n in engine.state.nodes.values())
    assert git(repo, "for-each-ref", "refs/heads/canvas/", "refs/canvas/") == ""
    assert {key: sorted(patch_files((engine.run_dir / art["path"]).read_text()))
            for key, [art] in diffs_by_node(engine).items()} == {"a": ["by_a.txt"],
                                                                  "c": ["by_c.txt"]}


async def test_a_handoff_brings_the_commit_it_was_sent_with_not_the_sender_s_later_work(
        tmp_path: Path, no_git_config) -> None:
    """lead hands to left and right; right reports first and lead merges it; left's turn,
    taken after that, gets lead's work as it was sent: without right's."""
    repo = user_repo(tmp_path / "project")
    ws = {"workspace": str(repo)}
    doc = workflow({
        "lead": {**ws, "script": [{"say": "lead"}]},
        "left": {**ws, "script": [{"edit": {"path": "left.txt", "content": "l\n"}}]},
        "right": {**ws, "script": [{"edit": {"path": "right.txt", "content": "r\n"}}]},
    }, [{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"},
        {"from": "left", "to": "lead", "type": "report"},
        {"from": "right", "to": "lead", "type": "report"}], mode="INTERACTIVE")
    engine = create_run(doc, tmp_path / "data")
    running = asyncio.create_task(engine.run())

    async def step(key: str) -> None:
        engine.step(key)
        await until(lambda: not engine.tasks and not engine.scheduler.pending_steps())

    try:
        for key in ("lead", "right", "lead", "left"):
            await step(key)
        left = node_git(engine, "left")
        assert (engine.run_dir / left.worktree / "left.txt").exists()
        assert not (engine.run_dir / left.worktree / "right.txt").exists()
        await step("lead")
        lead = tree_files(repo, node_git(engine, "lead").branch)
        assert lead["left.txt"] == b"l\n" and lead["right.txt"] == b"r\n"
    finally:
        engine.halt()
        await running
        engine.close()


def workspace_notes(engine) -> list[str]:
    return [e["text"] for e in of_type(events_of(engine.run_dir), "node.log")
            if e["text"].startswith("workspace: ")]


async def test_a_node_is_told_when_its_base_is_a_checkout_mid_merge_with_conflicts(
        tmp_path: Path, no_git_config) -> None:
    """The run's base takes the user's working tree as it is; in the middle of a merge
    that is files with conflict markers, which the node's log names once, with when the
    result can be applied. A checkout at rest gets no such line."""
    doc = workflow({"a": {"script": [{"say": "looked"}]}})
    clean = user_repo(tmp_path / "clean")
    engine = await run_doc(on_repo(doc, clean), tmp_path / "data")
    assert engine.state.status == "completed" and workspace_notes(engine) == []

    repo = user_repo(tmp_path / "project")
    stopped_at_a_conflict(repo)
    before = fingerprint(repo)
    engine = await run_doc(on_repo(doc, repo), tmp_path / "data")
    assert engine.state.status == "completed"
    [note] = workspace_notes(engine)
    assert "is in the middle of a merge" in note
    assert "1 file has unresolved conflicts (both.txt)" in note
    assert "conflict markers included" in note and "finished or aborted" in note
    assert fingerprint(repo) == before


async def test_a_node_is_told_its_worktree_s_submodules_are_empty_until_its_setup_fills_them(
        tmp_path: Path, no_git_config) -> None:
    repo, _lib = with_submodule(tmp_path)
    before = fingerprint(repo)
    doc = on_repo(workflow({"a": {"script": [{"say": "looked"}]}}), repo)
    engine = await run_doc(doc, tmp_path / "data")
    assert engine.state.status == "completed"
    [note] = workspace_notes(engine)
    assert "1 submodule empty in this node's worktree (vendor/lib)" in note
    assert "`worktreeSetup: {run: git submodule update --init --recursive}`" in note

    filled = on_repo(workflow({"a": {"script": [{"say": "looked"}]}},
                              worktreeSetup={"run": "git -c protocol.file.allow=always "
                                                    "submodule update --init -q"}), repo)
    engine = await run_doc(filled, tmp_path / "data")
    assert engine.state.status == "completed" and workspace_notes(engine) == []
    lib = engine.run_dir / "worktrees" / "a" / "vendor" / "lib"
    assert (lib / "lib.txt").read_text() == "the library\n"
    assert fingerprint(repo) == before


async def test_a_submodule_one_node_moved_on_reaches_the_next_node_and_stays_recorded(
        tmp_path: Path, no_git_config) -> None:
    """a moves the submodule on and hands off to b; b's worktree, set up at the base's
    commit, merges a's branch: its checkout follows, and b's turn keeps a's update."""
    repo, lib = with_submodule(tmp_path)
    new = library_commit(lib, "the library, v2\n")
    setup = {"run": "git -c protocol.file.allow=always submodule update --init -q"}
    doc = on_repo(workflow({
        "a": {"script": [{"shell": "git -C vendor/lib pull -q --ff-only origin main"}]},
        "b": {"script": [{"edit": {"path": "b.txt", "content": "b\n"}}]},
    }, [{"from": "a", "to": "b"}], worktreeSetup=setup), repo)
    engine = await run_doc(doc, tmp_path / "data")
    assert engine.state.status == "completed"
    b = node_git(engine, "b")
    assert git(repo, "rev-parse", f"{b.branch}:vendor/lib") == new
    assert (engine.run_dir / b.worktree / "vendor" / "lib" / "lib.txt").read_text() == \
        "the library, v2\n"
    progress = [e["message"] for e in of_type(events_of(engine.run_dir), "node.progress")]
    assert f"checked submodule vendor/lib out at {new[:12]}, as the merge recorded" \
        in progress


async def test_a_turn_whose_change_git_will_not_commit_fails_and_keeps_the_change(
        tmp_path: Path, no_git_config) -> None:
    """Shown as done, the turn would hand on (and the run offer as its result) a branch
    without the agent's work; it fails instead, naming the branch and git's reason."""
    repo = user_repo(tmp_path / "repo")
    doc = on_repo(workflow({"a": {"script": [
        {"edit": {"path": "work.txt", "content": "the agent's work\n"}},
        # what a git killed mid-command leaves: the worktree's index locked
        {"shell": "touch \"$(git rev-parse --git-dir)/index.lock\""}]}}), repo)
    engine = await run_doc(doc, tmp_path / "data")
    assert engine.state.status != "completed"
    [node] = engine.state.nodes.values()
    assert node.status == "failed"
    [ended] = [e for e in of_type(events_of(engine.run_dir), "turn.status")
               if e["status"] != "started"]
    assert ended["status"] == "failed"
    assert "could not be committed on canvas/" in ended["reason"]
    assert "index.lock': File exists" in ended["reason"]  # git's error, not its advice
    a = node_git(engine, "a")
    assert (engine.run_dir / a.worktree / "work.txt").read_text() == "the agent's work\n"
    assert git(repo, "rev-parse", a.branch) == a.base  # nothing of it on the branch


async def test_resuming_after_a_failed_commit_commits_the_work_first(
        tmp_path: Path, no_git_config) -> None:
    """The retried turn's first commit takes in what the failed one left, and its
    progress line says where the change came from."""
    repo = user_repo(tmp_path / "repo")
    fixed = tmp_path / "fixed"
    doc = on_repo(workflow({"a": {"limits": {"retries": 0}, "script": [
        {"edit": {"path": "work.txt", "content": "the agent's work\n"}},
        {"shell": f"test -f '{fixed}' || touch \"$(git rev-parse --git-dir)/index.lock\""}]}}),
        repo)
    failed = await run_doc(doc, tmp_path / "data")
    assert failed.state.status == "failed"
    a = node_git(failed, "a")
    lock = Path(git(failed.run_dir / a.worktree, "rev-parse", "--absolute-git-dir"))
    (lock / "index.lock").unlink()  # the user puts right what stopped git
    fixed.write_text("")
    engine = await resume_to_end(failed.run_dir)
    assert engine.state.status == "completed"
    assert git(repo, "show", f"{a.branch}:work.txt") == "the agent's work"
    progress = [e["message"] for e in of_type(events_of(engine.run_dir), "node.progress")]
    assert any(m.startswith("committed the changes the agent run before this one left "
                            f"uncommitted in {a.branch}") for m in progress), progress


async def test_a_node_s_log_names_the_big_untracked_files_its_worktree_lacks(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("desktop.runtime.git_base.BIG_UNTRACKED", 1000)
    repo = user_repo(tmp_path / "repo")
    (repo / "data.bin").write_bytes(b"x" * 5000)
    engine = await run_doc(on_repo(workflow({
        "a": {"script": [{"shell": "test -f data.bin || echo lacks > lacks.txt"},
                         {"handoff": {"to": "b", "message": "go"}}]},
        # copied in by its setup, it is there for the agent, and still never committed
        "b": {"worktreeSetup": {"copy": ["data.bin"]},
              "script": [{"shell": "cp data.bin seen.bin"}]}}, [{"from": "a", "to": "b"}]),
        repo), tmp_path / "data")
    assert engine.state.status == "completed"
    a, b = node_git(engine, "a"), node_git(engine, "b")
    assert git(repo, "show", f"{a.branch}:lacks.txt") == "lacks"
    logs = [e["text"] for e in of_type(events_of(engine.run_dir), "node.log")]
    assert any("1 untracked file larger than 0 MiB left out of this run's worktrees "
               "(data.bin)" in text and "worktreeSetup: {copy: [PATH]}" in text
               for text in logs), logs
    assert git(repo, "show", f"{b.branch}:seen.bin") == "x" * 5000
    assert git(repo, "ls-tree", "--name-only", b.branch, "data.bin") == ""
    assert (repo / "data.bin").read_bytes() == b"x" * 5000


@pytest.mark.parametrize("broken", ["git missing", "unreadable .git"])
async def test_a_repository_git_cannot_read_fails_the_turn_and_the_checkout_stays_untouched(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch, broken: str) -> None:
    """Worked on as a plain folder, the agent would write into the user's checkout."""
    repo = user_repo(tmp_path / "repo")
    if broken == "git missing":
        (tmp_path / "bin").mkdir()
        monkeypatch.setenv("PATH", str(tmp_path / "bin"))
        why, fix = "(git is not on PATH)", "Install git 2.34 or newer"
        before = {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()}
    else:
        repo = tmp_path / "moved"  # a checkout whose repository went away
        repo.mkdir()
        (repo / ".git").write_text(f"gitdir: {tmp_path / 'gone'}\n")
        why, fix = "(fatal: not a git repository", f"`git -C {repo} status` says what git"
        before = {".git": (repo / ".git").read_bytes()}
    doc = on_repo(workflow({"a": {"script": [
        {"edit": {"path": "work.txt", "content": "the agent's work\n"}}]}}), repo)
    engine = await run_doc(doc, tmp_path / "data")
    assert engine.state.status == "failed"
    [ended] = of_type(events_of(engine.run_dir), "turn.status", status="failed")
    assert f"{repo} is in the git repository {repo}, but git could not read it {why}" \
        in ended["reason"]
    assert fix in ended["reason"] and "isolation: shared" in ended["reason"]
    assert {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()} == before


async def test_an_untracked_folder_of_many_files_is_left_out_said_and_never_committed(
        tmp_path: Path, no_git_config, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("desktop.runtime.git_base.MANY_UNTRACKED", 3)
    repo = user_repo(tmp_path / "repo")
    (repo / "venv" / "bin").mkdir(parents=True)
    for n in range(4):
        (repo / "venv" / "bin" / f"tool{n}").write_text(f"tool {n}\n")
    engine = await run_doc(on_repo(workflow({
        "a": {"script": [{"shell": "test -d venv || echo lacks > lacks.txt"},
                         {"handoff": {"to": "b", "message": "go"}}]},
        # an install by its setup: there for the agent, and still never committed
        "b": {"worktreeSetup": {"run": "mkdir -p venv/bin && echo made > venv/bin/made"},
              "script": [{"shell": "cat venv/bin/made > seen.txt"}]}},
        [{"from": "a", "to": "b"}]), repo), tmp_path / "data")
    assert engine.state.status == "completed"
    a, b = node_git(engine, "a"), node_git(engine, "b")
    assert git(repo, "show", f"{a.branch}:lacks.txt") == "lacks"
    logs = [e["text"] for e in of_type(events_of(engine.run_dir), "node.log")]
    assert any("1 untracked folder of more than 3 files left out of this run's worktrees "
               "(venv/)" in text and "worktreeSetup: {run: npm ci}" in text
               for text in logs), logs
    assert git(repo, "show", f"{b.branch}:seen.txt") == "made"
    assert git(repo, "ls-tree", "-r", "--name-only", b.branch, "venv") == ""
    assert (repo / "venv" / "bin" / "tool3").read_text() == "tool 3\n"


async def test_a_worktree_git_cannot_make_fails_the_turn_with_git_s_reason_and_the_fix(
        tmp_path: Path, no_git_config) -> None:
    """The user's to fix, said as such: no exception's type name, no traceback."""
    repo = user_repo(tmp_path / "repo")
    git(repo, "branch", "canvas", "HEAD")
    before = fingerprint(repo)
    doc = on_repo(workflow({"a": {"script": [
        {"edit": {"path": "work.txt", "content": "the agent's work\n"}}]}}), repo)
    engine = await run_doc(doc, tmp_path / "data")
    assert engine.state.status == "failed"
    [ended] = of_type(events_of(engine.run_dir), "turn.status", status="failed")
    assert ended["reason"].startswith("no worktree for this node: ")
    assert f"{repo} has a branch named canvas" in ended["reason"]
    assert fingerprint(repo) == before
