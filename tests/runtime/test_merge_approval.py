"""Two parallel nodes edit the same line; the merge into the lead conflicts and waits on a
``merge`` approval naming the branches, the file and its hunk, the conflicted worktree
kept. Resolved each way (a side, edited contents, the agent's turn) the run completes;
denied, the merge is undone and the run pauses for a person to merge by hand."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import events_of, of_type, workflow
from gitkit import USER, fingerprint, git, no_git_config, node_git, tree_files, user_repo

from desktop.contract.events import parse_event
from desktop.runtime import worktrees
from desktop.runtime.approvals import PendingRequest
from desktop.runtime.engine import Engine
from desktop.runtime.recovery import create_run, resume_engine

__all__ = ["no_git_config"]
RESOLVE = ("grep -q '^<<<<<<<' committed.txt && printf 'resolved by the agent\\n' > "
           "committed.txt; true")


def same_line(repo: Path):
    """lead hands to left and right; each rewrites committed.txt; both report back. The
    lead's agent resolves a conflict left to it (its shell step rewrites the file when
    it finds markers)."""
    ws = {"workspace": str(repo)}
    return workflow({
        "lead": {**ws, "script": [{"shell": RESOLVE}, {"say": "lead"}], "stallThreshold": 10},
        "left": {**ws, "script": [{"edit": {"path": "committed.txt", "content": "left\n"}}]},
        "right": {**ws, "script": [{"edit": {"path": "committed.txt", "content": "right\n"}}]},
    }, [{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"},
        {"from": "left", "to": "lead", "type": "report"},
        {"from": "right", "to": "lead", "type": "report"}])


async def run_deciding(repo: Path, data: Path, decide) -> tuple[Engine, list[dict]]:
    """Run the graph, answering each merge approval with ``decide(request) -> (status,
    merge choice)``; the engine and the requests seen."""
    engine = create_run(same_line(repo), data)
    loop = asyncio.get_running_loop()
    seen: list[dict] = []

    def asked(pending: PendingRequest) -> None:
        assert pending.merge is not None, pending
        seen.append(pending.merge)
        status, choice = decide(pending.merge)
        loop.call_soon(lambda: engine.broker.resolve(pending.approval_id, status, by="test",
                                                     merge=choice))

    engine.broker.subscribe(asked)
    try:
        await asyncio.wait_for(engine.run(exit_on_pause=True), 60)
    finally:
        engine.close()
    return engine, seen


def check_request(engine: Engine, request: dict[str, Any]) -> tuple[str, str]:
    """The request names both branches, the file and its one hunk; (ours, theirs) text."""
    run8 = engine.run_id[:8]
    assert request["target"] == f"canvas/{run8}/lead"
    assert request["source"] in (f"canvas/{run8}/left", f"canvas/{run8}/right")
    assert request["sender"] == request["source"].rsplit("/", 1)[1]
    assert request["worktree"] == str(engine.run_dir / node_git(engine, "lead").worktree)
    [entry] = request["files"]
    assert entry["path"] == "committed.txt" and entry["ours"] and entry["theirs"]
    [hunk] = entry["hunks"]
    sides = {"left\n", "right\n"}
    assert {hunk["ours"], hunk["theirs"]} == sides
    assert hunk["theirs"] == f"{request['sender']}\n"
    assert hunk["base"] == "as committed\nplus an unstaged line\n"  # the user's work: the base
    requested = [e for e in of_type(events_of(engine.run_dir), "approval.requested")
                 if e.get("kind") == "merge"]
    assert [e["merge"] for e in requested] == [request]
    return hunk["ours"], hunk["theirs"]


def check_end(engine: Engine, repo: Path, before: dict, content: bytes) -> None:
    """Completed; the lead's branch holds ``content`` in a merge commit; its worktree
    clean, no merge open; the senders' branches and the user's repository as they were."""
    assert engine.state.status == "completed"
    assert engine.state.pending_approvals == {}
    lead = node_git(engine, "lead")
    worktree = engine.run_dir / lead.worktree
    assert tree_files(repo, lead.branch)["committed.txt"] == content
    assert git(worktree, "status", "--porcelain") == ""
    assert not (Path(git(worktree, "rev-parse", "--path-format=absolute", "--git-dir"))
                / "MERGE_HEAD").exists()
    parents = git(repo, "log", "--merges", "--format=%P", lead.branch).splitlines()
    assert any(len(line.split()) == 2 for line in parents)
    assert tree_files(repo, node_git(engine, "left").branch)["committed.txt"] == b"left\n"
    assert tree_files(repo, node_git(engine, "right").branch)["committed.txt"] == b"right\n"
    assert fingerprint(repo) == before
    for event in events_of(engine.run_dir):
        parse_event(event)


@pytest.mark.parametrize("side", ["ours", "theirs"])
async def test_a_conflict_resolved_by_taking_a_side(tmp_path: Path, no_git_config,
                                                    side: str) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    engine, seen = await run_deciding(repo, tmp_path / "data", lambda request: (
        "approved", {"files": {"committed.txt": side}}))
    [request] = seen
    ours, theirs = check_request(engine, request)
    check_end(engine, repo, before, (ours if side == "ours" else theirs).encode())
    [resolved] = [e for e in of_type(events_of(engine.run_dir), "approval.resolved")]
    assert resolved["resolution"]["merge"]["files"] == {"committed.txt": side}
    assert resolved["resolution"]["by"] == "test"


async def test_a_conflict_resolved_with_edited_contents(tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    engine, seen = await run_deciding(repo, tmp_path / "data", lambda request: (
        "approved", {"contents": {"committed.txt": "left and right\n"}}))
    [request] = seen
    check_request(engine, request)
    check_end(engine, repo, before, b"left and right\n")
    progress = [e["message"] for e in of_type(events_of(engine.run_dir), "node.progress")]
    assert any("resolved by a person: committed.txt: edited" in m for m in progress)


async def test_a_conflict_handed_to_the_agent_is_resolved_in_its_turn(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    engine, seen = await run_deciding(repo, tmp_path / "data",
                                      lambda request: ("approved", {"agent": True}))
    [request] = seen
    check_request(engine, request)
    check_end(engine, repo, before, b"resolved by the agent\n")
    # the merge leaves its mark as one settled by a person does
    progress = [e["message"] for e in of_type(events_of(engine.run_dir), "node.progress")]
    from desktop.views.branches import merge_note

    marks = [merge_note(m) for m in progress if merge_note(m) is not None]
    assert (request["source"], "its conflicts resolved by the agent") in [
        (n.source, n.how) for n in marks]
    # the agent's prompt had the conflict; its diff is its resolution only, and its
    # commit is the merge
    lead = node_git(engine, "lead")
    prompts = sorted(engine.run_dir.glob("agents/*/prompt.full.txt"))
    [prompt] = [p for p in prompts if "## Merge conflict" in p.read_text()]
    text = prompt.read_text()
    assert request["source"] in text and lead.branch in text and "committed.txt" in text
    diffs = [e["artifact"] for e in of_type(events_of(engine.run_dir), "artifact.created")
             if e["artifact"]["kind"] == "diff"
             and e["artifact"]["path"].startswith(f"agents/{prompt.parent.name}/")]
    [art] = diffs
    patch = (engine.run_dir / art["path"]).read_text()
    assert "-<<<<<<< HEAD" in patch and "+resolved by the agent" in patch
    assert "right.txt" not in patch and "left.txt" not in patch
    assert len(git(repo, "rev-list", "--parents", "-n", "1", art["commit"]).split()) == 3


async def test_a_denied_merge_is_undone_and_the_run_waits_for_a_hand_merge(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    before = fingerprint(repo)
    engine, seen = await run_deciding(repo, tmp_path / "data",
                                      lambda request: ("denied", None))
    [request] = seen
    state = engine.state
    assert state.status == "paused"
    lead = next(n for n in state.nodes.values() if n.key == "lead")
    assert lead.status == "blocked" and lead.summary.startswith("merge conflict with canvas/")
    [error] = [e["message"] for e in of_type(events_of(engine.run_dir), "bus.message",
                                             busType="ERROR")]
    assert request["source"] in error and "the merge was refused" in error
    worktree = engine.run_dir / lead.git.worktree
    assert git(worktree, "status", "--porcelain") == ""  # undone
    assert (worktree / "committed.txt").read_text() in ("left\n", "right\n")
    assert state.inboxes[lead.id], "the report waits in the lead's inbox"
    assert fingerprint(repo) == before

    # merged by hand in the lead's worktree, as the message says, then resumed
    subprocess.run(["git", *USER, "merge", "-q", request["source"]], cwd=worktree,
                   capture_output=True, check=False)
    (worktree / "committed.txt").write_text("left and right\n")
    git(worktree, "commit", "-q", "-am", "both")
    resumed = resume_engine(engine.run_dir)
    try:
        resumed.resume_run()
        assert await asyncio.wait_for(resumed.run(), 60) == "completed"
    finally:
        resumed.close()
    assert tree_files(repo, lead.git.branch)["committed.txt"] == b"left and right\n"
    assert fingerprint(repo) == before
    # the merge by hand leaves its mark, as a merge decided in the dialog does
    hand = git(worktree, "rev-list", "--merges", "-n", "1", "HEAD")
    marks = [e["message"] for e in of_type(events_of(engine.run_dir), "node.progress")
             if e.get("nodeId") == lead.id and "resolved by a person in the worktree" in
             e.get("message", "")]
    assert marks == [f"merged {request['source']} (from {request['sender']}) into "
                     f"{lead.git.branch} ({hand[:8]}): resolved by a person in the worktree"]


def merge_by_hand(worktree: Path, source: str) -> None:
    """``git merge`` of the sender's branch in the node's worktree, stopping at conflicts."""
    merged = subprocess.run(["git", *USER, "merge", "-q", source], cwd=worktree,
                            capture_output=True, check=False)
    assert merged.returncode != 0 and git(worktree, "diff", "--name-only",
                                          "--diff-filter=U") == "committed.txt"


async def refused_then_merged_by_hand(tmp_path: Path) -> tuple[Path, Engine, dict, Any]:
    """The merge into the lead refused, then started by hand in its worktree: the user's
    repository, the engine, the merge request and the lead's ``git`` record."""
    repo = user_repo(tmp_path / "project")
    engine, [request] = await run_deciding(repo, tmp_path / "data",
                                           lambda request: ("denied", None))
    lead = node_git(engine, "lead")
    merge_by_hand(engine.run_dir / lead.worktree, request["source"])
    return repo, engine, request, lead


