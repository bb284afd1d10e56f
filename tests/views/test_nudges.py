"""Which notices nudge the user (requests, pauses the run took by itself, ends), once each,
never while they look at the app, and never for a kind they turned off."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.notices import (
    ApprovalClosed,
    ApprovalOpened,
    BudgetExceeded,
    DiffAdded,
    NodeFailed,
    RunChanged,
    RunStalled,
    StallEnded,
    TurnChanged,
    notices_of,
)
from desktop.views.nudges import KINDS, USER_PAUSE, Nudge, Nudges, one_of
from desktop.views.result import listed_left, what_it_left

STALL = {"type": "run.stalled", "nodeId": "n1", "reason": "repeat",
         "evidence": {"signal": "output", "count": 3, "threshold": 3}}
TOOL = {"type": "approval.requested", "approvalId": "a1", "nodeId": "n1",
        "tool": {"name": "Bash", "args": {"command": "rm -rf build"}}}


def test_a_request_nudges_once_with_what_it_asks_and_where_it_waits():
    rules = Nudges()
    [nudge] = rules.decide("r1", "Review", notices_of([TOOL]))
    assert nudge.kind == "approvals" and nudge.target == "approval" and nudge.item == "a1"
    assert nudge.title == "Review waits for your approval" and "rm -rf build" in nudge.text
    assert rules.decide("r1", "Review", notices_of([TOOL])) == []  # the same request again
    assert len(rules.decide("r2", "Review", notices_of([TOOL]))) == 1  # another run's


def test_a_merge_request_says_merge():
    merge = {"type": "approval.requested", "approvalId": "m1", "kind": "merge",
             "merge": {"source": "a", "target": "b", "files": [{"path": "x.txt"}]}}
    [nudge] = Nudges().decide("r", "Flow", notices_of([merge]))
    assert nudge.title == "Flow waits for your merge" and "x.txt" in nudge.text


def test_a_stall_nudges_once_until_the_run_goes_on():
    rules = Nudges()
    stalled = notices_of([STALL])  # a RunStalled and a RunChanged("run.stalled")
    [nudge] = rules.decide("r", "Flow", stalled)
    assert (nudge.kind, nudge.target) == ("pauses", "stall")
    assert "same output came back 3 times" in nudge.text
    assert rules.decide("r", "Flow", stalled) == []
    rules.decide("r", "Flow", notices_of([{"type": "run.resumed"}]))
    assert len(rules.decide("r", "Flow", stalled)) == 1  # a new stall after the resume


def test_pauses_the_run_took_by_itself_nudge_and_the_users_own_do_not():
    budget = notices_of([{"type": "run.budget_exceeded", "limit": "maxTokens",
                          "budget": 1000, "used": 1200}])
    [nudge] = Nudges().decide("r", "Flow", budget)
    assert nudge.target == "paused"
    assert nudge.text == "Paused: the run's budget is reached (tokens 1,200 of 1,000)."
    conflict = [RunChanged("run.paused", "paused: merge conflict with canvas/r/a")]
    [nudge] = Nudges().decide("r", "Flow", conflict)
    assert nudge.text == "merge conflict with canvas/r/a"
    assert Nudges().decide("r", "Flow", [RunChanged("run.paused", USER_PAUSE)]) == []


def test_a_run_end_nudges_once_and_points_at_the_result():
    rules = Nudges()
    failed = notices_of([{"type": "run.failed", "reason": "boom"}])
    [nudge] = rules.decide("r", "Flow", failed, left="result")
    assert (nudge.kind, nudge.target, nudge.title) == ("ends", "result", "Flow failed")
    assert nudge.text == "boom"
    assert rules.decide("r", "Flow", [RunChanged("run.failed", "boom")]) == []
    [stopped] = Nudges().decide("r", "", [RunChanged("run.stopped")])
    assert stopped.title == "A run was stopped"


QUIET = [ApprovalClosed("a1", "approved"), StallEnded(), NodeFailed("n", "x"),
         DiffAdded("n", "d.patch"), TurnChanged("n", "running"), RunChanged("run.started"),
         RunChanged("run.resumed"), RunChanged("run.paused", USER_PAUSE)]
LOUD = [ApprovalOpened("a1", TOOL), ApprovalOpened("a2", TOOL), RunStalled(STALL),
        BudgetExceeded("", "maxCostUsd", 1.0, 1.5), RunChanged("run.paused", "paused: x"),
        RunChanged("run.completed"), RunChanged("run.stopped")]
notices = st.lists(st.sampled_from(QUIET + LOUD), max_size=12)


@given(notices)
def test_what_the_user_does_or_what_merely_moves_never_nudges(batch):
    quiet = [n for n in batch if n in QUIET]
    assert Nudges().decide("r", "Flow", quiet) == []


@given(st.lists(notices, max_size=4))
def test_no_item_nudges_twice_however_the_batches_fall(batches):
    rules = Nudges()
    told = [(n.run_id, n.target, n.item) for b in batches for n in rules.decide("r", "F", b)]
    requests = [t for t in told if t[1] == "approval"]
    assert len(requests) == len(set(requests))
    assert sum(t[1] in ("result", "conversation") for t in told) <= 1  # a run ends once


@given(notices, st.sets(st.sampled_from(KINDS)))
def test_a_kind_turned_off_never_shows_and_the_others_are_untouched(batch, enabled):
    every = Nudges().decide("r", "Flow", batch)
    some = Nudges(set(enabled)).decide("r", "Flow", batch)
    assert some == [n for n in every if n.kind in enabled]


@given(notices)
def test_nothing_shows_while_the_user_looks_and_what_they_saw_stays_told(batch):
    rules = Nudges()
    assert rules.decide("r", "Flow", batch, watching=True) == []
    later = rules.decide("r", "Flow", batch)
    assert not any(n.target == "approval" or n.kind == "ends" for n in later)


def test_one_of_a_batch_is_its_latest_news_with_the_count_of_the_rest():
    nudges = Nudges().decide("r", "Flow", [ApprovalOpened("a1", TOOL),
                                           RunChanged("run.completed")], left="result")
    shown = one_of(nudges)
    assert shown is not None and shown.target == "result"
    assert shown.text.endswith("(and 1 more)")
    assert one_of([]) is None and one_of(nudges[:1]) == nudges[0]


def test_the_services_pending_requests_become_each_runs_notices():
    from desktop.views.nudges import requests_by_run

    items = {"a1": {**TOOL, "runId": "r1"}, "a2": {**TOOL, "runId": "r2"},
             "a3": {**TOOL, "runId": "r1"}, "odd": {"kind": "tool"}}
    by_run = requests_by_run(items)
    assert {run: [n.approval_id for n in notices] for run, notices in by_run.items()} == \
        {"r1": ["a1", "a3"], "r2": ["a2"]}
    rules = Nudges()
    assert [n.item for n in rules.decide("r1", "Flow", by_run["r1"])] == ["a1", "a3"]


def _listed(run_id: str, status: str, *waiting: dict, result: bool = False) -> dict:
    row = {"id": run_id, "status": status, "workflowName": "Flow", "waiting": list(waiting)}
    if result:  # the run list names a run's result branch when it has one
        row["result"] = {"nodeId": "n1", "node": "coder", "branch": f"canvas/{run_id}/n1",
                         "repo": "/repo", "applied": []}
    return row


LISTED_STALL = {"kind": "stall", "nodeId": "n1", "node": "Coder", "reason": "silent for 300 s"}
LISTED_BUDGET = {"kind": "budget", "nodeId": None, "node": "", "reason": "maxTokens 1000 reached"}


def test_the_run_list_tells_of_the_pauses_and_ends_of_runs_no_tab_shows():
    from desktop.views.nudges import list_notices

    rules = Nudges()
    before = {"r1": "running", "r2": "running", "r3": "completed"}
    runs = [_listed("r1", "paused", LISTED_STALL), _listed("r2", "completed", result=True),
            _listed("r3", "completed"), _listed("r4", "failed")]
    by_run = list_notices(before, runs)
    assert set(by_run) == {"r1", "r2"}  # r3 ended before; r4 was never seen live
    [paused] = rules.decide("r1", "Flow", by_run["r1"])
    assert (paused.kind, paused.target, paused.text) == \
        ("pauses", "paused", "Coder: silent for 300 s")
    [ended] = rules.decide("r2", "Flow", by_run["r2"], left=listed_left(runs[1]))
    assert (ended.kind, ended.title, ended.target) == ("ends", "Flow completed", "result")
    again = list_notices({"r1": "paused", "r2": "completed"}, runs)
    assert not rules.decide("r1", "Flow", again["r1"])  # the same pause: told already
    going = list_notices({"r1": "paused"}, [_listed("r1", "running")])
    assert not rules.decide("r1", "Flow", going["r1"])  # on again: the pause is over ...
    budget = list_notices({"r1": "running"}, [_listed("r1", "paused", LISTED_BUDGET)])
    [spent] = rules.decide("r1", "Flow", budget["r1"])  # ... so the next one nudges
    assert spent.text == "The run: maxTokens 1000 reached"


@given(st.lists(st.sampled_from(["queued", "running", "paused", "completed", "failed",
                                 "stopped"]), min_size=1, max_size=8))
def test_a_run_listed_many_times_ends_at_most_once(statuses: list[str]):
    from desktop.views.nudges import list_notices

    rules, seen, shown = Nudges(), {}, []
    for status in statuses:
        runs = [_listed("r", status)]
        for notices in list_notices(seen, runs).values():
            shown += [n for n in rules.decide("r", "Flow", notices) if n.kind == "ends"]
        seen = {"r": status}
    ended_after_live = any(a not in ("completed", "failed", "stopped")
                           and b in ("completed", "failed", "stopped")
                           for a, b in pairwise(statuses))
    assert len(shown) == (1 if ended_after_live else 0)


def _state(*, git: bool = False, diff: bool = False) -> dict:
    """A run's state as a client folds it: a node (in a worktree or not), and a diff."""
    node = {"id": "n1", "label": "Coder"}
    if git:
        node["git"] = {"repo": "/repo", "branch": "canvas/r/n1", "base": "0" * 40}
    artifacts = {"a1": {"id": "a1", "kind": "diff", "path": "n1/diff.patch"}} if diff else {}
    return {"nodes": {"n1": node}, "artifacts": artifacts}


