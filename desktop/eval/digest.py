"""A case's engine run turned into the contract's view: events, proposed actions, output.

One pass over the run's event log (``events.jsonl``) gives:

- ``events``: ``tool_call`` / ``tool_result`` (the contract's types), plus
  ``assistant_message``, ``turn`` and ``usage`` (additive types that v1 readers
  ignore), in log order, each with ``ts`` in epoch milliseconds;
- ``proposed_actions``: one per tool call, with its risk from
  :func:`desktop.eval.risk.classify` and evidence refs that resolve in ``events``;
- what a failure needs: agent errors, unparsed stream lines, the run's end.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from desktop.contract.enums import TURN_ENDED
from desktop.eval.assets import AssetStore
from desktop.eval.risk import classify

MAX_MESSAGE_CHARS = 4000


def epoch_ms(ts: Any) -> int:
    """An ISO 8601 timestamp as epoch milliseconds (0 when it is not one)."""
    try:
        return int(datetime.fromisoformat(str(ts).replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


@dataclass
class RunDigest:
    """What the evaluation needs from one engine run."""

    events: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    node_keys: dict[str, str] = field(default_factory=dict)
    agent_errors: list[dict[str, Any]] = field(default_factory=list)
    unparsed: list[dict[str, Any]] = field(default_factory=list)
    messages: int = 0
    turns: int = 0
    failed_turns: list[dict[str, Any]] = field(default_factory=list)
    last_output_run: str | None = None
    end: str | None = None
    end_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    first_ms: int = 0
    last_ms: int = 0
    current_run: dict[str, str] = field(default_factory=dict)
    """The agent run each node is in (agent errors carry only the node)."""


class Digester:
    """Builds a :class:`RunDigest` event by event."""

    def __init__(self, case_id: str, workspace: str | None, assets: AssetStore,
                 max_payload_inline: int):
        self.case_id = case_id
        self.workspace = workspace
        self.assets = assets
        self.max_inline = max_payload_inline
        self.d = RunDigest()
        self._calls: dict[str, tuple[int, int, str]] = {}  # call id -> (event index, ms, action)
        self._seen_turns: set[str] = set()

    def feed(self, events: Iterable[dict[str, Any]]) -> RunDigest:
        for event in events:
            self._one(event)
        self._close_refs()
        return self.d

    def _node(self, event: dict[str, Any]) -> str:
        node_id = event.get("nodeId")
        return self.d.node_keys.get(node_id, node_id or "")

    def _one(self, event: dict[str, Any]) -> None:
        d = self.d
        kind = event.get("type")
        ms = epoch_ms(event.get("ts"))
        if ms:
            d.first_ms = d.first_ms or ms
            d.last_ms = max(d.last_ms, ms)
        if kind == "run.created":
            for node_id, node in (event.get("nodes") or {}).items():
                if isinstance(node, dict):
                    d.node_keys[node_id] = str(node.get("key") or node.get("label") or node_id)
        elif kind == "tool.proposed":
            self._tool_call(event, ms)
        elif kind == "tool.completed":
            self._tool_result(event, ms)
        elif kind == "message.assistant.final":
            d.messages += 1
            text = str(event.get("text") or "")
            d.events.append({"type": "assistant_message", "ts": ms, "node": self._node(event),
                             "text": text[:MAX_MESSAGE_CHARS],
                             **({"truncated": True} if len(text) > MAX_MESSAGE_CHARS else {})})
        elif kind == "telemetry.usage":
            self._usage(event, ms)
        elif kind == "turn.status":
            self._turn(event, ms)
        elif kind == "agent.error":
            d.agent_errors.append({**event, "agentRunId": d.current_run.get(
                event.get("nodeId") or "")})
        elif kind == "node.log" and event.get("problem") == "not-json":
            d.unparsed.append({"text": str(event.get("text") or ""),
                               "agentRunId": d.current_run.get(event.get("nodeId") or "")})
        elif kind in ("run.completed", "run.failed", "run.stopped"):
            d.end, d.end_reason = kind.split(".")[1], event.get("reason")
        elif kind == "run.stalled":
            d.end_reason = f"stalled ({event.get('reason')})"

    def _tool_call(self, event: dict[str, Any], ms: int) -> None:
        tool = event.get("tool") if isinstance(event.get("tool"), dict) else {}
        call_id = str(tool.get("id") or f"call-{len(self._calls) + 1}")
        name = str(tool.get("name") or "unknown")
        args = tool.get("args") if isinstance(tool.get("args"), dict) else {}
        risk = classify(name, args, self.workspace)
        action_id = f"a{len(self.d.actions) + 1}"
        index = len(self.d.events)
        self.d.events.append({"type": "tool_call", "ts": ms, "call_id": call_id,
                              "action_id": action_id, "tool": name, "args": args,
                              "risk_level": risk.level, "risk_tags": risk.tags,
                              "node": self._node(event)})
        self.d.actions.append({"action_id": action_id, "action_type": risk.action_type,
                               "tool_name": name, "params": args, "risk_level": risk.level,
                               "risk_tags": risk.tags,
                               "evidence_refs": [{"kind": "event", "id": f"events[{index}]"}]})
        self._calls[call_id] = (index, ms, action_id)

    def _tool_result(self, event: dict[str, Any], ms: int) -> None:
        call_id = str(event.get("toolId") or "")
        _index, started, action_id = self._calls.get(call_id, (None, ms, None))
        result = event.get("result") if isinstance(event.get("result"), dict) else {}
        error = event.get("error") if isinstance(event.get("error"), dict) else None
        ok = error is None and result.get("ok", True) is not False
        out: dict[str, Any] = {"type": "tool_result", "ts": ms, "call_id": call_id,
                               "status": "ok" if ok else "error",
                               "latency_ms": max(0, ms - started)}
        if action_id:
            out["action_id"] = action_id
        payload = {"result": result, **({"error": error} if error else {})}
        raw = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
        if len(raw) <= self.max_inline:
            out["payload_summary"] = payload
        else:
            name = f"payload-{len(self.d.events)}.json"
            item = self.assets.write(self.case_id, name, raw, "full_payload")
            out["payload_summary"] = _summary(result, error)
            out["payload_asset_href"] = item.href
            out["payload_asset_sha256"] = item.sha256
        self.d.events.append(out)

    def _usage(self, event: dict[str, Any], ms: int) -> None:
        d = self.d
        tokens_in = _number(event.get("inputTokens"))
        tokens_out = _number(event.get("outputTokens"))
        cost = _number(event.get("costUsd"))
        d.input_tokens += int(tokens_in)
        d.output_tokens += int(tokens_out)
        d.cost_usd += cost
        usage = {"type": "usage", "ts": ms, "node": self._node(event),
                 "input_tokens": int(tokens_in), "output_tokens": int(tokens_out)}
        if event.get("costUsd") is not None:
            usage["cost_usd"] = cost
        if event.get("model"):
            usage["model"] = str(event["model"])
        d.events.append(usage)

    def _turn(self, event: dict[str, Any], ms: int) -> None:
        d = self.d
        status = event.get("status")
        node = event.get("nodeId") or ""
        if status == "started" and event.get("agentRunId"):
            d.current_run[node] = str(event["agentRunId"])
        if status not in TURN_ENDED:
            return
        turn_id = str(event.get("turnId") or "")
        if turn_id and turn_id not in self._seen_turns:
            self._seen_turns.add(turn_id)
            d.turns += 1
        entry = {"type": "turn", "ts": ms, "node": self._node(event), "status": status}
        if event.get("reason"):
            entry["reason"] = str(event["reason"])[:MAX_MESSAGE_CHARS]
        d.events.append(entry)
        if status == "completed" and event.get("agentRunId"):
            d.last_output_run = str(event["agentRunId"])
        elif status == "failed":
            d.failed_turns.append({**event, "node": self._node(event)})

    def _close_refs(self) -> None:
        """Point each action at its tool_result too, where one was recorded."""
        results = {e["call_id"] for e in self.d.events if e["type"] == "tool_result"}
        for action, event in zip(self.d.actions, (e for e in self.d.events
                                                  if e["type"] == "tool_call"), strict=True):
            if event["call_id"] in results:
                action["evidence_refs"].append({"kind": "tool_result",
                                                "call_id": event["call_id"]})


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        and value >= 0 else 0.0


def _summary(result: dict[str, Any], error: dict[str, Any] | None) -> dict[str, Any]:
    """A bounded view of a large tool result (the whole one is in assets/)."""
    summary: dict[str, Any] = {k: v for k, v in result.items()
                               if isinstance(v, bool | int | float) or v is None}
    output = result.get("output")
    if isinstance(output, str):
        summary["output_head"] = output[:1000]
        summary["output_chars"] = len(output)
    if error:
        summary["error"] = str(error.get("message") or "")[:1000]
    return summary


def short_hash(text: str) -> str:
    """The ``output_hash`` of a final output: 16 hex digits of its sha256."""
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:16]
