"""Runs over REST: create, list, read, page events, pause/resume/stop, approvals."""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

from api_helpers import EXAMPLE, GATED, Api, gated_shell, slow, workflow

from desktop.contract.state import RunState
from desktop.graph.resources import examples_dir
from desktop.views.reader import EventReader


async def test_example_runs_to_completion_and_is_listed(api: Api) -> None:
    created = await api.json("POST", "/api/runs", 201,
                             {"workflowPath": str(examples_dir() / EXAMPLE)})
    RunState.model_validate(created)
    run_id = created["id"]
    state = await api.finished(run_id)
    assert state["status"] == "completed"
    assert state["workflowPath"] == str((examples_dir() / EXAMPLE).resolve())
    runs = (await api.json("GET", "/api/runs", 200))["runs"]
    assert [r["id"] for r in runs] == [run_id]
    assert runs[0]["workflowName"] == "Single agent"
    assert runs[0]["status"] == "completed" and runs[0]["live"] is False


async def test_runs_are_listed_newest_first(api: Api) -> None:
    first = (await api.start(workflow({"a": {"script": [{"say": "one"}]}})))["id"]
    second = (await api.start(workflow({"a": {"script": [{"say": "two"}]}})))["id"]
    await api.finished(first)
    await api.finished(second)
    runs = (await api.json("GET", "/api/runs", 200))["runs"]
    assert [r["id"] for r in runs] == [second, first]


async def test_events_page_backwards_and_forwards_like_the_log(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"deltas": 300}]}})))["id"]
    await api.finished(run_id)
    every = list(EventReader(api.data / "runs" / run_id).iter_events())
    base = f"/api/runs/{run_id}/events"
    newest = await api.json("GET", f"{base}?limit=50", 200)
    assert newest["events"] == every[-50:]
    assert newest["page"] == {"nextCursor": every[-50]["seq"], "hasMore": True}
    older = await api.json("GET", f"{base}?limit=50&before={newest['page']['nextCursor']}", 200)
    assert older["events"] == every[-100:-50]
    seen, cursor = [], 0
    while True:
        page = await api.json("GET", f"{base}?limit=97&after={cursor}", 200)
        seen += page["events"]
        if not page["page"]["hasMore"]:
            assert page["page"]["nextCursor"] is None
            break
        cursor = page["page"]["nextCursor"]
    assert seen == every


async def test_pause_resume_and_mode_switch(api: Api) -> None:
    run_id = (await api.start(slow(1.0)))["id"]
    await api.until(run_id, lambda s: s["status"] == "running")
    paused = await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "paused"})
    assert paused["status"] == "paused"
    switched = await api.json("PATCH", f"/api/runs/{run_id}", 200,
                              {"mode": "interactive", "globalMode": "PLANNING"})
    assert (switched["mode"], switched["globalMode"]) == ("INTERACTIVE", "PLANNING")
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"mode": "AUTO", "status": "running"})
    assert (await api.finished(run_id))["status"] == "completed"


async def test_stop_ends_a_live_run(api: Api) -> None:
    run_id = (await api.start(slow(60)))["id"]
    await api.until(run_id, lambda s: bool(s["runningTurns"]))
    stopped = await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    assert stopped["status"] == "stopped"
    await api.finished(run_id)
    await api.json("PATCH", f"/api/runs/{run_id}", 409, {"status": "stopped"})


async def test_gated_call_is_listed_and_resolved_once(api: Api) -> None:
    run_id = (await api.start(gated_shell()))["id"]
    await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    approvals = (await api.json("GET", "/api/approvals", 200))["approvals"]
    assert len(approvals) == 1
    pending = approvals[0]
    assert pending["runId"] == run_id and pending["tool"]["args"]["cmd"] == "echo hi > out.txt"
    url = f"/api/approvals/{pending['approvalId']}/resolve"
    done = await api.json("POST", url, 200, {"status": "approved"})
    assert done["resolution"]["status"] == "approved"
    again = await api.json("POST", url, 409, {"status": "denied"})
    assert again["error"]["code"] == "approval_resolved"
    assert (await api.finished(run_id))["status"] == "completed"
    assert (api.data / "runs" / run_id / "workspace" / "out.txt").read_text().strip() == "hi"
    await api.json("POST", url, 409, {"status": "approved"})  # still known after the run


async def test_modified_call_runs_with_the_new_arguments(api: Api) -> None:
    run_id = (await api.start(gated_shell()))["id"]
    state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    approval_id = next(iter(state["pendingApprovals"]))
    await api.json("POST", f"/api/approvals/{approval_id}/resolve", 422, {"status": "modified"})
    await api.json("POST", f"/api/approvals/{approval_id}/resolve", 200,
                   {"status": "modified", "modifiedArgs": {"cmd": "echo changed > other.txt"}})
    await api.finished(run_id)
    workspace = api.data / "runs" / run_id / "workspace"
    assert (workspace / "other.txt").read_text().strip() == "changed"
    assert not (workspace / "out.txt").exists()


