"""Live graph changes over REST: each is an event, checked like an agent's spawn/create."""

from __future__ import annotations

from typing import Any

from api_helpers import Api, slow, workflow

from desktop.views.reader import EventReader


def events(api: Api, run_id: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in EventReader(api.data / "runs" / run_id).iter_events()
            if e["type"] == kind]


async def live_run(api: Api, doc: dict[str, Any] | None = None) -> tuple[str, dict[str, str]]:
    """A run whose entry node is busy for a while; (run id, node ids by key)."""
    run_id = (await api.start(doc or slow(60)))["id"]
    state = await api.until(run_id, lambda s: bool(s["runningTurns"]))
    return run_id, {node["key"]: node_id for node_id, node in state["nodes"].items()}


async def test_added_node_and_edge_take_part_in_the_run(api: Api) -> None:
    doc = workflow({"a": {"script": [{"say": "working"}, {"sleep": 1.5}, {"say": "over"}]}})
    run_id, ids = await live_run(api, doc)
    created = await api.json("POST", f"/api/runs/{run_id}/nodes", 201, {
        "key": "helper", "label": "Helper", "connectFrom": "a",
        "config": {"script": [{"say": "helping"}], "instructions": "help"}})
    assert set(created) == {"nodeId", "key", "edgeId"} and created["key"] == "helper"
    state = await api.run_state(run_id)
    node = state["nodes"][created["nodeId"]]
    assert node["label"] == "Helper" and node["addedAtRuntime"] is True
    assert state["nodeConfigs"][created["nodeId"]]["instructions"] == "help"
    edge = state["edges"][created["edgeId"]]
    assert (edge["from"], edge["to"], edge["type"]) == (ids["a"], created["nodeId"], "handoff")
    final = await api.finished(run_id)
    assert final["status"] == "completed"
    assert final["turns"][created["nodeId"]] == 1  # the handoff from `a` reached it
    spawned = [e for e in events(api, run_id, "node.patch")
               if e.get("nodeId") == created["nodeId"] and e["patch"].get("addedAtRuntime")]
    assert len(spawned) == 1
    assert [e["edge"]["id"] for e in events(api, run_id, "edge.created")] == [created["edgeId"]]


async def test_add_node_is_checked_like_spawn_node(api: Api) -> None:
    run_id, _ids = await live_run(api)
    url = f"/api/runs/{run_id}/nodes"
    error = (await api.json("POST", url, 409, {"key": "a"}))["error"]
    assert "already exists" in error["message"]
    await api.json("POST", url, 422, {"key": "not a slug!"})
    await api.json("POST", url, 422, {"key": "x", "provider": "nonsense"})
    error = (await api.json("POST", url, 422, {"key": "x", "config": {"colour": 1}}))["error"]
    assert error["field"] == "config.colour"
    error = (await api.json("POST", url, 422, {"key": "x", "config": {"stallThreshold": 1}}))
    assert error["error"]["field"] == "config.stallThreshold"
    error = (await api.json("POST", url, 404, {"key": "x", "connectFrom": "ghost"}))["error"]
    assert error["field"] == "connectFrom"
    await api.json("POST", url, 422, {"key": "x", "connectFrom": "self"})
    error = (await api.json("POST", url, 422, {"key": "x", "nodeColour": "red"}))["error"]
    assert (error["code"], error["field"]) == ("unknown_field", "nodeColour")
    assert len((await api.run_state(run_id))["nodes"]) == 1


async def test_patch_node_label_and_config(api: Api) -> None:
    run_id, ids = await live_run(api)
    url = f"/api/runs/{run_id}/nodes/{ids['a']}"
    await api.json("PATCH", url, 200, {"label": "Renamed", "config": {"instructions": "new"}})
    state = await api.run_state(run_id)
    assert state["nodes"][ids["a"]]["label"] == "Renamed"
    assert state["nodeConfigs"][ids["a"]]["instructions"] == "new"
    assert state["nodeConfigs"][ids["a"]]["script"]  # the rest of the config is kept
    await api.json("PATCH", f"/api/runs/{run_id}/nodes/a", 200, {"label": "By key"})
    await api.json("PATCH", f"/api/runs/{run_id}/nodes/ghost", 404, {"label": "x"})
    await api.json("PATCH", url, 422, {})
    error = (await api.json("PATCH", url, 422, {"config": {"limits": {"maxTurns": 0}}}))
    assert error["error"]["field"].startswith("config.limits")


