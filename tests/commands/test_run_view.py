"""The terminal live view says what can be typed next."""

from pathlib import Path

from rich.console import Console

from desktop.commands.run_view import Activity, status_table
from desktop.graph.document import WorkflowDocument
from desktop.runtime.recovery import create_run


def _render(engine) -> str:
    console = Console(record=True, width=120)
    console.print(status_table(engine, Activity()))
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
