"""Two runs side by side: each run's turns, and the turns of both aligned by node and turn.

A run's *digest* is one pass over its log: per turn (a ``turnId``, numbered per node in
the order the node took them) its status, times, tokens, cost, what the agent said, its
tool calls and its diff. Nodes are matched across runs by their workflow key (a fork
keeps its source's node ids; a run of the same workflow has new ids but the same keys).

In a fork, the turns that started at or before ``forkedFrom.seq`` are *copied*: they
happened in the source and cost the fork nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop.contract.enums import TURN_ENDED
from desktop.views.activity import node_activity
from desktop.views.reader import EventReader
from desktop.views.runs import open_run


@dataclass
class TurnDigest:
    """One turn of one node."""

    key: str
    label: str
    turn: int
    seq: int
    status: str = "running"
    started: str | None = None
    ended: str | None = None
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    cost: float = 0.0
    text: str = ""
    tools: int = 0
    agent_run_id: str | None = None
    diff: str = ""
    copied: bool = False

    @property
    def seconds(self) -> float | None:
        return _seconds(self.started, self.ended)

    @property
    def tokens(self) -> float:
        return self.input_tokens + self.output_tokens

    @property
    def files(self) -> list[str]:
        """The files the turn's diff changed."""
        return [line.split(" b/", 1)[-1] for line in self.diff.splitlines()
                if line.startswith("diff --git ")]

    @property
    def lines_changed(self) -> tuple[int, int]:
        """Lines the diff adds and removes."""
        plus = minus = 0
        for line in self.diff.splitlines():
            if line.startswith("+") and not line.startswith("+++"):
                plus += 1
            elif line.startswith("-") and not line.startswith("---"):
                minus += 1
        return plus, minus


@dataclass
class NodeInfo:
    """What a node is set to at the end of the run."""

    key: str
    label: str
    provider: str
    model: str | None
    instructions: str
    status: str
    """What its card shows at the end (done, failed, not run, ...: activity.shown_status)."""
    position: tuple[float, float] | None = None


@dataclass
class RunDigest:
    """What the comparison shows of one run."""

    run_id: str
    workflow: str
    status: str
    created_at: str
    updated_at: str
    events: int
    forked_from: tuple[str, int] | None
    nodes: dict[str, NodeInfo] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    turns: list[TurnDigest] = field(default_factory=list)

    @property
    def seconds(self) -> float | None:
        """The run's own time: from its creation (a fork: when it was forked) to its last
        event."""
        return _seconds(self.created_at, self.updated_at)

    def total(self, name: str, copied: bool | None = None) -> float:
        """Sum of a turn field over the turns (only copied ones, or only its own)."""
        return sum(getattr(t, name) or 0.0 for t in self.turns
                   if copied is None or t.copied == copied)


def _seconds(a: str | None, b: str | None) -> float | None:
    try:
        start = datetime.fromisoformat(str(a).replace("Z", "+00:00"))
        end = datetime.fromisoformat(str(b).replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, (end - start).total_seconds())


def digest_run(run_dir: Path) -> RunDigest:
    """The digest of the run in ``run_dir`` (its log and its folded state)."""
    run_dir = Path(run_dir)
    state = open_run(run_dir)
    lineage = state.forked_from
    copied_to = lineage.seq if lineage is not None else 0
    keys = {nid: n.key or n.label or nid[:8] for nid, n in state.nodes.items()}
    labels = {nid: n.label or keys[nid] for nid, n in state.nodes.items()}
    digest = RunDigest(
        run_id=state.id, workflow=state.workflow_name, status=str(state.status),
        created_at=state.created_at, updated_at=state.updated_at, events=state.last_seq,
        forked_from=(lineage.run_id, lineage.seq) if lineage is not None else None)
    # the words the node cards show (done, failed, not run, ...): a node's own status
    # is back to idle after each turn, so a finished run's would all read idle
    shown = node_activity(state.to_json_dict())
    for nid, node in state.nodes.items():
        config = state.node_configs.get(nid)
        digest.nodes[keys[nid]] = NodeInfo(
            keys[nid], labels[nid], str(node.provider), config.model if config else None,
            config.instructions if config else "",
            shown[nid].shown_status if nid in shown else str(node.status), node.position)
    digest.edges = [(keys.get(e.from_, e.from_), keys.get(e.to, e.to), str(e.type))
                    for e in state.edges.values()]
    by_turn: dict[str, TurnDigest] = {}
    current: dict[str, TurnDigest] = {}
    count: dict[str, int] = {}
    for event in EventReader(run_dir).iter_events():
        kind, nid = event.get("type"), event.get("nodeId")
        if kind == "run.created":
            for node_id, node in (event.get("nodes") or {}).items():
                if isinstance(node, dict) and node_id not in keys:
                    keys[node_id] = str(node.get("key") or node.get("label") or node_id[:8])
                    labels[node_id] = str(node.get("label") or keys[node_id])
        if type(nid) is not str:
            continue
        if kind == "turn.status":
            _turn_event(event, nid, keys, labels, by_turn, current, count, digest, copied_to)
            continue
        turn = current.get(nid)
        if turn is None:
            continue
        if kind == "message.assistant.final" and isinstance(event.get("text"), str):
            turn.text = f"{turn.text}\n\n{event['text']}".strip()
        elif kind == "telemetry.usage":
            turn.input_tokens += _number(event.get("inputTokens"))
            turn.output_tokens += _number(event.get("outputTokens"))
            turn.cost += _number(event.get("costUsd"))
        elif kind == "tool.started":
            turn.tools += 1
        elif kind == "artifact.created":
            art = event.get("artifact") or {}
            if art.get("kind") == "diff" and isinstance(art.get("path"), str):
                turn.diff = _read_text(run_dir, art["path"])
    return digest


