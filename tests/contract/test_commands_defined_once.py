"""Commands are defined once (desktop/contract/commands.py), and everything that speaks them
agrees: the service's routes and request bodies, the API client's methods, and the two
consoles (in-process and through the service). Every failure names the command and the
field that drifted."""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections import defaultdict
from types import SimpleNamespace
from typing import Annotated, Any

import pytest

from desktop.api.client import ApiClient
from desktop.api.routes import ROUTES
from desktop.cli.remote_console import RemoteConsole
from desktop.cli.run_console import Decide, parse
from desktop.contract import commands as c
from desktop.contract.state import RunState
from desktop.contract.wire import Body, InPath, Internal, body_model, request_of, wire_fields
from desktop.runtime import control as runtime_control

RUN_ID = "5f0c4d1e-7a1b-4c3d-9e2f-0a1b2c3d4e5f"
NODE_A = "0a0a0a0a-0000-4000-8000-000000000001"
NODE_B = "0b0b0b0b-0000-4000-8000-000000000002"

# One instance of every command sent over HTTP, with every field it sends set to something
# other than its default, so each field's trip is seen.
SAMPLES: dict[type, Any] = {
    c.Pause: c.Pause(), c.Resume: c.Resume(), c.Stop: c.Stop(),
    c.Step: c.Step("a"),
    c.Chat: c.Chat("a", "hello"),
    c.SetMode: c.SetMode("INTERACTIVE", "PLANNING"),
    c.SetBudget: c.SetBudget("a", 5000, 2.5, 600.0),
    c.Resolve: c.Resolve("ap-1", "modified", {"cmd": "ls"}, "looks wrong",
                         merge={"files": {"a.txt": "ours"}, "contents": {"b.txt": "x\n"},
                                "agent": True}, choice=2),
    c.EditInbox: c.EditInbox("a", "item-1", "new text", {"k": 1}),
    c.AddNode: c.AddNode("helper", "Helper", "implementer", "scripted",
                         {"instructions": "help"}, {"writeDocs": False},
                         {"cliPermissionsMode": "gated"}, "a"),
    c.PatchNode: c.PatchNode("a", "Renamed", {"instructions": "new"}),
    c.DeleteNode: c.DeleteNode("a"),
    c.AddEdge: c.AddEdge("a", "b", "report", "findings", True),
    c.DeleteEdge: c.DeleteEdge("edge-1"),
}
SENT = [kind for kind in c.COMMANDS if kind.endpoint is not None]
RUN_PATCH = ("PATCH", c.RUN)
"""Pause, Resume, Stop and SetMode share PATCH /api/runs/{run_id}: ApiClient.patch_run."""


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _route(kind: type) -> Any:
    endpoint = kind.endpoint
    for route in ROUTES:
        if (route.method, route.path) == (endpoint.method, endpoint.path):
            return route
    pytest.fail(f"{kind.__name__}: the service has no route {endpoint.method} {endpoint.path}")


def _property(model: Any, alias: str) -> dict[str, Any]:
    schema = model.model_json_schema(by_alias=True)
    return {"schema": schema["properties"].get(alias),
            "required": alias in schema.get("required", [])}


def test_every_field_of_every_command_says_where_it_travels() -> None:
    for kind in c.COMMANDS:
        wire_fields(kind)  # raises for a field without a marker

    @dataclasses.dataclass(frozen=True)
    class Unsaid:
        node: Annotated[str, Body("nodeId")]
        colour: str = "red"

    with pytest.raises(TypeError, match=r"Unsaid\.colour"):
        wire_fields(Unsaid)


def test_the_runtime_re_exports_the_one_definition() -> None:
    for kind in c.COMMANDS:
        assert getattr(runtime_control, kind.__name__) is kind, kind.__name__
    assert runtime_control.USER is c.USER


