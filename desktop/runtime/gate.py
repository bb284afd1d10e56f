"""The gate every tool call passes before it runs, whatever the provider.

Order of the checks (first match decides):

1. ``commandBlocklist``: a command matching a rule (substring or fnmatch glob)
   is denied at once, naming the rule.
2. Writing when the node may not write code (``globalMode`` PLANNING makes
   ``writeCode`` false for every node): write tools and shell commands that
   look like writes are denied.
3. Agent management (``spawn_node``, ``create_edge``): arguments are checked,
   then approval is asked when ``agentManagementRequiresApproval`` is set (or
   ``edgeManagement`` is ``request``); the approved call is applied and its
   result (the new node or edge id) goes back with the resolution.
4. ``cliPermissionsMode: gated``: the call waits in the approval broker.
5. Otherwise (``skip``) the call is approved without an approval event.

Decisions made by policy are still recorded, as an ``approval.requested``
immediately followed by ``approval.resolved`` with ``by: "policy"``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from desktop.contract.enums import ApprovalStatus, CliPermissionsMode, EdgeManagement, GlobalMode
from desktop.contract.events import Resolution, ToolCall
from desktop.contract.state import NodeConfig, NodeState
from desktop.runtime.approvals import ApprovalBroker, Emit, policy_decision

WRITE_TOOLS = frozenset({
    "edit_file", "write_file", "apply_patch", "edit", "write", "create_file", "delete_file",
    "multi_edit", "str_replace", "replace",
})
SHELL_TOOLS = frozenset({"shell", "command", "bash", "run_command", "exec", "terminal"})
MANAGEMENT_TOOLS = frozenset({"spawn_node", "create_edge"})
_WRITE_COMMAND = re.compile(
    r">(?!&)|\btee\b|\bsed\s+(-\w*\s+)*-i|\brm\s|\bmv\s|\bcp\s|\bgit\s+(commit|push|apply|am)\b"
    r"|\btouch\b|\bmkdir\b|\btruncate\b|\bchmod\b|\bln\s|\bdd\s|\bpatch\b"
)


def command_of(tool: ToolCall) -> str | None:
    """The shell command a tool call would run, if it carries one."""
    for key in ("cmd", "command", "script"):
        value = tool.args.get(key)
        if isinstance(value, list):
            return " ".join(str(v) for v in value)
        if isinstance(value, str):
            return value
    return None


def blocklist_rule(command: str, rules: list[str]) -> str | None:
    """The first rule ``command`` matches (as a substring or a glob), else None."""
    for rule in rules:
        if rule and (rule in command or fnmatch.fnmatchcase(command, rule)):
            return rule
    return None


def is_write_command(command: str) -> bool:
    """A simple classifier: does this shell command look like it changes files?"""
    return bool(_WRITE_COMMAND.search(command))


class Manager(Protocol):
    """Applies agent-management calls (see desktop.runtime.management)."""

    def check(self, caller: str, tool: ToolCall) -> str | None: ...
    def apply(self, caller: str, tool: ToolCall) -> dict[str, Any]: ...


@dataclass
class NodeView:
    """What the gate needs to know about the calling node right now."""

    node: NodeState
    config: NodeConfig
    global_mode: str


class NodeGate:
    """The gate of one node; ``await gate(tool, context)`` -> Resolution."""

    def __init__(self, node_id: str, view: Callable[[], NodeView], broker: ApprovalBroker,
                 emit: Emit, manager: Manager) -> None:
        self.node_id = node_id
        self._view = view
        self._broker = broker
        self._emit = emit
        self._manager = manager

    async def __call__(self, tool: ToolCall, context: str | None = None) -> Resolution:
        view = self._view()
        denial = self._policy_denial(tool, view)
        if denial:
            return policy_decision(self._emit, self.node_id, tool, denial)
        if tool.name in MANAGEMENT_TOOLS:
            return await self._management(tool, context, view)
        if view.node.permissions.cli_permissions_mode == CliPermissionsMode.GATED:
            return await self._broker.request(self.node_id, tool, context)
        return Resolution(status=ApprovalStatus.APPROVED, by="policy")

    def _policy_denial(self, tool: ToolCall, view: NodeView) -> str | None:
        command = command_of(tool)
        if command is not None:
            rule = blocklist_rule(command, view.config.command_blocklist)
            if rule is not None:
                return f"command blocked by commandBlocklist rule {rule!r}"
        planning = view.global_mode == GlobalMode.PLANNING
        if planning or not view.node.capabilities.write_code:
            why = ("globalMode is PLANNING: no node may write code" if planning
                   else "this node's capabilities.writeCode is false")
            if tool.name in WRITE_TOOLS:
                return f"{tool.name} denied: {why}"
            if tool.name in SHELL_TOOLS and command and is_write_command(command):
                return f"command denied: it looks like it writes files and {why}"
        if tool.name in SHELL_TOOLS and not view.node.capabilities.run_commands:
            return "command denied: this node's capabilities.runCommands is false"
        return None

    async def _management(self, tool: ToolCall, context: str | None,
                          view: NodeView) -> Resolution:
        problem = self._manager.check(self.node_id, tool)
        if problem:
            return policy_decision(self._emit, self.node_id, tool, problem)
        needs_approval = (view.node.permissions.agent_management_requires_approval
                          or view.node.capabilities.edge_management == EdgeManagement.REQUEST)
        if needs_approval:
            resolution = await self._broker.request(self.node_id, tool, context)
        else:
            resolution = Resolution(status=ApprovalStatus.APPROVED, by="policy")
        if resolution.status == ApprovalStatus.DENIED:
            return resolution
        final = tool
        if resolution.status == ApprovalStatus.MODIFIED and resolution.modified_args:
            final = ToolCall(id=tool.id, name=tool.name, args=resolution.modified_args)
            problem = self._manager.check(self.node_id, final)
            if problem:
                return Resolution(status=ApprovalStatus.DENIED, reason=problem, by="engine")
        try:
            result = self._manager.apply(self.node_id, final)
        except ValueError as exc:
            return Resolution(status=ApprovalStatus.DENIED, reason=str(exc), by="engine")
        # The agent sees the reason, so it names what was created; the log records it too.
        made = ", ".join(f"{k}={v}" for k, v in result.items())
        self._emit({"type": "bus.message", "busType": "FACT", "toolId": tool.id,
                    "message": f"{tool.name} applied: {made}", "result": result})
        return Resolution(status=resolution.status, modified_args=resolution.modified_args,
                          reason=f"{tool.name} applied: {made}", by=resolution.by,
                          result=result)
