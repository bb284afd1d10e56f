"""`agent-canvas runs list|show|events` and `agent-canvas replay`."""

import json

import pytest
from storekit import NODE_A, RUN_ID, created, ev, story

from desktop.cli import main
from desktop.disk.paths import runs_dir
from desktop.store.eventlog import EventLog
from desktop.store.snapshot import Snapshotter


@pytest.fixture
def run(_private_data_dir):
    folder = runs_dir(_private_data_dir) / RUN_ID
    with EventLog.open(folder) as log:
        snap = Snapshotter(folder, every=100, log=log)
        for e in story():
            log.append(e)
        log.flush()
        snap.close()
    return folder


def out_json(capsys):
    return json.loads(capsys.readouterr().out)


def test_runs_list(run, capsys):
    assert main(["runs", "list", "--json"]) == 0
    (row,) = out_json(capsys)
    assert row["id"] == RUN_ID and row["status"] == "interrupted" and row["events"] == 12
    assert (row["totalTokens"], row["costUsd"]) == (15, 0.01)
    assert main(["runs", "list"]) == 0
    listed = capsys.readouterr().out
    assert "demo" in listed and "$0.0100" in listed
    assert main(["runs", "--data-dir", str(run.parent.parent), "list"]) == 0


def test_runs_list_empty(tmp_path, capsys):
    assert main(["runs", "list", "--data-dir", str(tmp_path)]) == 0
    assert "no runs" in capsys.readouterr().out


def test_runs_show(run, capsys):
    assert main(["runs", "show", RUN_ID[:6]]) == 0
    text = capsys.readouterr().out
    assert "interrupted" in text and "Plan ready" in text and "pending approval" in text
    assert main(["runs", "show", str(run), "--json"]) == 0
    data = out_json(capsys)
    assert data["displayStatus"] == "interrupted" and data["inboxes"][NODE_A][0]["id"] == "i2"


def test_runs_show_says_a_cost_not_reported_is_unknown_and_what_budget_paused_it(
        _private_data_dir, capsys):
    folder = runs_dir(_private_data_dir) / RUN_ID
    with EventLog.open(folder) as log:
        for e in [created(budget={"maxTokens": 100}), ev("run.started"),
                  ev("telemetry.usage", nodeId=NODE_A, inputTokens=90, outputTokens=20),
                  ev("run.budget_exceeded", limit="maxTokens", budget=100, used=110)]:
            log.append(e)
        log.flush()
    assert main(["runs", "show", RUN_ID]) == 0
    text = capsys.readouterr().out
    assert "110 tokens" in text and "cost unknown" in text and "$0" not in text
    assert "budget: 100 tokens" in text and "budget of the run reached" in text
    assert main(["runs", "list", "--json"]) == 0
    (row,) = out_json(capsys)
    assert (row["totalTokens"], row["costUsd"]) == (110, "unknown")


def test_runs_events_paging(run, capsys):
    assert main(["runs", "events", RUN_ID, "--limit", "5", "--json"]) == 0
    page = out_json(capsys)
    assert [e["seq"] for e in page["events"]] == [8, 9, 10, 11, 12] and page["hasMore"]
    assert main(["runs", "events", RUN_ID, "--before", "8", "--limit", "3", "--json"]) == 0
    assert [e["seq"] for e in out_json(capsys)["events"]] == [5, 6, 7]
    assert main(["runs", "events", RUN_ID, "--after", "10", "--json"]) == 0
    assert [e["seq"] for e in out_json(capsys)["events"]] == [11, 12]
    assert main(["runs", "events", RUN_ID, "--limit", "4"]) == 0
    assert "more: --before 9" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["runs", "show", "nope"], ["runs", "events", "nope"],
                                  ["replay", "nope"], ["runs", "events", "x", "--limit", "0"]])
def test_bad_run_refs_exit_2_with_one_line(run, capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_replay_same_and_different(run, capsys):
    assert main(["replay", RUN_ID]) == 0
    assert "same" in capsys.readouterr().out
    with EventLog.open(run) as log:  # events after the snapshot: replay sees the difference
        log.append(ev("node.progress", nodeId=NODE_A, message="after snapshot"))
    assert main(["replay", RUN_ID]) == 1
    text = capsys.readouterr().out
    assert f"nodes.{NODE_A}.summary" in text and "lastSeq" in text
    assert main(["replay", RUN_ID, "--json"]) == 1
    fields = {d["field"] for d in out_json(capsys)["differences"]}
    assert f"nodes.{NODE_A}.summary" in fields


def test_replay_without_snapshot(_private_data_dir, capsys):
    folder = runs_dir(_private_data_dir) / RUN_ID
    with EventLog.open(folder) as log:
        log.append(created())
    # a run killed before its first snapshot: the log folds, nothing to compare
    assert main(["replay", RUN_ID]) == 0
    assert "no snapshot yet" in capsys.readouterr().out