async def resume_to_end(run_dir: Path) -> tuple[str, Engine]:
    resumed = resume_engine(run_dir)
    try:
        resumed.resume_run()
        return await asyncio.wait_for(resumed.run(exit_on_pause=True), 60), resumed
    finally:
        resumed.close()


async def test_a_hand_merge_resolved_but_not_committed_is_concluded_on_resume(
        tmp_path: Path, no_git_config) -> None:
    repo, engine, request, lead = await refused_then_merged_by_hand(tmp_path)
    worktree = engine.run_dir / lead.worktree
    (worktree / "committed.txt").write_text("left and right\n")
    git(worktree, "add", "committed.txt")  # resolved, not committed
    assert worktrees.person_of(worktree) is None  # no identity: the engine's stands
    git(repo, "config", "user.name", "Ada Person")  # who git knows there resolved it
    git(repo, "config", "user.email", "ada@example.com")
    status, resumed = await resume_to_end(engine.run_dir)
    assert status == "completed"
    assert tree_files(repo, lead.branch)["committed.txt"] == b"left and right\n"
    sent = git(repo, "rev-parse", request["source"])
    merges = git(repo, "log", "--merges", "--format=%P", lead.branch).splitlines()
    assert any(line.split()[1] == sent for line in merges), "concluded as a merge of it"
    subject, author, committer = git(repo, "log", "-1", "--format=%s%n%an <%ae>%n%cn",
                                     lead.branch + "^{/^Merge }").splitlines()
    assert subject == (f"Merge {request['source']} into {lead.branch}, resolved by a person "
                       "in the worktree")
    assert (author, committer) == ("Ada Person <ada@example.com>", "Agent Canvas")
    marks = [e["message"] for e in of_type(events_of(engine.run_dir), "node.progress")
             if "resolved by a person in the worktree" in e.get("message", "")]
    assert len(marks) == 1 and request["source"] in marks[0]
    assert resumed.state.status == "completed"


