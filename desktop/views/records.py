"""A node's record: each agent process run of it, as its run-info.yaml and runner.json say.

One row per agent run, oldest first: when it started and ended, how it exited, where it
ran (the sandbox backend, whether the network was cut) and the runner hash other tools
check it by (``agent-canvas runner verify``). A record that is missing or does not parse
is a row that says so, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.contract.state import RunState
from desktop.store.run_info import RunInfoError, read_run_info
from desktop.store.runner_diff import AgentRunRecord, agent_records

RUN_INFO = "run-info.yaml"


@dataclass(frozen=True)
class RecordRow:
    """One agent run of a node."""

    node: str
    """The node's key."""
    agent_run_id: str
    folder: Path
    started: str = ""
    ended: str = ""
    exit_code: int | None = None
    sandbox: str = "?"
    runner_hash: str | None = None
    problem: str | None = None
    """Why part of the record could not be read."""


def _sandbox(record: dict[str, Any] | None) -> str:
    sandbox = (record or {}).get("sandbox")
    if not isinstance(sandbox, dict):
        return "?"
    backend = str(sandbox.get("backend") or "?")
    return f"{backend}, no network" if sandbox.get("network_blocked") else backend


def _row(run_dir: Path, found: AgentRunRecord) -> RecordRow:
    folder = run_dir / "agents" / found.agent_run_id
    started = ended = ""
    exit_code = None
    problem = found.problem
    try:
        info = read_run_info(folder / RUN_INFO)
        started, ended = info.start_time, info.end_time
        exit_code = info.exit_code if info.end_time else None
    except RunInfoError as exc:
        problem = problem or str(exc)
    return RecordRow(found.node, found.agent_run_id, folder, started, ended, exit_code,
                     _sandbox(found.record), found.runner_hash, problem)


def node_records(run_dir: Path, state: dict[str, Any] | None,
                 node_id: str | None = None) -> list[RecordRow]:
    """The record of node ``node_id`` of the run in ``run_dir`` (None: every node's)."""
    if not state:
        return []
    model = RunState.model_validate(state)
    node = model.nodes.get(node_id or "")
    key = (node.key or node.label) if node is not None else None
    return [_row(Path(run_dir), found) for found in agent_records(Path(run_dir), model)
            if key is None or found.node == key]


__all__ = ["RUN_INFO", "RecordRow", "node_records"]