def _turn_event(event: dict[str, Any], nid: str, keys: dict[str, str], labels: dict[str, str],
                by_turn: dict[str, TurnDigest], current: dict[str, TurnDigest],
                count: dict[str, int], digest: RunDigest, copied_to: int) -> None:
    turn_id, status = str(event.get("turnId") or ""), event.get("status")
    turn = by_turn.get(turn_id)
    if status == "started" and turn is None:
        count[nid] = count.get(nid, 0) + 1
        key = keys.get(nid, nid[:8])
        turn = TurnDigest(key, labels.get(nid, key), count[nid], int(event["seq"]),
                          started=event.get("ts"), copied=int(event["seq"]) <= copied_to)
        by_turn[turn_id] = current[nid] = turn
        digest.turns.append(turn)
    if turn is None:
        return
    if isinstance(event.get("agentRunId"), str):
        turn.agent_run_id = event["agentRunId"]
    if status in TURN_ENDED:
        turn.status, turn.ended = str(status), event.get("ts")
        current.pop(nid, None)


def _number(value: Any) -> float:
    return float(value) if type(value) in (int, float) else 0.0


def _read_text(run_dir: Path, relative: str) -> str:
    base = run_dir.resolve()
    path = (base / relative).resolve()
    if not path.is_relative_to(base):
        return ""
    try:
        return path.read_bytes()[:1_000_000].decode("utf-8", "replace")
    except OSError:
        return ""


@dataclass
class AlignedTurn:
    """The same node's same turn in both runs (None where a run has no such turn)."""

    key: str
    turn: int
    left: TurnDigest | None
    right: TurnDigest | None

    @property
    def same(self) -> bool:
        """Both runs did the same: same status, output and diff."""
        a, b = self.left, self.right
        return a is not None and b is not None and (a.status, a.text, a.diff) == (
            b.status, b.text, b.diff)

    @property
    def copied(self) -> bool:
        """One run copied this turn from the other (it happened once)."""
        return any(t is not None and t.copied for t in (self.left, self.right))


def align(left: RunDigest, right: RunDigest) -> list[AlignedTurn]:
    """Both runs' turns matched by (node key, turn number), in the order they first
    happened in either run."""
    order: dict[tuple[str, int], float] = {}
    table: dict[tuple[str, int], list[TurnDigest | None]] = {}
    for side, digest in enumerate((left, right)):
        for index, turn in enumerate(digest.turns):
            slot = (turn.key, turn.turn)
            table.setdefault(slot, [None, None])[side] = turn
            order[slot] = min(order.get(slot, float("inf")), index + side * 0.5)
    return [AlignedTurn(key, number, *table[(key, number)])
            for key, number in sorted(table, key=lambda s: order[s])]


def changed_nodes(left: RunDigest, right: RunDigest) -> set[str]:
    """Keys of the nodes set up differently (provider, model, instructions) or present in
    one run only."""
    out = set(left.nodes) ^ set(right.nodes)
    for key in set(left.nodes) & set(right.nodes):
        a, b = left.nodes[key], right.nodes[key]
        if (a.provider, a.model, a.instructions) != (b.provider, b.model, b.instructions):
            out.add(key)
    return out


def setup_changes(left: RunDigest, right: RunDigest) -> list[str]:
    """How the nodes are set up differently, in words: ``Reviewer: instructions, model``."""
    out = []
    for key in sorted(changed_nodes(left, right)):
        a, b = left.nodes.get(key), right.nodes.get(key)
        if a is None or b is None:
            node = a or b
            assert node is not None
            out.append(f"{node.label}: only in the {'left' if b is None else 'right'} run")
            continue
        fields = [name for name in ("provider", "model", "instructions")
                  if getattr(a, name) != getattr(b, name)]
        out.append(f"{a.label}: {', '.join(fields)}")
    return out
