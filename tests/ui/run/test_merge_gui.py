"""A merge that conflicts, decided in the app's approval inbox: the files and hunks shown,
a side per file, the result edited, or handed to the agent; a real run resolved from the
dialog completes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from desktop.graph.io import loads_workflow
from desktop.ui.run.approval_inbox import ApprovalInbox
from desktop.ui.run.merge_dialog import MergeDialog
from desktop.views.notices import ApprovalClosed

USER = ("-c", "user.name=The User", "-c", "user.email=user@example.com")
RESOLVE = "grep -q '^<<<<<<<' shared.txt && printf 'by the agent\\n' > shared.txt; true"


def request(worktree: Path, agent: bool = True) -> dict:
    return {"approvalId": "m1", "nodeId": "n1", "kind": "merge", "merge": {
        "source": "canvas/1a2b3c4d/right", "target": "canvas/1a2b3c4d/lead",
        "sender": "right", "commit": "ab" * 20, "worktree": str(worktree), "agent": agent,
        "files": [{"path": "a.txt", "hunks": [{"line": 1, "ours": "left\n",
                                               "theirs": "right\n"}]},
                  {"path": "logo.png", "binary": True}]}}


class Resolver:
    """Takes every decision at once and keeps it."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __call__(self, approval_id, status, args, reason, merge=None) -> bool:
        self.calls.append((approval_id, status, merge))
        return True


def test_each_file_gets_a_side_or_an_edited_text_and_resolve_sends_them(qtbot, tmp_path):
    (tmp_path / "a.txt").write_text("<<<<<<< HEAD\nleft\n=======\nright\n>>>>>>> right\n")
    resolver = Resolver()
    dialog = MergeDialog(request(tmp_path), resolver, "Lead")
    qtbot.addWidget(dialog)
    assert "canvas/1a2b3c4d/right" in dialog.findChildren(type(dialog.error))[0].text()
    assert "ours (this node's branch):\nleft\n" in dialog.hunks.toPlainText()
    assert not dialog.resolve_button.isEnabled()
    assert not dialog.buttons["logo.png"]["edit"].isEnabled()  # binary: a side only
    dialog.buttons["a.txt"]["edit"].click()
    assert dialog.editor.toPlainText().startswith("<<<<<<< HEAD")  # the worktree's file
    dialog.use_edit.click()
    assert "still has conflict markers" in dialog.error.text()
    dialog.editor.setPlainText("left and right")
    dialog.use_edit.click()
    assert dialog.chosen["a.txt"].text() == "edited"
    assert not dialog.resolve_button.isEnabled()
    dialog.buttons["logo.png"]["theirs"].click()
    assert dialog.chosen["logo.png"].text() == "theirs"
    assert dialog.buttons["logo.png"]["theirs"].isChecked()
    dialog.resolve_button.click()
    assert resolver.calls == [("m1", "approved", {
        "files": {"logo.png": "theirs"}, "contents": {"a.txt": "left and right\n"},
        "agent": False})]


def test_hand_to_agent_sends_the_choices_so_far_and_undo_denies(qtbot, tmp_path):
    resolver = Resolver()
    dialog = MergeDialog(request(tmp_path), resolver, "Lead")
    qtbot.addWidget(dialog)
    dialog.buttons["a.txt"]["ours"].click()
    dialog.buttons["a.txt"]["ours"].click()  # pressed again: undecided
    dialog.buttons["logo.png"]["ours"].click()
    dialog.agent_button.click()
    assert resolver.calls[-1] == ("m1", "approved", {
        "files": {"logo.png": "ours"}, "contents": {}, "agent": True})
    other = MergeDialog(request(tmp_path, agent=False), resolver, "Lead")
    qtbot.addWidget(other)
    assert not other.agent_button.isEnabled()
    other.buttons["a.txt"]["edit"].click()  # no worktree file: rebuilt from the hunks
    assert other.editor.toPlainText() == "<<<<<<< ours\nleft\n=======\nright\n>>>>>>> theirs\n"
    other.deny_button.click()
    assert resolver.calls[-1] == ("m1", "denied", None)


def test_the_inbox_lists_a_merge_and_opens_its_dialog(qtbot, tmp_path):
    resolver = Resolver()
    inbox = ApprovalInbox(resolver)
    qtbot.addWidget(inbox)
    inbox.set_state({"nodes": {"n1": {"label": "Lead"}},
                     "pendingApprovals": {"m1": request(tmp_path)}})
    assert inbox.row_texts()[0].startswith(
        "Lead: merge canvas/1a2b3c4d/right into canvas/1a2b3c4d/lead: conflicts in a.txt")
    inbox._quick("approved")  # A on a merge opens it: it needs a decision per file
    assert isinstance(inbox.dialog, MergeDialog) and resolver.calls == []
    inbox.closed(ApprovalClosed("m1"))
    assert inbox.pending == {} and not inbox.dialog.isVisible()


