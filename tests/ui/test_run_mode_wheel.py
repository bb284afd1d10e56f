"""The run toolbar's mode switches ignore a wheel passing over them: scrolling must not
switch a live run between AUTO and INTERACTIVE, or IMPLEMENTATION and PLANNING."""

from __future__ import annotations

from wheel import wheel

from desktop.ui.run.run_controls import RunControls


def test_a_wheel_over_the_mode_switches_picks_nothing(qtbot) -> None:
    bar = RunControls()
    qtbot.addWidget(bar)
    bar.set_document_modes("AUTO", "IMPLEMENTATION")  # no run yet: the workflow's own
    bar.show()
    qtbot.waitExposed(bar)
    assert bar.mode.isEnabled() and bar.global_mode.isEnabled()
    picked: list[tuple] = []
    for signal in (bar.modeRequested, bar.globalModeRequested, bar.documentModesRequested):
        signal.connect(lambda *args: picked.append(args))
    for combo in (bar.mode, bar.global_mode):
        before = combo.currentText()
        wheel(combo, 1)
        assert combo.currentText() == before
    assert picked == []  # a focused one does take the wheel: tests/ui/test_inspector.py
