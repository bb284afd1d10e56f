"""What the executor tests compare between a local and a remote run, and process checks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from desktop.graph.io import read_workflow

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "resources" / "examples")
                  .glob("*.flow.yaml"))
# Arrivals from other nodes land between a node's own events wherever timing puts them.
TIMING = {"inbox.queued"}


def example(path: Path, executor: Any = None):
    """The example's document, with ``executor`` for the whole run when given, its nodes
    sharing one scratch folder: the local and remote runs are compared event for event,
    and parallel implementers each in a worktree report back in either order (the
    orchestrator may then take their reports in one turn or two). Worktrees on an
    executor: tests/runtime/test_worktree_executor.py."""
    doc, _ = read_workflow(str(path))
    doc.isolation = None
    if executor is not None:
        doc.executor = executor
    return doc


OWN_CHANNEL = {"bus.message"}
"""Events that reach the log by a channel of their own (the bus), so where they fall among
the agent's stream events depends on timing; they are compared in their own order."""


def per_node_types(events: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each node's event types in order (by node key; run-level events under ''), and the
    events of another channel in their own order (under 'KEY bus.message'); the attempts
    of a best-of-N turn run at once, so each is a channel of its own ('KEY a2')."""
    keys = {k: v.get("key") for k, v in events[0]["nodes"].items()}
    out: dict[str, list[str]] = {}
    for event in events:
        if event["type"] in TIMING:
            continue
        key = keys.get(event.get("nodeId"), "") or ""
        if event.get("attemptIndex") is not None:
            key = f"{key} a{event['attemptIndex']}"
        if event["type"] in OWN_CHANNEL:
            key = f"{key} {event['type']}"
        out.setdefault(key, []).append(event["type"])
    return out


def type_counts(events: list[dict[str, Any]]) -> Counter:
    return Counter(e["type"] for e in events)


def workspace_files(folder: Path) -> dict[str, bytes]:
    """The workspace's files a run produces (no git folder, no bytecode caches)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts}


def processes_of(agent_run_id: str) -> list[int]:
    """Live processes on this machine started for ``agent_run_id`` (its JRUN_ID)."""
    needle = f"JRUN_ID={agent_run_id}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0") and state[state.rfind(b")") + 2:][:1] != b"Z":
            found.append(int(entry.name))
    return found