def flow(repo: Path) -> str:
    ws = str(repo)
    return f"""
version: 1
name: Merge
task: change the shared file
nodes:
  - {{id: lead, label: Lead, provider: scripted, entry: true}}
  - {{id: left, label: Left, provider: scripted}}
  - {{id: right, label: Right, provider: scripted}}
nodeConfigs:
  lead: {{workspace: "{ws}", stallThreshold: 10, script: [{{shell: "{RESOLVE}"}}, {{say: lead}}]}}
  left: {{workspace: "{ws}", script: [{{edit: {{path: shared.txt, content: "left\\n"}}}}]}}
  right: {{workspace: "{ws}", script: [{{edit: {{path: shared.txt, content: "right\\n"}}}}]}}
edges:
  - {{from: lead, to: left}}
  - {{from: lead, to: right}}
  - {{from: left, to: lead, type: report}}
  - {{from: right, to: lead, type: report}}
"""


@pytest.mark.parametrize("how", ["theirs", "agent"])
def test_a_conflicting_run_is_resolved_in_the_gui_and_completes(
        qloop, window_for, until, tmp_path, how):
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "shared.txt").write_text("base\n")
    subprocess.run(["git", *USER, "add", "."], cwd=repo, check=True)
    subprocess.run(["git", *USER, "commit", "-qm", "base"], cwd=repo, check=True)
    _window, panels = window_for(loads_workflow(flow(repo)))

    async def go():
        await panels.run()
        await until(lambda: any(r.get("kind") == "merge"
                                for r in panels.approvals.pending.values()))
        dialog = panels.approvals.open_next()
        assert isinstance(dialog, MergeDialog)
        assert set(dialog.buttons) == {"shared.txt"}
        theirs = dialog.merge["files"][0]["hunks"][0]["theirs"]
        if how == "theirs":
            dialog.buttons["shared.txt"]["theirs"].click()
            dialog.resolve_button.click()
        else:
            dialog.agent_button.click()
        await until(lambda: not panels.approvals.pending)
        await until(lambda: (panels.session.state or {}).get("status") == "completed")
        return theirs

    theirs = qloop.run_until_complete(go())
    state = panels.session.state
    lead = next(n for n in state["nodes"].values() if n["key"] == "lead")
    shown = subprocess.run(["git", "show", f"{lead['git']['branch']}:shared.txt"], cwd=repo,
                           capture_output=True, text=True, check=True).stdout
    assert shown == (theirs if how == "theirs" else "by the agent\n")
    assert (repo / "shared.txt").read_text() == "base\n"


def two_files(worktree: Path) -> dict:
    """A merge of two text files, each with its base."""
    asked = request(worktree)
    asked["merge"]["files"] = [
        {"path": name, "hunks": [{"line": 1, "ours": f"{name} left\n", "base": f"{name} was\n",
                                  "theirs": f"{name} right\n"}]}
        for name in ("a.txt", "b.txt")]
    return asked


def test_the_hunks_show_what_both_sides_started_from(qtbot, tmp_path):
    """Ours and theirs alone do not say which side changed what: the base is in the
    request and is shown between them."""
    dialog = MergeDialog(two_files(tmp_path), Resolver(), "Lead")
    qtbot.addWidget(dialog)
    assert dialog.hunks.toPlainText() == (
        "── line 1 ── ours (this node's branch):\na.txt left\n"
        "── the base (before both):\na.txt was\n"
        "── theirs (the sender's):\na.txt right\n")


def test_an_edited_text_goes_to_the_file_edited_not_the_one_shown(qtbot, tmp_path):
    """Edit a.txt, look at b.txt's hunks, then Use this text: the text was a.txt's, and it
    became b.txt's result (the button still said a.txt)."""
    resolver = Resolver()
    dialog = MergeDialog(two_files(tmp_path), resolver, "Lead")
    qtbot.addWidget(dialog)
    dialog.buttons["a.txt"]["edit"].click()
    dialog.editor.setPlainText("a.txt, both\n")
    dialog.show_file("b.txt")  # its name clicked to read its hunks
    assert "b.txt left" in dialog.hunks.toPlainText()
    dialog.use_edit.click()
    assert dialog.contents == {"a.txt": "a.txt, both\n"}
    assert dialog.chosen["a.txt"].text() == "edited" and dialog.chosen["b.txt"].text() == "—"
    dialog.buttons["b.txt"]["ours"].click()
    dialog.resolve_button.click()
    assert resolver.calls == [("m1", "approved", {
        "files": {"b.txt": "ours"}, "contents": {"a.txt": "a.txt, both\n"}, "agent": False})]


def test_resolve_uses_the_text_in_the_editor(qtbot, tmp_path):
    """Text typed after Use this text (or without it) was dropped by Resolve, which sent the
    text used before, or stayed disabled: the editor's text is what Resolve sends."""
    resolver = Resolver()
    dialog = MergeDialog(two_files(tmp_path), resolver, "Lead")
    qtbot.addWidget(dialog)
    dialog.buttons["b.txt"]["theirs"].click()
    dialog.buttons["a.txt"]["edit"].click()
    dialog.editor.setPlainText("first try\n")
    dialog.use_edit.click()
    dialog.editor.selectAll()
    qtbot.keyClicks(dialog.editor, "second thoughts")
    assert dialog.chosen["a.txt"].text() == "editing"
    dialog.resolve_button.click()
    assert resolver.calls == [("m1", "approved", {
        "files": {"b.txt": "theirs"}, "contents": {"a.txt": "second thoughts\n"},
        "agent": False})]


