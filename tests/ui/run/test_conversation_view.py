"""The Conversation panel: markdown and code blocks, tool calls as cards that open to their
arguments and result, agent HTML shown as text, and it follows the node picked."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer, QUrl

from desktop.ui.run.conversation_view import ConversationView
from desktop.ui.theme import DARK

sys.path.insert(0, str(Path(__file__).parents[2] / "views"))
from test_conversation import A, B, run_events

CODE = "Here is the fix:\n\n```python\ndef greet(name):\n    return f'Hi {name}'\n```\n"


def _after_pending_calls(qtbot) -> None:
    """Return once the calls already queued for the event loop (zero timers) have run."""
    ran: list[bool] = []
    QTimer.singleShot(0, lambda: ran.append(True))
    qtbot.waitUntil(lambda: bool(ran), timeout=5000)


def _view(qtbot, events) -> ConversationView:
    view = ConversationView()
    qtbot.addWidget(view)
    view.reset(events)
    return view


def test_messages_read_as_markdown_with_code_blocks(qtbot) -> None:
    events = run_events()
    events.append({"seq": 99, "type": "message.assistant.final", "nodeId": A, "text": CODE})
    view = _view(qtbot, events)
    assert "<code>PLAN.md</code>" in view.html
    assert "<pre><code class=\"language-python\">def greet(name):" in view.html
    text = view.browser.toPlainText()
    assert "Planner" in text and "Handoff from Planner" in text and "Run completed" in text
    assert "```" not in text  # rendered, not shown as markup


def test_a_tool_call_is_a_card_that_opens_to_its_arguments_and_result(qtbot) -> None:
    view = _view(qtbot, run_events())
    text = view.browser.toPlainText()
    assert "▸ ⚙ command pytest -q · completed · 2.00s" in text
    assert "→ 3 passed" in text
    assert "ok: true" not in text  # closed: a one-line result only
    ran = next(e for e in view.conversation.entries if e.tool_id == "t1")
    view.browser.anchorClicked.emit(QUrl(f"card:{ran.seq}/tool"))
    text = view.browser.toPlainText()
    assert "▾ ⚙ command" in text and "Arguments" in text and "cmd: pytest -q" in text
    assert "output: 3 passed" in text and "ok: true" in text
    view.browser.anchorClicked.emit(QUrl(f"card:{ran.seq}/tool"))
    assert "Arguments" not in view.browser.toPlainText()


def test_a_denied_call_says_denied_and_why(qtbot) -> None:
    view = _view(qtbot, run_events())
    text = view.browser.toPlainText()
    assert "command rm -rf / · denied" in text and "Reason: never" in text
    assert "failed" not in text


def test_thinking_is_closed_until_opened(qtbot) -> None:
    events = run_events()
    events[3]["text"] = "Two steps, then a review of the whole change."
    view = _view(qtbot, events)
    thought = next(e for e in view.conversation.entries if e.kind == "thinking")
    assert "▸ Thinking" in view.browser.toPlainText()
    view.browser.anchorClicked.emit(QUrl(f"card:{thought.seq}/thinking"))
    assert "▾ Thinking" in view.browser.toPlainText()


def test_what_an_agent_prints_is_text_never_html(qtbot) -> None:
    events = run_events()
    events.append({"seq": 99, "type": "message.assistant.final", "nodeId": A,
                   "text": "<img src='http://example.invalid/x.png'><b>bold?</b> "
                           "<script>x</script>"})
    view = _view(qtbot, events)
    assert "<img" not in view.html and "<script>" not in view.html
    assert "&lt;img src=" in view.html
    assert "<b>bold?</b>" in view.browser.toPlainText()


def test_it_follows_the_picked_node_and_the_replay_position(qtbot) -> None:
    view = _view(qtbot, run_events())
    view.set_node(B)
    text = view.browser.toPlainText()
    assert "Implement it" in text and "Add greet()" not in text
    view.set_node(None)
    view.set_limit(7)
    qtbot.waitUntil(lambda: "Implement it" not in view.browser.toPlainText(), timeout=5000)
    assert "Add greet()" in view.browser.toPlainText()
    view.set_theme(DARK)
    assert DARK.text in view.html


def test_a_new_batch_redraws_once_and_keeps_the_end_in_view(qtbot) -> None:
    events = run_events()
    view = _view(qtbot, events[:5])
    view.resize(500, 200)
    view.show()
    many = [{"seq": 100 + i, "type": "message.assistant.final", "nodeId": A,
             "text": f"line {i}"} for i in range(40)]
    view.apply_events(many)
    qtbot.waitUntil(lambda: "line 39" in view.browser.toPlainText(), timeout=5000)
    bar = view.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=5000)
    # a reader who scrolled up stays where they are while more arrives
    bar.triggerAction(bar.SliderAction.SliderToMinimum)
    qtbot.waitUntil(lambda: not view._stick, timeout=5000)
    height = bar.maximum()
    view.apply_events([{"seq": 200, "type": "message.assistant.final", "nodeId": A,
                        "text": "one more"}])
    qtbot.waitUntil(lambda: "one more" in view.browser.toPlainText(), timeout=5000)
    qtbot.waitUntil(lambda: bar.maximum() > height, timeout=5000)  # the range grew...
    _after_pending_calls(qtbot)  # ...and what the redraw left for later has run
    assert bar.value() == 0


def test_a_long_run_draws_its_latest_entries_and_a_hidden_view_waits(qtbot) -> None:
    from desktop.ui.run.conversation_view import MAX_SHOWN

    many = [{"seq": i, "type": "message.assistant.final", "nodeId": A, "text": f"entry {i}"}
            for i in range(1, MAX_SHOWN + 51)]
    view = _view(qtbot, many)
    text = view.browser.toPlainText()
    assert f"entry {MAX_SHOWN + 50}" in text and text.count("entry ") == MAX_SHOWN
    assert "50 earlier entries are not shown" in text
    drawn = view.html
    view.apply_events([{"seq": 999, "type": "message.assistant.final", "nodeId": A,
                        "text": "while hidden"}])
    assert view.html == drawn  # not visible: nothing redrawn yet, nor due to be
    assert not view._timer.isActive()
    view.show()
    qtbot.waitUntil(lambda: "while hidden" in view.browser.toPlainText())


def test_a_pause_says_all_of_how_to_go_on(qtbot) -> None:
    """An undone merge pauses the run with where and how to merge by hand; the line was
    cut at 300 characters, in the middle of the git command, before "then resume"."""
    worktree = "/home/me/.local/share/agent-canvas/runs/" + "d3c3b37b-f020-46a1-a4df-" \
        "15b5265150e2/worktrees/orchestrator"
    reason = ("paused: merging canvas/d3c3b37b/impl-a into canvas/d3c3b37b/orchestrator "
              "conflicts in config.py, greet.py (the merge was refused); the merge was undone "
              f"and the node waits. Merge it yourself in {worktree} (git merge "
              "canvas/d3c3b37b/impl-a, fix the files, git commit), then resume the run")
    events = run_events()
    events.append({"seq": 99, "type": "run.paused", "reason": reason})
    view = _view(qtbot, events)
    text = " ".join(view.browser.toPlainText().split())
    assert f"Run paused — {reason}" in text


def test_a_merge_made_by_hand_reads_as_one(qtbot) -> None:
    """A merge a person made in the worktree and resumed shows in the Conversation as the
    merges decided in the dialog or by the agent do, saying who resolved it."""
    from desktop.runtime.merge_gate import BY_HAND

    events = run_events()
    events.append({"seq": 99, "type": "node.progress", "nodeId": A, "message":
                   f"merged canvas/1a2b/right (from right) into canvas/1a2b/lead "
                   f"(4c92bfc1): {BY_HAND}"})
    view = _view(qtbot, events)
    text = " ".join(view.browser.toPlainText().split())
    assert ("canvas/1a2b/right into canvas/1a2b/lead at 4c92bfc1; resolved by a person in "
            "the worktree") in text
    assert "merged right's branch" in text


def test_a_merge_decided_in_the_dialog_says_who_as_the_merge_line_does(qtbot) -> None:
    """The decision and the merge it made name the person the same way, not "by user"
    on one line and "resolved by a person" on the next."""
    events = run_events()
    events += [{"seq": 98, "type": "approval.requested", "nodeId": A, "approvalId": "m1",
                "kind": "merge", "merge": {"source": "canvas/1a2b/right", "sender": "right",
                                           "target": "canvas/1a2b/lead",
                                           "files": [{"path": "a.txt", "hunks": [{}]}]}},
               {"seq": 99, "type": "approval.resolved", "nodeId": A, "approvalId": "m1",
                "resolution": {"status": "approved", "by": "user",
                               "merge": {"files": {"a.txt": "theirs"}}}},
               {"seq": 100, "type": "node.progress", "nodeId": A, "message":
                "merged canvas/1a2b/right (from right) into canvas/1a2b/lead (4c92bfc1): "
                "resolved by a person: a.txt: theirs"}]
    view = _view(qtbot, events)
    text = " ".join(view.browser.toPlainText().split())
    assert "by user" not in text
    assert text.count("resolved by a person: a.txt: theirs") == 2
