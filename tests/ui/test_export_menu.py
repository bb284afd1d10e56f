"""File > Import/Export Mermaid and Export PNG as a user reaches them: through the menu's
actions, with the save dialog answered by the test."""

from pathlib import Path

from desktop.graph.export import from_mermaid


def _edges(doc) -> set[tuple[str, str, str]]:
    return {(e.from_, e.to, str(e.type)) for e in doc.edges}


def test_export_mermaid_writes_the_workflow_and_adds_the_suffix(
        example_window, tmp_path, monkeypatch) -> None:
    win = example_window
    monkeypatch.setattr(win.ask, "save_path", lambda *a: str(tmp_path / "chart"))
    win.actions_["export_mermaid"].trigger()
    written = tmp_path / "chart.mmd"
    back = from_mermaid(written.read_text(encoding="utf-8"))
    doc = win.editor.model.doc
    assert {n.id for n in back.nodes} == {n.id for n in doc.nodes}
    assert _edges(back) == _edges(doc)
    assert not win.answers.get("errors")


def test_import_mermaid_replaces_the_workflow_in_one_undoable_step(
        example_window, tmp_path, monkeypatch) -> None:
    win = example_window
    before = {n.id for n in win.editor.model.doc.nodes}
    chart = tmp_path / "chart.mmd"
    chart.write_text("flowchart LR\n  scout --> builder\n", encoding="utf-8")
    monkeypatch.setattr(win.ask, "open_path", lambda *a: str(chart))
    win.actions_["import_mermaid"].trigger()
    assert {n.id for n in win.editor.model.doc.nodes} == {"scout", "builder"}
    win.actions_["undo"].trigger()
    assert {n.id for n in win.editor.model.doc.nodes} == before


def test_an_export_that_cannot_be_written_says_why_and_writes_nothing(
        example_window, tmp_path, monkeypatch) -> None:
    win = example_window
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    target = blocked / "chart.png"  # inside a file: no program can write there
    for name in ("export_png", "export_mermaid"):
        monkeypatch.setattr(win.ask, "save_path", lambda *a, t=target: str(t))
        win.actions_[name].trigger()
    errors = win.answers.get("errors", [])
    assert len(errors) == 2 and all(str(blocked) in e for e in errors)
    assert blocked.read_text() == "not a folder"
    assert not Path(f"{target}.mmd").exists()