async def test_unknown_approval_is_404(api: Api) -> None:
    body = await api.json("POST", "/api/approvals/nope/resolve", 404, {"status": "approved"})
    assert body["error"]["field"] == "approvalId"


async def test_chat_and_step_in_an_interactive_run(api: Api) -> None:
    doc = workflow({"a": {"script": [{"say": "first"}]}, "b": {"script": [{"say": "second"}]}},
                   edges=[{"from": "a", "to": "b", "type": "handoff"}], mode="INTERACTIVE")
    run_id = (await api.start(doc))["id"]
    state = await api.until(run_id, lambda s: s["status"] == "running"
                            and any(s["inboxes"].values()))
    ids = {node["key"]: node_id for node_id, node in state["nodes"].items()}
    stepped = await api.json("POST", f"/api/runs/{run_id}/step", 202, {})
    assert stepped == {"nodeId": ids["a"]}
    await api.until(run_id, lambda s: s["turns"].get(ids["a"]) == 1
                    and s["inboxes"].get(ids["b"]))
    chat = await api.json("POST", f"/api/runs/{run_id}/chat", 202,
                          {"nodeId": "b", "message": "once more"})
    assert chat == {"nodeId": ids["b"]}
    inbox = (await api.run_state(run_id))["inboxes"][ids["b"]]
    assert [item["kind"] for item in inbox] == ["handoff", "user"]
    await api.json("POST", f"/api/runs/{run_id}/step", 404, {"nodeId": "nobody"})
    await api.json("POST", f"/api/runs/{run_id}/step", 202, {"nodeId": ids["b"]})
    assert (await api.finished(run_id))["status"] == "completed"
    nothing = await api.json("POST", f"/api/runs/{run_id}/step", 409, {})
    assert nothing["error"]["code"] == "run_not_live"


async def test_delete_refuses_a_live_run_unless_forced(api: Api) -> None:
    run_id = (await api.start(slow(60)))["id"]
    await api.until(run_id, lambda s: bool(s["runningTurns"]))
    body = await api.json("DELETE", f"/api/runs/{run_id}", 409)
    assert body["error"]["code"] == "run_live"
    await api.json("DELETE", f"/api/runs/{run_id}?force=true", 200)
    assert not (api.data / "runs" / run_id).exists()
    await api.json("GET", f"/api/runs/{run_id}", 404)
    assert (await api.json("GET", "/api/runs", 200))["runs"] == []


async def test_delete_of_a_finished_run(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}]}})))["id"]
    await api.finished(run_id)
    await api.json("DELETE", f"/api/runs/{run_id}", 200)
    await api.json("DELETE", f"/api/runs/{run_id}", 404)


async def test_delete_removes_the_runs_worktrees_and_branches(api: Api, tmp_path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "mine.txt").write_text("uncommitted work of the user\n")
    run_id = (await api.start(workflow({"a": {"workspace": str(repo), "script": [
        {"edit": {"path": "new.txt", "content": "the agent's\n"}}]}})))["id"]
    assert (await api.finished(run_id))["status"] == "completed"

    def canvas_refs() -> str:
        return subprocess.run(["git", "for-each-ref", "refs/heads/canvas/", "refs/canvas/"],
                              cwd=repo, capture_output=True, text=True, check=True).stdout

    assert f"canvas/{run_id[:8]}/a" in canvas_refs()
    went = await api.json("DELETE", f"/api/runs/{run_id}", 200)
    assert canvas_refs() == ""
    # the answer says what went: the node's worktree (removed, not pooled: a repository
    # without a commit has no HEAD to detach a pooled one at), the branch and the base ref
    assert went["runId"] == run_id and went["folder"] == str(api.data / "runs" / run_id)
    assert [Path(p).name for p in went["removed"]] == ["a"] and went["pooled"] == []
    assert sorted(went["refsDeleted"]) == [f"refs/canvas/{run_id[:8]}/base",
                                           f"refs/heads/canvas/{run_id[:8]}/a"]
    listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout
    assert listed.count("worktree ") == 1 and run_id not in listed
    assert sorted(p.name for p in repo.iterdir()) == [".git", "mine.txt"]