async def test_add_and_delete_edges(api: Api) -> None:
    doc = workflow({"a": {"script": [{"sleep": 60}]}, "b": {"script": [{"say": "b"}]}},
                   edges=[{"from": "a", "to": "b", "type": "handoff"}])
    run_id, ids = await live_run(api, doc)
    url = f"/api/runs/{run_id}/edges"
    created = await api.json("POST", url, 201, {"from": "b", "to": "a", "type": "report",
                                                 "label": "findings"})
    assert (created["from"], created["to"]) == (ids["b"], ids["a"])
    edge = (await api.run_state(run_id))["edges"][created["edgeId"]]
    assert (edge["type"], edge["label"], edge["addedAtRuntime"]) == ("report", "findings", True)
    await api.json("POST", url, 404, {"from": "a", "to": "ghost"})
    await api.json("POST", url, 422, {"from": "a", "to": "b", "type": "teleport"})
    # the editor's rules (the one gatekeeper): no second edge of a type, no edge to itself
    error = (await api.json("POST", url, 409, {"from": "a", "to": "b"}))["error"]
    assert "already has a handoff edge" in error["message"] and error["field"] == "to"
    error = (await api.json("POST", url, 422, {"from": "b", "to": "b"}))["error"]
    assert "cannot hand off to itself" in error["message"]
    await api.json("DELETE", f"{url}/{created['edgeId']}", 204)
    assert created["edgeId"] not in (await api.run_state(run_id))["edges"]
    await api.json("DELETE", f"{url}/{created['edgeId']}", 404)
    assert [e["edgeId"] for e in events(api, run_id, "edge.deleted")] == [created["edgeId"]]


async def test_delete_node_takes_its_edges_and_refuses_a_busy_node(api: Api) -> None:
    doc = workflow({"a": {"script": [{"sleep": 60}]}, "b": {"script": [{"say": "b"}]}},
                   edges=[{"from": "a", "to": "b", "type": "handoff"}])
    run_id, ids = await live_run(api, doc)
    error = (await api.json("DELETE", f"/api/runs/{run_id}/nodes/a", 409))["error"]
    assert "taking a turn" in error["message"]
    await api.json("DELETE", f"/api/runs/{run_id}/nodes/b", 204)
    state = await api.run_state(run_id)
    assert ids["b"] not in state["nodes"] and ids["b"] not in state["nodeConfigs"]
    assert state["edges"] == {}
    await api.json("DELETE", f"/api/runs/{run_id}/nodes/b", 404)
    assert [e["nodeId"] for e in events(api, run_id, "node.deleted")] == [ids["b"]]


async def test_graph_changes_need_a_live_run(api: Api) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}]}})))["id"]
    await api.finished(run_id)
    for method, path, body in (("POST", "/nodes", {"key": "x"}),
                               ("PATCH", "/nodes/a", {"label": "x"}),
                               ("DELETE", "/nodes/a", None),
                               ("POST", "/edges", {"from": "a", "to": "a"})):
        # (an edge this run never had is 404: the test below)
        error = (await api.json(method, f"/api/runs/{run_id}{path}", 409, body))["error"]
        assert error["code"] == "run_not_live"


async def test_edit_a_queued_inbox_item(api: Api) -> None:
    doc = workflow({"a": {"script": [{"say": "first"}]}, "b": {"script": [{"say": "second"}]}},
                   edges=[{"from": "a", "to": "b", "type": "handoff"}], mode="INTERACTIVE")
    run_id = (await api.start(doc))["id"]
    await api.until(run_id, lambda s: s["status"] == "running" and any(s["inboxes"].values()))
    await api.json("POST", f"/api/runs/{run_id}/step", 202, {"nodeId": "a"})
    state = await api.until(run_id, lambda s: any(
        n["key"] == "b" and s["inboxes"].get(i) for i, n in s["nodes"].items()))
    b = next(i for i, n in state["nodes"].items() if n["key"] == "b")
    item = state["inboxes"][b][0]["id"]
    await api.json("POST", f"/api/runs/{run_id}/inbox/{item}", 200,
                   {"nodeId": "b", "text": "do it differently"})
    assert (await api.run_state(run_id))["inboxes"][b][0]["text"] == "do it differently"
    await api.json("POST", f"/api/runs/{run_id}/step", 202, {"nodeId": "b"})
    await api.finished(run_id)


