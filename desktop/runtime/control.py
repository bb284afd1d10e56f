"""Running a command on a live run: ``execute``, for the typed commands of the contract.

The commands themselves are defined once in desktop/contract/commands.py (below the
runtime, so the service's request bodies and the API client derive from them too) and
re-exported here with ``execute``.

The terminal console (desktop/cli/run_console.py), the HTTP handlers
(desktop/api/) and the GUI all build these commands and hand them to
:func:`execute`; nothing calls engine methods by name. Errors come back as
:class:`CommandError` subclasses a client can map to its own terms:
:class:`NotFound` (no such node, edge, item or approval), :class:`Conflict`
(not possible in the run's current state) and :class:`Invalid` (bad arguments).

Graph changes (:class:`AddNode`, :class:`AddEdge`, :class:`PatchNode`,
:class:`DeleteNode`, :class:`DeleteEdge`) follow the rules of an agent's
``spawn_node`` / ``create_edge``: the same :class:`~desktop.runtime.management.Manager`
checks them and records them as ``node.patch`` / ``edge.created`` events. An
agent's call waits for a person's approval when its node's permissions ask
for it; a command comes from that person (the user at the terminal, the GUI or
an API client holding the service's token), so it is the approval, and the
change is applied at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError

from desktop.contract.base import new_id
from desktop.contract.commands import (
    USER,
    AddEdge,
    AddNode,
    Chat,
    Command,
    DeleteEdge,
    DeleteNode,
    EditInbox,
    PatchNode,
    Pause,
    Resolve,
    Resume,
    SetBudget,
    SetMode,
    Step,
    Stop,
    UpdateNodeConfig,
)
from desktop.contract.enums import RUN_ENDED, ApprovalStatus
from desktop.contract.events import Resolution, ToolCall
from desktop.contract.state import Capabilities, NodeConfig, Permissions, RunState
from desktop.runtime.approvals import ApprovalError, ApprovalInvalid
from desktop.runtime.management import SPAWN_CONFIG_KEYS
from desktop.runtime.scheduler import StepError
from desktop.views.node_ref import exact_node

if TYPE_CHECKING:
    from desktop.runtime.engine import Engine


class CommandError(Exception):
    """A command that cannot be carried out; ``field`` names the offending argument."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotFound(CommandError):
    """The node, edge, inbox item or approval named does not exist (any more)."""


class Conflict(CommandError):
    """The run's state does not allow it now (finished run, busy node, nothing pending)."""


class Invalid(CommandError):
    """The arguments are wrong."""


@dataclass
class Outcome:
    """What a command did: the node it concerned, a resolution, new ids."""

    node_id: str | None = None
    resolution: Resolution | None = None
    created: dict[str, Any] = field(default_factory=dict)
    budget: dict[str, Any] | None = None
    """After a budget change: the budget now in force (wire form)."""


# --- execution --------------------------------------------------------------------------


def node_id_of(state: RunState, ref: str, field_name: str = "nodeId") -> str:
    """The id of the node ``ref`` names exactly (its id or its key); NotFound otherwise."""
    node_id = exact_node(state, ref)
    if node_id is not None:
        return node_id
    raise NotFound(f"the run has no node {ref!r} (give a node id or key)", field_name)


def _live(engine: Engine) -> None:

    status = engine.state.status
    if status in RUN_ENDED:
        raise Conflict(f"the run is {status}; it no longer takes commands")


