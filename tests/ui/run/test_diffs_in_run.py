"""The Diffs panel over a real run: turns with diffs, both views, and opening the file."""

from __future__ import annotations

import subprocess
from pathlib import Path

from desktop.graph.io import load_workflow, loads_workflow

PIR = Path(__file__).parents[3] / "resources" / "examples" / "plan-implement-review.flow.yaml"

CONFIGURED = """
version: 1
name: Configured workspace
task: write a note
nodes:
  - {id: writer, label: Writer, provider: scripted, entry: true}
nodeConfigs:
  writer:
    workspace: proj
    script:
      - edit: {path: notes/todo.md, content: "one\\ntwo\\n"}
      - say: written
      - done: true
"""


def status(panels) -> str:
    return ((panels.session.state if panels.session else None) or {}).get("status", "")


def _run(qloop, panels, until) -> None:
    async def go():
        await panels.run()
        await until(lambda: status(panels) in ("completed", "failed", "stopped"))

    qloop.run_until_complete(go())
    assert status(panels) == "completed"


def _files(diffs) -> list[tuple[str, int, int]]:
    return [(f.path, f.added, f.removed) for f in diffs.files]


def _shown(qloop, until, view, index: int | None = None) -> list[tuple[str, int, int]]:
    """The files of the diff at ``index`` (else the one on show), once the service sent it."""
    if index is not None:
        view.source.setCurrentIndex(index)
    qloop.run_until_complete(until(lambda: not view.fetching))
    return _files(view)


def test_diffs_panel_lists_each_turn_and_opens_files_in_the_workspace(
        qloop, window_for, until, monkeypatch):
    _window, panels = window_for(load_workflow(PIR))
    _run(qloop, panels, until)
    view = panels.diffs
    titles = [view.source.itemText(i) for i in range(view.source.count())]
    assert len(titles) == 3
    assert titles[0].startswith("Planner") and all(t.startswith("Implementer")
                                                   for t in titles[1:])
    assert view.source.currentIndex() == 2  # the newest turn's diff, as turns ended
    seen = [_shown(qloop, until, view, i) for i in range(view.source.count())]
    assert seen == [[("PLAN.md", 8, 0)], [("greet.py", 2, 0)],
                    [("greet.py", 4, 1), ("test_greet.py", 12, 0)]]

    # the last turn, greet.py: unified text and the side-by-side pair
    view.file_list.setCurrentRow(0)
    unified = view.unified.toPlainText()
    assert "+    if not name:" in unified and "-def greet(name):" in unified
    assert "def greet(name):" in view.left.toPlainText()
    assert "def greet(name: str) -> str:" in view.right.toPlainText()
    assert "def greet(name: str)" not in view.left.toPlainText()

    opened: list[Path] = []
    monkeypatch.setattr(view, "opener", opened.append)
    view.file_list.setCurrentRow(1)
    view.open_button.click()
    workspace = (panels.session.run_dir / "workspace").resolve()
    assert opened == [workspace / "test_greet.py"]
    assert opened[0].is_file()
    assert "def test_rejects_empty_name" in opened[0].read_text()


def test_open_in_editor_follows_a_configured_workspace(
        qloop, window_for, until, tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / "proj").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project / "proj")], check=True)
    window, panels = window_for(loads_workflow(CONFIGURED))
    window.parts.workflow_path = lambda: project / "flow.yaml"
    _run(qloop, panels, until)
    view = panels.diffs
    assert _shown(qloop, until, view) == [("notes/todo.md", 2, 0)]
    opened: list[Path] = []
    monkeypatch.setattr(view, "opener", opened.append)
    view.open_current()
    # proj is a git repository: the node worked in its own worktree, not in proj itself
    run_dir = panels.session.run_dir
    assert opened == [(run_dir / "worktrees" / "writer" / "notes" / "todo.md").resolve()]
    assert opened[0].read_text() == "one\ntwo\n"
    assert not (project / "proj" / "notes").exists()
    assert not (run_dir / "workspace" / "notes").exists()


def test_open_in_editor_follows_a_shared_workspace(
        qloop, window_for, until, tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / "proj").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project / "proj")], check=True)
    window, panels = window_for(loads_workflow(CONFIGURED + "isolation: shared\n"))
    window.parts.workflow_path = lambda: project / "flow.yaml"
    _run(qloop, panels, until)
    assert _shown(qloop, until, panels.diffs) == [("notes/todo.md", 2, 0)]
    opened: list[Path] = []
    monkeypatch.setattr(panels.diffs, "opener", opened.append)
    panels.diffs.open_current()
    assert opened == [(project / "proj" / "notes" / "todo.md").resolve()]
    assert opened[0].read_text() == "one\ntwo\n"


def test_open_in_editor_says_when_nothing_could_open_the_file(qtbot, tmp_path):
    """With no $VISUAL, $EDITOR nor desktop application for the file, Open in editor did
    nothing at all; it now says so and how to set one. With no file it cannot be pressed."""
    from desktop.ui.run.diff_view import DiffView

    view = DiffView()
    qtbot.addWidget(view)
    assert not view.open_button.isEnabled()
    tried: list[Path] = []
    view.opener = lambda path: tried.append(path) or False
    view.set_diff("diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n"
                  "-a\n+b\n", base_dir=tmp_path)
    assert view.open_button.isEnabled()
    with qtbot.assertNotEmitted(view.fileOpened):
        view.open_button.click()
    assert tried == [tmp_path / "app.py"]
    assert not view.open_note.isHidden()
    assert str(tmp_path / "app.py") in view.open_note.text() and "$EDITOR" in view.open_note.text()
    view.opener = lambda path: True
    with qtbot.waitSignal(view.fileOpened):
        view.open_button.click()
    assert view.open_note.isHidden()
    view.set_diff("")
    assert not view.open_button.isEnabled()
