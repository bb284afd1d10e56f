"""The budget meters as drawn from a run's projection: the toolbar's label and a card's
meter say the usage folded so far, never $0 for a cost nobody reported, and their level
only climbs as the run spends; the over-budget banner of the run's own budget."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter
from storekit import NODE_A, created, ev

from desktop.ui.canvas.status_badge import StatusBadge
from desktop.ui.canvas.usage_meter import LEVEL_COLORS
from desktop.ui.run.budget_banner import BudgetBanner
from desktop.ui.run.run_meter import RunMeter
from desktop.views.budget_meter import LEVELS, OK, node_meter
from desktop.views.state import RunProjection

SPEND = st.fixed_dictionaries({"inputTokens": st.integers(0, 50_000),
                               "outputTokens": st.integers(0, 50_000)},
                              optional={"costUsd": st.floats(0, 5, allow_nan=False)})


def run_with(node_budget: dict, run_budget: dict) -> RunProjection:
    start = {**created(budget=run_budget or None), "seq": 1}
    start["nodeConfigs"] = {**start["nodeConfigs"], NODE_A: {"budget": node_budget}}
    return RunProjection.of([start])


@pytest.fixture
def label(qtbot) -> RunMeter:
    """The toolbar's meter (one for all examples: each starts it from no run)."""
    meter = RunMeter()
    qtbot.addWidget(meter)
    return meter


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(SPEND, min_size=1, max_size=6), st.integers(1, 200_000),
       st.floats(0.01, 20, allow_nan=False))
def test_meters_follow_the_projection(label, spends, max_tokens, max_cost) -> None:
    projection = run_with({"maxTokens": max_tokens}, {"maxCostUsd": max_cost})
    label.set_state(None)
    assert label.text() == ""
    badge = StatusBadge(QRectF(0, 0, 184, 72))
    card_levels, run_levels = [], []
    costed = False
    for seq, spend in enumerate(spends, start=2):
        projection.apply([{**ev("telemetry.usage", nodeId=NODE_A, **spend), "seq": seq}])
        costed = costed or "costUsd" in spend
        state = projection.state
        label.set_state(state)
        badge.set_meter(node_meter(state, NODE_A))
        text = label.text()
        assert ("cost unknown" in text) == (not costed) and ("$" in text) == costed
        assert badge.meter is not None and ("cost unknown" in badge.meter.text) == (not costed)
        if not costed:
            assert "$0" not in badge.meter.text
        level = label.meter.level
        assert (LEVEL_COLORS[level] in label.styleSheet()) == (level != OK)
        card_levels.append(LEVELS.index(badge.meter.level))
        run_levels.append(LEVELS.index(level))
    assert card_levels == sorted(card_levels) and run_levels == sorted(run_levels)


def test_a_card_draws_its_meter_under_the_status(qtbot) -> None:
    projection = run_with({"maxTokens": 1000}, {})
    projection.apply([{**ev("telemetry.usage", nodeId=NODE_A, inputTokens=700,
                            outputTokens=150), "seq": 2}])
    badge = StatusBadge(QRectF(0, 0, 184, 72))
    badge.set_meter(node_meter(projection.state, NODE_A))
    assert badge.meter.text == "850 tok · cost unknown · 85%" and badge.meter.level == "near"
    image = QImage(260, 220, QImage.Format.Format_ARGB32)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    painter.translate(20, 20)
    badge.paint(painter, None)
    painter.end()
    below = badge.boundingRect().bottom()
    amber = [image.pixelColor(x, y).name() for x in range(20, 240)
             for y in range(20 + 72, int(20 + below))]
    assert LEVEL_COLORS["near"] in amber, "the bar is drawn in amber"


def test_the_banner_of_the_runs_own_budget_asks_for_its_new_limit(qtbot) -> None:
    banner = BudgetBanner()
    qtbot.addWidget(banner)
    paused = {"status": "paused", "nodes": {}, "budgetExceeded": {
        "limit": "maxCostUsd", "budget": 1.0, "used": 1.02}}
    banner.set_state(paused, live=True)
    assert not banner.isHidden()
    assert "the run reached its cost budget" in banner.title.text()
    assert "$1.02 of $1.00" in banner.title.text()
    asked = []
    banner.raiseRequested.connect(lambda *args: asked.append(args))
    dialog = banner.raise_limit()
    assert dialog is not None and dialog.value.value() >= 2.0
    dialog.value.setValue(3.5)
    dialog.accept()
    assert asked == [(None, "maxCostUsd", 3.5)]
    banner.set_state(paused, live=False)  # a replay says what happened, and acts on nothing
    assert not banner.raise_button.isEnabled() and not banner.stop_button.isEnabled()
    banner.set_state({**paused, "status": "running"})
    assert banner.isHidden()
