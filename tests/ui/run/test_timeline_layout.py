"""The replay scrubber opens wide enough to drag, and its label does not make it jump."""

from __future__ import annotations

from desktop.graph.resources import examples_dir

SINGLE = examples_dir() / "single-agent.flow.yaml"


def test_the_scrubber_is_wide_and_keeps_its_width_while_scrubbing(example_window, past_run,
                                                                   qtbot):
    run_dir = past_run(SINGLE, "single")
    panels = example_window.run_panels
    panels.replay(run_dir)
    timeline = panels.timeline
    qtbot.waitUntil(lambda: timeline.isVisible() and timeline.slider.width() > 0)
    assert timeline.slider.width() >= 240  # a slider, not a checkbox
    assert panels.docks["timeline"].width() >= example_window.width() // 2
    widths, texts = set(), set()
    for seq in (1, 2, timeline.replay.total // 2, timeline.replay.total):
        timeline.seek(seq)
        qtbot.wait(1)
        widths.add((timeline.slider.width(), timeline.label.width()))
        texts.add(timeline.label.text())
    assert len(texts) == 4  # the label did change...
    assert len(widths) == 1  # ...and nothing moved
    panels.stop_replay()
    if panels.session is not None:
        import asyncio

        asyncio.run(panels.session.close())
        panels.session = None
