"""A run's result over REST: the result branch and its files, one file's diff, applying it
(checked, as a branch, onto the working tree, the accepted files only), a collision
refused with the files named and nothing changed, a pull request through a stand-in
``gh``, and bad requests refused naming the field."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from api_helpers import TOKEN, Api, workflow
from lockkit import applying_elsewhere

from desktop.api.client import ApiClient, ApiError
from desktop.store.applied import read_applied

USER = ("-c", "user.name=U", "-c", "user.email=u@example.com")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


def project(tmp_path: Path) -> Path:
    """A repository with a commit and uncommitted work of the user's."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "lib.txt").write_text("committed\n")
    git(repo, "add", "lib.txt")
    git(repo, "commit", "-q", "-m", "init")
    (repo / "lib.txt").write_text("committed\nwork in progress\n")
    (repo / "notes.txt").write_text("untracked\n")
    return repo


def two_implementers(repo: Path) -> dict:
    ws = {"workspace": str(repo)}
    return workflow({
        "lead": {**ws, "script": [{"say": "lead"}], "stallThreshold": 10},
        "left": {**ws, "script": [{"edit": {"path": "left.txt", "content": "left\n"}}]},
        "right": {**ws, "script": [{"edit": {"path": "right.txt", "content": "right\n"}}]},
    }, [{"from": "lead", "to": "left"}, {"from": "lead", "to": "right"},
        {"from": "left", "to": "lead", "type": "report"},
        {"from": "right", "to": "lead", "type": "report"}])


async def finished_run(api: Api, repo: Path) -> str:
    run_id = (await api.start(two_implementers(repo)))["id"]
    assert (await api.finished(run_id))["status"] == "completed"
    return run_id


