"""A tool call the user denied reads "denied" with the reason, live and when read back from
the log with the approval rows hidden, in the order things happened."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from run_flows import gated

from desktop.graph.io import loads_workflow
from desktop.ui.run.transcript_model import TranscriptModel
from desktop.ui.run.transcript_view import TranscriptView

GATED = gated("echo one")


def _lines(model) -> list[tuple[str, str]]:
    out = []
    for r in range(model.rowCount()):
        event = model.event_at(r)
        out.append((event["type"], model.data(model.index(r), Qt.ItemDataRole.DisplayRole)))
    return out


def test_a_denied_call_reads_denied_with_the_reason(qloop, window_for, until, qtbot):
    _window, panels = window_for(loads_workflow(GATED))

    async def go():
        await panels.run()
        await until(lambda: len(panels.approvals.pending) == 1)
        dialog = panels.approvals.open_next()
        dialog.reason.setText("not on this machine")
        dialog.deny()
        await until(lambda: (panels.session.state or {}).get("status") == "completed")
        await until(lambda: any(t == "tool.completed" for t, _ in _lines(
            panels.session.model)))

    qloop.run_until_complete(go())
    live = _lines(panels.session.model)
    kinds = [k for k, _ in live]
    proposed = kinds.index("tool.proposed")
    assert kinds.index("approval.requested") == proposed + 1  # in the order it happened
    assert kinds.index("approval.resolved") < kinds.index("tool.completed")
    assert live[proposed][1].endswith("· denied: not on this machine")
    assert dict(live)["tool.completed"] == "⊘ command denied: not on this machine"

    # read back from the log, approvals hidden, rows painted top first
    view = TranscriptView(TranscriptModel.open_file(panels.session.run_dir / "events.jsonl"))
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: not view.model.indexing)
    view.set_category("approvals", False)
    # reading a row may teach a row above it more, which it is told by a queued call:
    # read them all, let the calls queued so far run, then read what is shown
    _lines(view.model)
    ran: list[bool] = []
    QTimer.singleShot(0, lambda: ran.append(True))
    qtbot.waitUntil(lambda: bool(ran), timeout=5000)
    read_back = _lines(view.model)
    assert [k for k, _ in read_back] == [k for k in kinds if not k.startswith("approval")]
    texts = dict(read_back)
    assert texts["tool.proposed"].endswith("· denied: not on this machine")
    assert texts["tool.completed"] == "⊘ command denied: not on this machine"
    assert not any("failed" in text for _, text in read_back)
    view.model.close()
