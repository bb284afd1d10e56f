"""The run panels are made on first need, not with the window: a run started in a window
whose panels were never made shows them all working (the conversation's rows, the
approval waiting in the inbox and on the badge, the turn's diff), and a shown window
fills its run docks once it has been painted."""

from __future__ import annotations

import pytest
from panel_window import end_session
from run_flows import gated

from desktop.ui.run.approval_inbox import ApprovalInbox
from desktop.ui.run.conversation_view import ConversationView
from desktop.ui.run.diff_view import DiffView
from desktop.ui.run.history import RunHistory
from desktop.ui.window import EditorWindow

EDIT_THEN_ASK = gated("echo one", extra_configs="").replace(
    "script:", "script:\n      - edit: {path: notes/todo.md, content: \"one\\ntwo\\n\"}"
    "\n      - say: wrote the notes", 1)


def status(panels) -> str:
    return str(((panels.session.state if panels.session else None) or {}).get("status", ""))


@pytest.fixture
def unshown_window(qtbot, qloop, monkeypatch, service):
    """An editor window never shown: nothing has asked for its run panels yet."""

    window = EditorWindow()
    monkeypatch.setattr(window.ask, "save_changes", lambda: "discard")
    qtbot.addWidget(window, before_close_func=lambda w: end_session(qloop, w.run_panels))
    window.run_panels.data_dir = service.data_dir
    return window


def test_a_run_in_a_window_whose_panels_were_never_made_shows_every_panel(
        qloop, unshown_window, until, tmp_path):
    window, panels = unshown_window, unshown_window.run_panels
    assert not panels.built
    assert all(type(d.widget()) is not ConversationView for d in panels.docks.values())
    path = tmp_path / "gated.flow.yaml"
    path.write_text(EDIT_THEN_ASK)
    assert window.files.open_path(path)
    assert not panels.built  # opening a workflow needs none of them

    async def until_asked():
        await panels.run()
        await until(lambda: len(panels.approvals.pending) == 1)

    qloop.run_until_complete(until_asked())
    assert panels.built
    docks = panels.docks
    assert isinstance(docks["conversation"].widget(), ConversationView)
    assert isinstance(docks["approvals"].widget(), ApprovalInbox)
    assert isinstance(docks["diffs"].widget(), DiffView)
    assert isinstance(docks["history"].widget(), RunHistory)
    assert any(e.kind == "tool" for e in panels.conversation.entries())  # the edit, the call
    assert panels.approvals.badge in panels.controls.actions()
    assert panels.approvals.badge.text() == "Approvals (1)"
    assert panels.approvals.list.topLevelItemCount() == 1

    async def approve_each():  # the edit and the shell call each wait for a yes
        while status(panels) != "completed":
            await until(lambda: panels.approvals.pending or status(panels) == "completed")
            if panels.approvals.pending:
                asked = set(panels.approvals.pending)
                dialog = panels.approvals.open_next()
                assert dialog is not None
                dialog.approve()
                await until(lambda asked=asked: not asked & set(panels.approvals.pending))
        await until(lambda: panels.diffs.source.count() == 1 and not panels.diffs.fetching)

    qloop.run_until_complete(approve_each())
    assert [(f.path, f.added, f.removed) for f in panels.diffs.files] == [
        ("notes/todo.md", 2, 0)]
    assert panels.approvals.badge.text() == "Approvals (0)"
    said = [e.text for e in panels.conversation.entries() if e.kind == "assistant"]
    assert any("wrote the notes" in text for text in said), said


def test_a_shown_window_fills_its_run_docks_after_its_first_paint(qtbot, unshown_window):
    window, panels = unshown_window, unshown_window.run_panels
    window.show()
    qtbot.waitUntil(lambda: panels.built)
    kinds = {key: type(dock.widget()).__name__ for key, dock in panels.docks.items()}
    assert kinds == {"conversation": "ConversationView", "transcript": "TranscriptView",
                     "diffs": "DiffView", "record": "RecordView", "result": "ResultView",
                     "history": "RunHistory", "timeline": "TimelineScrubber",
                     "approvals": "ApprovalInbox", "chat": "ChatBox"}
    qtbot.waitUntil(lambda: panels.conversation.isVisible())  # the tab in front
    assert panels.approvals.badge in panels.controls.actions()
