"""Every command method of the API client, with every parameter it offers set, against a
live service: the service takes each (no 422 for a field it forbids, as
``ApiClient.resolve(by=...)`` once got), and the run shows what was sent."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from typing import Any

import pytest
from api_helpers import GATED, TOKEN, Api, workflow

from desktop.api.client import ApiClient
from desktop.contract import commands as c


@pytest.fixture
async def client(api: Api) -> AsyncIterator[ApiClient]:
    async with ApiClient(str(api.client.make_url("")), TOKEN) as made:
        yield made


async def with_every_parameter(method: Any, args: list[Any], values: dict[str, Any],
                               skip: tuple[str, ...] = ()) -> Any:
    """Call ``method`` with ``args`` (its required parameters) and every optional one: from
    ``values``, or for one this test does not know a string, so that whatever the client
    offers travels (a parameter the service forbids gets its 422 here)."""
    optional = [p for p in inspect.signature(method).parameters.values()
                if p.default is not inspect.Parameter.empty and p.name not in skip]
    kwargs = {p.name: values.get(p.name, f"set by the test: {p.name}") for p in optional}
    return await method(*args, **kwargs)


async def test_every_client_command_is_taken_by_a_live_service(api: Api,
                                                                client: ApiClient) -> None:
    doc = workflow({"a": {"script": [{"shell": "echo hi > out.txt"}, {"say": "done"}],
                          "permissions": GATED},
                    "b": {"script": [{"say": "second"}]}},
                   edges=[{"from": "a", "to": "b", "type": "handoff"}], mode="INTERACTIVE")
    run_id = (await client.create_run(workflow=doc))["id"]
    state = await api.until(run_id, lambda s: s["status"] == "running"
                            and any(s["inboxes"].values()))
    ids = {node["key"]: node_id for node_id, node in state["nodes"].items()}
    task = state["inboxes"][ids["a"]][0]["id"]

    await with_every_parameter(client.edit_inbox, [run_id, "a", task, "do it well"],
                               {"structured": {"goal": "well"}})
    await with_every_parameter(client.chat, [run_id, "b", "once more"], {})
    created = await with_every_parameter(client.add_node, [run_id, "helper"], {
        "label": "Helper", "role_template": "implementer", "provider": "scripted",
        "config": {"instructions": "help", "script": [{"say": "helping"}]},
        "capabilities": {"writeDocs": False}, "permissions": {"cliPermissionsMode": "skip"},
        "connect_from": "a"})
    await with_every_parameter(client.patch_node, [run_id, "helper"],
                               {"label": "Helper 2", "config": {"instructions": "more"}})
    edge = await with_every_parameter(client.add_edge, [run_id, "b", "helper"], {
        "type": "report", "label": "findings", "bidirectional": True})
    state = await api.run_state(run_id)
    assert state["inboxes"][ids["a"]][0]["text"] == "do it well"
    assert state["inboxes"][ids["b"]][-1]["text"] == "once more"
    assert state["nodes"][created["nodeId"]]["label"] == "Helper 2"
    assert state["nodeConfigs"][created["nodeId"]]["instructions"] == "more"
    assert (state["edges"][edge["edgeId"]]["type"], state["edges"][edge["edgeId"]]["label"]) \
        == ("report", "findings")
    await client.delete_edge(run_id, edge["edgeId"])
    await client.delete_node(run_id, "helper")
    assert created["nodeId"] not in (await api.run_state(run_id))["nodes"]

    assert (await with_every_parameter(client.step, [run_id], {"node": "a"})) == \
        {"nodeId": ids["a"]}
    state = await api.until(run_id, lambda s: bool(s["pendingApprovals"]))
    approval = next(iter(state["pendingApprovals"]))
    # merge decides merge approvals only, choice choice approvals; this one is a tool call
    done = await with_every_parameter(
        client.resolve, [approval, "modified"],
        {"modified_args": {"cmd": "echo changed > other.txt"}, "reason": "not that file"},
        skip=("merge", "choice"))
    assert done["resolution"] == {"status": "modified", "reason": "not that file",
                                  "modifiedArgs": {"cmd": "echo changed > other.txt"},
                                  "by": "api"}  # a client that did not say which

    await with_every_parameter(client.patch_run, [run_id],
                               {"status": "paused", "mode": "auto",
                                "global_mode": "implementation"})
    assert (await api.run_state(run_id))["status"] == "paused"
    await client.send(run_id, c.Stop())
    assert (await api.finished(run_id))["status"] == "stopped"
