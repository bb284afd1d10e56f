"""Budgets in the window: node cards and the run toolbar show live usage and the share of
the budget used, and a run paused over budget shows a banner whose "Raise limit and
resume" sends SetBudget with the new limit, then resumes, and the run goes on."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest
from PySide6.QtWidgets import QWidget

from desktop.ui.canvas import status_badge
from desktop.ui.canvas.usage_meter import METER_H
from desktop.ui.run.notifier import focus
from desktop.views.budget_meter import NEAR_LIMIT, OK, OVER
from desktop.views.nudges import Nudge
from desktop.views.reader import LogTail

# The worker spends 150 tokens at once against a budget of 100, then works a while: the
# engine stops that turn and pauses the run; with the limit raised, the turn runs again
# (another 150) and ends.
OVER_BUDGET = """
version: 1
name: Budgeted
task: go
nodes:
  - {id: lead, label: Lead, provider: scripted, entry: true, position: {x: 0, y: 0}}
  - {id: worker, label: Worker, provider: scripted, position: {x: 320, y: 0}}
nodeConfigs:
  lead:
    script:
      - usage: {inputTokens: 30, outputTokens: 10}
      - handoff: {to: worker, message: "build it"}
  worker:
    budget: {maxTokens: 100}
    script:
      - usage: {inputTokens: 100, outputTokens: 50, costUsd: 0.03}
      - sleep: 2
      - say: built
      - done: true
edges:
  - {from: lead, to: worker}
"""


# A turn that works on with ten minutes to do it: its meter counts the time.
SLOW = """
version: 1
name: Timed
task: go
nodes:
  - {id: worker, label: Worker, provider: scripted, entry: true, position: {x: 0, y: 0}}
nodeConfigs:
  worker:
    budget: {maxWallSec: 600}
    script: [{hang: true}]
"""


@pytest.fixture
def open_flow(editor_window, tmp_path, service):
    def make(text: str):
        path = tmp_path / "budget.flow.yaml"
        path.write_text(text)
        assert editor_window.files.open_path(path)
        panels = editor_window.run_panels
        panels.data_dir = service.data_dir
        return panels
    yield make
    panels = editor_window.run_panels
    if panels.session is not None:
        asyncio.get_event_loop().run_until_complete(panels.session.close())
        panels.session = None


def node_id(panels, key: str) -> str:
    nodes = (panels.session.state or {}).get("nodes") or {}
    return next(i for i, n in nodes.items() if n.get("key") == key)


def status(panels) -> str:
    return (panels.session.state or {}).get("status", "")


def test_over_budget_pause_shows_meters_and_banner_and_raising_the_limit_goes_on(
        qloop, open_flow, until, monkeypatch) -> None:
    panels = open_flow(OVER_BUDGET)

    async def go() -> None:
        await panels.run()
        await until(lambda: not panels.budget.isHidden())

    qloop.run_until_complete(go())
    assert status(panels) == "paused"
    worker, lead = node_id(panels, "worker"), node_id(panels, "lead")

    # the cards: the worker is over its own budget, the lead (no budget) shows usage only
    card = panels.overlay.badges[worker]
    assert card.meter is not None and card.meter.level == OVER
    assert card.meter.text.startswith("150 tok · $0.03 · 1")  # 150 %
    assert panels.overlay.badges[lead].meter.text == "40 tok · cost unknown"
    assert panels.overlay.badges[lead].meter.level == OK
    assert card.boundingRect().bottom() >= card.node_bounds.bottom() + METER_H
    # the toolbar: the run's total (it has no budget of its own)
    assert panels.budgets.meter.text().strip() == "Usage: 190 tok · $0.03"
    # the banner names the node, the limit and the usage against it
    title = panels.budget.title.text()
    assert "Worker" in title and "tokens budget" in title
    assert "150 tokens of 100 tokens" in title
    # the notification's click lands on the banner's own way on
    nudged: list[QWidget] = []
    monkeypatch.setattr(panels.budget.raise_button, "setFocus", lambda: nudged.append(
        panels.budget.raise_button))
    focus(panels, Nudge("pauses", panels.session.run_id, "over budget", "", "paused"))
    assert nudged == [panels.budget.raise_button]

    dialog = panels.budget.raise_limit()
    assert dialog is not None and dialog.value.value() > 150
    dialog.value.setValue(1000)
    dialog.accept()

    async def goes_on() -> None:
        await until(lambda: status(panels) == "completed")

    qloop.run_until_complete(goes_on())
    assert panels.budget.isHidden()
    events = LogTail(panels.session.run_dir).read_new()
    paused = next(e["seq"] for e in events if e["type"] == "run.budget_exceeded")
    raised = [e for e in events if e["type"] == "node.patch" and e["seq"] > paused
              and (e.get("config") or {}).get("budget")]
    resumed = [e["seq"] for e in events if e["type"] == "run.resumed" and e["seq"] > paused]
    assert raised and raised[0]["config"]["budget"]["maxTokens"] == 1000
    assert raised[0].get("nodeId") == worker
    assert resumed and raised[0]["seq"] < resumed[0], "the limit first, then resume"
    assert panels.overlay.badges[worker].meter.level == OK
    assert panels.overlay.badges[worker].meter.text.startswith("300 tok · $0.06 · 30%")


def test_a_running_turns_meter_counts_its_time_without_new_events(
        qloop, open_flow, until, qtbot, monkeypatch) -> None:
    panels = open_flow(SLOW)

    async def go() -> None:
        await panels.run()
        await until(lambda: bool((panels.session.state or {}).get("runningTurns")))

    qloop.run_until_complete(go())
    worker = node_id(panels, "worker")
    started = datetime.fromisoformat(panels.session.state["runningTurns"][worker]["startedAt"])
    card = panels.overlay.badges[worker]
    monkeypatch.setattr(status_badge, "utc_now", lambda: started + timedelta(seconds=510))
    qtbot.waitUntil(lambda: card.meter is not None and card.meter.level == NEAR_LIMIT,
                    timeout=10000)
    assert card.meter.percent == 85 and card.meter.limit == "maxWallSec"
    assert status(panels) == "running", "the engine keeps its own clock"

    async def stop() -> None:
        await panels.stop()
        await until(lambda: status(panels) == "stopped")

    qloop.run_until_complete(stop())


RUN_TIMED = SLOW.replace("name: Timed\n", "name: Timed\nbudget: {maxWallSec: 600}\n").replace(
    "    budget: {maxWallSec: 600}\n", "")


def test_the_toolbar_meter_counts_a_run_time_limit_without_new_events(
        qloop, open_flow, until, qtbot, monkeypatch) -> None:
    panels = open_flow(RUN_TIMED)

    async def go() -> None:
        await panels.run()
        await until(lambda: bool((panels.session.state or {}).get("runningTurns")))

    qloop.run_until_complete(go())
    started = datetime.fromisoformat(panels.session.state["runningSince"])
    meter = panels.budgets.meter
    monkeypatch.setattr(status_badge, "utc_now", lambda: started + timedelta(seconds=510))
    qtbot.waitUntil(lambda: meter.meter is not None and meter.meter.level == NEAR_LIMIT,
                    timeout=10000)
    assert meter.meter.percent == 85 and "85% of the time budget" in meter.text()
    assert panels.budgets.clock.isActive()

    async def stop() -> None:
        await panels.stop()
        await until(lambda: status(panels) == "stopped")

    qloop.run_until_complete(stop())
    assert not panels.budgets.clock.isActive()  # nothing moves once it stopped
