"""The chat panel keeps the node the user picked, keeps unsent text, and shows whole tasks."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.graph.io import loads_workflow
from desktop.ui.run.chat import ChatBox

TWO = """
version: 1
name: Two
task: split the work
nodes:
  - {id: lead, label: Lead, provider: scripted, entry: true}
  - {id: worker, label: Worker, provider: scripted}
nodeConfigs:
  lead: {script: [{handoff: {to: worker, message: "do it"}}]}
  worker: {script: [{say: "on it"}]}
edges:
  - {from: lead, to: worker}
"""


def _id_of(panels, key: str) -> str | None:
    nodes = (panels.session.state or {}).get("nodes") or {}
    return next((i for i, n in nodes.items() if n.get("key") == key), None)


def test_a_new_run_keeps_the_chat_target_the_user_chose(qloop, window_for, until):
    _window, panels = window_for(loads_workflow(TWO))
    chat = panels.chat

    async def go():
        first = await panels.run(interactive=True)
        await until(lambda: _id_of(panels, "worker") is not None and chat.node.count() == 2)
        chat.select_node(_id_of(panels, "worker"))
        second = await panels.run(interactive=True)
        assert second is not first
        await until(lambda: chat.node.findData(_id_of(panels, "worker")) >= 0)
        await until(lambda: panels.chat.state is panels.session.state)

    qloop.run_until_complete(go())
    assert chat.node.currentData() == _id_of(panels, "worker")  # not the entry node
    assert chat.node.currentText() == "Worker"


def test_send_on_a_read_only_run_keeps_the_text_and_says_why(qloop, window_for, past_run,
                                                             until):
    _window, panels = window_for(loads_workflow(TWO))
    panels.open_run(past_run(TWO, "two"))
    chat = panels.chat
    sent: list[tuple[str, str]] = []
    chat.sendRequested.connect(lambda n, t: sent.append((n, t)))
    chat.text.setText("are you there?")
    assert not chat.send_button.isEnabled()
    chat.text.returnPressed.emit()
    chat.send()
    assert chat.text.text() == "are you there?"  # nothing typed is lost
    assert sent == []
    assert chat.note.isVisibleTo(chat) and chat.note.text()


def test_a_long_task_is_shown_whole_and_elided_by_the_view(qtbot):
    chat = ChatBox()
    qtbot.addWidget(chat)
    task = ("Create a README.md for this project with a one-line description, a Usage "
            "section and a Development section that says how to run the tests, then "
            "check every link in it and fix the ones that are broken.")
    chat.set_state({"nodes": {"n1": {"label": "Writer", "key": "writer"}},
                    "inboxes": {"n1": [{"id": "i1", "kind": "task", "text": task}]}})
    item = chat.queue.item(0)
    assert item.text() == f"task: {task}"  # not cut mid-sentence; the view elides it
    assert item.toolTip() == task
    assert chat.queue.textElideMode() == Qt.TextElideMode.ElideRight


def test_a_state_without_the_chosen_node_does_not_change_the_choice(qtbot):
    chat = ChatBox()
    qtbot.addWidget(chat)
    both = {"nodes": {"l1": {"key": "lead", "label": "Lead"},
                      "w1": {"key": "worker", "label": "Worker"}}}
    chat.set_state(both)
    chat.select_node("w1")
    chat.set_state({"nodes": {"l2": {"key": "lead", "label": "Lead"}}})  # a new run, early
    chat.set_state({"nodes": {"l2": {"key": "lead", "label": "Lead"},
                              "w2": {"key": "worker", "label": "Worker"}}})
    assert chat.node.currentData() == "w2"