def test_every_command_sent_has_a_sample() -> None:
    missing = [kind.__name__ for kind in SENT if kind not in SAMPLES]
    assert not missing, f"add a sample of {missing} to SAMPLES"
    for kind, sample in SAMPLES.items():
        for f in wire_fields(kind):
            if isinstance(f.marker, Body) and not f.required:
                default = f.default_factory() if f.default_factory else f.default
                assert getattr(sample, f.name) != default, \
                    f"SAMPLES[{kind.__name__}].{f.name} is its default: its trip is not seen"


def test_each_route_takes_exactly_what_its_commands_send() -> None:
    """The service's body model of each endpoint has each Body field of its commands under
    the same alias with the same schema (type, checks, default) and required-ness, and no
    field that no command sends; the path names the command's InPath fields."""
    by_endpoint: dict[tuple[str, str], list[type]] = defaultdict(list)
    for kind in SENT:
        by_endpoint[(kind.endpoint.method, kind.endpoint.path)].append(kind)
    for kinds in by_endpoint.values():
        route = _route(kinds[0])
        sent: set[str] = set()
        for kind in kinds:
            name = kind.__name__
            in_path = {f.marker.name for f in wire_fields(kind) if isinstance(f.marker, InPath)}
            placeholders = set(re.findall(r"\{(\w+)\}", route.path)) - {"run_id"}
            assert placeholders == in_path, \
                f"{name}: the route's path names {placeholders}, the command {in_path}"
            fixed = kind.endpoint.fixed
            sent |= set(fixed)
            if fixed:
                route.body.model_validate(fixed)  # e.g. {"status": "paused"} is taken
            for f in wire_fields(kind):
                if not isinstance(f.marker, Body):
                    continue
                sent.add(f.alias)
                assert route.body is not None, f"{name}.{f.name}: the route takes no body"
                want = _property(body_model(kind), f.alias)
                got = _property(route.body, f.alias)
                assert got["schema"] is not None, \
                    f"{name}.{f.name}: the service's {route.body.__name__} has no " \
                    f"{f.alias!r}"
                assert got == want, f"{name}.{f.name}: the service takes {f.alias!r} as " \
                                    f"{got}, the command sends {want}"
        taken = set(route.body.model_json_schema(by_alias=True)["properties"]) \
            if route.body is not None else set()
        extra = taken - sent
        assert not extra, f"{route.body.__name__} takes {sorted(extra)}, which none of " \
                          f"{[k.__name__ for k in kinds]} sends"


@pytest.mark.parametrize("kind", [k for k in SENT if not k.endpoint.fixed],
                         ids=lambda k: k.__name__)
def test_a_command_comes_back_from_its_request_unchanged(kind: type) -> None:
    sample = SAMPLES[kind]
    method, path, body = request_of(sample, RUN_ID)
    route = _route(kind)
    assert method == route.method
    in_path = {f.marker.name: getattr(sample, f.name) for f in wire_fields(kind)
               if isinstance(f.marker, InPath)}
    assert path == route.path.format(run_id=RUN_ID, **in_path)
    if route.body is None:
        assert body == {}, f"{kind.__name__}: sends {body} to a route that takes no body"
        return
    back = route.body.model_validate(body).command(**in_path)
    assert back == sample, f"{kind.__name__}: sent {sample}, the service made {back}"


def test_a_field_the_service_sets_is_never_sent() -> None:
    with pytest.raises(ValueError, match=r"Resolve\.by is not sent"):
        request_of(c.Resolve("ap-1", "approved", by="gui"))
    assert "by" not in request_of(c.Resolve("ap-1", "approved"))[2]
    with pytest.raises(ValueError, match="not sent over HTTP"):
        request_of(c.UpdateNodeConfig("a", {}))


# --- the API client ---------------------------------------------------------------------


def _client_method(kind: type) -> str:
    return "patch_run" if (kind.endpoint.method, kind.endpoint.path) == RUN_PATCH \
        else _snake(kind.__name__)


@pytest.mark.parametrize("kind", [k for k in SENT if _client_method(k) != "patch_run"],
                         ids=lambda k: k.__name__)
