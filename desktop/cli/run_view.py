"""What `agent-canvas run` shows as plain progress lines or JSON lines, and the stall text.

The live table for a terminal is in desktop/cli/run_table.py: it needs rich, which a run
printing lines or JSON does not load.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson

from desktop.runtime.engine import Engine
from desktop.views.activity import RecentActivity
from desktop.views.activity import short as _short
from desktop.views.approval_text import approval_text, resolution_text
from desktop.views.deciders import decision_text
from desktop.views.notices import (
    ApprovalClosed,
    ApprovalOpened,
    EngineNote,
    HandoffSent,
    RunChanged,
    RunNotices,
    TurnChanged,
)


def stall_text(engine: Engine) -> str | None:
    """The stall of the run, with its evidence, or None."""
    stall = engine.state.stall
    if not stall:
        return None
    node = engine.state.nodes.get(stall.get("nodeId") or "")
    evidence = stall.get("evidence") or {}
    lines = [f"STALLED: {node.label if node else 'a node'} repeated its "
             f"{stall.get('reason')} signal"
             + (f" {evidence.get('count')} times" if evidence.get("count") else "")]
    if stall.get("reason") == "silent":
        lines[0] = (f"STALLED: {node.label if node else 'a node'} was silent for "
                    f"{evidence.get('idleForSec')} s (limit {evidence.get('silenceSec')} s)")
    if evidence.get("hash"):
        lines.append(f"  hash: {evidence['hash']}")
    for run, out in zip(evidence.get("agentRunIds") or [], evidence.get("outputs") or [],
                        strict=False):
        lines.append(f"  {run}: {_short(out, 100)}")
    lines.append("  resume with `resume` (change the node's instructions first if needed), "
                 "or `agent-canvas resume RUN` later")
    return "\n".join(lines)



class PlainView:
    """One line per turn, approval and run status change (for logs and pipes)."""

    def __init__(self, engine: Engine, stream=None) -> None:
        self.engine = engine
        self.stream = stream or sys.stdout
        self.activity = RecentActivity()
        engine.recorder.listen(self.activity)
        self.notices = RunNotices()
        self.notices.subscribe(TurnChanged, self._turn)
        self.notices.subscribe(ApprovalOpened, self._asked)
        self.notices.subscribe(ApprovalClosed, self._decided)
        self.notices.subscribe(HandoffSent, self._sent)
        self.notices.subscribe(RunChanged, self._run)
        self.notices.subscribe(EngineNote, self._note)
        self._kinds: dict[str, str] = {}  # open requests' kinds (merge, choice, ...) by id
        engine.recorder.listen(self.notices.publish)

    def __enter__(self) -> PlainView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stream.flush()

    def say(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def _label(self, node_id: str | None) -> str:
        node = self.engine.state.nodes.get(node_id or "")
        return node.label if node else (node_id or "run")

    def _turn(self, turn: TurnChanged) -> None:
        why = f": {turn.reason}" if turn.reason else ""
        self.say(f"[{self._label(turn.node_id)}] turn {turn.status}{why}")

    def _asked(self, opened: ApprovalOpened) -> None:
        request = opened.request
        self._kinds[opened.approval_id] = str(request.get("kind") or "")
        word = {"merge": "MERGE", "choice": "CHOICE"}.get(request.get("kind"), "APPROVAL")
        self.say(f"[{self._label(request.get('nodeId'))}] {word} {opened.approval_id[:8]}: "
                 f"{approval_text(request)}")

    def _decided(self, closed: ApprovalClosed) -> None:
        if self._kinds.pop(closed.approval_id, "") == "merge":
            # which side each file took, or that the merge was undone
            self.say(f"merge {closed.approval_id[:8]} {resolution_text(closed.resolution)}")
            return
        said = decision_text({"status": closed.status, "by": closed.by,
                              "reason": closed.reason})
        self.say(f"approval {closed.approval_id[:8]} {said}")

    def _sent(self, sent: HandoffSent) -> None:
        self.say(f"[{self._label(sent.from_node)}] -> {self._label(sent.to_node)} "
                 f"({sent.kind})")

    def _note(self, note: EngineNote) -> None:
        self.say(f"[{self._label(note.node_id)}] {note.text}")

    def _run(self, moved: RunChanged) -> None:
        self.say(moved.kind + (f": {moved.reason}" if moved.reason else ""))

    def show_status(self) -> None:
        from desktop.cli.run_table import print_status

        print_status(self.engine, self.activity, self.stream)


class JsonView:
    """Every event, one JSON object per line, exactly as written to the log."""

    def __init__(self, engine: Engine, after_seq: int, stream=None) -> None:
        from desktop.views.reader import EventReader

        self.stream = stream or sys.stdout
        self.engine = engine
        self.after_seq = after_seq
        out = self.stream.buffer if hasattr(self.stream, "buffer") else None
        self._write = out.write if out else (lambda b: self.stream.write(b.decode()))
        # a run of the service has no local folder here: its stream sends the backlog
        if engine.run_dir is not None:
            for event in EventReader(engine.run_dir).iter_events(after=after_seq):
                self._write(orjson.dumps(event) + b"\n")
        self._flushed = self.stream.flush
        engine.recorder.listen(self._events)

    def __enter__(self) -> JsonView:
        return self

    def __exit__(self, *exc: object) -> None:
        self._flushed()

    def _events(self, events: list[dict[str, Any]]) -> None:
        self._write(b"".join(orjson.dumps(e) + b"\n" for e in events
                             if e.get("seq", self.after_seq + 1) > self.after_seq))
        self._flushed()

    def say(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    def show_status(self) -> None:
        from desktop.cli.run_table import print_status

        print_status(self.engine, RecentActivity(), sys.stderr)
