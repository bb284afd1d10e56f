"""Comparing the environments of two runs through their agent runs' runner.json records.

The environment of a record is its core without ``runner_id`` (unique per execution)
and ``exit`` (how it ended, not where it ran). Agent runs are paired node by node, in
the order they ran.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.contract.state import RunState
from desktop.store.runner import RUNNER_JSON, core, runner_hash
from desktop.store.runner_verify import RunnerParseError, parse

NOT_ENVIRONMENT = ("runner_id", "exit")


@dataclass(frozen=True)
class AgentRunRecord:
    """One agent run of a run, with its runner.json (None when missing or unreadable);
    ``node`` is the node's key (its id in the workflow), the same in every run of it."""

    node: str
    agent_run_id: str
    record: dict[str, Any] | None
    problem: str | None = None

    @property
    def runner_hash(self) -> str | None:
        return runner_hash(self.record) if self.record is not None else None


@dataclass
class Pair:
    """Two agent runs of one node, and the environment fields in which they differ."""

    node: str
    left: AgentRunRecord | None
    right: AgentRunRecord | None
    differences: list[tuple[str, Any, Any]] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return (self.left is not None and self.right is not None
                and self.left.record is not None and self.right.record is not None
                and not self.differences)


def agent_records(run_dir: Path, state: RunState) -> list[AgentRunRecord]:
    """Every agent run of the run that announced a runner.json, in the order they ran."""
    found = []
    for art in state.artifacts.values():
        extra = art.model_extra or {}
        agent_run = extra.get("agentRunId")
        if art.name != RUNNER_JSON or not isinstance(agent_run, str):
            continue
        path = run_dir / art.path
        try:
            record, problem = parse(path.read_bytes()), None
        except (OSError, RunnerParseError) as exc:
            record, problem = None, f"{path}: {getattr(exc, 'strerror', None) or exc}"
        if record is not None and not isinstance(record, dict):
            record, problem = None, f"{path}: not a JSON object"
        node = state.nodes.get(art.node_id or "")
        name = (node.key or node.label) if node is not None else (art.node_id or "")
        found.append(AgentRunRecord(name, agent_run, record, problem))
    return sorted(found, key=lambda r: r.agent_run_id)


def environment(record: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``record`` that describe where and how it ran."""
    return {k: v for k, v in core(record).items() if k not in NOT_ENVIRONMENT}


def differences(left: Any, right: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """``(path, left, right)`` for every leaf that differs (lists compared whole)."""
    if isinstance(left, dict) and isinstance(right, dict):
        out = []
        for key in sorted(set(left) | set(right)):
            out += differences(left.get(key), right.get(key), f"{path}.{key}" if path else key)
        return out
    return [] if left == right else [(path, left, right)]


def pair_runs(left: list[AgentRunRecord], right: list[AgentRunRecord]) -> list[Pair]:
    """The agent runs of two runs paired node by node, in order, with their differences."""
    nodes = list(dict.fromkeys([r.node for r in left] + [r.node for r in right]))
    pairs = []
    for node in nodes:
        mine = [r for r in left if r.node == node]
        theirs = [r for r in right if r.node == node]
        for i in range(max(len(mine), len(theirs))):
            a = mine[i] if i < len(mine) else None
            b = theirs[i] if i < len(theirs) else None
            pair = Pair(node, a, b)
            if a is not None and b is not None and a.record is not None and b.record is not None:
                pair.differences = differences(environment(a.record), environment(b.record))
            pairs.append(pair)
    return pairs