async def test_delete_refuses_a_run_whose_worktree_holds_the_user_s_later_edit(
        api: Api, tmp_path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    run_id = (await api.start(workflow({"a": {"workspace": str(repo), "script": [
        {"edit": {"path": "new.txt", "content": "the agent's\n"}}]}})))["id"]
    state = await api.finished(run_id)
    tree = api.data / "runs" / run_id / "worktrees" / "a"
    (tree / "new.txt").write_text("the agent's, fixed by the user\n")
    later = datetime.fromisoformat(state["updatedAt"].replace("Z", "+00:00")).timestamp() + 5
    os.utime(tree / "new.txt", (later, later))

    refused = (await api.json("DELETE", f"/api/runs/{run_id}", 409))["error"]
    assert refused["code"] == "worktree_changed" and refused["problems"] == [str(tree)]
    assert f"{tree}: 1 uncommitted change (new.txt)" in refused["message"]
    assert (tree / "new.txt").read_text() == "the agent's, fixed by the user\n"
    await api.json("GET", f"/api/runs/{run_id}", 200)  # still listed

    subprocess.run(["git", "checkout", "--", "new.txt"], cwd=tree, check=True)  # dropped
    await api.json("DELETE", f"/api/runs/{run_id}", 200)
    assert not (api.data / "runs" / run_id).exists()


async def test_forcing_a_live_run_s_delete_refuses_the_user_s_edit_in_a_waiting_node(
        api: Api, tmp_path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    run_id = (await api.start(workflow({
        "a": {"workspace": str(repo), "script": [
            {"edit": {"path": "a.txt", "content": "a's\n"}},
            {"handoff": {"to": "b", "message": "your turn"}}]},
        "b": {"workspace": str(repo), "script": [{"shell": "echo b > b.txt"}],
              "permissions": GATED}}, [{"from": "a", "to": "b"}])))["id"]
    state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    assert state["nodes"][_node_id(state, "a")]["status"] == "idle"
    trees = api.data / "runs" / run_id / "worktrees"
    (trees / "b" / "note.txt").write_text("b's turn is under way: not told apart\n")
    (trees / "a" / "a.txt").write_text("a's, fixed by the user while b works\n")
    later = datetime.fromisoformat(
        state["nodes"][_node_id(state, "a")]["lastActivityAt"].replace("Z", "+00:00")
    ).timestamp() + 5
    os.utime(trees / "a" / "a.txt", (later, later))

    refused = (await api.json("DELETE", f"/api/runs/{run_id}?force=true", 409))["error"]
    assert refused["code"] == "worktree_changed"
    assert refused["problems"] == [str(trees / "a")]
    assert "hold work made while its nodes waited" in refused["message"]
    # refused before the run was stopped: it still waits for b's approval
    assert run_id in api.service.hosted
    assert (await api.run_state(run_id))["pendingApprovals"]

    subprocess.run(["git", "checkout", "--", "a.txt"], cwd=trees / "a", check=True)  # dropped
    await api.json("DELETE", f"/api/runs/{run_id}?force=true", 200)
    assert not (api.data / "runs" / run_id).exists()


def _node_id(state: dict, key: str) -> str:
    return next(nid for nid, node in state["nodes"].items() if node.get("key") == key)


async def test_delete_refuses_a_run_whose_worktree_the_user_locked_and_leaves_it_live(
        api: Api, tmp_path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    for args in (["init", "-q"], ["-c", "user.name=U", "-c", "user.email=u@example.com",
                                   "commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    run_id = (await api.start(workflow({"a": {
        "workspace": str(repo), "script": [{"shell": "echo hi"}, {"say": "done"}],
        "permissions": GATED}})))["id"]
    await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    tree = api.data / "runs" / run_id / "worktrees" / "a"
    subprocess.run(["git", "worktree", "lock", "--reason", "keep", str(tree)], cwd=repo,
                   check=True)

    refused = (await api.json("DELETE", f"/api/runs/{run_id}?force=true", 409))["error"]
    assert refused["code"] == "worktree_locked" and refused["problems"] == [str(tree)]
    assert refused["message"] == (
        f"run {run_id[:8]} not deleted, nothing was changed: kept canvas/{run_id[:8]}/a: "
        f"locked by you (keep); git worktree unlock {tree}, then delete the run again")
    # refused before the live run was stopped: it still waits for its approval
    assert run_id in api.service.hosted and tree.is_dir()
    assert (await api.run_state(run_id))["pendingApprovals"]

    subprocess.run(["git", "worktree", "unlock", str(tree)], cwd=repo, check=True)
    await api.json("DELETE", f"/api/runs/{run_id}?force=true", 200)
    assert not (api.data / "runs" / run_id).exists()


async def test_health_counts_live_runs(api: Api) -> None:
    assert (await api.json("GET", "/api/health", 200))["runs"] == 0
    run_id = (await api.start(slow(60)))["id"]
    await api.until(run_id, lambda s: s["status"] == "running")
    assert (await api.json("GET", "/api/health", 200))["runs"] == 1


