"""Typing commands under the terminal live view leaves one table in the scrollback, not a
copy of its header per command."""

from __future__ import annotations

import io
from pathlib import Path

import pyte
from rich.console import Console

from desktop.cli.run_table import LiveView
from desktop.graph.document import WorkflowDocument
from desktop.runtime.recovery import create_run

WIDTH, HEIGHT = 100, 30


def _doc() -> WorkflowDocument:
    return WorkflowDocument.model_validate({
        "name": "Scrollback check", "task": "do it",
        "nodes": [{"id": "solo", "label": "Solo", "entry": True},
                  {"id": "pair", "label": "Pair"}],
        "nodeConfigs": {"solo": {"script": [{"say": "hi"}]}},
        "edges": [{"from": "solo", "to": "pair"}]})


def _terminal_text(output: str) -> str:
    """Scrollback and screen of a terminal that was sent ``output``."""
    screen = pyte.HistoryScreen(WIDTH, HEIGHT, history=5000)
    screen.set_mode(pyte.modes.LNM)  # a tty turns "\n" into "\r\n"
    pyte.Stream(screen).feed(output)
    history = ["".join(ch.data for ch in row.values()) for row in screen.history.top]
    return "\n".join(line.rstrip() for line in [*history, *screen.display])


def test_typed_commands_do_not_copy_the_header_into_the_scrollback(tmp_path: Path) -> None:
    engine = create_run(_doc(), tmp_path)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=WIDTH, height=HEIGHT,
                      color_system=None)
    view = LiveView(engine, console, echo=True)
    try:
        with view:
            for command in ("pause", "resume", "mode interactive", "chat solo hello there"):
                view.live.refresh()
                out.write(command + "\n")  # what the terminal echoes as it is typed
                view.typed(command + "\n")
                view.say(f"ok: {command}")  # the command's answer, printed above the table
            view.live.refresh()
    finally:
        engine.close()
    text = _terminal_text(out.getvalue())
    assert text.count("Scrollback check —") == 1, text
    assert text.count("┃ node") == 1
    for command in ("pause", "resume", "mode interactive", "chat solo hello there"):
        assert f"ok: {command}" in text  # answers stay readable above the table


def test_the_engine_s_note_on_a_node_s_folder_is_printed_above_the_table(
        tmp_path: Path) -> None:
    engine = create_run(_doc(), tmp_path)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=WIDTH, height=HEIGHT,
                      color_system=None)
    solo = next(n for n in engine.state.nodes.values() if n.label == "Solo")
    view = LiveView(engine, console, echo=False)
    try:
        with view:
            engine.recorder.emit({"type": "node.log", "nodeId": solo.id, "stream": "stderr",
                                  "text": "isolation: worktree has no effect: /x is not "
                                          "in a git repository"})
            engine.recorder.emit({"type": "node.log", "nodeId": solo.id, "stream": "stderr",
                                  "text": "an agent's own stderr line"})
            engine.recorder.flush()
            view.live.refresh()
    finally:
        engine.close()
    text = _terminal_text(out.getvalue())
    assert "[Solo] isolation: worktree has no effect: /x is not in a git repository" in text
    assert "an agent's own stderr line" not in text  # the transcript's, not the console's