async def test_each_client_method_takes_its_commands_fields(kind: type,
                                                             monkeypatch) -> None:
    """``ApiClient.<command>``'s parameters are the command's fields as sent (not its
    Internal ones), in order, with its types and defaults, and it sends that command."""
    name = kind.__name__
    method_name = _client_method(kind)
    method = getattr(ApiClient, method_name, None)
    assert method is not None, f"{name}: ApiClient has no {method_name}()"
    params = list(inspect.signature(method).parameters.values())[1:]
    if "{run_id}" in kind.endpoint.path:
        assert params and params[0].name == "run_id", f"ApiClient.{method_name}: run_id first"
        params = params[1:]
    fields = [f for f in wire_fields(kind) if not isinstance(f.marker, Internal)]
    hints = typing.get_type_hints(method)
    internal = {f.name: f.marker.why for f in wire_fields(kind)
                if isinstance(f.marker, Internal)}
    for param in params:
        assert param.name not in internal, \
            f"ApiClient.{method_name}({param.name}=...): {name}.{param.name} is not sent " \
            f"({internal.get(param.name)}); the service would answer 422"
    assert [p.name for p in params] == [f.name for f in fields], \
        f"ApiClient.{method_name} takes {[p.name for p in params]}; " \
        f"{name} sends {[f.name for f in fields]}"
    for param, f in zip(params, fields, strict=True):
        where = f"ApiClient.{method_name}({param.name}) vs {name}.{f.name}"
        if f.required:
            assert param.default is inspect.Parameter.empty, f"{where}: the field is required"
            assert hints[param.name] == f.type, f"{where}: {hints[param.name]} vs {f.type}"
        elif f.default_factory is not None:  # None stands for the field's empty default
            assert param.default is None, f"{where}: default {param.default!r}, want None"
            assert hints[param.name] == f.type | None, f"{where}: {hints[param.name]}"
        else:
            assert param.default == f.default, f"{where}: default {param.default!r} vs " \
                                               f"{f.default!r}"
            assert hints[param.name] == f.type, f"{where}: {hints[param.name]} vs {f.type}"

    sent: list[tuple[str | None, Any]] = []

    async def send(self: ApiClient, run_id: str | None, command: Any) -> dict:
        sent.append((run_id, command))
        return {}

    monkeypatch.setattr(ApiClient, "send", send)
    sample = SAMPLES[kind]
    args = {f.name: getattr(sample, f.name) for f in fields}
    head = [RUN_ID] if "{run_id}" in kind.endpoint.path else []
    await getattr(ApiClient("http://127.0.0.1:9", "t"), method_name)(*head, **args)
    assert sent == [(head[0] if head else None, sample)], \
        f"ApiClient.{method_name} sent {sent}, not {sample}"


def test_patch_run_takes_what_pause_resume_stop_and_set_mode_send() -> None:
    route = _route(c.SetMode)
    params = list(inspect.signature(ApiClient.patch_run).parameters.values())[2:]
    assert {p.name for p in params} == set(route.body.model_fields), \
        f"ApiClient.patch_run takes {[p.name for p in params]}; the service " \
        f"{list(route.body.model_fields)}"
    hints = typing.get_type_hints(ApiClient.patch_run)
    for f in wire_fields(c.SetMode):
        assert hints[f.name] == f.type, f"ApiClient.patch_run({f.name}) vs SetMode.{f.name}"
    statuses = typing.get_args(typing.get_args(hints["status"])[0])
    for kind in (c.Pause, c.Resume, c.Stop):
        assert kind.endpoint.fixed["status"] in statuses, kind.__name__


# --- the consoles -----------------------------------------------------------------------


class Recorder:
    """A client that records the commands sent to it."""

    def __init__(self) -> None:
        self.sent: list[tuple[str | None, Any]] = []

    async def send(self, run_id: str | None, command: Any) -> dict:
        self.sent.append((run_id, command))
        return {"nodeId": NODE_A}


