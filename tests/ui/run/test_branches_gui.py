"""A run whose nodes work in their own git worktrees, seen in the app: each node's card shows
its branch and commits ahead, each node's diffs in the Diffs tab hold only its own files,
the Conversation marks the merges, a node's menu offers its worktree and branch, and Run
history gives the result branch and where it was applied."""

from __future__ import annotations

import subprocess
from pathlib import Path

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGraphicsSceneContextMenuEvent

from desktop.graph.io import load_workflow, save_workflow
from desktop.graph.resources import examples_dir
from desktop.runtime.result_apply import apply_result
from desktop.runtime.run_result import find_result
from desktop.ui.run.history import COLUMNS, RunHistory

EXAMPLE = "orchestrator-two-implementers.flow.yaml"
OWN = {"impl-text": {"text_utils.py", "test_text_utils.py"},
       "impl-num": {"num_utils.py", "test_num_utils.py"}}


def _repo(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "README.md").write_text("a project\n")
    (path / ".gitignore").write_text("__pycache__/\n")
    for args in (["init", "-q", "-b", "main"], ["add", "README.md", ".gitignore"],
                 ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", "-c", "user.name=U", "-c", "user.email=u@example.com", *args],
                       cwd=path, check=True, capture_output=True)
    return path


def _status(panels) -> str:
    return ((panels.session.state if panels.session else None) or {}).get("status", "")


def test_cards_diffs_conversation_and_history_show_the_branches(
        qloop, qtbot, editor_window, service, until, tmp_path) -> None:
    repo = _repo(tmp_path / "project")
    doc = load_workflow(examples_dir() / EXAMPLE)
    for node in doc.nodes:
        doc.node_configs[node.id] = doc.config(node.id).model_copy(
            update={"workspace": str(repo)})
    path = tmp_path / "flows" / "branches.flow.yaml"
    path.parent.mkdir()
    save_workflow(doc, path)
    assert editor_window.files.open_path(path)
    panels = editor_window.run_panels
    panels.data_dir = service.data_dir

    async def go():
        await panels.run()
        await until(lambda: _status(panels) in ("completed", "failed", "stopped"))

    qloop.run_until_complete(go())
    assert _status(panels) == "completed"
    state = panels.session.state or {}
    run8 = state["id"][:8]

    # node cards: the branch and the commits ahead, from the run's log
    shown = {}
    for node_id, node in state["nodes"].items():
        badge = panels.overlay.badges[node_id]
        shown[node["key"]] = badge.branch_text()
        assert badge.parentItem() is editor_window.scene.nodes[node["key"]]
    assert shown["impl-text"] == f"canvas/{run8}/impl-text  +1"
    assert shown["impl-num"] == f"canvas/{run8}/impl-num  +1"
    lead = state["nodes"][next(i for i, n in state["nodes"].items()
                               if n["key"] == "orchestrator")]["git"]
    assert lead["ahead"] >= 2 and shown["orchestrator"] == \
        f"canvas/{run8}/orchestrator  +{lead['ahead']}"

    # the Diffs tab: each implementer's turn lists its own files only
    view = panels.diffs
    labels = {n["label"]: n["key"] for n in state["nodes"].values()}
    seen: dict[str, set[str]] = {}
    for i in range(view.source.count()):
        view.source.setCurrentIndex(i)  # the diff comes from the service, by artifact id
        qloop.run_until_complete(until(lambda: not view.fetching))
        key = labels[view.source.itemText(i).split(" · ")[0]]
        seen.setdefault(key, set()).update(f.path for f in view.files)
    assert seen == OWN

    # the Conversation marks the two merges into the orchestrator's worktree, each as the
    # work of the report that brought it, named as that report names its sender
    conversation = panels.conversation
    titles = [e.title for e in conversation.conversation.entries
              if e.kind in ("system", "incoming")]
    assert sorted(t for t in titles if "merged" in t) == [
        "Orchestrator merged the work reported by Implementer (numbers)",
        "Orchestrator merged the work reported by Implementer (text)"]
    for sender in ("Implementer (numbers)", "Implementer (text)"):
        assert titles.index(f"Report from {sender}") < \
            titles.index(f"Orchestrator merged the work reported by {sender}")
    conversation.render()
    assert "Orchestrator merged the work reported by Implementer (text)" in conversation.html

    # a node right-clicked on the canvas: its own worktree and branch, to open or copy
    card = editor_window.scene.nodes["impl-text"]
    click = QGraphicsSceneContextMenuEvent(QEvent.Type.GraphicsSceneContextMenu)
    click.setScenePos(card.sceneBoundingRect().center())
    click.setScreenPos(QPoint(20, 20))
    editor_window.scene.contextMenuEvent(click)
    menu = editor_window.canvas_menus.shown
    assert menu is not None and click.isAccepted()
    text = next(n for n in state["nodes"].values() if n["key"] == "impl-text")["git"]
    folder = panels.session.run_dir / text["workdir"]
    assert menu.place.folder == folder and (folder / "text_utils.py").is_file()
    shown = [a.text() for a in menu.actions() if a.isVisible()]
    assert shown[:6] == [
        f"Implementer (text): canvas/{run8}/impl-text", "Open worktree in editor",
        "Open worktree in file manager", "Copy worktree path", "Copy branch name", "Workflow"]
    assert "&Rename Node" in shown[6:]  # what the editor does to the node comes after
    assert menu.open_editor.isEnabled() and menu.open_files.isEnabled()
    menu.copy_path.trigger()
    assert QGuiApplication.clipboard().text() == str(folder)
    menu.copy_branch.trigger()
    assert QGuiApplication.clipboard().text() == f"canvas/{run8}/impl-text"
    menu.close()

    # Run history: the result branch, not applied, then applied as a branch
    run_dir = panels.session.run_dir
    history = RunHistory(panels.data_dir)
    qtbot.addWidget(history)
    history.refresh()
    column = COLUMNS.index("Result")
    row = next(r for r, h in enumerate(history.rows) if h.path == run_dir)
    assert history.table.item(row, column).text() == \
        f"canvas/{run8}/orchestrator · not applied"
    assert apply_result(find_result(run_dir), branch="from-the-run").applied
    history.refresh()
    row = next(r for r, h in enumerate(history.rows) if h.path == run_dir)
    cell = history.table.item(row, column)
    assert cell.text() == f"canvas/{run8}/orchestrator · applied: branch from-the-run"
    assert f"applied as branch from-the-run in {repo}" in cell.toolTip()
    qloop.run_until_complete(panels.session.close())
    panels.session = None
