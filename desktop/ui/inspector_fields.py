"""Field specs of the inspector and conversions between widget text and values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop.contract.enums import (
    CliPermissionsMode,
    EdgeManagement,
    EdgeType,
    GlobalMode,
    Mode,
    Provider,
)
from desktop.contract.sandbox import SandboxBackend


@dataclass(frozen=True)
class Field:
    """One editable value: where it lives, how it is shown."""

    path: tuple[str, ...]
    label: str
    kind: str = "text"  # text optional multiline combo check int float list executor attempts
    options: tuple[str, ...] = ()
    tip: str = ""
    placeholder: str = ""


def _enum(e) -> tuple[str, ...]:
    return tuple(m.value for m in e)


def _setup_fields(scope: str, into: str, where: str) -> list[Field]:
    """The fields of a worktree setup: the node's (``scope`` "config") or the workflow's
    ("doc"); ``into`` and ``where`` name the worktrees it sets up, in their tips."""
    return [
        Field((scope, "worktreeSetup", "copy"), "Copy in", "list",
              placeholder="e.g. .env, config/local.yaml",
              tip=f"Ignored files or folders of the workspace copied into {into}"),
        Field((scope, "worktreeSetup", "run"), "Setup command", "optional",
              placeholder="e.g. npm ci",
              tip=f"Run in {where} before its first turn; the turn fails if it fails"),
    ]


NODE_SECTIONS: list[tuple[str, list[Field]]] = [
    ("Node", [
        Field(("node", "id"), "Id", "text", tip="Slug used in runs and edges"),
        Field(("node", "label"), "Label"),
        Field(("node", "roleTemplate"), "Role", "combo"),
        Field(("node", "provider"), "Provider", "combo", _enum(Provider)),
        Field(("node", "entry"), "Entry node", "check", tip="The run starts here"),
    ]),
    ("Agent", [
        Field(("config", "instructions"), "Instructions", "multiline",
              placeholder="Added to the role template's instructions"),
        Field(("config", "model"), "Model", "optional", placeholder="provider default"),
        Field(("config", "command"), "Command", "optional",
              placeholder="program to run (command/custom providers)"),
        Field(("config", "args"), "Arguments", "list", placeholder="comma separated"),
        Field(("config", "workspace"), "Workspace", "optional",
              placeholder="the workflow's workspace"),
        Field(("config", "envAllowlist"), "Env allowlist", "list",
              placeholder="e.g. PATH, HOME"),
        Field(("config", "verification"), "Verification", "optional",
              placeholder="command run after each turn"),
    ]),
    ("Limits", [
        Field(("config", "limits", "timeoutSec"), "Timeout (s)", "float", placeholder="none"),
        Field(("config", "limits", "maxOutputBytes"), "Max output bytes", "int",
              placeholder="none"),
        Field(("config", "limits", "maxTurns"), "Max turns", "int", placeholder="none"),
        Field(("config", "limits", "retries"), "Retries", "int"),
        Field(("config", "limits", "silenceSec"), "Silence (s)", "float", placeholder="none"),
        Field(("config", "stallThreshold"), "Stall threshold", "int",
              tip="Identical turns in a row before the run is stopped as stalled"),
        Field(("config", "untilDone"), "Until done", "check"),
        Field(("config", "maxRestarts"), "Max restarts", "int"),
        Field(("config", "budget", "maxTokens"), "Budget: tokens", "int",
              placeholder="no limit", tip="Input plus output tokens; reaching it pauses the run"),
        Field(("config", "budget", "maxCostUsd"), "Budget: cost (USD)", "float",
              placeholder="no limit"),
        Field(("config", "budget", "maxWallSec"), "Budget: time (s)", "float",
              placeholder="no limit", tip="Time spent in this node's turns"),
    ]),
    ("Worktree", _setup_fields("config", "the node's new git worktree (a worktree has only "
                                         "what the repository keeps)",
                               "the node's new worktree")),
    ("Best of N", [
        Field(("config", "attempts"), "Attempts", "attempts", placeholder="one",
              tip="Run each turn this many times at once (2 to 8), each in its own "
                  "worktree; or one entry per attempt: model, or provider:model"),
        Field(("config", "judge"), "Judge", "optional", placeholder="user",
              tip="Who picks the attempt that goes on: user (you, in the inbox) or a "
                  "node's id"),
    ]),
    ("Sandbox", [
        Field(("config", "sandbox", "backend"), "Backend", "combo", _enum(SandboxBackend),
              tip="process: bubblewrap around the agent's processes (Linux)"),
        Field(("config", "sandbox", "network"), "Network", "check",
              tip="Off: the agent sees only its own loopback"),
        Field(("config", "sandbox", "writeRoots"), "Write roots", "list",
              placeholder="whole workspace", tip="Folders of the workspace it may write"),
        Field(("config", "sandbox", "readOnlyRoots"), "Read-only roots", "list",
              placeholder="e.g. .git"),
        Field(("config", "sandbox", "limits", "timeoutSec"), "Timeout (s)", "float"),
        Field(("config", "sandbox", "limits", "maxMemoryMb"), "Memory (MB)", "int",
              placeholder="no limit", tip="The whole process tree is killed past it"),
        Field(("config", "sandbox", "limits", "maxCpuSec"), "CPU (s)", "int",
              placeholder="no limit", tip="CPU time of each process"),
        Field(("config", "sandbox", "limits", "maxOutputFiles"), "Output files", "int"),
        Field(("config", "sandbox", "limits", "maxOutputMb"), "Output (MB)", "float"),
    ]),
    ("Executor", [
        Field(("config", "executor"), "Runs on", "executor",
              placeholder="the workflow's executor",
              tip="local, ray://HOST:PORT (a Ray cluster), ray (this machine's cluster) "
                  "or ray:HOST:PORT; empty: the workflow's"),
        Field(("config", "executor", "resources", "numCpus"), "Ray CPUs", "float",
              placeholder="1", tip="Logical CPUs the agent reserves on the cluster"),
        Field(("config", "executor", "resources", "memoryMb"), "Ray memory (MB)", "int",
              placeholder="no reservation"),
    ]),
    ("Capabilities", [
        Field(("node", "capabilities", "edgeManagement"), "Edge management", "combo",
              _enum(EdgeManagement)),
        Field(("node", "capabilities", "writeCode"), "Write code", "check"),
        Field(("node", "capabilities", "writeDocs"), "Write docs", "check"),
        Field(("node", "capabilities", "runCommands"), "Run commands", "check"),
        Field(("node", "capabilities", "delegateOnly"), "Delegate only", "check"),
    ]),
    ("Permissions", [
        Field(("node", "permissions", "cliPermissionsMode"), "Tool calls", "combo",
              _enum(CliPermissionsMode), tip="gated: each tool call waits for approval"),
        Field(("node", "permissions", "agentManagementRequiresApproval"),
              "Approve agent changes", "check"),
    ]),
]

EDGE_SECTIONS = [
    ("Edge", [
        Field(("edge", "type"), "Type", "combo", _enum(EdgeType)),
        Field(("edge", "label"), "Label", "optional", placeholder="task / report"),
        Field(("edge", "bidirectional"), "Bidirectional", "check"),
    ]),
]

DOC_SECTIONS = [
    ("Workflow", [
        Field(("doc", "name"), "Name"),
        Field(("doc", "description"), "Description", "multiline"),
        Field(("doc", "task"), "Task", "multiline", placeholder="What the run should do"),
        Field(("doc", "mode"), "Mode", "combo", _enum(Mode)),
        Field(("doc", "globalMode"), "Global mode", "combo", _enum(GlobalMode)),
        Field(("doc", "workspace"), "Workspace", "optional",
              placeholder="the run's scratch folder",
              tip="The folder the nodes work on (relative to this file); in a git "
                  "repository each node works in its own worktree. A node may set its own"),
        *_setup_fields("doc", "each node's new git worktree; a node may set its own",
                       "each node's new worktree (a node may set its own)"),
        Field(("doc", "executor"), "Runs on", "executor", placeholder="local",
              tip="Where the agents run: local, ray://HOST:PORT (a Ray cluster), ray "
                  "(this machine's cluster) or ray:HOST:PORT; a node may override it"),
        Field(("doc", "executor", "resources", "numCpus"), "Ray CPUs", "float",
              placeholder="1", tip="Logical CPUs each agent reserves on the cluster"),
    ]),
]


def executor_text(value: Any) -> str:
    """How the inspector shows an executor: the ``--executor`` form of its place."""
    if value is None:
        return ""
    if not isinstance(value, dict) or value.get("kind") != "ray":
        return "local"
    address = str(value.get("address") or "auto")
    if address == "auto":
        return "ray"
    return address if address.startswith("ray://") else f"ray:{address}"


def attempts_text(value: Any) -> str:
    """How the inspector shows ``attempts``: the count, or one ``provider:model`` (or
    ``model``) per attempt."""
    if not isinstance(value, list):
        return to_text(value)
    entries = []
    for entry in value:
        entry = entry if isinstance(entry, dict) else {}
        provider, model = entry.get("provider"), entry.get("model")
        entries.append(f"{provider}:{model or ''}" if provider else str(model or ""))
    return ", ".join(entries)


def attempts_value(text: str) -> int | list[dict[str, str]] | None:
    """What was typed for ``attempts``: a count, or one entry per attempt."""
    if not text:
        return None
    if text.isdigit():
        return int(text)
    out = []
    for part in (p.strip() for p in text.split(",")):
        provider, colon, model = part.partition(":")
        entry = {"provider": provider.strip(), "model": model.strip()} if colon \
            else {"model": part}
        out.append({k: v for k, v in entry.items() if v})
    return out


def shown_text(kind: str, value: Any) -> str:
    """The text a line-edit field of ``kind`` shows for ``value``."""
    if kind == "executor":
        return executor_text(value)
    if kind == "attempts":
        return attempts_text(value)
    return to_text(value)


def to_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def from_text(kind: str, text: str) -> Any:
    """Parse what was typed; ValueError with a message a user can act on."""
    text = text.strip() if kind != "multiline" else text
    if kind == "optional":
        return text or None
    if kind == "executor":
        if not text:
            return None
        from desktop.contract.executor import executor_json, parse_executor_arg

        return executor_json(parse_executor_arg(text))
    if kind == "attempts":
        return attempts_value(text)
    if kind == "list":
        return [part.strip() for part in text.split(",") if part.strip()]
    if kind == "int":
        if not text:
            return None
        try:
            return int(text)
        except ValueError:
            raise ValueError("enter a whole number") from None
    if kind == "float":
        if not text:
            return None
        try:
            return float(text)
        except ValueError:
            raise ValueError("enter a number of seconds") from None
    return text


def get_path(data: dict, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def set_path(data: dict, path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        if not isinstance(data.get(part), dict):  # an unset section (None) becomes one
            data[part] = {}
        data = data[part]
    data[path[-1]] = value


def field_for_location(location: str) -> tuple[str, ...] | None:
    """The inspector path a validation problem location points at, if any."""
    parts = location.replace("[", ".[").split(".")
    while len(parts) > 3 and parts[-1].startswith("["):  # writeRoots[1]: the list's field
        parts.pop()
    if parts[0] == "nodes" and len(parts) > 2:
        return ("node", *parts[2:])
    if parts[0] == "nodeConfigs" and len(parts) > 2:
        return ("config", *parts[2:])
    if parts[0] == "edges" and len(parts) > 2:
        return ("edge", *parts[2:])
    return None
