"""A tool call's card in the Conversation panel, when a person modified it before
approving: the command that ran, who modified it, and the agent's proposal when opened."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QUrl

from desktop.ui.run.conversation_view import ConversationView

sys.path.insert(0, str(Path(__file__).parents[2] / "views"))
from test_modified_call import HACKED, modified_run


def test_a_modified_call_reads_as_the_command_that_ran(qtbot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.reset(modified_run(HACKED))
    text = view.browser.toPlainText()
    assert "⚙ command echo hacked > build.txt · completed" in text
    assert "echo built" not in text  # closed: the proposal is not taken for what ran
    assert "Arguments modified by a person in the app" in text
    call = next(e for e in view.conversation.entries if e.kind == "tool")
    view.browser.anchorClicked.emit(QUrl(f"card:{call.seq}/tool"))
    text = view.browser.toPlainText()
    ran, proposed = text.index("cmd: echo hacked"), text.index("cmd: echo built")
    assert ran < text.index("Proposed by the agent") < proposed
