"""`runs delete RUN --dry-run` of named runs: what deleting each would remove (its folder,
each worktree, each branch and ref) or why deleting it would be refused, with nothing
changed; exit 1 when some would be refused. Here and through a service."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import yaml
from cli_kit import Cli, git, make_cli
from own_work import own_repo
from service_process import ServeProcess

from desktop.store.runs import hold_engine_lock


def flow(tmp_path: Path, repo: Path, *, gated: bool = False) -> Path:
    """Lead edits and hands off to Helper, each in a worktree (``gated``: one node,
    waiting for an approval)."""
    if gated:
        doc = {"name": "gated", "task": "t",
               "nodes": [{"id": "worker", "label": "Worker", "entry": True,
                          "permissions": {"cliPermissionsMode": "gated"}}],
               "nodeConfigs": {"worker": {"workspace": str(repo), "script": [
                   {"shell": "echo one"}, {"say": "done"}, {"done": True}]}}}
    else:
        doc = {"name": "two", "task": "t",
               "nodes": [{"id": "lead", "label": "Lead", "entry": True},
                         {"id": "helper", "label": "Helper"}],
               "nodeConfigs": {
                   "lead": {"workspace": str(repo), "script": [
                       {"edit": {"path": "new.txt", "content": "the agent's\n"}},
                       {"handoff": {"to": "helper", "message": "go"}}]},
                   "helper": {"workspace": str(repo), "script": [{"say": "on it"}]}},
               "edges": [{"from": "lead", "to": "helper"}]}
    path = tmp_path / f"{doc['name']}.flow.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def run_ids(cli: Cli) -> list[str]:
    return [r["id"] for r in orjson.loads(cli("runs", "list", "--json").out)]


def traces(repo: Path, data: Path) -> tuple[object, ...]:
    """Everything a deletion would change: run folders, worktrees, refs."""
    return (sorted(p.name for p in (data / "runs").iterdir()),
            git(repo, "worktree", "list", "--porcelain"),
            git(repo, "for-each-ref"), git(repo, "status", "--porcelain"))


def would(run_id: str, folder: Path, stops: bool = False) -> str:
    r8 = run_id[:8]
    first = f"would stop run {r8} in the service running it and delete it" if stops \
        else f"would delete run {r8}"
    return (f"{first}: folder {folder}, 2 worktrees (worktrees/helper, worktrees/lead: "
            f"pooled for the next run or removed), 2 branches (canvas/{r8}/helper, "
            f"canvas/{r8}/lead) and its base ref")


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Cli:
    return make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])


def test_a_dry_run_of_named_runs_says_what_would_go_or_why_not_and_changes_nothing(
        cli: Cli, tmp_path: Path) -> None:
    repo = own_repo(tmp_path / "project")
    for _ in range(4):
        assert cli("run", str(flow(tmp_path, repo))).code == 0
    free, locked, edited, held = run_ids(cli)
    runs = tmp_path / "data" / "runs"
    lead = runs / locked / "worktrees" / "lead"
    git(repo, "worktree", "lock", "--reason", "mine", str(lead))
    tree = runs / edited / "worktrees" / "lead"
    (tree / "mine.txt").write_text("the user's, made after the run\n")
    later = tree.stat().st_mtime + 5
    os.utime(tree / "mine.txt", (later, later))
    before = traces(repo, tmp_path / "data")

    alone = cli("runs", "delete", free[:8], "--dry-run")
    assert alone.code == 0 and alone.err == ""
    assert alone.out == would(free, runs / free) + "\n"
    with hold_engine_lock(runs / held):  # as an `agent-canvas run` in a terminal does
        said = cli("runs", "delete", free[:8], locked[:8], edited[:8], held[:8], "--dry-run")
        forced = cli("runs", "delete", held[:8], "--dry-run", "--force", "--json")
    assert said.code == 1 and said.err == ""
    lines = said.out.splitlines()
    assert lines[0] == would(free, runs / free)
    assert lines[1] == (f"would not delete run {locked[:8]}: kept canvas/{locked[:8]}/lead: "
                        f"locked by you (mine); git worktree unlock {lead}, then delete the "
                        "run again")
    assert lines[2] == (f"would not delete run {edited[:8]}: its worktrees hold work made "
                        "after it ended, which deleting it would lose.")
    assert f"{tree}: 1 uncommitted change (mine.txt)" in said.out
    assert lines[-1] == (f"would not delete run {held[:8]}: it is live (an engine is running "
                         "it); stop it first, or pass --force to have the service running "
                         "it stop it and delete it")
    assert forced.code == 1
    [plan] = orjson.loads(forced.out)
    assert plan["runId"] == held and plan["refs"] == [] and "Ctrl-C" in plan["refused"]
    assert traces(repo, tmp_path / "data") == before

    git(repo, "worktree", "unlock", str(lead))
    planned = orjson.loads(cli("runs", "delete", locked[:8], "--dry-run", "--json").out)
    assert planned[0]["refused"] is None and len(planned[0]["worktrees"]) == 2
    went = orjson.loads(cli("runs", "delete", locked[:8], "--json").out)
    assert sorted(went[0]["refsDeleted"]) == sorted(planned[0]["refs"])
    assert sorted(went[0]["pooled"] + went[0]["removed"]) == planned[0]["worktrees"]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    svc = ServeProcess(tmp_path_factory.mktemp("dry-service"))
    yield svc
    svc.stop()


def test_a_dry_run_of_a_run_the_service_runs_and_through_the_service(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        service: ServeProcess, tmp_path: Path) -> None:
    remote = make_cli(capsys, monkeypatch, ["--server", service.url,
                                            "--data-dir", str(service.data_dir)])
    local = make_cli(capsys, monkeypatch, ["--data-dir", str(service.data_dir)])
    repo = own_repo(tmp_path / "project")
    assert remote("run", str(flow(tmp_path, repo, gated=True))).code == 3  # waits, live
    [live] = run_ids(remote)
    assert remote("run", str(flow(tmp_path, repo))).code == 0
    done = next(i for i in run_ids(remote) if i != live)
    before = traces(repo, service.data_dir)

    stops = local("runs", "delete", live[:8], "--dry-run", "--force")
    assert stops.code == 0, stops.out
    assert stops.out.startswith(f"would stop run {live[:8]} in the service running it and "
                                f"delete it: folder {service.data_dir / 'runs' / live}, "
                                "1 worktree (worktrees/worker: ")
    over = remote("runs", "delete", live[:8], done[:8], "--dry-run")
    assert over.code == 1
    refused, listed = over.out.splitlines()
    assert refused.startswith(f"would not delete run {live[:8]}: it is live")
    assert listed.startswith(f"would delete run {done[:8]}: two, completed, last event ")
    assert remote("runs", "delete", live[:8], "--dry-run", "--force").code == 0
    assert traces(repo, service.data_dir) == before
    assert {live, done} <= set(run_ids(remote))
    assert remote("runs", "delete", live[:8], "--force").code == 0