def test_an_end_promises_a_result_only_when_the_run_has_a_result_branch():
    completed = [RunChanged("run.completed")]
    [branch] = Nudges().decide("r", "Flow", completed,
                               left=what_it_left(_state(git=True, diff=True)))
    assert (branch.text, branch.target) == ("Its result is ready to review.", "result")
    [diffs] = Nudges().decide("r", "Flow", completed, left=what_it_left(_state(diff=True)))
    assert diffs.target == "diffs" and "Diffs tab" in diffs.text
    assert "result is ready" not in diffs.text
    [bare] = Nudges().decide("r", "Flow", completed, left=what_it_left(_state()))
    assert bare.target == "conversation" and "no change to review" in bare.text
    [unknown] = Nudges().decide("r", "Flow", completed)  # a run list row of a hosted run
    assert unknown.target == "conversation" and "result" not in unknown.text


def test_a_run_list_row_tells_of_a_result_only_when_it_names_one():
    assert listed_left(_listed("r", "completed", result=True)) == "result"
    assert listed_left(_listed("r", "completed")) is None  # its diffs are not listed


def test_a_nudge_reads_as_one_line_whether_its_text_is_a_sentence_or_a_fragment() -> None:
    ended = Nudge("ends", "r", "Review completed", "Its result is ready to review.", "result")
    assert ended.line == "Review completed. Its result is ready to review."
    waits = Nudge("approvals", "r", "Review waits for your merge",
                  "merge canvas/a/x into canvas/a/y: conflicts in a.txt", "approval", "m1")
    assert waits.line == "Review waits for your merge: merge canvas/a/x into canvas/a/y: " \
                         "conflicts in a.txt"


def test_a_best_of_run_without_a_git_workspace_points_at_its_scratch_folder():
    # its attempts worked in worktrees of the run's own repository and keep their branches
    state = {**_state(diff=True), "nodeConfigs": {"n1": {"attempts": 2}}}
    assert what_it_left(state) == "scratch"
    [end] = Nudges().decide("r", "Flow", [RunChanged("run.completed")],
                            left=what_it_left(state))
    assert end.target == "diffs" and "scratch folder" in end.text
    assert "each best-of-N attempt keeps its branch" in end.text
    with_workspace = {**state, "nodeConfigs": {"n1": {"attempts": 2, "workspace": "/w"}}}
    assert what_it_left(with_workspace) == "diffs"
