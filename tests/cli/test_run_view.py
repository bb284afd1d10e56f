"""The terminal live view says what can be typed next."""

from pathlib import Path

from rich.console import Console

from desktop.cli.run_table import status_table
from desktop.graph.document import WorkflowDocument
from desktop.runtime.recovery import create_run
from desktop.views.activity import RecentActivity


def _render(engine) -> str:
    console = Console(record=True, width=120)
    console.print(status_table(engine, RecentActivity()))
    return console.export_text()


def _doc() -> WorkflowDocument:
    return WorkflowDocument.model_validate({
        "name": "one", "task": "do it",
        "nodes": [{"id": "solo", "label": "Solo", "entry": True}],
        "nodeConfigs": {"solo": {"script": [{"say": "hi"}]}}})


def test_interactive_run_with_a_queued_turn_hints_step(tmp_path: Path) -> None:
    engine = create_run(_doc(), tmp_path, mode="INTERACTIVE")
    try:
        text = _render(engine)
    finally:
        engine.close()
    assert "Solo" in text and "INTERACTIVE" in text
    assert "type: step [NODE]" in text


def test_auto_run_hints_the_always_available_commands(tmp_path: Path) -> None:
    engine = create_run(_doc(), tmp_path)
    try:
        text = _render(engine)
    finally:
        engine.close()
    assert "type: chat NODE TEXT" in text and "step" not in text.split("type:")[1]


def test_a_node_whose_call_waits_for_approval_says_so(tmp_path: Path) -> None:
    engine = create_run(_doc(), tmp_path)
    try:
        node_id = next(iter(engine.state.nodes))
        engine.recorder.emit({"type": "approval.requested", "approvalId": "ap1",
                              "nodeId": node_id, "tool": {"id": "t", "name": "command",
                                                          "args": {"cmd": "ls"}}})
        engine.recorder.flush()
        text = _render(engine)
    finally:
        engine.close()
    row = next(line for line in text.splitlines() if "Solo" in line)
    assert "awaiting approval" in row


def test_the_plain_view_says_a_line_per_turn_request_decision_handoff_and_status(
        tmp_path: Path) -> None:
    import io

    from desktop.cli.run_view import PlainView

    engine = create_run(_doc(), tmp_path)
    out = io.StringIO()
    try:
        PlainView(engine, out)
        node_id = next(iter(engine.state.nodes))
        for event in (
                {"type": "turn.status", "nodeId": node_id, "status": "running"},
                {"type": "approval.requested", "approvalId": "ap1234567890", "nodeId": node_id,
                 "tool": {"id": "t", "name": "command", "args": {"cmd": "ls"}}},
                {"type": "approval.resolved", "approvalId": "ap1234567890",
                 "resolution": {"status": "denied", "reason": "not now"}},
                {"type": "handoff.sent", "nodeId": node_id,
                 "envelope": {"toNodeId": node_id, "kind": "report"}},
                {"type": "turn.status", "nodeId": node_id, "status": "failed",
                 "reason": "exit 3"},
                {"type": "run.failed", "reason": "Solo failed"}):
            engine.recorder.emit(event)
        engine.recorder.flush()
    finally:
        engine.close()
    lines = out.getvalue().splitlines()
    assert lines[-6:] == [
        "[Solo] turn running",
        "[Solo] APPROVAL ap123456: command: $ ls",
        "approval ap123456 refused by a person (not now)",
        "[Solo] -> Solo (report)",
        "[Solo] turn failed: exit 3",
        "run.failed: Solo failed",
    ]


def test_the_plain_view_says_how_a_merge_was_decided(tmp_path: Path) -> None:
    import io

    from desktop.cli.run_view import PlainView

    engine = create_run(_doc(), tmp_path)
    out = io.StringIO()
    merge = {"source": "canvas/1/right", "target": "canvas/1/lead", "files": [
        {"path": "notes.txt", "conflicts": 1}]}
    try:
        PlainView(engine, out)
        node_id = next(iter(engine.state.nodes))
        for approval, resolution in (
                ("mg1234567890", {"status": "approved", "by": "cli",
                                  "merge": {"files": {"notes.txt": "theirs"}}}),
                ("mg0987654321", {"status": "denied", "by": "cli"}),
                ("mg5555555555", {"status": "denied", "by": "engine",
                                  "reason": "the engine detached"})):
            engine.recorder.emit({"type": "approval.requested", "approvalId": approval,
                                  "nodeId": node_id, "kind": "merge", "merge": merge})
            engine.recorder.emit({"type": "approval.resolved", "approvalId": approval,
                                  "resolution": resolution})
        engine.recorder.flush()
    finally:
        engine.close()
    decided = [line for line in out.getvalue().splitlines() if not line.startswith("[")]
    assert decided[-3:] == [
        "merge mg123456 resolved by a person in the terminal: notes.txt: theirs",
        "merge mg098765 refused by a person in the terminal: the merge was undone",
        "merge mg555555 withdrawn (the engine detached): the merge was undone"]