async def execute(engine: Engine, command: Command) -> Outcome:
    """Carry out ``command`` on ``engine``; raises :class:`CommandError` when it cannot."""
    from desktop.runtime.engine import EngineError

    try:
        match command:
            case Pause(reason):
                _live(engine)
                engine.pause(reason)
            case Resume(reason):
                engine.resume_run(reason)
            case Stop(reason):
                _live(engine)
                await engine.stop(reason)
            case Step(node):
                node_id = _node(engine, node, "nodeId") if node else None
                return Outcome(node_id=engine.step(node_id))
            case Chat(node, text):
                _live(engine)
                return Outcome(node_id=engine.chat(_node(engine, node, "nodeId"), text))
            case SetMode(mode, global_mode):
                _live(engine)
                engine.set_mode(mode, global_mode)
            case SetBudget(node):
                _live(engine)
                if not command.limits():
                    raise Invalid("give at least one limit: maxTokens, maxCostUsd or "
                                  "maxWallSec", "maxTokens")
                node_id = _node(engine, node, "nodeId") if node else None
                engine.set_budget(node_id, command.limits())
                return Outcome(node_id=node_id, budget=_budget_of(engine, node_id))
            case Resolve():
                return Outcome(resolution=_resolve(engine, command))
            case UpdateNodeConfig(node, patch):
                node_id = _node(engine, node, "nodeId")
                _check_config(engine.state.node_configs.get(node_id), patch)
                engine.update_node_config(node_id, patch)
                return Outcome(node_id=node_id)
            case EditInbox(node, item_id, text, structured):
                node_id = _node(engine, node, "nodeId")
                try:
                    engine.edit_inbox_item(node_id, item_id, text, structured)
                except KeyError as exc:
                    raise _inbox_miss(engine, node_id, item_id, str(exc.args[0])) from None
                return Outcome(node_id=node_id)
            case AddNode():
                return _manage(engine, "spawn_node", _spawn_args(engine, command))
            case AddEdge(source, target, kind, label, bidirectional):
                args = {"from": source, "to": target, "type": kind,
                        "bidirectional": bidirectional}
                if label:
                    args["label"] = label
                return _manage(engine, "create_edge", args)
            case PatchNode(node, label, config):
                return _patch_node(engine, node, label, config)
            case DeleteNode(node):
                return _delete_node(engine, node)
            case DeleteEdge(edge_id):
                if edge_id not in engine.state.edges:  # unknown whatever the run's state
                    raise NotFound(f"the run has no edge {edge_id!r}", "edgeId")
                _live(engine)
                engine.recorder.emit({"type": "edge.deleted", "edgeId": edge_id})
                engine.recorder.flush()
            case _:
                raise Invalid(f"not a command: {command!r}")
    except StepError as exc:
        raise Conflict(str(exc), "nodeId") from None
    except EngineError as exc:
        raise Conflict(str(exc)) from None
    return Outcome()


def _node(engine: Engine, ref: str, field_name: str) -> str:
    """The node's exact id or key; a label or id prefix is a console's convenience
    (desktop/views/node_ref.py), never guessed here."""
    if ref == "self":  # an agent's word for itself; a person names the node
        raise Invalid("'self' only means something to an agent; name a node", field_name)
    return node_id_of(engine.state, ref, field_name)


def _inbox_miss(engine: Engine, node_id: str, item_id: str, taken: str) -> CommandError:
    """Why ``item_id`` is not in ``node_id``'s inbox: never queued in this run (404), queued
    for another node (404 on the node named), or taken by a turn already (409, ``taken``
    says so: the item is answered, an edit would be lost)."""
    for holder, items in engine.state.inboxes.items():
        if holder != node_id and any(item.id == item_id for item in items):
            return NotFound(f"inbox item {item_id!r} waits for node {holder!r}, not "
                            f"{node_id!r}", "nodeId")
    if not engine.scheduler.was_queued(item_id):
        return NotFound(f"the run has no inbox item {item_id!r}", "itemId")
    return Conflict(taken, "itemId")


def _resolve(engine: Engine, command: Resolve) -> Resolution:
    try:
        status = ApprovalStatus(command.status)
    except ValueError:
        raise Invalid(f"status must be approved, denied or modified, not {command.status!r}",
                      "status") from None
    if status is ApprovalStatus.MODIFIED and not isinstance(command.modified_args, dict) \
            and command.merge is None and command.choice is None:
        raise Invalid("a modified call needs its new arguments as a JSON object",
                      "modifiedArgs")
    try:
        approval_id = engine.broker.match(command.approval)
    except ApprovalError as exc:
        raise NotFound(str(exc), "approvalId") from None
    try:
        return engine.broker.resolve(approval_id, status, command.modified_args,
                                     command.reason, by=command.by, merge=command.merge,
                                     choice=command.choice)
    except ApprovalInvalid as exc:
        raise Invalid(str(exc), exc.field) from None


def _budget_of(engine: Engine, node_id: str | None) -> dict[str, Any] | None:
    """The run's budget, or ``node_id``'s, as the log now says (wire form)."""
    state = engine.state
    found = state.budget if node_id is None else \
        (state.node_configs.get(node_id) or NodeConfig()).budget
    return found.to_json_dict() if found is not None else None


