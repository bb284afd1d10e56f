"""A node's new worktree set up to build: the ignored files it names copied in from the
workspace, its setup command run there once per worktree before the node's first turn,
the agents' diffs still their own, the user's repository untouched, and a failing
command failing the turn with the command, its exit code and its output."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import events_of, of_type, run_doc
from gitkit import diffs_by_node, fingerprint, git, no_git_config, node_git, patch_files, user_repo
from pydantic import ValidationError

from desktop.contract.isolation import WorktreeSetup
from desktop.graph.io import load_workflow
from desktop.graph.resources import examples_dir
from desktop.runtime.worktree_setup import copy_in, is_set_up

__all__ = ["no_git_config"]
EXAMPLE = "orchestrator-two-implementers.flow.yaml"


def with_setup(repo: Path, setup: dict) -> object:
    """The orchestrator example with every node in ``repo`` and ``setup`` as its
    worktreeSetup."""
    doc = load_workflow(examples_dir() / EXAMPLE)
    for node in doc.nodes:
        doc.node_configs[node.id] = doc.config(node.id).model_copy(update={
            "workspace": str(repo), "worktree_setup": WorktreeSetup.model_validate(setup)})
    return doc


def project(tmp_path: Path) -> Path:
    """The user's repository, with an ignored .env and an ignored folder of settings."""
    repo = user_repo(tmp_path / "project")
    (repo / ".gitignore").write_text("*.log\n__pycache__/\n.env\nnode_modules/\nlocal/\n")
    (repo / ".env").write_text("API_URL=http://localhost\n")
    (repo / "local").mkdir()
    (repo / "local" / "settings.toml").write_text("debug = true\n")
    return repo


async def test_each_node_s_worktree_gets_its_copies_and_its_setup_once(
        tmp_path: Path, no_git_config) -> None:
    repo = project(tmp_path)
    before = fingerprint(repo)
    ran = tmp_path / "setups-ran.txt"
    setup = {"copy": [".env", "local", "absent.cfg", "committed.txt"],
             "run": f"mkdir -p node_modules && echo built > node_modules/dep.js && "
                    f"echo generated > generated.txt && cat .env >> {ran}"}
    engine = await run_doc(with_setup(repo, setup), tmp_path / "data")
    assert engine.state.status == "completed"
    assert fingerprint(repo) == before  # copied from, never written to

    # once per node's worktree, though the orchestrator took three turns
    assert ran.read_text() == "API_URL=http://localhost\n" * 3
    [lead] = [nid for nid, node in engine.state.nodes.items() if node.key == "orchestrator"]
    assert engine.state.turns[lead] == 3
    for key in ("orchestrator", "impl-text", "impl-num"):
        tree = engine.run_dir / node_git(engine, key).worktree
        assert (tree / ".env").read_text() == "API_URL=http://localhost\n"
        assert (tree / "local" / "settings.toml").read_text() == "debug = true\n"
        assert (tree / "node_modules" / "dep.js").read_text() == "built\n"
        # a file the worktree already has is not replaced by the workspace's
        assert (tree / "committed.txt").read_text() == "as committed\nplus an unstaged line\n"
        assert is_set_up(tree, node_git(engine, key).branch)

    notes = [e["message"] for e in of_type(events_of(engine.run_dir), "node.progress")
             if e["message"].startswith("worktree setup: copied")]
    assert len(notes) == 3
    assert ".env, local" in notes[0] and "absent.cfg not in" in notes[0]
    assert "committed.txt already in the worktree" in notes[0]

    # the agents' diffs hold their own files only: the setup's product is committed apart
    for key, [art] in diffs_by_node(engine).items():
        files = patch_files((engine.run_dir / art["path"]).read_text())
        assert "generated.txt" not in files and ".env" not in files, (key, files)
    tracked = git(repo, "ls-tree", "-r", "--name-only", node_git(engine, "impl-num").branch)
    assert ".env" not in tracked.split() and "node_modules/dep.js" not in tracked.split()


async def test_a_failing_setup_command_fails_the_turn_and_says_why(
        tmp_path: Path, no_git_config) -> None:
    repo = project(tmp_path)
    setup = {"copy": [".env"], "run": "echo cannot reach the registry >&2; exit 3"}
    engine = await run_doc(with_setup(repo, setup), tmp_path / "data")
    assert engine.state.status == "failed"
    [failed] = of_type(events_of(engine.run_dir), "turn.status", status="failed")
    reason = failed["reason"]
    assert "`echo cannot reach the registry >&2; exit 3` failed (exit 3)" in reason
    assert "cannot reach the registry" in reason and "worktreeSetup.run" in reason
    tree = engine.run_dir / "worktrees" / "orchestrator"
    assert (tree / ".env").is_file()  # the copies were made
    assert not is_set_up(tree, f"canvas/{engine.run_id[:8]}/orchestrator")  # tried again