async def test_a_hand_merge_with_files_still_conflicted_is_kept_and_the_node_waits(
        tmp_path: Path, no_git_config) -> None:
    repo, engine, _request, lead = await refused_then_merged_by_hand(tmp_path)
    worktree = engine.run_dir / lead.worktree
    (worktree / "committed.txt").write_text("half way\n")  # being resolved, not added yet
    (worktree / "notes.txt").write_text("mine\n")
    status, resumed = await resume_to_end(engine.run_dir)
    assert status == "paused"
    lead_state = resumed.state.nodes[lead_id(resumed)]
    assert lead_state.status == "blocked"
    error = [e["message"] for e in of_type(events_of(engine.run_dir), "bus.message",
                                           busType="ERROR")][-1]
    assert "still has conflicts in committed.txt" in error and str(worktree) in error
    assert "git add" in error and "git merge --abort" in error
    # nothing undone: the merge still open, the person's files as they left them
    assert (worktree / "committed.txt").read_text() == "half way\n"
    assert (worktree / "notes.txt").read_text() == "mine\n"
    assert git(worktree, "rev-parse", "--verify", "-q", "MERGE_HEAD")
    assert resumed.state.inboxes[lead_state.id], "the report still waits"

    git(worktree, "add", "committed.txt")
    status, _ = await resume_to_end(engine.run_dir)
    assert status == "completed"
    files = tree_files(repo, lead.branch)
    assert files["committed.txt"] == b"half way\n" and files["notes.txt"] == b"mine\n"