def _state(pending: dict[str, Any]) -> RunState:
    now = "2026-01-01T00:00:00.000Z"
    return RunState.model_validate({
        "id": RUN_ID, "createdAt": now, "updatedAt": now, "status": "completed",
        "nodes": {NODE_A: {"id": NODE_A, "runId": RUN_ID, "key": "a", "label": "Alpha"},
                  NODE_B: {"id": NODE_B, "runId": RUN_ID, "key": "b", "label": "Beta"}},
        "pendingApprovals": pending})


TOOL = {"approvalId": "ap-1234", "nodeId": NODE_A, "tool": {"id": "t", "name": "shell"}}
LINES = [
    ("step", c.Step(None)),
    ("step b", c.Step(NODE_B)),
    ("chat Beta once more", c.Chat(NODE_B, "once more")),
    ("pause", c.Pause()),
    ("resume", c.Resume()),
    ("stop", c.Stop()),
    ("mode interactive", c.SetMode(mode="INTERACTIVE")),
    ("mode planning", c.SetMode(global_mode="PLANNING")),
    ("budget tokens=20000 cost=$2.5", c.SetBudget(max_tokens=20000, max_cost_usd=2.5)),
    ("budget b wall=600", c.SetBudget(NODE_B, max_wall_sec=600.0)),
    ("approve", c.Resolve("ap-1234", "approved")),
    ("deny ap-12 too risky", c.Resolve("ap-1234", "denied", reason="too risky")),
    ("deny", c.Resolve("ap-1234", "denied", reason="denied in the terminal")),
    ('modify {"cmd": "ls"}', c.Resolve("ap-1234", "modified", {"cmd": "ls"})),
]


@pytest.mark.parametrize(("line", "command"), LINES, ids=[line for line, _ in LINES])
async def test_the_remote_console_sends_what_the_line_parses_to(line: str,
                                                                command: Any) -> None:
    """Through the service a line is the command the in-process console runs (nodes
    named as the person typed them resolved to ids), sent as it is."""
    parsed = parse(line)
    assert isinstance(parsed, (*c.COMMANDS, Decide)), f"{line!r} parsed to {parsed!r}"
    client = Recorder()
    said: list[str] = []
    run = SimpleNamespace(client=client, run_id=RUN_ID, state=_state({"ap-1234": TOOL}),
                          status="completed")
    await RemoteConsole(run, said.append, lambda: None).execute(line)
    run_id = None if isinstance(command, c.Resolve) else RUN_ID
    assert client.sent == [(run_id, command)], f"{line!r}: sent {client.sent}; said {said}"


def test_both_consoles_decide_with_the_same_words() -> None:
    decide = parse("deny ap-12 too risky")
    assert isinstance(decide, Decide)
    assert decide.command("ap-1234", ["too", "risky"], merge=False) == \
        c.Resolve("ap-1234", "denied", reason="too risky")
    with pytest.raises(runtime_control.Invalid, match="resolved with `merge`"):
        parse("approve").command("ap-1234", [], merge=True)


CHOICE = {"approvalId": "ch-5678", "nodeId": NODE_A, "kind": "choice",
          "choice": {"turnId": "t1", "attempts": [{"index": 1}, {"index": 2}]}}


@pytest.mark.parametrize("line", ["choose 2", "choose ch-5 2"])
async def test_both_consoles_choose_an_attempt_with_the_same_words(line: str) -> None:
    """``choose [ID] N`` picks among pending choice approvals only (a tool call waiting
    beside it is not the one meant), in the terminal and through the service alike."""
    parsed = parse(line)
    client = Recorder()
    said: list[str] = []
    run = SimpleNamespace(client=client, run_id=RUN_ID,
                          state=_state({"ap-1234": TOOL, "ch-5678": CHOICE}),
                          status="completed")
    await RemoteConsole(run, said.append, lambda: None).execute(line)
    assert client.sent == [(None, c.Resolve("ch-5678", "approved", choice=2))], said
    assert parsed is not None


@pytest.mark.parametrize("line", ["choose", "choose 0", "choose two", "choose a b 2"])
def test_a_choose_line_without_one_attempt_index_is_refused(line: str) -> None:
    with pytest.raises(ValueError, match="usage: choose"):
        parse(line)
