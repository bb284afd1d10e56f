"""Agent management: nodes that add nodes and edges to a running graph.

``spawn_node`` args: ``key`` (or ``id``; a slug), ``label``, ``roleTemplate``,
``provider`` (default: the caller's), ``instructions``, ``script``,
``capabilities``, ``permissions``, ``connectFrom`` (a node id or key, or
``"self"``; adds a handoff edge from it to the new node).
``create_edge`` args: ``from``, ``to`` (node ids or keys; ``"self"`` is the
caller), ``type`` (handoff | report), ``label``, ``bidirectional``.

The gate calls :meth:`Manager.check` before asking for approval and
:meth:`Manager.apply` after it; ``apply`` emits ``node.patch`` /
``edge.created`` (``addedAtRuntime: true``) and returns the new ids.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from desktop.contract.base import new_id
from desktop.contract.enums import EdgeType
from desktop.contract.events import ToolCall
from desktop.contract.state import RunState, default_edge_label
from desktop.graph.document import node_uuid
from desktop.graph.gatekeeper import Graph, GraphChangeError, UnknownNode, check_edge, check_node
from desktop.runtime.approvals import Emit
from desktop.views.node_ref import exact_node

SPAWN_CONFIG_KEYS = ("instructions", "script", "model", "command", "args", "verification",
                     "limits", "untilDone", "maxRestarts", "commandBlocklist", "stallThreshold",
                     "workspace", "isolation", "worktreeSetup")


class Manager:
    """Checks and applies ``spawn_node`` / ``create_edge`` against the live state."""

    def __init__(self, state: Callable[[], RunState], emit: Emit,
                 flush: Callable[[], Any]) -> None:
        self._state = state
        self._emit = emit
        self._flush = flush

    def _ref(self, caller: str, ref: Any) -> str | None:
        if ref in (None, ""):
            return None
        return caller if ref == "self" else exact_node(self._state(), str(ref))

    def check(self, caller: str, tool: ToolCall) -> str | None:
        """Why the call cannot be applied, or None when it can."""
        problem = self.refusal(caller, tool)
        return str(problem) if problem else None

    def refusal(self, caller: str, tool: ToolCall) -> GraphChangeError | None:
        """The gatekeeper's typed reason the call cannot be applied, or None."""
        args = tool.args
        state = self._state()
        graph = Graph.of(((n.id, n.key) for n in state.nodes.values()),
                         ((e.from_, e.to, str(e.type)) for e in state.edges.values()))
        try:
            if tool.name == "spawn_node":
                key = args.get("key") or args.get("id")
                # by key too: a fork keeps its source's node ids, from another run id
                node_id = node_uuid(state.id, key) if isinstance(key, str) else ""
                check_node(graph, key, node_id, args.get("provider"))
                if args.get("connectFrom") and self._ref(caller, args["connectFrom"]) is None:
                    raise UnknownNode(f"connectFrom {args['connectFrom']!r} names no node",
                                      "connectFrom")
                return None
            if tool.name == "create_edge":
                ends = [self._ref(caller, args.get(end)) for end in ("from", "to")]
                for end, found in zip(("from", "to"), ends, strict=True):
                    if found is None:
                        raise UnknownNode(f"{end} {args.get(end)!r} names no node", end)
                source, target = ends
                assert source is not None and target is not None
                check_edge(graph, source, target, args.get("type", EdgeType.HANDOFF.value))
                return None
        except GraphChangeError as exc:
            exc.args = (f"{tool.name}: {exc}",)
            return exc
        return GraphChangeError(f"{tool.name} is not an agent-management tool")

    def apply(self, caller: str, tool: ToolCall) -> dict[str, Any]:
        """Emit the events that add the node or edge; returns the new ids."""
        problem = self.check(caller, tool)
        if problem:
            raise ValueError(problem)
        result = (self._spawn(caller, tool.args) if tool.name == "spawn_node"
                  else self._edge(caller, tool.args))
        self._flush()  # later calls in the same turn see the new node or edge
        return result

    def _spawn(self, caller: str, args: dict[str, Any]) -> dict[str, Any]:
        state = self._state()
        key = args.get("key") or args["id"]
        node_id = node_uuid(state.id, key)
        parent = state.nodes.get(caller)
        patch: dict[str, Any] = {
            "id": node_id, "runId": state.id, "key": key,
            "label": str(args.get("label") or key),
            "roleTemplate": str(args.get("roleTemplate") or "implementer"),
            "provider": args.get("provider") or (parent.provider if parent else "scripted"),
            "status": "idle", "summary": "", "addedAtRuntime": True,
        }
        for extra in ("capabilities", "permissions"):
            if isinstance(args.get(extra), dict):
                patch[extra] = args[extra]
        config = {k: args[k] for k in SPAWN_CONFIG_KEYS if k in args}
        spawner = state.node_configs.get(caller)
        if "workspace" not in config:
            # a helper works on its spawner's project, as it runs its provider, and its
            # worktree is set up as its spawner's was; one the user adds works where the
            # workflow's nodes do, set up as theirs are
            workspace, setup = (spawner.workspace, spawner.worktree_setup) \
                if spawner is not None else (state.workspace, state.worktree_setup)
            if workspace:
                config["workspace"] = workspace
            if setup is not None and "worktreeSetup" not in config:
                config["worktreeSetup"] = setup.to_json_dict()
        self._emit({"type": "node.patch", "nodeId": node_id, "patch": patch, "config": config})
        result: dict[str, Any] = {"nodeId": node_id, "key": key}
        source = self._ref(caller, args.get("connectFrom"))
        if source:
            result["edgeId"] = self._emit_edge(source, node_id, EdgeType.HANDOFF.value,
                                               None, False)
        return result

    def _edge(self, caller: str, args: dict[str, Any]) -> dict[str, Any]:
        source = self._ref(caller, args.get("from"))
        target = self._ref(caller, args.get("to"))
        assert source and target  # checked
        edge_id = self._emit_edge(source, target, args.get("type", EdgeType.HANDOFF.value),
                                  args.get("label"), bool(args.get("bidirectional", False)))
        return {"edgeId": edge_id, "from": source, "to": target}

    def _emit_edge(self, source: str, target: str, kind: str, label: str | None,
                   bidirectional: bool) -> str:
        edge_id = new_id()
        self._emit({"type": "edge.created", "edge": {
            "id": edge_id, "from": source, "to": target, "type": kind,
            "label": label or default_edge_label(kind), "bidirectional": bidirectional,
            "addedAtRuntime": True}})
        return edge_id
