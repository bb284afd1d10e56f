"""The questions asked before a tab or window closes over live runs read as sentences,
for one run or several, waiting for a decision or not."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QRadioButton

from desktop.ui.close_dialog import ClosingDialog, LiveRun, keep_note, live_question

GATED = LiveRun("Approve a command", "dbc9d8bd-0000-4000-8000-000000000000", 1)
PLAIN = LiveRun("Best of two", "9a356dae-0000-4000-8000-000000000000")
STEP = LiveRun("Review", "5e1f0b2c-0000-4000-8000-000000000000", step="Reviewer")


def test_one_live_run_is_asked_about_in_a_sentence_that_says_what_it_waits_for():
    assert live_question(GATED) == ("“Approve a command” (run dbc9d8bd) is still running and "
                                    "waits for 1 approval. Close its tab anyway?")
    assert live_question(PLAIN) == ("“Best of two” (run 9a356dae) is still running. "
                                    "Close its tab anyway?")
    assert "waits for 2 approvals" in live_question(LiveRun("Gated", "12345678", 2))


def test_the_note_names_the_approvals_inbox_only_for_a_run_that_waits_there():
    assert keep_note([PLAIN]) == "Kept running, it stays in Run history: open it again " \
        "from there."
    assert "its requests in the Approvals inbox" in keep_note([GATED])
    both = keep_note([PLAIN, GATED])
    assert both.startswith("Kept running, they stay") and "their requests" in both
    assert "Approvals" not in keep_note([PLAIN, PLAIN])


def test_a_run_waiting_for_step_is_said_to_wait_for_it_and_to_be_in_the_inbox():
    assert live_question(STEP) == ("“Review” (run 5e1f0b2c) is still running and waits for "
                                   "Step (Reviewer's turn is next). Close its tab anyway?")
    assert keep_note([STEP]) == ("Kept running, it stays in Run history, and the Approvals "
                                 "inbox of every window lists it as waiting for Step: open "
                                 "it again from there.")
    assert STEP.listed() == "Review (run 5e1f0b2c), waiting for Step (Reviewer's turn is next)"
    several = keep_note([PLAIN, STEP, GATED])
    assert "their requests and those waiting for Step in the Approvals inbox" in several
    assert "waiting for Step" in keep_note([PLAIN, STEP])
    assert "their requests in the Approvals inbox" in keep_note([PLAIN, GATED])


def _texts(dialog: ClosingDialog) -> list[str]:
    return [w.text() for kind in (QLabel, QRadioButton) for w in dialog.findChildren(kind)]


def test_the_closing_dialog_says_it_for_one_run_and_them_for_several(qtbot):
    one = ClosingDialog([], [GATED], quitting=True)
    qtbot.addWidget(one)
    texts = _texts(one)
    assert "<b>Live run</b>" in texts
    assert "• Approve a command (run dbc9d8bd), waiting for 1 approval" in texts
    assert {"&Keep it running in the background", "S&top it"} <= set(texts)
    several = ClosingDialog(["a.flow.yaml", "b.flow.yaml"], [GATED, PLAIN], quitting=False)
    qtbot.addWidget(several)
    texts = _texts(several)
    assert "<b>Live runs</b>" in texts
    assert {"&Keep them running in the background", "S&top them", "&Save them"} <= set(texts)
