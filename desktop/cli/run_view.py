"""What `agent-canvas run` shows: a live table, plain progress lines, or JSON lines."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import orjson
from rich.cells import cell_len
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from desktop.runtime.engine import Engine
from desktop.views.activity import (
    AWAITING,
    RecentActivity,
    StepOrder,
    node_activity,
)
from desktop.views.activity import short as _short
from desktop.views.approval_text import approval_text
from desktop.views.notices import (
    ApprovalClosed,
    ApprovalOpened,
    HandoffSent,
    RunChanged,
    RunNotices,
    TurnChanged,
)

_STATUS_STYLE = {"running": "bold cyan", "idle": "dim", "blocked": "bold yellow",
                 "failed": "bold red", AWAITING: "bold magenta", "done": "green",
                 "next": "bold blue", "waiting": "yellow", "stopped": "bold yellow",
                 "not run": "dim"}


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


def status_table(engine: Engine, activity: RecentActivity,
                 order: StepOrder | None = None) -> Group:
    """Nodes, then pending approvals and the stall, as rich renderables."""
    state = engine.state
    title = (f"{state.workflow_name} — {state.status} · {state.mode} · {state.global_mode}"
             f" · run {state.id[:8]}")
    table = Table(title=title, title_justify="left", expand=False)
    for column in ("node", "status", "turns", "inbox", "activity"):
        table.add_column(column)
    for node in node_activity(engine.recorder.state_dict, activity, order).values():
        status = node.shown_status
        table.add_row(node.label, Text(status, style=_STATUS_STYLE.get(status, "")),
                      str(node.turns), str(node.inbox), node.doing)
    parts: list[Any] = [table]
    for pending in engine.broker.pending():
        node = state.nodes.get(pending.node_id or "")
        word = {"merge": "MERGE", "choice": "CHOICE"}.get(pending.kind, "APPROVAL")
        where = f" in {pending.merge.get('worktree')}" if pending.merge is not None else ""
        parts.append(Text(f"{word} {pending.approval_id[:8]} "
                          f"({node.label if node else '?'}): "
                          f"{approval_text(pending.to_dict())}{where}", style="bold magenta"))
    stall = stall_text(engine)
    if stall:
        parts.append(Text(stall, style="bold yellow"))
    parts.append(Text(_hint(engine), style="dim"))
    return Group(*parts)


def _hint(engine: Engine) -> str:
    """What can be typed now, so a first-time user is never stuck at a silent table."""
    state = engine.state
    pending = engine.broker.pending()
    if any(p.merge is not None for p in pending):
        return ("type: merge [ID] ours|theirs [FILE...] · merge [ID] edit FILE · "
                "merge [ID] agent · deny [ID] · help")
    if any(p.choice is not None for p in pending):
        return "type: choose [ID] N · approve [ID] (the first attempt) · deny [ID] · help"
    if pending:
        return "type: approve [ID] · deny [ID] [REASON] · modify [ID] JSON · help"
    if state.mode == "INTERACTIVE" and any(state.inboxes.values()):
        return "type: step [NODE] · chat NODE TEXT · pause · stop · help"
    return "type: chat NODE TEXT · pause · resume · stop · status · help"


class LiveView:
    """A rich Live table refreshed a few times a second."""

    def __init__(self, engine: Engine, console: Console, echo: bool | None = None) -> None:
        self.engine = engine
        self.activity = RecentActivity()
        self.order = StepOrder()
        engine.recorder.listen(self.activity)
        engine.recorder.listen(self.order)
        # the terminal echoes typed commands below the table (stdin is a terminal)
        self.echo = sys.stdin is not None and sys.stdin.isatty() if echo is None else echo
        self.live = Live(get_renderable=lambda: status_table(engine, self.activity,
                                                             self.order),
                         console=console, refresh_per_second=4, transient=False)

    def typed(self, line: str) -> None:
        """A command was typed: the terminal echoed it after the table's last line and its
        Enter moved the cursor below the table. Move the cursor back up, so the next
        refresh redraws the table in place (else its top lines stay in the scrollback,
        once per command). Called from the thread that reads stdin."""
        if not self.echo or not self.live.is_started:
            return
        console = self.live.console
        width = max(1, console.width)
        typed = cell_len(line.rstrip("\r\n"))
        moved = 1 + (cell_len(_hint(self.engine)) + typed) // width
        with getattr(self.live, "_lock", contextlib.nullcontext()):
            console.file.write(f"\x1b[{moved}A\r")
            console.file.flush()

    def __enter__(self) -> LiveView:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.refresh()
        self.live.__exit__(None, None, None)

    def say(self, text: str) -> None:
        self.live.console.print(text, markup=False, highlight=False)


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
        word = {"merge": "MERGE", "choice": "CHOICE"}.get(request.get("kind"), "APPROVAL")
        self.say(f"[{self._label(request.get('nodeId'))}] {word} {opened.approval_id[:8]}: "
                 f"{approval_text(request)}")

    def _decided(self, closed: ApprovalClosed) -> None:
        why = f" ({closed.reason})" if closed.reason else ""
        self.say(f"approval {closed.approval_id[:8]} {closed.status}{why}")

    def _sent(self, sent: HandoffSent) -> None:
        self.say(f"[{self._label(sent.from_node)}] -> {self._label(sent.to_node)} "
                 f"({sent.kind})")

    def _run(self, moved: RunChanged) -> None:
        self.say(moved.kind + (f": {moved.reason}" if moved.reason else ""))

    def show_status(self) -> None:
        Console(file=self.stream, width=120).print(status_table(self.engine, self.activity))


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
        Console(file=sys.stderr, width=120).print(status_table(self.engine, RecentActivity()))