async def test_the_result_is_listed_diffed_checked_and_applied_as_a_branch_and_onto_the_tree(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    base = f"/api/runs/{run_id}"
    result = await api.json("GET", f"{base}/result", 200)
    assert result["node"] == "lead" and result["branch"] == f"canvas/{run_id[:8]}/lead"
    assert result["files"] == [{"path": "left.txt", "status": "added"},
                               {"path": "right.txt", "status": "added"}]
    assert result["applied"] == [] and result["pullRequest"]  # no remote here
    listed = next(r for r in (await api.json("GET", "/api/runs", 200))["runs"]
                  if r["id"] == run_id)
    assert listed["result"]["branch"] == result["branch"] and listed["result"]["applied"] == []
    diff = await api.json("GET", f"{base}/result/diff?path=left.txt", 200)
    assert "+left\n" in diff["patch"]
    for query in ("", "?path=lib.txt"):
        refused = await api.json("GET", f"{base}/result/diff{query}", 422)
        assert refused["error"]["field"] == "path"

    status = git(repo, "status", "--porcelain")
    checked = await api.json("POST", f"{base}/apply", 200, {"check": True})
    assert checked["applied"] is False and checked["files"] == ["left.txt", "right.txt"]
    made = await api.json("POST", f"{base}/apply", 200, {"branch": "agent/result"})
    assert made["applied"] and made["commit"] == git(repo, "rev-parse", "agent/result")
    assert git(repo, "ls-tree", "--name-only", "agent/result").split() == \
        ["left.txt", "lib.txt", "right.txt"]
    assert git(repo, "show", "agent/result:lib.txt") == "committed"  # their WIP stays theirs
    assert git(repo, "status", "--porcelain") == status  # the checkout untouched

    (repo / "left.txt").write_text("the user's own left\n")
    collided = await api.json("POST", f"{base}/apply", 409, {})
    assert collided["error"]["code"] == "apply_collides"
    assert collided["error"]["problems"] == ["left.txt"]
    assert not (repo / "right.txt").exists()  # nothing changed
    taken = await api.json("POST", f"{base}/apply", 200, {"files": ["right.txt"]})
    assert taken["applied"] and taken["files"] == ["right.txt"]
    assert (repo / "right.txt").read_text() == "right\n"
    assert (repo / "left.txt").read_text() == "the user's own left\n"
    assert (repo / "lib.txt").read_text() == "committed\nwork in progress\n"
    applied = (await api.json("GET", f"{base}/result", 200))["applied"]
    assert [(a["target"], a["branch"]) for a in applied] == [("branch", "agent/result"),
                                                             ("worktree", None)]
    listed = next(r for r in (await api.json("GET", "/api/runs", 200))["runs"]
                  if r["id"] == run_id)
    assert listed["events"] > 0
    assert listed["result"]["applied"] == applied  # the list follows, with no wait


async def test_bad_apply_requests_are_refused_naming_the_field(api: Api,
                                                               tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    url = f"/api/runs/{run_id}/apply"
    for body, field in (({"files": "left.txt"}, "files"), ({"branch": ""}, "branch"),
                        ({"check": "maybe"}, "check"), ({"force": True}, "force"),
                        ({"files": ["nope.txt"]}, "files"),
                        ({"branch": "bad..name"}, "branch")):
        refused = await api.json("POST", url, 422, body)
        assert refused["error"]["field"] == field, (body, refused)
    await api.json("POST", f"/api/runs/{'0' * 8}-0000-4000-8000-000000000000/apply", 404, {})
    assert not (repo / "left.txt").exists()


async def test_the_client_sends_an_empty_branch_name_to_be_refused(api: Api,
                                                                  tmp_path: Path) -> None:
    # `runs apply --branch "$NAME" --server URL` with NAME unset: the empty name must be
    # refused, not dropped, which would apply onto the working tree instead
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    status = git(repo, "status", "--porcelain")
    async with ApiClient(str(api.client.make_url("")), TOKEN) as client:
        with pytest.raises(ApiError) as refused:
            await client.apply(run_id, branch="")
    assert refused.value.status == 422 and refused.value.field == "branch"
    assert git(repo, "status", "--porcelain") == status
    assert not (repo / "left.txt").exists()


async def test_a_run_without_worktrees_has_no_result(api: Api) -> None:
    run_id = (await api.start(workflow({"solo": {"script": [{"say": "hi"}]}})))["id"]
    await api.finished(run_id)
    refused = await api.json("GET", f"/api/runs/{run_id}/result", 409)
    assert refused["error"]["code"] == "no_result"
    assert "worktree" in refused["error"]["message"]


@pytest.fixture
def stand_in_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``gh`` on PATH that records its arguments and prints a pull request's url."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "gh.args"
    gh = bin_dir / "gh"
    gh.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {log}\n"
                  "echo 'Creating pull request'\necho https://github.com/u/p/pull/7\n")
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


async def run_with_remote(api: Api, tmp_path: Path) -> tuple[Path, Path, str]:
    """A finished run on a repository with a bare remote ``origin``: (repo, remote, run)."""
    repo = project(tmp_path)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    return repo, remote, await finished_run(api, repo)


async def test_a_pull_request_pushes_the_branch_and_opens_it_with_gh(
        api: Api, tmp_path: Path, stand_in_gh: Path) -> None:
    repo, remote, run_id = await run_with_remote(api, tmp_path)
    base = f"/api/runs/{run_id}"
    assert (await api.json("GET", f"{base}/result", 200))["pullRequest"] is None
    not_made = await api.json("POST", f"{base}/pull-request", 409, {"branch": "agent/result"})
    assert "apply the result as a branch first" in not_made["error"]["message"]
    await api.json("POST", f"{base}/apply", 200, {"branch": "agent/result"})
    opened = await api.json("POST", f"{base}/pull-request", 201, {"branch": "agent/result"})
    assert opened == {"url": "https://github.com/u/p/pull/7", "remote": "origin"}
    assert git(remote, "rev-parse", "agent/result") == git(repo, "rev-parse", "agent/result")
    args = stand_in_gh.read_text().splitlines()
    assert args[:4] == ["pr", "create", "--head", "agent/result"]
    assert run_id in stand_in_gh.read_text()
    upstream = subprocess.run(["git", "config", "--get", "branch.agent/result.remote"],
                              cwd=repo, capture_output=True, check=False)
    assert upstream.returncode == 1  # pushed by name: the user's config gained nothing


async def test_a_pull_request_of_a_branch_the_run_did_not_make_is_refused_and_nothing_pushed(
        api: Api, tmp_path: Path, stand_in_gh: Path) -> None:
    repo, remote, run_id = await run_with_remote(api, tmp_path)
    base = f"/api/runs/{run_id}"
    git(repo, "branch", "wip")  # the user's own work, never pushed by a run's request
    await api.json("POST", f"{base}/apply", 200, {"branch": "agent/result"})
    for theirs in ("wip", git(repo, "symbolic-ref", "--short", "HEAD")):
        refused = await api.json("POST", f"{base}/pull-request", 409, {"branch": theirs})
        message = refused["error"]["message"]
        assert f"branch {theirs} was not made from run {run_id[:8]}'s result" in message
        assert f"runs apply {run_id[:8]} --branch NAME" in message
    assert git(remote, "for-each-ref") == "" and not stand_in_gh.exists()


async def test_a_repository_mid_merge_gets_409_naming_it_and_keeps_its_state(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    git(repo, "stash", "push", "-q", "--include-untracked")
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "lib.txt").write_text("side\n")
    git(repo, "commit", "-q", "-am", "side")
    git(repo, "checkout", "-q", "main")
    (repo / "lib.txt").write_text("main\n")
    git(repo, "commit", "-q", "-am", "main")
    with pytest.raises(subprocess.CalledProcessError):
        git(repo, "merge", "side")
    status = git(repo, "status", "--porcelain")
    refused = await api.json("POST", f"/api/runs/{run_id}/apply", 409, {})
    assert refused["error"]["code"] == "repository_busy"
    assert "in the middle of a merge" in refused["error"]["message"]
    assert "git merge --abort" in refused["error"]["message"]
    assert git(repo, "status", "--porcelain") == status and not (repo / "left.txt").exists()


async def test_an_apply_while_a_terminal_applies_the_run_gets_409_apply_busy(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    url = f"/api/runs/{run_id}/apply"
    status = git(repo, "status", "--porcelain")
    with applying_elsewhere(api.data / "runs" / run_id):  # `agent-canvas runs apply`
        for body in ({}, {"branch": "agent/result"}):
            refused = (await api.json("POST", url, 409, body))["error"]
            assert refused["code"] == "apply_busy"
            assert refused["message"] == (
                f"another apply of run {run_id[:8]} is under way (in the app, a service or "
                "a terminal): let that one finish, then apply again")
        assert git(repo, "status", "--porcelain") == status
        assert git(repo, "branch", "--list", "agent/result") == ""
        assert (await api.json("POST", url, 200, {"check": True}))["files"]
    assert (await api.json("POST", url, 200, {}))["applied"]


async def test_an_apply_lock_put_there_as_a_link_is_409_of_the_run_folder_not_the_files(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not the run's\n")
    (api.data / "runs" / run_id / "apply.lock").symlink_to(elsewhere)
    status = git(repo, "status", "--porcelain")
    refused = (await api.json("POST", f"/api/runs/{run_id}/apply", 409, {}))["error"]
    assert refused["code"] == "run_folder_unusable" and "field" not in refused
    assert "apply.lock: is a symbolic link" in refused["message"]
    assert git(repo, "status", "--porcelain") == status
    assert elsewhere.read_text() == "not the run's\n"


async def test_an_application_to_the_working_tree_is_undone_through_the_api_and_client(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    base = f"/api/runs/{run_id}"
    status = git(repo, "status", "--porcelain")
    none = await api.json("POST", f"{base}/apply/undo", 409, {})
    assert none["error"]["code"] == "nothing_to_undo"
    for body, field in (({"check": "maybe"}, "check"), ({"files": []}, "files")):
        refused = await api.json("POST", f"{base}/apply/undo", 422, body)
        assert refused["error"]["field"] == field, (body, refused)
    await api.json("POST", f"{base}/apply", 200, {})
    (repo / "left.txt").write_text("the user's own left\n")
    collided = await api.json("POST", f"{base}/apply/undo", 409, {})
    assert collided["error"]["code"] == "undo_collides"
    assert collided["error"]["problems"] == ["left.txt"]
    assert (repo / "right.txt").read_text() == "right\n"  # nothing changed
    (repo / "left.txt").write_text("left\n")
    branch = (await api.json("GET", f"{base}/result", 200))["branch"]
    git(repo, "update-ref", "-d", f"refs/heads/{branch}")  # by hand: undo needs it not
    gone = (await api.json("GET", f"{base}/result", 409))["error"]["message"]
    assert "is gone" in gone and "--undo` still puts back" in gone
    async with ApiClient(str(api.client.make_url("")), TOKEN) as client:
        checked = await client.undo_apply(run_id, check=True)
        assert checked["applied"] is False and checked["files"] == ["left.txt", "right.txt"]
        undone = await client.undo_apply(run_id)
    assert undone["applied"] and undone["files"] == ["left.txt", "right.txt"]
    assert git(repo, "status", "--porcelain") == status
    assert (repo / "lib.txt").read_text() == "committed\nwork in progress\n"
    assert read_applied(api.data / "runs" / run_id)[0]["undone"]