def test_copies_take_files_folders_and_links_and_never_overwrite(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    (source / "conf").mkdir(parents=True)
    (source / "conf" / "a.ini").write_text("a\n")
    (source / ".env").write_text("X=1\n")
    (source / "link").symlink_to("conf/a.ini")
    target.mkdir()
    (target / "kept.txt").write_text("theirs\n")
    (source / "kept.txt").write_text("workspace's\n")
    done = copy_in([".env", "conf", "link", "kept.txt", "gone"], source, target)
    assert done.copied == [".env", "conf", "link"]
    assert done.present == ["kept.txt"] and done.missing == ["gone"]
    assert (target / "conf" / "a.ini").read_text() == "a\n"
    assert (target / "link").is_symlink() and (target / "link").read_text() == "a\n"
    assert (target / "kept.txt").read_text() == "theirs\n"


@pytest.mark.parametrize(("copy", "says"), [
    (["../secrets"], "leaves the workspace"), (["/etc/passwd"], "is absolute"),
    (["."], "whole workspace"), ([""], "must not be empty")])
def test_copies_stay_inside_the_workspace(copy: list[str], says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        WorktreeSetup.model_validate({"copy": copy})
    assert WorktreeSetup.model_validate({"run": "  "}).run is None


async def test_each_attempt_of_a_best_of_n_turn_is_set_up_in_its_own_worktree(
        tmp_path: Path, no_git_config) -> None:
    from test_best_of import run_choosing, two_ways

    repo = project(tmp_path)
    ran = tmp_path / "setups-ran.txt"
    doc = two_ways({"workspace": str(repo), "worktreeSetup": {
        "copy": [".env"], "run": f"echo $PWD >> {ran}; test -f .env"}})
    engine, seen = await run_choosing(doc, tmp_path / "data", pick=1)
    assert engine.state.status == "completed"
    assert [a["ok"] for a in seen[0]["attempts"]] == [True, True]
    where = ran.read_text().split()
    # the node's worktree, both attempts', and check's: each once
    assert sorted(Path(p).name for p in where) == ["check", "impl", "impl.t1.a1",
                                                   "impl.t1.a2"]
    for diff in (engine.run_dir / "agents").glob("*/diff.patch"):
        assert ".env" not in patch_files(diff.read_text())


async def test_stopping_the_run_during_its_setup_ends_the_command(
        tmp_path: Path, no_git_config) -> None:
    import asyncio
    import os

    from engine_helpers import until

    from desktop.runtime.recovery import create_run

    repo = project(tmp_path)
    pid_file = tmp_path / "setup.pid"
    # the command writes its pid, then waits far longer than the test
    setup = {"run": f"echo $$ > {pid_file}; exec sleep 300"}
    engine = create_run(with_setup(repo, setup), tmp_path / "data")
    running = asyncio.create_task(engine.run())
    try:
        await until(lambda: pid_file.is_file() and pid_file.read_text().strip() != "")
        pid = int(pid_file.read_text())
        await engine.stop("stopped by the test")
        await asyncio.wait_for(running, 30)
    finally:
        engine.close()

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{pid}/stat") as stat:  # a zombie is gone too
            return stat.read().split(") ", 1)[1].startswith("Z")

    await until(gone, timeout=10)
    assert engine.state.status == "stopped"



async def test_a_workflow_s_setup_sets_up_every_node_without_its_own(
        tmp_path: Path, no_git_config) -> None:
    repo = project(tmp_path)
    doc = load_workflow(examples_dir() / EXAMPLE)
    doc.workspace = str(repo)
    doc.worktree_setup = WorktreeSetup.model_validate({"copy": [".env"]})
    doc.node_configs["impl-num"] = doc.config("impl-num").model_copy(update={
        "worktree_setup": WorktreeSetup.model_validate({"copy": ["local"]})})
    engine = await run_doc(doc, tmp_path / "data")
    assert engine.state.status == "completed"
    for key, copied, left in (("orchestrator", ".env", "local"), ("impl-text", ".env", "local"),
                              ("impl-num", "local", ".env")):
        tree = engine.run_dir / node_git(engine, key).worktree
        assert (tree / copied).exists() and not (tree / left).exists(), key
