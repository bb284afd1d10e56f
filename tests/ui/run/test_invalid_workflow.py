"""A workflow the validator rejects is refused by the GUI as by the CLI (exit 2): nothing
runs, the problems are shown, and the dangling edge can be removed in one click."""

from __future__ import annotations

from desktop.cli import main

BAD = """
version: 1
name: Bad edge
task: say hi
nodes:
  - {id: a, label: A, provider: scripted, entry: true, position: {x: 0, y: 0}}
nodeConfigs:
  a: {script: [{say: hi}]}
edges:
  - {from: a, to: ghost, type: handoff}
"""


def _runs(data_dir) -> set[str]:
    runs = data_dir / "runs"
    return {p.name for p in runs.iterdir()} if runs.is_dir() else set()


def test_the_gui_refuses_what_the_cli_refuses_and_offers_the_fix(qloop, editor_window,
                                                                 tmp_path, service, until):
    path = tmp_path / "bad.flow.yaml"
    path.write_text(BAD)
    assert main(["run", str(path), "--data-dir", str(tmp_path / "cli")]) == 2
    assert editor_window.files.open_path(path)
    panels = editor_window.run_panels
    panels.data_dir = service.data_dir
    before = _runs(service.data_dir)

    assert panels.run() is None  # refused here: no run is created
    assert panels.session is None and _runs(service.data_dir) == before
    info = editor_window.info
    assert info.isVisible() and "ghost" in info.label.text()
    assert "1 error" in info.label.text()
    assert editor_window.docks["problems"].isVisible()
    current = editor_window.problems.currentItem()
    assert current is not None and "ghost" in current.text(2)
    fix = next(b for b in info.buttons if b.text().startswith("Remove"))
    fix.click()
    assert editor_window.editor.model.doc.edges == []
    assert editor_window.file.is_modified()  # an edit like any other (undoable)

    async def go():
        await panels.run()
        await until(lambda: (panels.session.state or {}).get("status") == "completed")

    qloop.run_until_complete(go())
    qloop.run_until_complete(panels.session.close())
    panels.session = None
    editor_window.editor.undo_stack.undo()
    assert len(editor_window.editor.model.doc.edges) == 1
