"""While a run waits for the user, the run toolbar's state says so, as the Approvals inbox
counts it, and stops saying so once decided."""

from __future__ import annotations

from run_flows import gated

from desktop.ui.run.run_controls import STATE_WIDTH
from desktop.views.run_waiting import WAITING


def test_the_toolbar_says_the_run_waits_for_you(qloop, editor_window, until, tmp_path,
                                                service):
    path = tmp_path / "gated.flow.yaml"
    path.write_text(gated("echo one", position=True))
    assert editor_window.files.open_path(path)
    panels = editor_window.run_panels
    panels.data_dir = service.data_dir
    label = panels.controls.status_label

    def shown() -> str:
        return f"{label.text()} {label.toolTip()}"

    async def until_approval():
        await panels.run()
        await until(lambda: len(panels.approvals.pending) == 1)
        await until(lambda: WAITING in shown())

    qloop.run_until_complete(until_approval())
    assert "1 approval" in shown() and "running" not in label.text()
    assert label.fontMetrics().horizontalAdvance(label.text()) <= STATE_WIDTH + 8

    async def approve():
        dialog = panels.approvals.open_next()
        assert dialog is not None
        dialog.approve()
        await until(lambda: not panels.approvals.pending)
        await until(lambda: WAITING not in shown())
        await until(lambda: (panels.session.state or {}).get("status") == "completed")

    qloop.run_until_complete(approve())
    assert "completed" in label.text()
    qloop.run_until_complete(panels.session.close())
    panels.session = None