def test_resolve_refuses_an_edited_text_with_markers_and_a_side_closes_the_editor(
        qtbot, tmp_path):
    resolver = Resolver()
    dialog = MergeDialog(two_files(tmp_path), resolver, "Lead")
    qtbot.addWidget(dialog)
    dialog.buttons["b.txt"]["ours"].click()
    dialog.buttons["a.txt"]["edit"].click()  # rebuilt from the hunks: markers
    qtbot.keyClicks(dialog.editor, "x")
    assert dialog.resolve_button.isEnabled()
    dialog.resolve_button.click()
    assert resolver.calls == [] and "still has conflict markers" in dialog.error.text()
    dialog.buttons["a.txt"]["theirs"].click()  # a side instead: the edit is dropped
    assert dialog.editor.toPlainText() == "" and not dialog.use_edit.isEnabled()
    dialog.resolve_button.click()
    assert resolver.calls[-1][2]["files"] == {"a.txt": "theirs", "b.txt": "ours"}


def test_editing_another_file_keeps_the_text_being_edited(qtbot, tmp_path):
    """Edit a.txt, then Edit b.txt before Use this text: a.txt's text was thrown away
    without a word. Now it is a.txt's result when no marker is left, else a draft that
    Edit brings back; editing the same file again leaves the editor as it is."""
    resolver = Resolver()
    dialog = MergeDialog(two_files(tmp_path), resolver, "Lead")
    qtbot.addWidget(dialog)
    dialog.buttons["a.txt"]["edit"].click()
    dialog.editor.selectAll()
    qtbot.keyClicks(dialog.editor, "a.txt, both")
    dialog.buttons["a.txt"]["edit"].click()  # pressed again: nothing typed is lost
    assert dialog.editor.toPlainText() == "a.txt, both"
    dialog.buttons["b.txt"]["edit"].click()
    assert dialog.contents == {"a.txt": "a.txt, both\n"}
    assert dialog.chosen["a.txt"].text() == "edited"
    assert dialog.editor.toPlainText().startswith("<<<<<<< ours\nb.txt left")
    qtbot.keyClicks(dialog.editor, "half done ")  # markers still in it
    dialog.buttons["a.txt"]["edit"].click()
    assert dialog.chosen["b.txt"].text() == "draft"
    assert dialog.editor.toPlainText() == "a.txt, both\n"
    assert not dialog.resolve_button.isEnabled()  # a draft is no decision
    dialog.buttons["b.txt"]["edit"].click()  # the draft comes back, as it was left
    assert dialog.editor.toPlainText().startswith("half done <<<<<<< ours\nb.txt left")
    dialog.editor.selectAll()
    qtbot.keyClicks(dialog.editor, "b.txt, both")
    dialog.resolve_button.click()
    assert resolver.calls == [("m1", "approved", {
        "files": {}, "contents": {"a.txt": "a.txt, both\n", "b.txt": "b.txt, both\n"},
        "agent": False})]


def test_the_hunks_shown_are_named_with_their_file(qtbot, tmp_path):
    """Two files' hunks can read alike (both "line 1"): the pane says whose they are, and
    that file's row stands out."""
    dialog = MergeDialog(two_files(tmp_path), Resolver(), "Lead")
    qtbot.addWidget(dialog)
    assert dialog.shown.text().startswith("<b>a.txt (1 conflict)</b>")
    assert dialog.names["a.txt"].font().bold() and not dialog.names["b.txt"].font().bold()
    dialog.names["b.txt"].click()
    assert dialog.shown.text().startswith("<b>b.txt (1 conflict)</b>")
    assert dialog.names["b.txt"].font().bold() and not dialog.names["a.txt"].font().bold()
    dialog.buttons["a.txt"]["edit"].click()  # editing a file shows its hunks
    assert dialog.shown.text().startswith("<b>a.txt")


def test_the_side_taken_is_marked_on_its_button(qtbot, tmp_path):
    """A checked Ours read like an unchecked one in both themes: the side taken says so."""
    dialog = MergeDialog(two_files(tmp_path), Resolver(), "Lead")
    qtbot.addWidget(dialog)
    buttons = dialog.buttons["a.txt"]
    assert (buttons["ours"].text(), buttons["theirs"].text()) == ("Ours", "Theirs")
    buttons["theirs"].click()
    assert (buttons["ours"].text(), buttons["theirs"].text()) == ("Ours", "✓ Theirs")
    buttons["ours"].click()
    assert (buttons["ours"].text(), buttons["theirs"].text()) == ("✓ Ours", "Theirs")
    buttons["ours"].click()  # pressed again: undecided, unmarked
    assert buttons["ours"].text() == "Ours"