def _check_config(current: NodeConfig | None, patch: dict[str, Any]) -> None:
    """Reject unknown keys and values a node's config would not accept."""
    known = {f.alias or name for name, f in NodeConfig.model_fields.items()}
    for key in patch:
        if key not in known:
            raise Invalid(f"unknown node config field {key!r}; known: {', '.join(sorted(known))}",
                          f"config.{key}")
    _validated(NodeConfig, {**(current or NodeConfig()).to_json_dict(), **patch}, "config")


def _validated(model: type[Any], value: Any, where: str) -> None:
    """Check ``value`` as ``model`` strictly, as JSON: a request's ``true`` or ``"3"`` is not
    a number (pydantic's lax mode would make them 1 and 3), while enums still take their
    values' strings; Invalid naming the first bad field."""
    try:
        text = orjson.dumps(value)
    except TypeError as exc:  # an in-process caller's value that is not JSON
        raise Invalid(f"{where}: not JSON data ({exc})", where) from None
    try:
        model.model_validate_json(text, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        path = ".".join([where, *(str(p) for p in first["loc"])])
        raise Invalid(f"{path}: {first['msg']}", path) from None


def _spawn_args(engine: Engine, command: AddNode) -> dict[str, Any]:
    """``spawn_node`` arguments for ``command``, every part checked first."""
    for key in command.config:
        if key not in SPAWN_CONFIG_KEYS:
            raise Invalid(f"config field {key!r} can not be set on a new node; allowed: "
                          f"{', '.join(SPAWN_CONFIG_KEYS)}", f"config.{key}")
    _check_config(None, command.config)
    for name, model in (("capabilities", Capabilities), ("permissions", Permissions)):
        value = getattr(command, name)
        if value is not None:
            _validated(model, value, name)
    args: dict[str, Any] = {"key": command.key, **command.config}
    for name, value in (("label", command.label), ("roleTemplate", command.role_template),
                        ("provider", command.provider),
                        ("capabilities", command.capabilities),
                        ("permissions", command.permissions)):
        if value is not None:
            args[name] = value
    if command.connect_from is not None:
        args["connectFrom"] = _node(engine, command.connect_from, "connectFrom")
    return args


def _manage(engine: Engine, tool_name: str, args: dict[str, Any]) -> Outcome:
    _live(engine)
    if tool_name == "create_edge":
        args = {**args, "from": _node(engine, args["from"], "from"),
                "to": _node(engine, args["to"], "to")}
    tool = ToolCall(id=new_id(), name=tool_name, args=args)
    problem = engine.manager.refusal(USER, tool)
    if problem:
        raise (Conflict if problem.taken else Invalid)(str(problem), problem.field)
    return Outcome(created=engine.manager.apply(USER, tool))


def _patch_node(engine: Engine, node: str, label: str | None,
                config: dict[str, Any] | None) -> Outcome:
    node_id = _node(engine, node, "nodeId")  # unknown whatever the run's state
    _live(engine)
    if config:
        _check_config(engine.state.node_configs.get(node_id), config)
    patch: dict[str, Any] = {"label": label} if label else {}
    event: dict[str, Any] = {"type": "node.patch", "patch": patch}
    if config:
        engine.stall.reset(node_id)
        event["config"] = config
    engine.recorder.emit(event, node_id)
    engine.recorder.flush()
    return Outcome(node_id=node_id)


def _delete_node(engine: Engine, node: str) -> Outcome:
    # exactly the id or key: a deletion never lands on a node that only looks like the name
    # (a deleted node's key can be the prefix of another node's id); unknown whatever the
    # run's state
    node_id = node_id_of(engine.state, node, "nodeId")
    _live(engine)
    state = engine.state
    if node_id in engine.tasks or node_id in state.running_turns:
        raise Conflict("the node is taking a turn; pause the run and wait for the turn to end, "
                       "or stop it", "nodeId")
    if any(p.node_id == node_id for p in state.pending_approvals.values()):
        raise Conflict("the node has a pending approval; resolve it first", "nodeId")
    engine.recorder.emit({"type": "node.deleted"}, node_id)
    engine.recorder.flush()
    return Outcome(node_id=node_id)