async def test_editing_an_inbox_item_is_404_unless_it_exists_and_409_once_taken(
        api: Api) -> None:
    doc = workflow({"a": {"script": [{"say": "first"}]}, "b": {"script": [{"say": "second"}]}},
                   edges=[{"from": "a", "to": "b", "type": "handoff"}], mode="INTERACTIVE")
    run_id = (await api.start(doc))["id"]
    state = await api.until(run_id, lambda s: s["status"] == "running"
                            and any(s["inboxes"].values()))
    a = next(i for i, n in state["nodes"].items() if n["key"] == "a")
    item = state["inboxes"][a][0]["id"]
    inbox = f"/api/runs/{run_id}/inbox"
    for missing in ("nope", "00000000-0000-4000-8000-000000000000"):
        error = (await api.json("POST", f"{inbox}/{missing}", 404,
                                {"nodeId": "a", "text": "x"}))["error"]
        assert (error["code"], error["field"]) == ("not_found", "itemId")
        assert missing in error["message"]
    error = (await api.json("POST", f"{inbox}/{item}", 404,
                            {"nodeId": "b", "text": "x"}))["error"]  # it waits for a
    assert (error["code"], error["field"]) == ("not_found", "nodeId")
    await api.json("POST", f"/api/runs/{run_id}/step", 202, {"nodeId": "a"})
    await api.until(run_id, lambda s: not s["inboxes"].get(a))  # a's turn took it
    error = (await api.json("POST", f"{inbox}/{item}", 409,
                            {"nodeId": "a", "text": "too late"}))["error"]
    assert (error["code"], error["field"]) == ("conflict", "itemId")


async def test_deleting_a_node_needs_its_exact_id_or_key(api: Api) -> None:
    doc = workflow({"a": {"script": [{"sleep": 60}]}, "b": {"script": [{"say": "b"}]}},
                   edges=[{"from": "a", "to": "b", "type": "handoff"}])
    run_id, ids = await live_run(api, doc)
    await api.json("DELETE", f"/api/runs/{run_id}/nodes/{ids['b'][:8]}", 404)  # a prefix
    await api.json("DELETE", f"/api/runs/{run_id}/nodes/B", 404)  # the label
    await api.json("DELETE", f"/api/runs/{run_id}/nodes/{ids['b']}", 204)


async def test_on_a_finished_run_an_unknown_id_is_404_and_a_known_one_409_not_live(
        api: Api) -> None:
    # an unknown id is unknown whatever the run's state (as an approval's is): resuming
    # the run would not make it exist, so "not live, resume it first" would mislead
    doc = workflow({"a": {"script": [{"say": "first"}]}, "b": {"script": [{"say": "second"}]}},
                   edges=[{"from": "a", "to": "b", "type": "handoff"}])
    run_id = (await api.start(doc))["id"]
    state = await api.finished(run_id)
    assert state["status"] == "completed"
    events = (await api.json("GET", f"/api/runs/{run_id}/events?limit=1000", 200))["events"]
    item = next(e["item"]["id"] for e in events if e["type"] == "inbox.queued")
    edge = next(iter(state["edges"]))
    run = f"/api/runs/{run_id}"
    missing = "00000000-0000-4000-8000-000000000000"
    for method, path, body, field in (
            ("POST", f"{run}/inbox/{missing}", {"nodeId": "a", "text": "x"}, "itemId"),
            ("POST", f"{run}/inbox/nope", {"nodeId": "a", "text": "x"}, "itemId"),
            ("DELETE", f"{run}/nodes/nope", None, "nodeId"),
            ("PATCH", f"{run}/nodes/nope", {"label": "x"}, "nodeId"),
            ("DELETE", f"{run}/edges/{missing}", None, "edgeId"),
            ("POST", f"/api/approvals/{missing}/resolve", {"status": "approved"},
             "approvalId")):
        error = (await api.json(method, path, 404, body))["error"]
        assert error["field"] == field, (path, error)
        assert path.split("/")[-1] in error["message"] or missing in error["message"]
    for method, path, body in (
            ("POST", f"{run}/inbox/{item}", {"nodeId": "a", "text": "x"}),
            ("DELETE", f"{run}/nodes/a", None),
            ("PATCH", f"{run}/nodes/b", {"label": "x"}),
            ("DELETE", f"{run}/edges/{edge}", None)):
        error = (await api.json(method, path, 409, body))["error"]
        assert error["code"] == "run_not_live", (path, error)
    assert (await api.run_state(run_id)) == state  # nothing changed


async def test_an_unknown_approval_id_is_named_cut_short_not_echoed_whole(api: Api) -> None:
    long_id = "a" * 5000
    error = (await api.json("POST", f"/api/approvals/{long_id}/resolve", 404,
                            {"status": "approved"}))["error"]
    assert error["field"] == "approvalId"
    assert "a" * 64 + "…" in error["message"] and len(error["message"]) < 200