def lead_id(engine: Engine) -> str:
    return next(n.id for n in engine.state.nodes.values() if n.key == "lead")


async def test_a_merge_approval_that_does_not_fit_is_refused_and_still_waits(
        tmp_path: Path, no_git_config) -> None:
    from desktop.runtime.approvals import ApprovalInvalid

    repo = user_repo(tmp_path / "project")
    refusals: list[str] = []

    def decide(request: dict) -> tuple[str, dict | None]:
        return "approved", {"files": {"committed.txt": "theirs"}}

    engine = create_run(same_line(repo), tmp_path / "data")
    loop = asyncio.get_running_loop()

    def asked(pending: PendingRequest) -> None:
        def answer() -> None:
            for status, choice in (("approved", None), ("modified", {"agent": True}),
                                   ("approved", {"files": {"other.txt": "ours"}}),
                                   ("approved", {"files": {}}),
                                   # the sides kept, the markers around them half gone
                                   ("approved", {"contents": {"committed.txt":
                                                              "left\n=======\nright\n"}})):
                with pytest.raises(ApprovalInvalid) as err:
                    engine.broker.resolve(pending.approval_id, status, merge=choice)
                refusals.append(err.value.field)
            engine.broker.resolve(pending.approval_id, *decide(pending.merge or {})[:1],
                                  merge=decide({})[1])
        loop.call_soon(answer)

    engine.broker.subscribe(asked)
    try:
        assert await asyncio.wait_for(engine.run(), 60) == "completed"
    finally:
        engine.close()
    assert refusals == ["merge", "status", "merge.files", "merge.files",
                        "merge.contents.committed.txt"]


async def test_stopping_the_run_while_a_merge_waits_undoes_the_merge(
        tmp_path: Path, no_git_config) -> None:
    repo = user_repo(tmp_path / "project")
    engine = create_run(same_line(repo), tmp_path / "data")
    loop = asyncio.get_running_loop()
    engine.broker.subscribe(lambda pending: loop.create_task(engine.stop("enough")))
    try:
        assert await asyncio.wait_for(engine.run(), 60) == "stopped"
    finally:
        engine.close()
    lead = node_git(engine, "lead")
    worktree = engine.run_dir / lead.worktree
    assert git(worktree, "status", "--porcelain") == ""
    assert not (Path(git(worktree, "rev-parse", "--path-format=absolute", "--git-dir"))
                / "MERGE_HEAD").exists()
    assert not (worktree.parent / ".lead.merging").exists()
    [resolved] = of_type(events_of(engine.run_dir), "approval.resolved")
    assert resolved["resolution"]["status"] == "denied"
