"""A run that has ended takes no message: the chat panel's message line and Send are off,
with a note that says how to go on (Fork from here…, from a replay). A running or paused
run keeps both; a run that may yet take messages keeps the line to type ahead in."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.enums import RUN_ENDED, RUN_LIVE
from desktop.graph.io import loads_workflow
from desktop.ui.run.chat import PLACEHOLDER, ChatBox

NODES = {"n1": {"label": "Lead", "key": "lead"}}
ONE = """
version: 1
name: One
task: wait for me
nodes:
  - {id: lead, label: Lead, provider: scripted, entry: true}
nodeConfigs:
  lead: {script: [{say: "ready"}]}
"""


@pytest.fixture(scope="module")
def chat_box(qapp):
    box = ChatBox()
    yield box
    box.deleteLater()


def _show(chat: ChatBox, status: str, live: bool, why: str = "",
          inbox: list[dict] | None = None) -> None:
    chat.set_state({"status": status, "mode": "INTERACTIVE", "nodes": NODES,
                    "inboxes": {"n1": inbox} if inbox else {}})
    chat.set_live(live, why)


QUEUED = [{"id": "i1", "kind": "handoff", "text": "build it"}]
WAITING = "Waiting for the next turn:"
LEFT_UNSENT = "Left unsent when the run ended:"


def _queue_shown(chat: ChatBox) -> str | None:
    """The queue's heading while the queue is shown, else None."""
    shown = chat.queue_label.isVisibleTo(chat)
    assert shown == chat.queue.isVisibleTo(chat)
    return chat.queue_label.text() if shown else None


@given(st.sampled_from(sorted(RUN_ENDED)), st.booleans())
def test_nothing_waits_for_an_ended_runs_next_turn(chat_box, status, queued_before) -> None:
    _show(chat_box, "running", True, inbox=QUEUED if queued_before else None)
    _show(chat_box, status, False, "ended")
    assert _queue_shown(chat_box) is None
    assert chat_box.queue.count() == 0


@given(st.sampled_from(sorted(RUN_ENDED)))
def test_an_ended_run_shows_what_it_left_unsent(chat_box, status) -> None:
    _show(chat_box, status, False, "ended", inbox=QUEUED)
    assert _queue_shown(chat_box) == LEFT_UNSENT
    assert chat_box.queue.item(0).text() == "handoff: build it"


@given(st.sampled_from(sorted(RUN_LIVE)), st.booleans())
def test_a_live_runs_queue_waits_for_the_next_turn(chat_box, status, queued) -> None:
    _show(chat_box, "completed", False, "ended")  # the panel showed an ended run before
    _show(chat_box, status, True, inbox=QUEUED if queued else None)
    assert _queue_shown(chat_box) == WAITING


@given(st.sampled_from(sorted(RUN_ENDED)), st.booleans())
def test_an_ended_run_offers_no_message_line(chat_box, status, was_live) -> None:
    _show(chat_box, "running", was_live)  # whatever came before
    _show(chat_box, status, False, "This run has ended: fork it")
    assert not chat_box.text.isEnabled()
    assert not chat_box.send_button.isEnabled()
    assert not chat_box.save.isEnabled()  # its queued handoffs never run either
    assert chat_box.note.isVisibleTo(chat_box)
    assert chat_box.note.text() == "This run has ended: fork it"


@given(st.sampled_from(sorted(RUN_LIVE)))
def test_a_live_run_takes_messages(chat_box, status) -> None:
    _show(chat_box, "completed", False, "ended")  # the panel showed an ended run before
    _show(chat_box, status, True)
    assert chat_box.text.isEnabled() and chat_box.send_button.isEnabled()
    assert chat_box.text.placeholderText() == PLACEHOLDER
    assert not chat_box.note.isVisibleTo(chat_box)


@given(st.sampled_from(sorted(RUN_LIVE)))
def test_a_run_not_ended_but_not_reachable_keeps_the_line_to_type_in(chat_box, status) -> None:
    _show(chat_box, status, False, "The service stopped: restart it to send messages.")
    assert chat_box.text.isEnabled()  # what is typed goes once the run takes it
    assert not chat_box.send_button.isEnabled()


def test_a_finished_run_in_the_window_says_to_fork_it(qloop, window_for, past_run) -> None:
    _window, panels = window_for(loads_workflow(ONE))
    panels.open_run(past_run(ONE, "one"))
    chat = panels.chat
    assert not chat.text.isEnabled() and not chat.send_button.isEnabled()
    assert "Fork from here" in chat.note.text() and "Run history" in chat.note.text()
    assert chat.note.isVisibleTo(chat)
    assert not chat.queue_label.isVisibleTo(chat)  # nothing waits for a turn


def test_a_paused_run_in_the_window_takes_messages(qloop, window_for, until) -> None:
    _window, panels = window_for(loads_workflow(ONE))
    chat = panels.chat

    async def go() -> None:
        session = await panels.run(interactive=True)
        await until(lambda: session.running and chat.send_button.isEnabled())
        assert chat.text.isEnabled()
        task = session.pause()
        assert task is not None
        await task
        await until(lambda: (session.state or {}).get("status") == "paused"
                    and chat.state is session.state)
        assert chat.text.isEnabled() and chat.send_button.isEnabled()

    qloop.run_until_complete(go())