async def test_a_document_with_its_path_runs_the_document(api: Api, tmp_path) -> None:
    doc = workflow({"a": {"script": [{"say": "from the document"}]}})
    where = str(tmp_path / "elsewhere" / "unsaved.flow.yaml")  # not read, never confined
    created = await api.json("POST", "/api/runs", 201, {"workflow": doc, "workflowPath": where})
    assert created["workflowPath"] == where
    assert (await api.finished(created["id"]))["status"] == "completed"
    error = (await api.json("POST", "/api/runs", 422,
                            {"workflow": doc, "workflowPath": "relative.flow.yaml"}))["error"]
    assert (error["code"], error["field"]) == ("invalid_path", "workflowPath")
    error = (await api.json("POST", "/api/runs", 422, {"mode": "AUTO"}))["error"]
    assert "workflowPath, workflow, or both" in error["message"]


async def test_the_readme_walkthrough_example(api: Api) -> None:
    """resources/examples/service/approve-a-command: approve the first call, deny the second."""
    from desktop.graph.io import dumps_workflow
    from desktop.graph.validate import check_file

    path = examples_dir() / "service" / "approve-a-command.flow.yaml"
    doc, problems = check_file(str(path))
    assert doc is not None and not [p for p in problems if p.is_error]
    assert path.read_text(encoding="utf-8") == dumps_workflow(doc)
    run_id = (await api.json("POST", "/api/runs", 201, {"workflowPath": str(path)}))["id"]
    for decision in ({"status": "approved"}, {"status": "denied", "reason": "no need"}):
        state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
        approval_id = next(iter(state["pendingApprovals"]))
        await api.json("POST", f"/api/approvals/{approval_id}/resolve", 200, decision)
        await api.until(run_id, lambda s, a=approval_id: a not in s["pendingApprovals"])
    assert (await api.finished(run_id))["status"] == "completed"
    workspace = api.data / "runs" / run_id / "workspace"
    assert (workspace / "build.txt").read_text().strip() == "built"


async def test_an_approval_resolved_before_a_restart_is_still_409_after_it(tmp_path) -> None:
    from api_helpers import GATED, make_api_parts

    script = {"a": {"script": [{"shell": "echo one"}, {"shell": "echo two"}, {"say": "ok"}],
                    "permissions": GATED}}
    service, client, data, flows = make_api_parts(tmp_path)
    await client.start_server()
    api = Api(client, service, data, flows)
    run_id = (await api.start(workflow(script)))["id"]
    state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    first = next(iter(state["pendingApprovals"]))
    await api.json("POST", f"/api/approvals/{first}/resolve", 200, {"status": "approved"})
    await api.until(run_id, lambda s: bool(s["pendingApprovals"])
                    and first not in s["pendingApprovals"])
    await service.shutdown()  # as SIGTERM: the run is left resumable
    await client.close()

    for folder in ("data", "flows"):  # a new service on the same data folder
        (tmp_path / folder).rename(tmp_path / f"kept-{folder}")
    service, client, data, flows = make_api_parts(tmp_path)
    for folder in ("data", "flows"):
        shutil.rmtree(tmp_path / folder)
        (tmp_path / f"kept-{folder}").rename(tmp_path / folder)
    await client.start_server()
    try:
        api = Api(client, service, data, flows)
        await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "running"})
        again = await api.json("POST", f"/api/approvals/{first}/resolve", 409,
                               {"status": "denied"})
        assert again["error"]["code"] == "approval_resolved"
        await api.json("POST", "/api/approvals/not-an-approval/resolve", 404,
                       {"status": "denied"})
    finally:
        await service.shutdown()
        await client.close()


async def test_a_stalled_run_says_in_the_list_what_waits_on_a_person(api: Api) -> None:
    loop = workflow({"a": {"stallThreshold": 2, "script": [{"say": "same again"}]},
                     "b": {"stallThreshold": 5, "script": [{"say": "back to you"}]}},
                    [{"from": "a", "to": "b", "type": "handoff"},
                     {"from": "b", "to": "a", "type": "handoff"}])
    run_id = (await api.start(loop))["id"]
    await api.until(run_id, lambda s: s["status"] == "paused" and s.get("stall"))
    row = next(r for r in (await api.json("GET", "/api/runs", 200))["runs"]
               if r["id"] == run_id)
    assert row["live"] is True
    assert [(w["kind"], w["node"]) for w in row["waiting"]] == [("stall", "A")]
    assert row["waiting"][0]["reason"].startswith("the same ") and row["waiting"][0]["nodeId"]
    await api.json("PATCH", f"/api/runs/{run_id}", 200, {"status": "stopped"})
    await api.finished(run_id)
    row = next(r for r in (await api.json("GET", "/api/runs", 200))["runs"]
               if r["id"] == run_id)
    assert "waiting" not in row  # a stopped run waits on nobody
