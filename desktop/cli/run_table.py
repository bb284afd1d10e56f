"""The live status table of `agent-canvas run` in a terminal (rich): nodes, pending
approvals, the stall and what can be typed, redrawn in place."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, TextIO

from rich.cells import cell_len
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from desktop.cli.run_view import stall_text
from desktop.runtime.engine import Engine
from desktop.views.activity import AWAITING, RecentActivity, StepOrder, node_activity
from desktop.views.approval_text import approval_text
from desktop.views.notices import EngineNote, RunNotices

_STATUS_STYLE = {"running": "bold cyan", "idle": "dim", "blocked": "bold yellow",
                 "failed": "bold red", AWAITING: "bold magenta", "done": "green",
                 "next": "bold blue", "waiting": "yellow", "stopped": "bold yellow",
                 "not run": "dim"}


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
        self.notices = RunNotices()  # the engine's notes are printed above the table
        self.notices.subscribe(EngineNote, self._note)
        engine.recorder.listen(self.notices.publish)
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

    def _note(self, note: EngineNote) -> None:
        node = self.engine.state.nodes.get(note.node_id)
        self.say(f"[{node.label if node else note.node_id or 'run'}] {note.text}")


def print_status(engine: Engine, activity: RecentActivity, stream: TextIO) -> None:
    """The status table printed once to ``stream`` (the `status` command of a line view)."""
    Console(file=stream, width=120).print(status_table(engine, activity))
