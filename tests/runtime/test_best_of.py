"""Best-of-N: a node's turn runs as attempts in their own worktrees, and the judge's
choice decides whose work and output go on; the losers' commits stay in the run."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from engine_helpers import events_of, of_type, until, workflow
from gitkit import fingerprint, no_git_config, user_repo

from desktop.contract.events import parse_event
from desktop.runtime.approvals import PendingRequest
from desktop.runtime.engine import Engine, EngineOptions
from desktop.runtime.recovery import create_run

__all__ = ["no_git_config"]


def two_ways(workspace: dict[str, Any]) -> Any:
    """``impl`` tries twice (models a and b write different files); ``check`` lists the
    files it then sees."""
    return workflow({
        "impl": {**workspace, "attempts": [{"model": "a"}, {"model": "b"}], "script": {
            "models": {"a": [{"edit": {"path": "one.txt", "content": "first\n"}},
                             {"say": "wrote one.txt"}],
                       "b": [{"edit": {"path": "two.txt", "content": "second\n"}},
                             {"say": "wrote two.txt"}]}}},
        "check": {**workspace, "script": [{"shell": "ls > seen.txt"}, {"say": "checked"}]},
    }, [{"from": "impl", "to": "check"}])


async def run_choosing(doc: Any, data: Path, pick: int | None,
                       status: str = "approved",
                       options: EngineOptions | None = None) -> tuple[Engine, list[dict]]:
    """Run ``doc``, answering each choice approval with ``pick``; the engine and the
    choice requests seen."""
    engine = create_run(doc, data, options=options)
    loop = asyncio.get_running_loop()
    seen: list[dict] = []

    def asked(pending: PendingRequest) -> None:
        assert pending.choice is not None, pending
        seen.append(pending.choice)
        loop.call_soon(lambda: engine.broker.resolve(pending.approval_id, status,
                                                     by="test", choice=pick))

    engine.broker.subscribe(asked)
    try:
        await asyncio.wait_for(engine.run(), 60)
    finally:
        engine.close()
    return engine, seen


def git_out(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                          check=True).stdout.strip()


async def test_the_chosen_attempt_goes_on_and_the_loser_stays(tmp_path: Path,
                                                               no_git_config: None) -> None:
    repo = user_repo(tmp_path / "repo")
    before = fingerprint(repo)
    engine, seen = await run_choosing(two_ways({"workspace": str(repo)}), tmp_path / "data",
                                      pick=2)
    events = events_of(engine.run_dir)
    assert engine.state.status == "completed"
    assert fingerprint(repo) == before
    [request] = seen
    assert [a["index"] for a in request["attempts"]] == [1, 2]
    assert "one.txt" in request["attempts"][0]["diffstat"]
    assert "two.txt" in request["attempts"][1]["diffstat"]
    # each attempt's diff travels with the request, to compare them side by side
    assert "+++ b/one.txt" in request["attempts"][0]["diffHead"]
    assert "+++ b/two.txt" in request["attempts"][1]["diffHead"]
    for event in events:
        parse_event(event)  # every event, attempts and choice included, fits the contract
    [made] = of_type(events, "choice.made")
    assert made["attemptIndex"] == 2
    assert engine.state.nodes[engine.find_node("impl")].summary.startswith(
        "attempt 2 chosen: wrote two.txt")  # the card no longer says it waits
    # the next node sees attempt 2's work only
    seen_files = (engine.run_dir / "worktrees" / "check" / "seen.txt").read_text().split()
    assert "two.txt" in seen_files and "one.txt" not in seen_files
    # the handoff carries the winner's output
    [handoff] = of_type(events, "handoff.sent")
    assert "wrote two.txt" in handoff["envelope"]["payload"]["message"]
    # the agents' events say which attempt they belong to
    finals = of_type(events, "message.assistant.final", nodeId=engine.find_node("impl"))
    assert {e["text"]: e["attemptIndex"] for e in finals} == {"wrote one.txt": 1,
                                                               "wrote two.txt": 2}
    # the losing attempt's commit is still reachable from its branch (for fork)
    loser = next(e["summary"] for e in of_type(events, "attempt.completed")
                 if e["attemptIndex"] == 1)
    assert git_out(repo, "rev-parse", loser["branch"]) == loser["commit"]
    assert "one.txt" in git_out(repo, "show", "--stat", "--format=", loser["commit"])


async def test_attempts_without_a_workspace_use_the_run_scratch(tmp_path: Path) -> None:
    engine, _seen = await run_choosing(two_ways({}), tmp_path, pick=1)
    assert engine.state.status == "completed"
    scratch = sorted((engine.run_dir).glob("**/seen.txt"))
    assert scratch, "check ran in the scratch folder"
    listed = scratch[0].read_text().split()
    assert "one.txt" in listed and "two.txt" not in listed


async def test_a_denied_choice_fails_the_turn(tmp_path: Path) -> None:
    engine, _seen = await run_choosing(two_ways({}), tmp_path, pick=None, status="denied")
    assert engine.state.status == "failed"
    [failed] = of_type(events_of(engine.run_dir), "turn.status", status="failed")
    assert "no attempt was chosen" in failed["reason"]
    # its input waits, so resuming the run runs the attempts again
    assert failed["inputKept"] is True and engine.state.inboxes[failed["nodeId"]]


async def test_the_console_chooses_when_the_choice_opens(tmp_path: Path) -> None:
    """``choose 2`` typed before the attempts end waits for the choice, then picks."""
    from desktop.cli.run_console import Console

    engine = create_run(two_ways({}), tmp_path)
    said: list[str] = []
    run = asyncio.create_task(engine.run())
    try:
        await until(lambda: bool(engine.tasks))  # the attempts are under way
        await Console(engine, said.append, lambda: None).execute("choose 2")
        assert said and said[-1].startswith("chose attempt 2"), said
        await asyncio.wait_for(run, 60)
    finally:
        engine.close()
    assert engine.state.status == "completed"
    [made] = of_type(events_of(engine.run_dir), "choice.made")
    assert made["attemptIndex"] == 2 and made["by"] == "terminal"  # who chose, where
    [resolved] = of_type(events_of(engine.run_dir), "approval.resolved")
    assert resolved["resolution"]["choice"] == 2 and resolved["resolution"]["by"] == "terminal"


async def test_an_attempt_that_fails_cannot_win_and_none_winning_fails_the_turn(
        tmp_path: Path) -> None:
    doc = workflow({"impl": {"attempts": 2, "script": [{"fail": "broken"}]}})
    engine, seen = await run_choosing(doc, tmp_path, pick=1)
    assert seen == []  # nothing to choose from: no one is asked
    assert engine.state.status == "failed"
    [failed] = of_type(events_of(engine.run_dir), "turn.status", status="failed")
    assert "none of the 2 attempts succeeded" in failed["reason"]


def judged(verdict: str) -> Any:
    """``impl`` tries twice and ``referee`` judges, answering ``verdict``."""
    doc = two_ways({})
    data = doc.model_dump(by_alias=True, exclude_none=True)
    data["nodes"].append({"id": "referee", "label": "Referee"})
    data["nodeConfigs"]["impl"]["judge"] = "referee"
    data["nodeConfigs"]["referee"] = {"script": [{"shell": "cat \"$AGENT_CANVAS_INBOX\" > "
                                                           "asked.json"},
                                                 {"say": verdict}]}
    return type(doc).model_validate(data)


async def test_a_judge_node_reads_the_attempts_and_its_answer_picks(tmp_path: Path) -> None:
    engine, seen = await run_choosing(judged("Attempt 2 is better: it splits cleanly."),
                                      tmp_path, pick=None)
    events = events_of(engine.run_dir)
    assert seen == []  # the node judged; no person was asked
    assert engine.state.status == "completed"
    [made] = of_type(events, "choice.made")
    assert made["attemptIndex"] == 2 and made["by"] == "referee"
    # the judge's turn held both attempts' outputs and diffs
    [asked] = sorted(engine.run_dir.glob("**/asked.json"))
    text = asked.read_text()
    assert "wrote one.txt" in text and "wrote two.txt" in text
    assert "+first" in text and "+second" in text
    listed = next(engine.run_dir.glob("**/seen.txt")).read_text().split()
    assert "two.txt" in listed and "one.txt" not in listed


async def test_a_node_waiting_for_its_judge_gives_up_its_turn_slot(tmp_path: Path) -> None:
    engine, _seen = await run_choosing(judged("2"), tmp_path, pick=None,
                                       options=EngineOptions(concurrency=1))
    assert engine.state.status == "completed"  # with one slot, the judge still got a turn
    [made] = of_type(events_of(engine.run_dir), "choice.made")
    assert made["attemptIndex"] == 2 and not engine.judged


async def test_a_judge_that_names_no_attempt_fails_the_turn_saying_so(tmp_path: Path) -> None:
    engine, _seen = await run_choosing(judged("Both are fine."), tmp_path, pick=None)
    assert engine.state.status == "failed"
    [failed] = of_type(events_of(engine.run_dir), "turn.status", status="failed",
                       nodeId=engine.find_node("impl"))
    assert "named no attempt" in failed["reason"] and "Both are fine" in failed["reason"]
